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
