package contract

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// TempFile is a temporary file in os.TempDir (TMPDIR) that fbeval writes and
// reads back within one run: a copy of standard input, scoring details, the
// scored cases. It is removed from its directory as soon as it is made, where
// the system allows that (so nothing is left behind however the process ends),
// and otherwise when it is closed (Windows keeps the name of an open file).
// Its writes fail with one line that says what the file held, in which
// directory, and, when that directory is full, what to set.
type TempFile struct {
	*os.File
	what string // what it holds, for the one line an error gives
	dir  string // the directory it was made in
	name string // still to remove on Close: the system did not let it go at once
}

// CreateTemp makes a TempFile named from pattern (as os.CreateTemp takes it);
// what says what it holds, in the one line an error gives.
func CreateTemp(pattern, what string) (*TempFile, error) {
	f, err := os.CreateTemp("", pattern)
	if err != nil {
		return nil, fmt.Errorf("cannot make a temporary file for %s: %v (set TMPDIR to a writable directory)", what, err)
	}
	t := &TempFile{File: f, what: what, dir: filepath.Dir(f.Name())}
	if os.Remove(f.Name()) != nil {
		t.name = f.Name()
	}
	return t, nil
}

// Write writes p at the file's end (as os.File's Write).
func (t *TempFile) Write(p []byte) (int, error) {
	n, err := t.File.Write(p)
	return n, t.writeError(err)
}

// WriteString writes s at the file's end (as os.File's WriteString).
func (t *TempFile) WriteString(s string) (int, error) {
	n, err := t.File.WriteString(s)
	return n, t.writeError(err)
}

// WriteAt writes p at offset off (as os.File's WriteAt).
func (t *TempFile) WriteAt(p []byte, off int64) (int, error) {
	n, err := t.File.WriteAt(p, off)
	return n, t.writeError(err)
}

// ReadFrom copies r to the file's end through Write, so its errors are
// Write's (os.File's own ReadFrom, promoted, would give the system's).
func (t *TempFile) ReadFrom(r io.Reader) (int64, error) {
	return io.Copy(struct{ io.Writer }{t}, r)
}

// Truncate sets the file's size (as os.File's Truncate).
func (t *TempFile) Truncate(size int64) error {
	return t.writeError(t.File.Truncate(size))
}

// writeError makes err, from writing the file, the one line a user reads: the
// system's reason without the name of a file already gone from its directory,
// and where the directory is full or over its quota, what to set.
func (t *TempFile) writeError(err error) error {
	if err == nil {
		return nil
	}
	msg := fmt.Sprintf("cannot write the temporary file of %s in %s: %v", t.what, t.dir, Reason(err))
	switch {
	case DiskFull(err):
		msg += ": set TMPDIR to a directory with more room (docs/security.md says what fbeval keeps there)"
	case TooLarge(err):
		msg += ": " + SizeLimitAdvice
	}
	return &TempWriteError{Msg: msg, Err: err}
}

// TempWriteError is a failed write of a TempFile.
type TempWriteError struct {
	Msg string
	Err error
}

func (e *TempWriteError) Error() string { return e.Msg }
func (e *TempWriteError) Unwrap() error { return e.Err }

// Close closes the file and removes it if it still has a name.
func (t *TempFile) Close() error {
	err := t.File.Close()
	if t.name != "" {
		os.Remove(t.name)
		t.name = ""
	}
	return err
}
