package e2e

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/runners/internal/fakeserver"
)

// leaks returns the first run of 8 bytes of a secret found in b, or "".
func leaks(b []byte, secrets []string) string {
	for _, s := range secrets {
		for i := 0; i+8 <= len(s); i++ {
			if bytes.Contains(b, []byte(s[i:i+8])) {
				return s[i : i+8]
			}
		}
	}
	return ""
}

// TestKeysStayWithTheirProvider runs both networked runners against a provider that
// redirects every call to another origin, and against a proxy whose 200 answers are
// not JSON and echo the request headers. The key and the --header values never reach
// the other origin, and no 8 bytes in a row of them are in any byte written: the
// response file, stdout, stderr.
func TestKeysStayWithTheirProvider(t *testing.T) {
	needBinaries(t)
	dir := t.TempDir()
	exportAnswers(t, dir)
	reqs, err := os.ReadFile(filepath.Join(dir, "requests.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	six := bytes.SplitAfterN(reqs, []byte("\n"), 7)[:6]
	if err := os.WriteFile(filepath.Join(dir, "six.jsonl"), bytes.Join(six, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	const key = "sk-e2e-KEY-4f9a1c7e2b8d6053a9e1f4c7b2d8e6a0"
	const token = "tok-HEADER-88f1e2d3c4b5a697"
	const title = "fbeval-keys-test-title"
	secrets := []string{key, token, title}
	t.Setenv("FBEVAL_E2E_KEY", key)

	f, err := os.Open(filepath.Join(dir, "answers.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	answers, err := fakeserver.LoadAnswers("answers.jsonl", f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	serve := func(opts fakeserver.Options) (*fakeserver.Server, string) {
		s := fakeserver.New(opts)
		ts := httptest.NewServer(s)
		t.Cleanup(ts.Close)
		return s, ts.URL
	}
	other, otherURL := serve(fakeserver.Options{Answers: answers})
	redirecting, redirectURL := serve(fakeserver.Options{Fault: func(string, int) fakeserver.Fault { return fakeserver.Fault{Redirect: otherURL} }})
	_, echoURL := serve(fakeserver.Options{Fault: func(string, int) fakeserver.Fault { return fakeserver.Fault{EchoHeaders: true} }})

	check := func(what string, r result, out string) {
		t.Helper()
		file, _ := os.ReadFile(filepath.Join(dir, out))
		for name, b := range map[string][]byte{"stdout": r.out, "stderr": []byte(r.stderr), out: file} {
			if l := leaks(b, secrets); l != "" {
				t.Errorf("%s: %s holds %q of a secret:\n%s", what, name, l, b)
			}
		}
	}
	for _, bin := range []string{"fbeval-openai", "fbeval-anthropic"} {
		args := func(url, out string, extra ...string) []string {
			a := []string{bin, "--base-url", url + "/v1", "--model", "m", "--api-key-env", "FBEVAL_E2E_KEY",
				"--header", "X-Trace-Token: " + token, "--header", "X-Title: " + title, "--header", "X-Org: ab1",
				"--retries", "1", "--backoff", "1ms", "--max-consecutive-errors", "0", "-o", out}
			return append(append(a, extra...), "six.jsonl")
		}
		before := len(other.Headers())

		// Refused: the other origin hears nothing, every request is a "redirect" error.
		out := bin + "-refused.jsonl"
		r := run(t, dir, 1, args(redirectURL, out)...)
		check(bin+" refused redirect", r, out)
		if n := len(other.Headers()) - before; n != 0 {
			t.Errorf("%s: the other origin got %d calls", bin, n)
		}
		c := countRecords(t, filepath.Join(dir, out))
		if len(c.errors) != 6 || len(c.answers) != 0 {
			t.Errorf("%s: %d errors and %d answers, want 6 redirect errors", bin, len(c.errors), len(c.answers))
		}
		file, _ := os.ReadFile(filepath.Join(dir, out))
		if bytes.Count(file, []byte(`"code":"redirect"`)) != 6 || !bytes.Contains(file, []byte("--allow-cross-origin-redirects")) {
			t.Errorf("%s: the records do not say why:\n%s", bin, file)
		}
		hs := redirecting.Headers()
		if got := hs[len(hs)-1]; !strings.Contains(got.Get("Authorization")+got.Get("X-Api-Key"), key) || got.Get("X-Trace-Token") != token {
			t.Errorf("%s: the provider itself did not get the key and headers: %v", bin, got)
		}

		// Allowed: followed without the key and the custom headers.
		out = bin + "-followed.jsonl"
		r = run(t, dir, 0, args(redirectURL, out, "--allow-cross-origin-redirects")...)
		check(bin+" followed redirect", r, out)
		hs = other.Headers()[before:]
		if len(hs) != 6 {
			t.Errorf("%s: the other origin got %d calls, want 6", bin, len(hs))
		}
		for _, h := range hs {
			var all bytes.Buffer
			h.Write(&all)
			// a --header value too short to count as a secret goes by its name
			if l := leaks(all.Bytes(), secrets); l != "" || h.Get("Authorization") != "" || h.Get("X-Api-Key") != "" || h.Get("X-Org") != "" {
				t.Errorf("%s: the other origin got a secret (%q):\n%s", bin, l, all.String())
			}
		}

		// A proxy that echoes the request headers in a 200 body that is not JSON.
		out = bin + "-echo.jsonl"
		r = run(t, dir, 1, args(echoURL, out)...)
		check(bin+" echoing proxy", r, out)
		file, _ = os.ReadFile(filepath.Join(dir, out))
		if bytes.Count(file, []byte(`"code":"bad_response"`)) != 6 {
			t.Errorf("%s: want 6 bad_response records:\n%s", bin, file)
		}
	}
	_ = http.StatusOK
}

// TestProxyIsNamed: a proxy that the environment names (HTTP_PROXY, as Go's
// HTTP client and the providers' SDKs read it) carries every call, and with an
// http:// base URL reads the key: the runner says so on stderr, where it said
// nothing.
func TestProxyIsNamed(t *testing.T) {
	needBinaries(t)
	dir := t.TempDir()
	exportAnswers(t, dir)
	// the proxy answers what it is sent to pass on: the base URL (a
	// documentation address, 192.0.2.1) is reached through it or not at all
	proxy := faultServer(t, dir, func(string, int) fakeserver.Fault { return fakeserver.Fault{} })
	t.Setenv("HTTP_PROXY", proxy)
	t.Setenv("http_proxy", proxy)
	t.Setenv("NO_PROXY", "")
	t.Setenv("no_proxy", "")
	t.Setenv("FBEVAL_E2E_KEY", "sk-e2e-PROXY-0123456789abcdef")
	r := run(t, dir, 0, "fbeval-openai", "--base-url", "http://192.0.2.1:9/v1", "--model", "m", "--api-key-env", "FBEVAL_E2E_KEY", "-o", "out.jsonl", "requests.jsonl")
	want := "fbeval-openai: the calls go through the proxy " + proxy + " (from the environment's HTTPS_PROXY or HTTP_PROXY; NO_PROXY leaves a host out): the base URL is http://, so the proxy reads every call, the key included\n"
	if !strings.HasPrefix(r.stderr, want) {
		t.Errorf("stderr:\n%s\nwant it to begin\n%s", r.stderr, want)
	}
}
