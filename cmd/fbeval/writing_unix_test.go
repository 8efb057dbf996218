//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/contract"
)

// TestScoreWhileARunnerWrites: responses a runner is still writing (it holds
// the file's lock, contract.LockOutput) are scored as far as they go, and a
// warning says why rows are missing; once the runner has ended, nothing is said.
func TestScoreWhileARunnerWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(goodToolcallLines(t), "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !contract.LockOutput(f) {
		t.Fatal("no lock")
	}
	args := append(append([]string(nil), smallToolcall...), "--responses", path, "--format", "text")
	want := "fbeval: " + path + ": a runner is still writing it (it holds the file's lock): what is read is what it has written so far\n"
	if _, _, stderr := runMain(t, nil, args...); !strings.HasPrefix(stderr, want) {
		t.Errorf("while locked: stderr %q, want it to begin %q", stderr, want)
	}
	f.Close()
	if _, _, stderr := runMain(t, nil, args...); strings.Contains(stderr, "still writing") {
		t.Errorf("after the runner: %q", stderr)
	}
}

// TestOutputModeFollowsUmask: an output fbeval creates has the mode the
// shell's > would give it (0666 less the umask): a fixed 0644 made reports
// readable to all under umask 077. A file replaced keeps its own mode.
func TestOutputModeFollowsUmask(t *testing.T) {
	if _, err := exec.LookPath("fbeval"); err != nil {
		t.Skip("the fbeval command of the test binary is not on PATH:", err)
	}
	dir := t.TempDir()
	for _, tt := range []struct {
		umask string
		want  os.FileMode
	}{{"077", 0o600}, {"002", 0o664}, {"022", 0o644}} {
		out := filepath.Join(dir, "r"+tt.umask+".json")
		cmd := exec.Command("sh", "-c", "umask "+tt.umask+" && fbeval export toolcall-quick -o "+out+" --format json")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, b)
		}
		st, err := os.Stat(out)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.Mode().Perm(); got != tt.want {
			t.Errorf("umask %s: mode %v, want %v", tt.umask, got, tt.want)
		}
	}
	kept := filepath.Join(dir, "r077.json")
	if err := os.Chmod(kept, 0o640); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command("fbeval", "export", "toolcall-quick", "-o", kept).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if st, _ := os.Stat(kept); st.Mode().Perm() != 0o640 {
		t.Errorf("replaced: mode %v, want 0640 kept", st.Mode().Perm())
	}
}
