package runner

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fbeval/fbeval/contract"
)

// CallError is a failed provider call: Code is what the response record's error
// carries ("http_429", "http_500", "timeout", "network", "bad_response", ...),
// Message a one-line description (the provider's own error text, scrubbed of every
// secret and capped, where it gave one), Retry whether
// asking again may help, and RetryAfter the wait the provider asked for (0: none).
type CallError struct {
	Code       string
	Message    string
	Retry      bool
	RetryAfter time.Duration
	// Generation, where not nil, is the model's own answer the provider
	// refused to return because it could not read it as a tool call (Groq's
	// HTTP 400 tool_use_failed, its failed_generation: "" where it gave
	// none): the model answered, and failed; the record is that answer
	// (RefusedGeneration), not an error to ask again.
	Generation *string
}

func (e *CallError) Error() string { return e.Code + ": " + e.Message }

// BadResponse is the CallError of a response that could not be read as the API's
// answer. Such answers are retried: a truncated body is usually a passing fault.
func BadResponse(format string, args ...any) *CallError {
	return &CallError{Code: "bad_response", Message: fmt.Sprintf(format, args...), Retry: true}
}

// MaxBodyBytes bounds a provider's response body.
const MaxBodyBytes = 32 << 20

// HTTP posts JSON to a provider. Header holds every header sent, the key among them;
// Secrets lists the values to strip from any message (keys, header values).
type HTTP struct {
	Client  *http.Client
	BaseURL string
	Header  http.Header
	Secrets []string
	// CrossOrigin follows a redirect to another origin (scheme, host and port),
	// without Header: no key and no custom header goes there. False: such a
	// redirect is refused, a "redirect" error.
	CrossOrigin bool
	// Own are the headers of Header that are the user's or the key's (the
	// --header names, the key's header): none follows a redirect to another
	// origin, whatever its value.
	Own []string
}

// errRedirectLoop ends a chain of redirects: asked again, the server redirects
// again, so it is no network error to retry.
var errRedirectLoop = errors.New("the provider redirected 10 times (a redirect loop?): stopped, not retried")

// errCrossOrigin refuses a redirect to another origin.
type errCrossOrigin struct{ to string }

func (e *errCrossOrigin) Error() string {
	return "the provider redirected to another origin (" + e.to + "); refused, so that the key and headers stay with it (--allow-cross-origin-redirects follows such redirects without them)"
}

// checkRedirect keeps the key and the custom headers with the origin of the base
// URL. The http.Client only drops Authorization and cookies on a redirect to another
// host: x-api-key and --header values would follow.
func (h *HTTP) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errRedirectLoop
	}
	if sameOrigin(req.URL, via[0].URL) {
		return nil
	}
	if !h.CrossOrigin {
		return &errCrossOrigin{to: req.URL.Scheme + "://" + req.URL.Host}
	}
	// Credentials and --header values go, by name (a value too short to count
	// as a secret too); what the runner sets itself (the API version) stays.
	for _, k := range h.Own {
		req.Header.Del(k)
	}
	for k, vs := range h.Header {
		for _, v := range vs {
			if Redact(v, h.Secrets) != v {
				req.Header.Del(k)
			}
		}
	}
	req.Header.Del("Authorization")
	req.Header.Del("Cookie")
	return nil
}

func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(hostPort(a), hostPort(b))
}

// hostPort is the URL's host with its port, the scheme's default when none is given.
func hostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		switch strings.ToLower(u.Scheme) {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// PostJSON posts body to BaseURL+path and returns the response body of a 2xx answer.
// Any failure is a *CallError whose message holds no secret.
func (h *HTTP) PostJSON(ctx context.Context, path string, body []byte) ([]byte, error) {
	u := strings.TrimSuffix(h.BaseURL, "/") + path
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return nil, &CallError{Code: "bad_request", Message: Redact("cannot build the request: "+err.Error(), h.Secrets)}
	}
	for k, vs := range h.Header {
		hreq.Header[k] = vs
	}
	hreq.Header.Set("Content-Type", "application/json")
	client := http.Client{}
	if h.Client != nil {
		client = *h.Client
	}
	client.CheckRedirect = h.checkRedirect
	resp, err := client.Do(hreq)
	if err != nil {
		return nil, h.transportError(ctx, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxBodyBytes+1))
	if err != nil {
		return nil, h.transportError(ctx, err)
	}
	if len(data) > MaxBodyBytes {
		return nil, &CallError{Code: "bad_response", Message: fmt.Sprintf("response body larger than %d bytes", MaxBodyBytes)}
	}
	if resp.StatusCode/100 == 2 {
		return data, nil
	}
	e := StatusError(resp.StatusCode, data)
	e.Message = ProviderText(e.Message, h.Secrets)
	if resp.StatusCode == http.StatusNotFound {
		// the body's text cut to leave room, so that a long one does not hide
		// where the call went
		at := Redact(notFoundAt(hreq.URL, h.BaseURL), h.Secrets)
		e.Message = capText(e.Message, max(MaxMessageBytes-len(at), MaxMessageBytes/2)) + at
	}
	e.RetryAfter = RetryAfter(resp.Header, time.Now())
	// the server's own word on asking again, which the OpenAI and
	// Anthropic SDKs take over the status's
	switch resp.Header.Get("X-Should-Retry") {
	case "true":
		e.Retry = true
	case "false":
		e.Retry = false
	}
	return nil, e
}

// notFoundAt says where a call that got 404 went: " (POST URL)", and, when
// its path names no API version (/v1, or Gemini's /v1beta), where
// OpenAI-compatible APIs are: a base URL of http://localhost:11434 for Ollama,
// whose API is under /v1.
func notFoundAt(called *url.URL, base string) string {
	at := " (POST " + called.Redacted()
	if azureOpenAIHost(called) && !strings.Contains(called.Path, "/openai/") && !strings.Contains(called.Path, "/anthropic/") {
		// an Azure OpenAI resource's Endpoint as the portal gives it: its
		// v1 API is under /openai/v1 (Foundry's projects and its Anthropic
		// API have paths of their own)
		v1 := url.URL{Scheme: called.Scheme, Host: called.Host, Path: "/openai/v1"}
		return at + "; Azure OpenAI serves the API the runner calls under /openai/v1: --base-url " + v1.Redacted() + ")"
	}
	if !versionSegment.MatchString(called.Path + "/") {
		if b, err := url.Parse(strings.TrimRight(base, "/") + "/v1"); err == nil {
			at += "; OpenAI-compatible servers, Ollama and vLLM among them, serve their API under /v1: --base-url " + b.Redacted()
		}
	}
	return at + ")"
}

// ErrorInAnswer is the CallError of an error a server put in a 200 answer's
// body (OpenRouter does, once a model has started: the whole body, or one
// choice's), raw being its "error" member: the error's code as the HTTP status
// when it is one (retried as that status is), and its message; otherwise a
// bad_response that gives the error's text. Nil when raw is absent or null.
func ErrorInAnswer(raw json.RawMessage) *CallError {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var e struct {
		Code json.Number `json:"code"`
	}
	// a code that is no number ("rate_limited") fails this and leaves Code
	// empty: the error is then a bad_response with its kind and text
	_ = json.Unmarshal(raw, &e)
	body := append(append([]byte(`{"error":`), raw...), '}')
	if code, err := strconv.Atoi(string(e.Code)); err == nil && code >= 400 && code <= 599 {
		ce := StatusError(code, body)
		ce.Message += " (in a 200 answer)"
		return ce
	}
	kind, text := errorText(body)
	if kind != "" {
		text = kind + ": " + text
	}
	return BadResponse("the answer is an error: %s", text)
}

// StatusError is the CallError of an API answer with HTTP status code (>= 400),
// live or in a batch result: code "http_NNN", and the message "HTTP NNN Text (kind):
// text" with the error body's machine-readable kind and its message where it has
// them (or the start of a body that is not the API's JSON). The caller scrubs it
// (ProviderText): the text may echo the request.
func StatusError(code int, body []byte) *CallError {
	e := &CallError{
		Code:    "http_" + strconv.Itoa(code),
		Message: strings.TrimSpace("HTTP " + strconv.Itoa(code) + " " + statusText(code)),
		// 408 and 409 are passing conditions too; 429 asks to slow down; 5xx (and
		// Anthropic's 529) are the server's trouble.
		Retry: code == 408 || code == 409 || code == 429 || code >= 500,
	}
	kind, text := errorText(body)
	if kind != "" {
		e.Message += " (" + kind + ")"
	}
	if text != "" {
		e.Message += ": " + text
	}
	if kind == ToolUseFailed && code == http.StatusBadRequest {
		// the model's tool call did not parse, or did not match the tool's
		// schema, by the provider's own check: an answer that failed
		g := failedGeneration(body)
		e.Code, e.Retry, e.Generation = ToolUseFailed, false, &g
	}
	if kind == "content_filter" && code == http.StatusBadRequest {
		// Azure OpenAI's filter blocked the prompt: asking again gets the same,
		// and the code says which it was where http_400 would not
		e.Code, e.Retry = contract.ContentFilterCode, false
		if f := filteredFor(body); f != "" {
			e.Message += " (filtered for " + f + ")"
		}
	}
	return e
}

// ToolUseFailed is the code (and, in a record made of it, the finish reason)
// of a model's answer the provider refused to return as a tool call: Groq's
// HTTP 400 tool_use_failed.
const ToolUseFailed = "tool_use_failed"

// failedGeneration is the failed_generation text of an API error body (Groq's
// tool_use_failed: the model's answer as it wrote it), "" where it has none.
func failedGeneration(body []byte) string {
	var list []json.RawMessage
	if json.Unmarshal(body, &list) == nil && len(list) > 0 {
		body = list[0]
	}
	var w struct {
		Error struct {
			FailedGeneration any `json:"failed_generation"`
		} `json:"error"`
	}
	json.Unmarshal(body, &w)
	s, _ := w.Error.FailedGeneration.(string)
	return s
}

// RefusedGeneration is the record of a call whose error e holds the model's
// answer (CallError.Generation): that text as the output, finish reason
// tool_use_failed, and the provider's error message in its metadata
// (provider_error); false when e holds none.
func RefusedGeneration(e *CallError) (Result, bool) {
	if e == nil || e.Generation == nil {
		return Result{}, false
	}
	out := *e.Generation
	return Result{Output: &out, FinishReason: ToolUseFailed, Metadata: contract.Object{Field("provider_error", e.Message)}}, true
}

// filteredFor names the categories Azure OpenAI's content filter blocked a
// prompt for, from its error's innererror.content_filter_result ("violence
// medium, jailbreak"), in name order; "" where it names none.
func filteredFor(body []byte) string {
	var w struct {
		Error struct {
			Inner struct {
				Result map[string]struct {
					Filtered bool   `json:"filtered"`
					Severity string `json:"severity"`
				} `json:"content_filter_result"`
			} `json:"innererror"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &w) != nil {
		return ""
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(w.Error.Inner.Result)) {
		if c := w.Error.Inner.Result[name]; c.Filtered {
			out = append(out, strings.TrimSpace(name+" "+c.Severity))
		}
	}
	return strings.Join(out, ", ")
}

func statusText(code int) string {
	if code == 529 {
		return "Overloaded" // Anthropic's; net/http knows no text for it
	}
	return http.StatusText(code)
}

func (h *HTTP) transportError(ctx context.Context, err error) *CallError {
	if errors.Is(err, context.DeadlineExceeded) || ctx.Err() == context.DeadlineExceeded {
		return &CallError{Code: "timeout", Message: "no answer within the timeout", Retry: true}
	}
	if errors.Is(err, context.Canceled) {
		return &CallError{Code: "canceled", Message: "the call was canceled"}
	}
	// A *url.Error names the URL, which may carry a key in its query: keep only the cause.
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var co *errCrossOrigin
	if errors.As(err, &co) {
		return &CallError{Code: "redirect", Message: Redact(co.Error(), h.Secrets)}
	}
	if errors.Is(err, errRedirectLoop) {
		return &CallError{Code: "redirect", Message: errRedirectLoop.Error()}
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &CallError{Code: "timeout", Message: "no answer within the timeout", Retry: true}
	}
	if why := lastingTransportError(err); why != "" {
		// asking again gets the same: no retry, and said at once
		return &CallError{Code: "network", Message: Redact(oneLine(why), h.Secrets)}
	}
	return &CallError{Code: "network", Message: Redact(oneLine(err.Error()), h.Secrets), Retry: true}
}

// lastingTransportError says what is wrong when err is a transport error that
// asking again cannot mend, a mistake in --base-url or the machine's trust
// of the server: TLS spoken to a server without it, a certificate not
// trusted, a host name that does not exist. "" for any other error (a
// refused connection may be a server still starting).
func lastingTransportError(err error) string {
	var rh tls.RecordHeaderError
	var unknownCA x509.UnknownAuthorityError
	var badHost x509.HostnameError
	var badCert x509.CertificateInvalidError
	var dns *net.DNSError
	switch {
	case errors.As(err, &rh) || strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		return err.Error() + ": the server speaks plain HTTP, not HTTPS: give --base-url with http://"
	case errors.As(err, &unknownCA) || errors.As(err, &badHost) || errors.As(err, &badCert):
		return err.Error() + ": the server's TLS certificate is not trusted here: give --base-url the host name its certificate names, or the certificate of the authority that signed it in SSL_CERT_FILE"
	case errors.As(err, &dns) && dns.IsNotFound:
		return err.Error() + ": check the host name in --base-url"
	}
	return ""
}

// versionSegment finds an API version in a path: /v1/, /v1beta/, /v2/.
var versionSegment = regexp.MustCompile(`/v[0-9]+[a-z0-9]*/`)

var kindPattern = regexp.MustCompile(`^[A-Za-z0-9_.\-]{1,64}$`)

// errorText returns the machine-readable kind of an API error body ({"error":
// {"code" or "type" or "status", "message"}}) and its message; for a body that is
// not such JSON, the start of the body as text. The caller scrubs and caps the
// text: it may echo the request.
func errorText(body []byte) (kind, text string) {
	kind, text, ok := apiErrorText(body)
	if !ok {
		return "", string(body[:min(len(body), 4*MaxMessageBytes)])
	}
	// Gemini's OpenAI-compatible API puts its own error body, as JSON text, in
	// the message: the error is the one inside.
	if k, t, ok := apiErrorText([]byte(strings.TrimSpace(text))); ok && t != "" {
		if k != "" {
			kind = k
		}
		text = t
	}
	return kind, text
}

// apiErrorText reads body as {"error": ...}, or a list whose first element is
// one (Gemini's OpenAI-compatible API answers so: [{"error": ...}]), or an
// error object not wrapped so: one with a message as text (vLLM's ErrorResponse
// as its older releases send it, {"object": "error", "message", "type",
// "param", "code"}, which its run-batch writes too; a gateway's {"message":
// ...}), or FastAPI's {"detail": "..."}. ok is false when it is no such JSON.
func apiErrorText(body []byte) (kind, text string, ok bool) {
	var list []json.RawMessage
	if json.Unmarshal(body, &list) == nil && len(list) > 0 {
		body = list[0]
	}
	var w struct {
		Error   json.RawMessage `json:"error"`
		Message json.RawMessage `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &w) != nil {
		return "", "", false
	}
	isText := func(v json.RawMessage) bool { return len(v) > 0 && v[0] == '"' }
	switch {
	case len(w.Error) > 0 && string(w.Error) != "null":
	case isText(w.Message):
		w.Error = body // the error object itself
	case isText(w.Detail):
		w.Error = w.Detail
	default:
		return "", "", false
	}
	// each member of any type: Azure OpenAI sends "type": null and the status
	// as a number beside its code, Google the status as its word
	var e struct {
		Code    any `json:"code"`
		Type    any `json:"type"`
		Status  any `json:"status"` // Google's: NOT_FOUND, RESOURCE_EXHAUSTED
		Message any `json:"message"`
		// Google's: an ErrorInfo's reason says more than the status
		// (API_KEY_INVALID where the status is INVALID_ARGUMENT)
		Details json.RawMessage `json:"details"`
	}
	if json.Unmarshal(w.Error, &e) != nil {
		// {"error": "text"} (some servers) or another shape: its text as is.
		var s string
		if json.Unmarshal(w.Error, &s) == nil {
			return "", s, true
		}
		return "", string(w.Error[:min(len(w.Error), 4*MaxMessageBytes)]), true
	}
	code, _ := e.Code.(string)
	typ, _ := e.Type.(string)
	status, _ := e.Status.(string)
	reason := ""
	var details []struct {
		Reason any `json:"reason"`
	}
	json.Unmarshal(e.Details, &details) // of another shape: no reason
	for _, d := range details {
		if r, _ := d.Reason.(string); r != "" {
			reason = r
			break
		}
	}
	switch {
	case kindPattern.MatchString(code):
		kind = code
	case kindPattern.MatchString(typ):
		kind = typ
	case kindPattern.MatchString(reason):
		kind = reason
	case kindPattern.MatchString(status):
		kind = status
	}
	if s, ok := e.Message.(string); ok {
		text = s
	}
	return kind, text, true
}

// maxRetryAfterSeconds is the longest wait a header is read as (about 31
// years, where a time.Duration ends at 292): a longer one asks for at least
// that, which is past any --max-backoff, so the call is given up at once.
const maxRetryAfterSeconds = 1e9

// RetryAfter is the wait an answer's headers ask for before a retry:
// retry-after-ms (milliseconds, which Azure OpenAI sends and the OpenAI and
// Anthropic SDKs read first), else Retry-After (ParseRetryAfter). Zero when
// neither says.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(min(ms, maxRetryAfterSeconds*1e3) * float64(time.Millisecond))
		}
	}
	return ParseRetryAfter(h.Get("Retry-After"), now)
}

// ParseRetryAfter reads a Retry-After header: delay seconds or an HTTP date. Zero
// when absent, unreadable or in the past.
func ParseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if !(secs > 0) { // NaN too
			return 0
		}
		return time.Duration(min(secs, maxRetryAfterSeconds) * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}
