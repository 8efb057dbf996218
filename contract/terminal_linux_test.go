package contract

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/contract/ptytest"
)

// Standard input left to a terminal is refused where a file is read, at once,
// instead of waiting for typing; a pipe and a file are read.
func TestNotTerminal(t *testing.T) {
	tty := ptytest.Open(t)
	err := NotTerminal("<stdin>", tty)
	var ie *InputError
	if !errors.As(err, &ie) || !errors.Is(err, ErrUsage) || err.Error() != "<stdin>: standard input is a terminal, not a file: name the file, or pipe it in" {
		t.Fatalf("a terminal: %v", err)
	}
	if _, err := NewSpool("-", tty); err == nil || !strings.Contains(err.Error(), "standard input is a terminal") {
		t.Errorf("NewSpool of a terminal: %v", err)
	}
	if _, _, _, err := OpenInput("-", "requests", tty); err == nil || err.Error() != "<stdin>: standard input is a terminal, not a file: name the file, or pipe it in" {
		t.Errorf("OpenInput(\"-\") from a terminal: %v", err)
	}
	saved := os.Stdin
	os.Stdin = tty
	_, _, err = OpenFile("-")
	os.Stdin = saved
	if err == nil || !strings.Contains(err.Error(), "standard input is a terminal") {
		t.Errorf("OpenFile(\"-\") from a terminal: %v", err)
	}

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for name, in := range map[string]*os.File{"a pipe": r, "a file": f} {
		if err := NotTerminal("-", in); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := NotTerminal("-", strings.NewReader("")); err != nil {
		t.Errorf("a reader: %v", err)
	}
}

// OpenInput gives stdin itself for "-", named <stdin>, a file by its path,
// and says what could not be read when a file cannot be opened.
func TestOpenInput(t *testing.T) {
	in := strings.NewReader("x")
	r, name, done, err := OpenInput("-", "requests", in)
	if err != nil || r != in || name != StdinName || done == nil {
		t.Fatalf(`OpenInput("-"): %v %q %v`, r, name, err)
	}
	done()
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, name, done, err = OpenInput(path, "requests", in)
	if err != nil || r == in || name != path {
		t.Fatalf("OpenInput(file): %v %q %v", r, name, err)
	}
	done()
	if _, err := r.Read(make([]byte, 1)); err == nil {
		t.Error("done left the file open")
	}
	_, _, _, err = OpenInput(path+"-gone", "the run log", in)
	if err == nil || !strings.HasPrefix(err.Error(), "cannot read the run log: open "+path+"-gone: ") || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}
