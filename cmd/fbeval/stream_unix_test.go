//go:build unix

package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOutputToStreams: an output that names a stream is written as it goes, as
// standard output is: a FIFO, a process substitution's /dev/fd/N (a pipe the
// command holds), /dev/stdout. They were refused ("a symbolic link that leads
// nowhere ... remove it"), or waited for ever on reading the pipe for the kind
// of file it held. -o /dev/stdin, standard input's pipe, is refused.
func TestOutputToStreams(t *testing.T) {
	bin := fbevalBin(t)
	want, err := exec.Command(bin, "export", "toolcall-quick").Output()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()

	// a FIFO, read by another process
	fifo := filepath.Join(dir, "requests.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	got := make(chan []byte)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- nil
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- b
	}()
	if out, err := exec.Command(bin, "export", "toolcall-quick", "-o", fifo).CombinedOutput(); err != nil {
		t.Fatalf("-o FIFO: %v: %s", err, out)
	}
	if b := <-got; !bytes.Equal(b, want) {
		t.Errorf("-o FIFO: %d bytes, want %d", len(b), len(want))
	}

	// a pipe the command holds as fd 3, named /dev/fd/3 (bash's >(...))
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "export", "toolcall-quick", "-o", "/dev/fd/3")
	cmd.ExtraFiles = []*os.File{w}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	b, _ := io.ReadAll(r)
	if err := cmd.Wait(); err != nil || !bytes.Equal(b, want) {
		t.Errorf("-o /dev/fd/3: %v, %d bytes, want %d: %s", err, len(b), len(want), errb.String())
	}

	// /dev/stdout, a pipe here, and a file that >> opened: its bytes stay
	for _, flag := range []string{"/dev/stdout", "/proc/self/fd/1"} {
		out, err := exec.Command(bin, "export", "toolcall-quick", "-o", flag).Output()
		if err != nil || !bytes.Equal(out, want) {
			t.Errorf("-o %s: %v, %d bytes", flag, err, len(out))
		}
	}
	log := filepath.Join(dir, "log")
	os.WriteFile(log, []byte("before\n"), 0o644)
	lf, _ := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
	cmd = exec.Command(bin, "export", "toolcall-quick", "-o", "/dev/stdout")
	cmd.Stdout = lf
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	lf.Close()
	if b, _ := os.ReadFile(log); !bytes.Equal(b, append([]byte("before\n"), want...)) {
		t.Errorf("-o /dev/stdout >> log: the log holds %d bytes, want %d", len(b), 7+len(want))
	}

	// standard input's pipe as the output: refused before a byte is read
	cmd = exec.Command(bin, "score", "toolcall-quick", "--responses", "-", "-o", "/dev/stdin")
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.Contains(string(out), "/dev/stdin: is standard input's pipe") {
		t.Errorf("-o /dev/stdin: exit %d (%v): %s", code, err, out)
	}
}

// TestSummaryWhenOutputFails: standard output on a full disk is exit 2 with
// the write's one line, after the score's summary line, in both suites (a
// toolcall score said the write's line alone).
func TestSummaryWhenOutputFails(t *testing.T) {
	bin := fbevalBin(t)
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full here:", err)
	}
	defer full.Close()
	for _, args := range [][]string{
		{"score", "toolcall-quick", "--responses", "/dev/null"},
		{"score", "coglang", "--reference-answers"},
	} {
		cmd := exec.Command(bin, args...)
		cmd.Stdout = full
		var errb bytes.Buffer
		cmd.Stderr = &errb
		cmd.Run()
		lines := strings.Split(strings.TrimSpace(errb.String()), "\n")
		last := lines[len(lines)-1]
		if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.Contains(last, "cannot write standard output: no space left on device") || len(lines) < 2 || !strings.HasSuffix(lines[len(lines)-2], "not ok") {
			t.Errorf("%q: exit %d, stderr %s", args, code, errb.String())
		}
	}
}

// TestReadOnlyOutputKept: an output over a file this user cannot write (made
// read-only to keep it) is refused, as the shell's > refuses it, where the
// rename replaced it. Run as root, the command runs as nobody.
func TestReadOnlyOutputKept(t *testing.T) {
	bin := fbevalBin(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "kept.json")
	if err := os.WriteFile(out, []byte("{}\n"), 0o444); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "export", "toolcall-quick", "-o", out)
	if os.Geteuid() == 0 {
		// root writes any file: the command runs as nobody, from a copy of
		// the binary in a folder nobody can reach
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(exe)
		if err != nil {
			t.Fatal(err)
		}
		bin = filepath.Join(dir, "fbeval")
		if err := os.WriteFile(bin, data, 0o755); err != nil {
			t.Fatal(err)
		}
		os.Chmod(dir, 0o777)
		os.Chmod(filepath.Dir(dir), 0o755)
		cmd = exec.Command(bin, "export", "toolcall-quick", "-o", out)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	got, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.Contains(string(got), out+": this user cannot write it") {
		t.Errorf("exit %d (%v): %s", code, err, got)
	}
	if b, _ := os.ReadFile(out); string(b) != "{}\n" {
		t.Errorf("the file was replaced: %.80s", b)
	}
}

// TestOutputToDescriptors: an output named by a descriptor that holds a file
// the shell opened (-o /dev/fd/3 3>>log, -o /dev/stderr 2>>log) is written
// through the descriptor, appended where it was opened to append: followed to
// the file and renamed over, the log lost its lines. A descriptor not open, or
// open for reading only, or holding an input, is refused.
func TestOutputToDescriptors(t *testing.T) {
	bin := fbevalBin(t)
	want, err := exec.Command(bin, "export", "toolcall-quick").Output()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	before := []byte("before\n")
	open := func(name string, flag int) *os.File {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, before, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(path, flag, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	run := func(fd3 *os.File, stderr *os.File, args ...string) (int, string) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		if fd3 != nil {
			cmd.ExtraFiles = []*os.File{fd3}
		}
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if stderr != nil {
			cmd.Stderr = stderr
		}
		cmd.Run()
		return cmd.ProcessState.ExitCode(), errb.String()
	}
	for _, c := range []struct {
		flag, out string
		fd        int
		mode      int
		want      []byte
	}{
		{"-o", "/dev/fd/3", 3, os.O_WRONLY | os.O_APPEND, append(before, want...)},
		{"-o", "/proc/self/fd/3", 3, os.O_WRONLY | os.O_APPEND, append(before, want...)},
		{"-o", "/dev/fd/3", 3, os.O_WRONLY | os.O_TRUNC, want},
		{"-o", "/dev/stderr", 2, os.O_WRONLY | os.O_APPEND, append(before, want...)},
	} {
		f := open("log", c.mode)
		var code int
		var stderr string
		if c.fd == 3 {
			code, stderr = run(f, nil, "export", "toolcall-quick", c.flag, c.out)
		} else {
			code, stderr = run(nil, f, "export", "toolcall-quick", c.flag, c.out)
		}
		if b, _ := os.ReadFile(f.Name()); code != 0 || !bytes.Equal(b, c.want) {
			t.Errorf("%s %s (flags %#x): exit %d, %s; the file holds %d bytes, want %d", c.flag, c.out, c.mode, code, stderr, len(b), len(c.want))
		}
	}

	// 3<>FILE, opened to write over, not to append: the output ends the file
	// (a longer report's tail followed it), and a file fbeval cannot write
	// again is refused as by its path
	over := open("over", os.O_RDWR)
	if err := os.WriteFile(over.Name(), bytes.Repeat([]byte("x"), 2*len(want)), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stderr := run(over, nil, "export", "toolcall-quick", "-o", "/dev/fd/3"); code != 0 {
		t.Errorf("-o /dev/fd/3 3<>FILE: exit %d, %s", code, stderr)
	}
	if b, _ := os.ReadFile(over.Name()); !bytes.Equal(b, want) {
		t.Errorf("-o /dev/fd/3 3<>FILE: the file holds %d bytes, want %d", len(b), len(want))
	}
	kept := open("kept.jsonl", os.O_RDWR)
	record := []byte(`{"schema_version":"fbeval-response/v1","request_id":"flights-000.no_schema.r1.a1","output":"x"}` + "\n")
	if err := os.WriteFile(kept.Name(), record, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stderr := run(kept, nil, "export", "toolcall-quick", "-o", "/dev/fd/3"); code != 2 || stderr != "fbeval: /dev/fd/3: holds a response file (fbeval-response/v1), which this output would write over and fbeval cannot write again: name another output\n" {
		t.Errorf("-o /dev/fd/3 3<>responses: exit %d, %s", code, stderr)
	}
	if b, _ := os.ReadFile(kept.Name()); !bytes.Equal(b, record) {
		t.Errorf("-o /dev/fd/3 3<>responses: the file holds %q", b)
	}
	// a link to the descriptor is the descriptor
	link := filepath.Join(dir, "link")
	if err := os.Symlink("/dev/fd/3", link); err != nil {
		t.Fatal(err)
	}
	lf := open("linked", os.O_WRONLY|os.O_APPEND)
	if code, stderr := run(lf, nil, "export", "toolcall-quick", "-o", link); code != 0 {
		t.Errorf("-o LINK: exit %d, %s", code, stderr)
	}
	if b, _ := os.ReadFile(lf.Name()); !bytes.Equal(b, append(before, want...)) {
		t.Errorf("-o LINK (to /dev/fd/3) 3>>FILE: the file holds %d bytes, want %d", len(b), len(before)+len(want))
	}

	prof := open("cpu.prof", os.O_WRONLY|os.O_APPEND)
	responses := filepath.Join(dir, "r.jsonl")
	if err := os.WriteFile(responses, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stderr := run(prof, nil, "score", "toolcall-quick", "--responses", responses, "-o", os.DevNull, "--profile", "/dev/fd/3"); code != 1 {
		t.Errorf("--profile /dev/fd/3: exit %d, %s", code, stderr)
	}
	if b, _ := os.ReadFile(prof.Name()); !bytes.HasPrefix(b, before) || len(b) == len(before) {
		t.Errorf("--profile /dev/fd/3 3>>cpu.prof: the file holds %q...", b[:min(len(b), 20)])
	}

	for _, c := range []struct {
		fd3  *os.File
		args []string
		msg  string
	}{
		{nil, []string{"export", "toolcall-quick", "-o", "/dev/fd/7"}, "fbeval: -o /dev/fd/7: descriptor 7 is not open: open it for writing in the shell (7>FILE, 7>>FILE to append), or name a file\n"},
		{open("read", os.O_RDONLY), []string{"export", "toolcall-quick", "-o", "/dev/fd/3"}, "fbeval: -o /dev/fd/3: descriptor 3 is open for reading only: open it for writing in the shell (3>FILE, 3>>FILE to append), or name a file\n"},
		{func() *os.File { f, _ := os.OpenFile(responses, os.O_WRONLY|os.O_APPEND, 0); return f }(), []string{"score", "toolcall-quick", "--responses", responses, "--cases-out", "/dev/fd/3"}, "fbeval: /dev/fd/3: is the input " + responses + ": write the output to another file\n"},
	} {
		if code, stderr := run(c.fd3, nil, c.args...); code != 2 || stderr != c.msg {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and %q", c.args, code, stderr, c.msg)
		}
	}
	if b, _ := os.ReadFile(responses); len(b) != 0 {
		t.Errorf("the responses an output named by a descriptor was refused over hold %q", b)
	}
}
