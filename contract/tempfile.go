package contract

import (
	"fmt"
	"os"
)

// TempFile is a temporary file in os.TempDir (TMPDIR) that fbeval writes and
// reads back within one run: a copy of standard input, scoring details, the
// scored cases. It is removed from its directory as soon as it is made, where
// the system allows that (so nothing is left behind however the process ends),
// and otherwise when it is closed (Windows keeps the name of an open file).
type TempFile struct {
	*os.File
	name string // still to remove on Close: the system did not let it go at once
}

// CreateTemp makes a TempFile named from pattern (as os.CreateTemp takes it);
// what says what it holds, in the one line an error gives.
func CreateTemp(pattern, what string) (*TempFile, error) {
	f, err := os.CreateTemp("", pattern)
	if err != nil {
		return nil, fmt.Errorf("cannot make a temporary file for %s: %v (set TMPDIR to a writable directory)", what, err)
	}
	t := &TempFile{File: f}
	if os.Remove(f.Name()) != nil {
		t.name = f.Name()
	}
	return t, nil
}

// Close closes the file and removes it if it still has a name.
func (t *TempFile) Close() error {
	err := t.File.Close()
	if t.name != "" {
		os.Remove(t.name)
		t.name = ""
	}
	return err
}
