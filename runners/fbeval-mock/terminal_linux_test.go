package main

import (
	"io"
	"os"
	"testing"

	"github.com/fbeval/fbeval/contract/ptytest"
)

// fbeval-mock with no request file and nothing piped in (standard input is the
// terminal) is exit 2 at once, where it waited, silent, for typing.
func TestTerminalStdin(t *testing.T) {
	code, stdout, stderr := ptytest.Run(t, func(stdin *os.File, stdout, stderr io.Writer) int {
		return run([]string{"--mode", "garble"}, stdin, stdout, stderr)
	})
	want := "fbeval-mock: <stdin>: standard input is a terminal, not a file: name the file, or pipe it in\n"
	if code != 2 || stderr != want || stdout != "" {
		t.Errorf("exit %d, stderr %q, stdout %q; want exit 2 and %q", code, stderr, stdout, want)
	}
}
