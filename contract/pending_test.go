package contract

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestNoRenameAfterSignal: once a signal's handler has removed the temporary
// files (RemoveAll), no output is renamed into place and none is said to be
// tampered with: the writer waits for the process's end by the signal (a
// Ctrl-C during the last step said "moved or replaced ... by another
// process", exit 2, or replaced the report beside the old case results).
// Without a signal, a rename is one, and Discard removes the file.
func TestNoRenameAfterSignal(t *testing.T) {
	dir := t.TempDir()
	set := NewPending()
	tmp, target := filepath.Join(dir, ".out.tmp"), filepath.Join(dir, "out.json")
	if err := os.WriteFile(tmp, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	set.Add(tmp)
	set.RemoveAll()
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("the temporary file is still there: %v", err)
	}
	done := make(chan struct{}, 2)
	go func() {
		set.Rename(tmp, target)
		done <- struct{}{}
	}()
	go func() {
		set.WaitIfStopping()
		done <- struct{}{}
	}()
	select {
	case <-done:
		t.Fatal("a rename or a check went on after the signal")
	case <-time.After(200 * time.Millisecond):
	}
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Errorf("the output was renamed into place after the signal: %v", err)
	}
	other := NewPending()
	if err := os.WriteFile(tmp, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	other.Add(tmp)
	if err := other.Rename(tmp, target); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(target); err != nil {
		t.Error(err)
	}
	os.WriteFile(tmp, nil, 0o644)
	other.Add(tmp)
	other.Discard(tmp)
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("Discard left the file: %v", err)
	}
}
