package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/fbeval/fbeval/contract/ptytest"
)

// fbeval-mock with no request file and nothing piped in (standard input is the
// terminal) is exit 2 at once, where it waited, silent, for typing.
func TestTerminalStdin(t *testing.T) {
	tty := ptytest.Open(t)
	var stdout, stderr bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- run([]string{"--mode", "garble"}, tty, &stdout, &stderr) }()
	select {
	case code := <-done:
		want := "fbeval-mock: <stdin>: standard input is a terminal, not a file: name the file, or pipe it in\n"
		if code != 2 || stderr.String() != want || stdout.Len() > 0 {
			t.Errorf("exit %d, stderr %q, stdout %q; want exit 2 and %q", code, stderr.String(), stdout.String(), want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("fbeval-mock waits on the terminal")
	}
}
