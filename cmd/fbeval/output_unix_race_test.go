//go:build unix

package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTempFileSwapped: another process in the output's folder that moves the
// temporary file away while it is written and puts a link to a file of this
// user's in its place neither changes that file's mode (it was chmod'ed by
// name, following the link: a private file made 0644) nor gets the link put
// where the output goes (the next run would write through it): the output is
// refused, nothing written.
func TestTempFileSwapped(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "secret")
	os.WriteFile(victim, []byte("PRIVATE"), 0o600)
	out := filepath.Join(t.TempDir(), "out.json")
	err := writeFileAtomic(&Env{}, out, func(w *bufio.Writer) error {
		tmp, _ := filepath.Glob(filepath.Join(filepath.Dir(out), ".fbeval-*.tmp"))
		if len(tmp) != 1 {
			t.Fatalf("temporary files %v", tmp)
		}
		os.Rename(tmp[0], filepath.Join(dir, "taken"))
		os.Symlink(victim, tmp[0])
		_, err := w.WriteString("{}\n")
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "was moved or replaced while it was written") {
		t.Errorf("err %v", err)
	}
	if st, _ := os.Stat(victim); st.Mode().Perm() != 0o600 {
		t.Errorf("the linked file's mode is %v", st.Mode().Perm())
	}
	if _, err := os.Lstat(out); !os.IsNotExist(err) {
		t.Errorf("the output is there: %v", err)
	}
	if data, _ := os.ReadFile(victim); string(data) != "PRIVATE" {
		t.Errorf("the linked file was written: %q", data)
	}
}
