package main

import (
	"bytes"
	"net"
	"strings"
	"testing"
)

// TestFlags: the same flag style as the other fbeval binaries (kong): --help on
// stdout, a usage error is one line on stderr naming --help, exit 2.
func TestFlags(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"--help"}, nil, &out, &errb); code != 0 || !strings.HasPrefix(out.String(), "Usage: fbeval-fakeserver") || !strings.Contains(out.String(), "--redirect-to=URL") {
		t.Errorf("--help: exit %d\n%s%s", code, out.String(), errb.String())
	}
	for _, args := range [][]string{
		{"-addr", "127.0.0.1:0"},
		{"--openai-batch", "a", "--anthropic-batch", "b"},
		{"stray"},
		{"--answers", "no-such-file.jsonl"},
		{"--answers", "-", "--openai-batch", "-"},
	} {
		out.Reset()
		errb.Reset()
		code := run(args, nil, &out, &errb)
		if code != 2 || strings.Count(errb.String(), "\n") != 1 || !strings.HasPrefix(errb.String(), "fbeval-fakeserver: ") {
			t.Errorf("%q: exit %d, stderr %q", args, code, errb.String())
		}
	}
}

// TestAddrWords: an address that cannot be listened on says what to give.
func TestAddrWords(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for addr, want := range map[string]string{
		busy.Addr().String(): "fbeval-fakeserver: --addr " + busy.Addr().String() + ": the port is in use (a fake server still running?): give another port, or port 0 for any free one\n",
		"8099":               "fbeval-fakeserver: --addr 8099: give a host and a port, as 127.0.0.1:8099\n",
		"localhost":          "fbeval-fakeserver: --addr localhost: give a host and a port, as localhost:8089\n",
	} {
		var out, errb bytes.Buffer
		if code := run([]string{"--addr", addr, "--reply", "x"}, nil, &out, &errb); code != 2 || errb.String() != want {
			t.Errorf("%s: exit %d, stderr %q, want %q", addr, code, errb.String(), want)
		}
	}
}

// TestBatchFromStdin: "-" names standard input, as on every fbeval command
// line (it was "open -: no such file or directory").
func TestBatchFromStdin(t *testing.T) {
	in := `{"custom_id":"x","method":"POST","url":"/v1/chat/completions","body":{"model":"m","messages":[{"role":"user","content":"u"}]}}` + "\n"
	var out, errb bytes.Buffer
	if code := run([]string{"--openai-batch", "-", "--reply", "ok"}, strings.NewReader(in), &out, &errb); code != 0 || !strings.Contains(out.String(), `"custom_id":"x"`) {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}
