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

// TestCreateBeside: a new file gets perm less the umask (fixtures build's
// 0644, where 0666 gave 0664 under umask 002); an existing file's mode is
// kept; a symbolic link at the name is not looked at (its target, another's,
// may be unwritable: the rename replaces the link alone).
func TestCreateBeside(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.json")
	f, err := CreateBeside(p, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if st, _ := os.Stat(f.Name()); st.Mode().Perm()&^0o644 != 0 {
		t.Errorf("a new file's mode %v, more than 0644", st.Mode())
	}
	os.WriteFile(p, nil, 0o600)
	os.Chmod(p, 0o600)
	g, err := CreateBeside(p, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	g.Close()
	if st, _ := os.Stat(g.Name()); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the replaced file's 0600", st.Mode())
	}
	target := filepath.Join(dir, "target.json")
	os.WriteFile(target, nil, 0o444)
	os.Chmod(target, 0o444)
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	h, err := CreateBeside(link, 0o644, nil)
	if err != nil {
		t.Fatalf("a link to a file this user cannot write: %v", err)
	}
	h.Close()
}
