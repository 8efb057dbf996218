//go:build unix

package main

import (
	"os"
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
