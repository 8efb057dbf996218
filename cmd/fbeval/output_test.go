package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOutputTargets: -o and --cases-out write only regular files (or stdout): a
// device, a FIFO, a directory or an input of the run is refused with one line and
// left alone; a symbolic link is written through to its target; an existing file
// keeps its mode.
func TestOutputTargets(t *testing.T) {
	dir := t.TempDir()
	responses := filepath.Join(dir, "r.jsonl")
	if err := os.WriteFile(responses, []byte(strings.Join(goodToolcallLines(t), "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	score := append(append([]string(nil), smallToolcall...), "--responses", responses)
	for _, tt := range []struct {
		name, out, want string
	}{
		{"device", "/dev/null", "fbeval: /dev/null: not a regular file (a character device): write to a regular file, or leave out the output flag for standard output\n"},
		{"fifo", fifo, "fbeval: " + fifo + ": not a regular file (a FIFO): write to a regular file, or leave out the output flag for standard output\n"},
		{"directory", dir, "fbeval: " + dir + ": not a regular file (a directory): write to a regular file, or leave out the output flag for standard output\n"},
		{"the input", responses, "fbeval: " + responses + ": is the input " + responses + ": write the output to another file\n"},
	} {
		for _, flag := range []string{"-o", "--cases-out"} {
			t.Run(tt.name+" "+flag, func(t *testing.T) {
				code, _, stderr := runMain(t, nil, append(score, flag, tt.out)...)
				if code != 2 || stderr != tt.want {
					t.Errorf("exit %d, stderr %q, want 2 and %q", code, stderr, tt.want)
				}
			})
		}
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", st.Mode(), err)
	}
	if data, _ := os.ReadFile(responses); !strings.HasPrefix(string(data), `{"schema_version":"fbeval-response/v1"`) {
		t.Errorf("the responses were overwritten: %.100s", data)
	}
	// the input reached through a symbolic link is the input too
	link := filepath.Join(dir, "link-to-input")
	os.Symlink(responses, link)
	if code, _, stderr := runMain(t, nil, append(score, "-o", link)...); code != 2 || !strings.Contains(stderr, "is the input") {
		t.Errorf("a link to the input: exit %d, %q", code, stderr)
	}

	t.Run("symlink and mode", func(t *testing.T) {
		target := filepath.Join(dir, "report.json")
		if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
		link := filepath.Join(dir, "report-link.json")
		if err := os.Symlink("report.json", link); err != nil {
			t.Fatal(err)
		}
		if code, _, stderr := runMain(t, nil, append(score, "-o", link)...); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Errorf("the link was replaced")
		}
		st, err := os.Stat(target)
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("target mode %v (%v), want 0600", st.Mode(), err)
		}
		if data, _ := os.ReadFile(target); !strings.Contains(string(data), `"schema_version": "fbeval-report/v1"`) {
			t.Errorf("the report was not written through the link: %.100s", data)
		}
		leftovers, _ := filepath.Glob(filepath.Join(dir, ".fbeval-*.tmp"))
		if len(leftovers) > 0 {
			t.Errorf("temporary files left: %v", leftovers)
		}
	})
}

// TestTempFileRemovedOnSignal: while an output is written its temporary file is
// registered, and what the signal handler runs removes it.
func TestTempFileRemovedOnSignal(t *testing.T) {
	dir := t.TempDir()
	env := &Env{}
	var tmp []string
	err := writeFileAtomic(env, filepath.Join(dir, "out.json"), func(w *bufio.Writer) error {
		tmp, _ = filepath.Glob(filepath.Join(dir, ".fbeval-*.tmp"))
		if len(tmp) != 1 {
			t.Fatalf("temporary files %v", tmp)
		}
		tempFiles.removeAll() // what SIGINT, SIGTERM and SIGHUP run
		if _, err := os.Stat(tmp[0]); !os.IsNotExist(err) {
			t.Errorf("the temporary file is still there: %v", err)
		}
		return &exitError{code: 2}
	})
	if err == nil {
		t.Fatal("want the write's error")
	}
	if _, err := os.Stat(filepath.Join(dir, "out.json")); !os.IsNotExist(err) {
		t.Errorf("a failed write left the output: %v", err)
	}
}
