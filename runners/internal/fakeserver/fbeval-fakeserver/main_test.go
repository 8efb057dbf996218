package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestFlags: the same flag style as the other fbeval binaries (kong): --help on
// stdout, a usage error is one line on stderr naming --help, exit 2.
func TestFlags(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"--help"}, &out, &errb); code != 0 || !strings.HasPrefix(out.String(), "Usage: fbeval-fakeserver") || !strings.Contains(out.String(), "--redirect-to=URL") {
		t.Errorf("--help: exit %d\n%s%s", code, out.String(), errb.String())
	}
	for _, args := range [][]string{
		{"-addr", "127.0.0.1:0"},
		{"--openai-batch", "a", "--anthropic-batch", "b"},
		{"stray"},
		{"--answers", "no-such-file.jsonl"},
	} {
		out.Reset()
		errb.Reset()
		code := run(args, &out, &errb)
		if code != 2 || strings.Count(errb.String(), "\n") != 1 || !strings.HasPrefix(errb.String(), "fbeval-fakeserver: ") {
			t.Errorf("%q: exit %d, stderr %q", args, code, errb.String())
		}
	}
}
