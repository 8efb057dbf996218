package main

import (
	"bytes"
	"testing"
	"time"

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
	} {
		tty := ptytest.Open(t)
		var stdout, stderr bytes.Buffer
		done := make(chan int, 1)
		go func() { done <- run(args, tty, &stdout, &stderr) }()
		select {
		case code := <-done:
			want := "fbeval-batch: <stdin>: standard input is a terminal, not a file: name the file, or pipe it in\n"
			if code != 2 || stderr.String() != want || stdout.Len() > 0 {
				t.Errorf("%q: exit %d, stderr %q, stdout %q; want exit 2 and %q", args, code, stderr.String(), stdout.String(), want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%q waits on the terminal", args)
		}
	}
}
