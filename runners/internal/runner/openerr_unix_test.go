//go:build unix

package runner

import (
	"io/fs"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOpenOutputErrorReadOnly: an output on a file system mounted read-only
// says what to do, as one the user may not write does (it gave the system's
// words alone).
func TestOpenOutputErrorReadOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	err := openOutputError(path, &fs.PathError{Op: "open", Path: path, Err: syscall.EROFS})
	if want := "-o " + path + ": cannot open it for writing (read-only file system): name an output on a file system this user can write"; err.Error() != want {
		t.Errorf("%v, want %q", err, want)
	}
}
