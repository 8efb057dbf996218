package main

import (
	"io"
	"os"
	"testing"

	"github.com/fbeval/fbeval/contract/ptytest"
)

// A request or results file left to the terminal (nothing named, nothing
// piped in) is exit 2 at once, where fbeval-batch waited, silent, for typing.
func TestTerminalStdin(t *testing.T) {
	for _, args := range [][]string{
		{"to-openai", "--model", "m"},
		{"to-anthropic", "--model", "m"},
		{"from-openai", "-"},
		{"from-anthropic", "-"},
		{"from-heschema", "-"},
	} {
		code, stdout, stderr := ptytest.Run(t, func(stdin *os.File, stdout, stderr io.Writer) int { return run(args, stdin, stdout, stderr) })
		want := "fbeval-batch: <stdin>: standard input is a terminal, not a file: name the file, or pipe it in\n"
		if code != 2 || stderr != want || stdout != "" {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want exit 2 and %q", args, code, stderr, stdout, want)
		}
	}
}
