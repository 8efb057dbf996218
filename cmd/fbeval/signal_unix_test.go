//go:build unix

package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestSignalEndsTheProcessAsTheSignal: fbeval killed by SIGTERM or SIGINT
// while it reads ends as the signal ends a process (the shell's 143 or 130),
// where it most times ended with exit 2: the signal raised again came after
// the exit that followed it.
func TestSignalEndsTheProcessAsTheSignal(t *testing.T) {
	bin, dir, fifo := fbevalAndFIFO(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		for range 3 {
			cmd := exec.Command(bin, "score", "toolcall-quick", "--responses", fifo, "-o", filepath.Join(dir, "r.json"))
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(200 * time.Millisecond) // it waits on the FIFO
			cmd.Process.Signal(sig)
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("%v: %v", sig, err)
			}
			if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != sig {
				t.Errorf("%v: ended %v, want by the signal", sig, ee)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "r.json")); err == nil {
		t.Error("an output was written")
	}
}

// TestClosedPipeEndsBySIGPIPE: a reader that stops taking the output (| head)
// ends fbeval by SIGPIPE, as it ends grep and jq: never a 0 that a pipeline
// under pipefail would take for a pass (README, "Exit codes").
func TestClosedPipeEndsBySIGPIPE(t *testing.T) {
	bin := fbevalBin(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // the reader has gone
	cmd := exec.Command(bin, "export", "toolcall", "--repeats", "3")
	cmd.Stdout = w
	err = cmd.Run()
	w.Close()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("ended %v, want by SIGPIPE", err)
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGPIPE {
		t.Errorf("ended %v, want by SIGPIPE", ee)
	}
}

// TestIgnoredSignalsStayIgnored: a signal fbeval was started ignoring (SIGHUP
// under nohup, SIGINT in a script's background job) ends nothing: the score
// goes on and writes its output. It ended with exit 2, no output and no word.
func TestIgnoredSignalsStayIgnored(t *testing.T) {
	bin, dir, fifo := fbevalAndFIFO(t)
	out := filepath.Join(dir, "r.json")
	// the shell's trap '' ignores the signals, and exec keeps them ignored
	cmd := exec.Command("sh", "-c", `trap '' HUP INT; exec "$0" score toolcall-quick --responses "$1" -o "$2"`, bin, fifo, out)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // it waits on the FIFO
	cmd.Process.Signal(syscall.SIGHUP)
	cmd.Process.Signal(syscall.SIGINT)
	time.Sleep(1500 * time.Millisecond) // a caught signal ended it within a second
	// not blocking: with no reader left (a signal ended it) the open fails
	w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
	if err == nil {
		w.Close() // no records: every row missing, exit 1
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("ended %v, want exit 1 (rows without a response)", err)
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("no output: %v", err)
	}
}

// fbevalAndFIFO returns the fbeval command of the test binary, a folder for
// the test and a FIFO in it named responses.jsonl, from which a command reading
// it waits for a writer; the test is skipped where there is none.
func fbevalAndFIFO(t *testing.T) (bin, dir, fifo string) {
	t.Helper()
	bin = fbevalBin(t)
	dir = t.TempDir()
	fifo = filepath.Join(dir, "responses.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	return bin, dir, fifo
}

// fbevalBin returns the fbeval command of the test binary (testscript puts it
// on PATH), or skips the test where it is not.
func fbevalBin(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("fbeval")
	if err != nil {
		t.Skip("the fbeval command of the test binary is not on PATH:", err)
	}
	return bin
}
