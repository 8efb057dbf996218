package runner

import (
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/fbeval/fbeval/contract"
)

// TestNotFoundNamesTheURL: a 404 names the URL that was called, so that a base
// URL without its /v1 (Ollama's http://localhost:11434) or a wrong path shows in
// the error records and in the line a stopped run ends with; without /v1 in the
// path it says where the APIs are.
func TestNotFoundNamesTheURL(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/chat/completions" {
			// OpenAI's answer for a model that is not there
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"error":{"message":"The model 'x' does not exist","type":"invalid_request_error","param":null,"code":"model_not_found"}}`))
			return
		}
		if r.URL.Path == "/v1beta/openai/chat/completions" {
			// Gemini's OpenAI-compatible API for a model that is not there: its
			// own error, as JSON text, in the message (earendil-works/pi#2893)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"error":{"message":"{\n  \"error\": {\n    \"code\": 404,\n    \"message\": \"models/gemma-4-31b is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.\",\n    \"status\": \"NOT_FOUND\"\n  }\n}\n","code":404,"status":"Not Found"}}`))
			return
		}
		if r.URL.Path == "/long/chat/completions" {
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(strings.Repeat("no such thing here. ", 100)))
			return
		}
		// Ollama's answer for a path it does not serve: text/plain "404 page
		// not found" (ollama/ollama#5830, #2474: a base URL without /v1)
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte("404 page not found"))
	}))
	defer srv.Close()
	for _, tt := range []struct{ base, want string }{
		{srv.URL, "HTTP 404 Not Found: 404 page not found (POST " + srv.URL + "/chat/completions; OpenAI-compatible servers, Ollama and vLLM among them, serve their API under /v1: --base-url " + srv.URL + "/v1)"},
		{srv.URL + "/", "(POST " + srv.URL + "/chat/completions; OpenAI-compatible servers, Ollama and vLLM among them, serve their API under /v1: --base-url " + srv.URL + "/v1)"},
		{srv.URL + "/v1", "HTTP 404 Not Found (model_not_found): The model 'x' does not exist (POST " + srv.URL + "/v1/chat/completions)"},
		// a path with an API version other than v1 in it is no base URL to
		// mend: the API answered
		{srv.URL + "/v1beta/openai/", "HTTP 404 Not Found (NOT_FOUND): models/gemma-4-31b is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods. (POST " + srv.URL + "/v1beta/openai/chat/completions)"},
		{srv.URL + "/api/v1", "HTTP 404 Not Found: 404 page not found (POST " + srv.URL + "/api/v1/chat/completions)"},
		// a long body is cut, not the URL, and the message stays within the cap
		{srv.URL + "/long", "here. ... (POST " + srv.URL + "/long/chat/completions; OpenAI-compatible servers, Ollama and vLLM among them, serve their API under /v1: --base-url " + srv.URL + "/long/v1)"},
	} {
		h := &HTTP{Client: srv.Client(), BaseURL: tt.base}
		_, err := h.PostJSON(context.Background(), "/chat/completions", []byte(`{}`))
		var ce *CallError
		if !errors.As(err, &ce) || ce.Code != "http_404" || !strings.HasSuffix(ce.Message, tt.want) || ProviderText(ce.Message, nil) != ce.Message {
			t.Errorf("%s: %v, want ...%s", tt.base, err, tt.want)
		}
	}
}

// TestNotFoundOnAzure: a 404 from an Azure OpenAI resource called outside
// /openai/v1 (the portal's Endpoint as it is, or with the /v1 the generic
// hint gave, which 404s again) names the v1 API's base URL.
func TestNotFoundOnAzure(t *testing.T) {
	for _, called := range []string{"https://myres.openai.azure.com/chat/completions", "https://myres.openai.azure.com/v1/chat/completions"} {
		u, _ := url.Parse(called)
		if got, want := notFoundAt(u, ""), " (POST "+called+"; Azure OpenAI serves the API the runner calls under /openai/v1: --base-url https://myres.openai.azure.com/openai/v1)"; got != want {
			t.Errorf("%s:\n got %s\nwant %s", called, got, want)
		}
	}
	// its own API, Foundry's project endpoint and its Anthropic API: no hint
	for _, called := range []string{"https://myres.openai.azure.com/openai/v1/chat/completions", "https://res.services.ai.azure.com/api/projects/p/openai/v1/chat/completions", "https://res.services.ai.azure.com/anthropic/v1/messages"} {
		u, _ := url.Parse(called)
		if got := notFoundAt(u, ""); got != " (POST "+called+")" {
			t.Errorf("%s: %s", called, got)
		}
	}
}

// TestLastingTransportErrors: a call that asking again cannot mend (https to
// a server without TLS, a certificate not trusted, a host that does not
// exist) is no retry and says what to check; a refused connection (a server
// still starting) is retried as before.
func TestLastingTransportErrors(t *testing.T) {
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer plain.Close()
	tlsSrv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	tlsSrv.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshake it refuses is the test
	tlsSrv.StartTLS()
	defer tlsSrv.Close()
	closed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	closedURL := closed.URL
	closed.Close()
	for _, tt := range []struct {
		name, base string
		retry      bool
		want       string
	}{
		{"https to plain HTTP", "https://" + strings.TrimPrefix(plain.URL, "http://") + "/v1", false, "http: server gave HTTP response to HTTPS client: the server speaks plain HTTP, not HTTPS: give --base-url with http://"},
		{"a certificate not trusted", tlsSrv.URL + "/v1", false, "certificate signed by unknown authority: the server's TLS certificate is not trusted here: give --base-url the host name its certificate names, or the certificate of the authority that signed it in SSL_CERT_FILE"},
		{"a refused connection", closedURL + "/v1", true, "connection refused"},
	} {
		h := &HTTP{Client: &http.Client{}, BaseURL: tt.base}
		_, err := h.PostJSON(context.Background(), "/chat/completions", []byte(`{}`))
		var ce *CallError
		if !errors.As(err, &ce) || ce.Code != "network" || ce.Retry != tt.retry || !strings.HasSuffix(ce.Message, tt.want) {
			t.Errorf("%s: %#v, want retry %v and ...%s", tt.name, err, tt.retry, tt.want)
		}
	}
	// a name the resolver says does not exist (made here: this machine may
	// have no resolver to ask)
	h := &HTTP{}
	ce := h.transportError(context.Background(), &url.Error{Op: "Post", URL: "http://no-such-host.invalid/v1", Err: &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "no-such-host.invalid", IsNotFound: true}}})
	if ce.Retry || ce.Message != "dial tcp: lookup no-such-host.invalid: no such host: check the host name in --base-url" {
		t.Errorf("no such host: %#v", ce)
	}
}

// FuzzStatusError: any body, the API's error or not, gives the status's code
// (content_filter or tool_use_failed only for a 400 that names it, the
// latter alone with a generation), a message that starts with the
// status, and the provider's text as a ProviderText line of valid UTF-8.
func FuzzStatusError(f *testing.F) {
	for _, dir := range []string{"../openai/testdata", "../anthropic/testdata"} {
		files, _ := filepath.Glob(filepath.Join(dir, "error_*.json"))
		for _, p := range files {
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(400, b)
		}
	}
	f.Add(404, []byte(`{"detail":"Not Found"}`))
	f.Add(500, []byte(`{"message":"upstream"}`))
	f.Add(400, []byte(`[{"error":{"code":400,"message":"{\"error\":{\"status\":\"INVALID_ARGUMENT\",\"message\":\"x\"}}"}}]`))
	f.Add(502, []byte("<html>bad gateway</html>"))
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		status = 400 + (status%200+200)%200
		e := StatusError(status, body)
		want := "http_" + strconv.Itoa(status)
		if e.Code != want && (e.Code != contract.ContentFilterCode && e.Code != ToolUseFailed || status != 400) {
			t.Fatalf("status %d: code %q", status, e.Code)
		}
		if (e.Generation != nil) != (e.Code == ToolUseFailed) || e.Generation != nil && e.Retry {
			t.Fatalf("status %d: code %q, generation %v, retry %v", status, e.Code, e.Generation, e.Retry)
		}
		if !strings.HasPrefix(e.Message, "HTTP "+strconv.Itoa(status)) {
			t.Fatalf("message %q", e.Message)
		}
		if line := ProviderText(e.Message, nil); !utf8.ValidString(line) || strings.ContainsAny(line, "\n\r") || len(line) > MaxMessageBytes+8 {
			t.Fatalf("provider text %q", line)
		}
	})
}

// TestRedirectLoop: a provider that redirects within its origin for ever is
// stopped at 10 redirects with a "redirect" error that is not retried (it was
// a network error, asked again --retries times, each 10 redirects more).
func TestRedirectLoop(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	h := &HTTP{Client: &http.Client{}, BaseURL: srv.URL + "/v1"}
	_, err := h.PostJSON(context.Background(), "/chat/completions", []byte(`{}`))
	var ce *CallError
	if !errors.As(err, &ce) || ce.Code != "redirect" || ce.Retry || !strings.Contains(ce.Message, "redirected 10 times") {
		t.Errorf("a redirect loop: %#v", err)
	}
}

// TestGoogleErrorReason: a Google error's ErrorInfo reason is its kind where
// it has one (API_KEY_INVALID says more than the status INVALID_ARGUMENT);
// details of another shape leave the status.
func TestGoogleErrorReason(t *testing.T) {
	gemini, err := os.ReadFile("../openai/testdata/error_400_gemini_api_key_invalid.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		body []byte
		want string
	}{
		{gemini, "HTTP 400 Bad Request (API_KEY_INVALID): API key not valid. Please pass a valid API key."},
		{[]byte(`{"error":{"code":400,"status":"INVALID_ARGUMENT","message":"x","details":"text"}}`), "HTTP 400 Bad Request (INVALID_ARGUMENT): x"},
		{[]byte(`{"error":{"code":400,"status":"INVALID_ARGUMENT","message":"x","details":[{"@type":"type.googleapis.com/google.rpc.BadRequest"}]}}`), "HTTP 400 Bad Request (INVALID_ARGUMENT): x"},
	} {
		if got := StatusError(400, tt.body).Message; got != tt.want {
			t.Errorf("%s: %q, want %q", tt.body, got, tt.want)
		}
	}
}
