package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/runners/internal/fakeserver"
)

func writeRequests(t *testing.T, dir string, n int) string {
	t.Helper()
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"schema_version":"fbeval-request/v1","request_id":"r%03d","case_id":"c%03d","suite":"toolcall","attempt":1,"seed":%d,"messages":[{"role":"system","content":"s"},{"role":"user","content":"prompt %d"}]}`+"\n", i, i, i+1, i)
	}
	path := filepath.Join(dir, "requests.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestRunInProcess(t *testing.T) {
	ts := httptest.NewServer(fakeserver.New(fakeserver.Options{Reply: func(u string) string { return "re: " + u }}))
	defer ts.Close()
	dir := t.TempDir()
	in := writeRequests(t, dir, 5)
	for _, api := range []string{"chat", "responses"} {
		var out, errb bytes.Buffer
		code := run(context.Background(), []string{"--model", "m", "--api", api, "--base-url", ts.URL + "/v1", "--api-key-env", "FBEVAL_UNSET_KEY", "--provider", "local", in}, nil, &out, &errb)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", api, code, errb.String())
		}
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if len(lines) != 5 || !strings.HasPrefix(lines[2], `{"schema_version":"fbeval-response/v1","request_id":"r002","case_id":"c002","output":"re: prompt 2","provider":"local","model":"m","latency_ms":`) {
			t.Errorf("%s: output %s", api, out.String())
		}
		if !strings.Contains(errb.String(), "FBEVAL_UNSET_KEY is not set") || !strings.Contains(errb.String(), "5 requests: 5 answered") {
			t.Errorf("%s: stderr %s", api, errb.String())
		}
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{{}, {"--model", "m", "--api", "other"}, {"--model", "m", "--header", "novalue", "x.jsonl"}, {"--model", "m", "missing.jsonl"},
		// A rate that would turn the limit off, or make no sense, is refused.
		{"--model", "m", "--rps", "1e-300"}, {"--model", "m", "--rps", "NaN"}, {"--model", "m", "--rps=-1"},
		{"--model", "m", "--rps", "+Inf"}, {"--model", "m", "--rps", "1e-9"}} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), args, strings.NewReader(""), &out, &errb); code != 2 || errb.Len() == 0 {
			t.Errorf("%q: exit %d, stderr %q", args, code, errb.String())
		}
	}
}

// TestBadBaseURL: a base URL no call could reach is a usage error: exit 2, one line
// on stderr, and nothing written, not one error record per request.
func TestBadBaseURL(t *testing.T) {
	dir := t.TempDir()
	in := writeRequests(t, dir, 3)
	for _, base := range []string{"127.0.0.1:40399/v1", "localhost/v1", "ftp://example.com/v1", "http:///v1", "http://[::1/v1", "https://api.example.com/v1?key=x", ""} {
		outFile := filepath.Join(dir, "out.jsonl")
		var out, errb bytes.Buffer
		code := run(context.Background(), []string{"--model", "m", "--base-url", base, "--api-key-env", "FBEVAL_UNSET_KEY", "-o", outFile, in}, nil, &out, &errb)
		if code != 2 || out.Len() != 0 || strings.Count(errb.String(), "\n") != 1 || !strings.Contains(errb.String(), "fbeval-openai: --base-url") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", base, code, out.String(), errb.String())
		}
		if _, err := os.Stat(outFile); !os.IsNotExist(err) {
			t.Errorf("%q: the output file was created", base)
		}
	}
}

// TestMaxTokensExclusive: --max-tokens and --max-completion-tokens do not mix.
func TestMaxTokensExclusive(t *testing.T) {
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"--model", "m", "--max-tokens", "5", "--max-completion-tokens", "5", "x.jsonl"}, nil, &out, &errb)
	if code != 2 || !strings.Contains(errb.String(), "exclusive") || strings.Count(errb.String(), "\n") != 1 {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}
