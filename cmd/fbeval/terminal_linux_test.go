package main

import (
	"bytes"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fbeval/fbeval/contract/ptytest"
)

// "-" read from a terminal (the pipe forgotten) is exit 2 at once, for every
// input that can be "-", where the command waited, silent, for typing.
func TestTerminalStdin(t *testing.T) {
	for _, args := range [][]string{
		{"score", "coglang", "--responses", "-"},
		{"score", "toolcall-quick", "--responses", "-"},
		{"score", "coglang", "--fixture", "-", "--reference-answers"},
		{"report", "-"},
		{"compare", "-", "b.json"},
		{"validate", "-"},
		{"export", "toolcall-quick", "--repairs", "1", "--repair-from", "-"},
	} {
		code, stdout, stderr := ptytest.Run(t, func(stdin *os.File, stdout, stderr io.Writer) int { return Main(args, stdin, stdout, stderr) })
		if code != 2 || !strings.HasSuffix(stderr, "standard input is a terminal, not a file: name the file, or pipe it in\n") || stdout != "" {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want exit 2 and the terminal refused", args, code, stderr, stdout)
		}
	}
}

// "-" in any flag reads the standard input Main is given, not the process's:
// the fixture (--fixture -) as the responses (--responses -).
func TestStdinIsMains(t *testing.T) {
	fx, err := os.ReadFile("../../fixtures/data/coglang/fbeval_default_v0_1.json")
	if err != nil {
		t.Fatal(err)
	}
	var want, got, stderr bytes.Buffer
	if code := Main([]string{"score", "coglang", "--reference-answers", "--summary-only"}, nil, &want, &stderr); code != 0 {
		t.Fatalf("the default fixture: exit %d, %s", code, stderr.String())
	}
	stderr.Reset()
	if code := Main([]string{"score", "coglang", "--fixture", "-", "--reference-answers", "--summary-only"}, bytes.NewReader(fx), &got, &stderr); code != 0 {
		t.Fatalf("--fixture -: exit %d, %s", code, stderr.String())
	}
	// the same cases and counts; only the fixture's name differs
	norm := func(b []byte) string {
		return regexp.MustCompile(`"fixture_path": "[^"]*"`).ReplaceAllString(string(b), `"fixture_path": ""`)
	}
	if norm(got.Bytes()) != norm(want.Bytes()) {
		t.Errorf("--fixture - from Main's stdin:\n%s\nwant\n%s", got.String(), want.String())
	}
}

// A terminal named by a path (/dev/stdin, /dev/fd/0 or /dev/tty with nothing
// piped in; here the terminal's own /dev/pts name) is refused at once as "-"
// is, where the command waited, silent, for typing.
func TestTerminalByPath(t *testing.T) {
	tty := ptytest.Open(t)
	name := tty.Name()
	for _, args := range [][]string{
		{"score", "toolcall-quick", "--responses", name},
		{"score", "coglang", "--responses", name},
		{"score", "coglang", "--fixture", name, "--reference-answers"},
		{"validate", name},
		{"check", "--domain", "hotels", name},
	} {
		var stdout, stderr bytes.Buffer
		done := make(chan int, 1)
		go func() { done <- Main(args, strings.NewReader(""), &stdout, &stderr) }()
		select {
		case code := <-done:
			if code != 2 || !strings.Contains(stderr.String(), name+": ") || !strings.Contains(stderr.String(), "is a terminal, not a file (standard input left to the terminal?): name the file, or pipe it in\n") {
				t.Errorf("%q: exit %d, stderr %q", args, code, stderr.String())
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%q: still waiting on the terminal", args)
		}
	}
}
