package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/runners/internal/fakeserver"
)

func TestRunSendsHeadersAndCountsCache(t *testing.T) {
	fs := fakeserver.New(fakeserver.Options{Reply: func(u string) string { return "ok " + u }})
	var version, key, path string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		version, key, path = r.Header.Get("anthropic-version"), r.Header.Get("x-api-key"), r.URL.Path
		fs.ServeHTTP(w, r)
	}))
	defer ts.Close()
	t.Setenv("FBEVAL_TEST_ANTHROPIC", "ak-test-1234")
	in := filepath.Join(t.TempDir(), "req.jsonl")
	os.WriteFile(in, []byte(`{"case_id": "T1", "instructions": "Return one expression.", "prompt": "List nodes.", "schema_version": "coglang-generation-eval-request/v0.1"}`+"\n"), 0o644)
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"--model", "c", "--concurrency", "1", "--base-url", ts.URL + "/v1", "--api-key-env", "FBEVAL_TEST_ANTHROPIC", in}, nil, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if version != "2023-06-01" || key != "ak-test-1234" || path != "/v1/messages" {
		t.Errorf("version %q key %q path %q", version, key, path)
	}
	// 11 input tokens by length, plus 2 cache reads.
	want := `{"schema_version":"coglang-generation-eval-response/v0.1","case_id":"T1","output":"ok List nodes.","provider":"anthropic","model":"c","latency_ms":`
	if !strings.HasPrefix(out.String(), want) || !strings.Contains(out.String(), `"input_token_count":4,"output_token_count":3,"finish_reason":"end_turn","run":{"runner":"fbeval-anthropic","provider":"anthropic","model":"c","study":"sha256:`) {
		t.Errorf("output %s", out.String())
	}
	if strings.Contains(out.String()+errb.String(), "ak-test-1234") {
		t.Error("the key was written")
	}
}

// TestBaseURLFromEnvironment: without --base-url the runner takes
// ANTHROPIC_BASE_URL as the Anthropic SDK has it, the root without /v1.
func TestBaseURLFromEnvironment(t *testing.T) {
	ts := httptest.NewServer(fakeserver.New(fakeserver.Options{Reply: func(u string) string { return "re: " + u }}))
	defer ts.Close()
	in := filepath.Join(t.TempDir(), "requests.jsonl")
	if err := os.WriteFile(in, []byte(`{"schema_version":"fbeval-request/v1","request_id":"r1","case_id":"c1","messages":[{"role":"user","content":"hi"}]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ANTHROPIC_BASE_URL", ts.URL)
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"--model", "c", "--api-key-env", "FBEVAL_UNSET_KEY", in}, nil, &out, &errb)
	if code != 0 || !strings.Contains(out.String(), `"output":"re: hi"`) || !strings.Contains(errb.String(), "the base URL is ANTHROPIC_BASE_URL's, "+ts.URL+" ") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}
