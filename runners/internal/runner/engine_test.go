package runner_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/runners/internal/fakeserver"
	"github.com/fbeval/fbeval/runners/internal/openai"
	"github.com/fbeval/fbeval/runners/internal/runner"
)

func makeItems(n int) []runner.Item {
	items := make([]runner.Item, n)
	for i := range items {
		id := fmt.Sprintf("case-%02d.a1", i)
		items[i] = runner.Item{File: "req.jsonl", Line: i + 1, Req: contract.Request{
			SchemaVersion: contract.RequestV1, RequestID: id, CaseID: fmt.Sprintf("case-%02d", i),
			Suite: contract.SuiteToolcall, Attempt: 1,
			Messages: []contract.Message{{Role: "system", Content: "sys"}, {Role: "user", Content: fmt.Sprintf("prompt %d", i)}},
		}}
	}
	return items
}

func promptIndex(user string) int {
	var i int
	fmt.Sscanf(user, "prompt %d", &i)
	return i
}

func startServer(t *testing.T, opts fakeserver.Options) (*fakeserver.Server, *httptest.Server) {
	t.Helper()
	fs := fakeserver.New(opts)
	ts := httptest.NewServer(fs)
	t.Cleanup(ts.Close)
	return fs, ts
}

func client(ts *httptest.Server) runner.Provider {
	return &openai.Client{HTTP: &runner.HTTP{Client: ts.Client(), BaseURL: ts.URL + "/v1", Header: http.Header{}}, Opts: openai.Options{Model: "m"}}
}

var fast = runner.Options{Concurrency: 4, Retries: 3, Timeout: 2 * time.Second, BackoffBase: time.Millisecond, BackoffMax: 20 * time.Millisecond}

type record struct {
	RequestID string `json:"request_id"`
	Output    *string
	Error     *contract.ProviderError
}

func parseLines(t *testing.T, data []byte) []record {
	t.Helper()
	var recs []record
	for i, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var r record
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("line %d is not a record: %v: %s", i+1, err, line)
		}
		recs = append(recs, r)
	}
	return recs
}

func TestRunSurvivesFaults(t *testing.T) {
	faults := []fakeserver.Fault{
		{},
		{Status: 429, RetryAfter: "0"},
		{Status: 500},
		{Delay: time.Hour}, // held until the call times out
		{Truncate: true},
		{NonJSON: true},
		{Reset: true},
		{Status: 503},
	}
	_, ts := startServer(t, fakeserver.Options{
		Reply: func(user string) string { return "answer to " + user },
		Fault: func(user string, n int) fakeserver.Fault {
			// Each kind of fault hits a request twice, then it is answered.
			if n <= 2 {
				return faults[promptIndex(user)%len(faults)]
			}
			return fakeserver.Fault{}
		},
	})
	items := makeItems(24)
	var buf bytes.Buffer
	opts := fast
	// Long enough that only the held calls time out, even under the race detector
	// on a busy machine.
	opts.Timeout = time.Second
	sum, err := runner.Run(context.Background(), runner.FromItems(items), client(ts), runner.NewOutput(&buf), opts)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Answered != 24 || sum.Errors != 0 || sum.Left != 0 || sum.ExitCode() != 0 {
		t.Fatalf("summary %v", sum)
	}
	// 7 of 8 kinds fault twice per request: 3 requests each.
	if sum.Retries != 7*3*2 || sum.Calls != 24+sum.Retries {
		t.Errorf("retries %d calls %d, want 42 and 66", sum.Retries, sum.Calls)
	}
	recs := parseLines(t, buf.Bytes())
	if len(recs) != 24 {
		t.Fatalf("%d records, want 24", len(recs))
	}
	for i, r := range recs {
		if r.RequestID != items[i].Req.RequestID || r.Output == nil || *r.Output != fmt.Sprintf("answer to prompt %d", i) {
			t.Errorf("record %d out of order or wrong: %+v", i, r)
		}
	}
}

func TestRetryAfterIsHonoured(t *testing.T) {
	_, ts := startServer(t, fakeserver.Options{Fault: func(user string, n int) fakeserver.Fault {
		if n == 1 {
			// A fraction of a second keeps the test short; the backoff alone would wait 1ms.
			return fakeserver.Fault{Status: 429, RetryAfter: "0.3"}
		}
		return fakeserver.Fault{}
	}})
	start := time.Now()
	var buf bytes.Buffer
	opts := fast
	opts.BackoffMax = 5 * time.Second
	sum, err := runner.Run(context.Background(), runner.FromItems(makeItems(1)), client(ts), runner.NewOutput(&buf), opts)
	if err != nil || sum.Answered != 1 {
		t.Fatalf("%v %v", sum, err)
	}
	if d := time.Since(start); d < 290*time.Millisecond {
		t.Errorf("retried after %v, before the Retry-After of 0.3s", d)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tt := range []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"3", 3 * time.Second},
		{"0.5", 500 * time.Millisecond},
		{"-1", 0},
		{"soon", 0},
		{now.Add(7 * time.Second).Format(http.TimeFormat), 7 * time.Second},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0},
		// a daily quota's wait past a million seconds is a wait, not none
		// (it was read as no header: the call was retried at once)
		{"2000000", 2000000 * time.Second},
		{"1e12", 1e9 * time.Second},
		{"+Inf", 1e9 * time.Second},
		{"NaN", 0},
	} {
		if got := runner.ParseRetryAfter(tt.in, now); got != tt.want {
			t.Errorf("ParseRetryAfter(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// retry-after-ms, which Azure OpenAI sends, is read before Retry-After, as the
// OpenAI and Anthropic SDKs read it (it was ignored: a retry at once).
func TestRetryAfterHeaders(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tt := range []struct {
		ms, secs string
		want     time.Duration
	}{
		{"3000", "", 3 * time.Second},
		{"250.5", "9", 250500 * time.Microsecond},
		{"", "2", 2 * time.Second},
		{"soon", "2", 2 * time.Second},
		{"-5", "", 0},
		{"", "", 0},
		{"2000000000", "", 2000000 * time.Second},
		{"1e15", "", 1e9 * time.Second},
		{"NaN", "3", 3 * time.Second},
	} {
		h := http.Header{}
		if tt.ms != "" {
			h.Set("retry-after-ms", tt.ms)
		}
		if tt.secs != "" {
			h.Set("retry-after", tt.secs)
		}
		if got := runner.RetryAfter(h, now); got != tt.want {
			t.Errorf("retry-after-ms %q, retry-after %q: %v, want %v", tt.ms, tt.secs, got, tt.want)
		}
	}
}

func TestFinalErrors(t *testing.T) {
	for _, tt := range []struct {
		name      string
		fault     fakeserver.Fault
		timeout   time.Duration
		calls     int
		code, msg string
	}{
		{"server error retried", fakeserver.Fault{Status: 500}, time.Second, 3, "http_500", "HTTP 500 Internal Server Error (server_error): fake failure"},
		{"bad request not retried", fakeserver.Fault{Status: 400}, time.Second, 1, "http_400", "HTTP 400 Bad Request (server_error): fake failure"},
		// the server's X-Should-Retry over the status's rule, as the SDKs take it
		{"retried when the server says so", fakeserver.Fault{Status: 400, ShouldRetry: "true"}, time.Second, 3, "http_400", "HTTP 400 Bad Request (server_error): fake failure"},
		{"not retried when the server says so", fakeserver.Fault{Status: 529, ShouldRetry: "false"}, time.Second, 1, "http_529", "HTTP 529 Overloaded (server_error): fake failure"},
		// the limit named with its flag: a slow server needs a longer one
		{"timeout", fakeserver.Fault{Delay: 300 * time.Millisecond}, 50 * time.Millisecond, 3, "timeout", "no answer within --timeout 50ms"},
		// a wait asked for longer than --max-backoff (a daily quota): asked
		// again at --max-backoff it gets the same, so said at once
		{"a wait longer than the run keeps", fakeserver.Fault{Status: 429, RetryAfter: "25920"}, time.Second, 1, "http_429", "HTTP 429 Too Many Requests (rate_limit_exceeded): fake failure (the provider asks to wait 7h12m0s, longer than --max-backoff 20ms: not asked again; run again with -o FILE once it has passed)"},
		{"a wait of weeks", fakeserver.Fault{Status: 429, RetryAfter: "2000000"}, time.Second, 1, "http_429", "HTTP 429 Too Many Requests (rate_limit_exceeded): fake failure (the provider asks to wait 555h33m20s, longer than --max-backoff 20ms: not asked again; run again with -o FILE once it has passed)"},
		{"a wait the run keeps", fakeserver.Fault{Status: 429, RetryAfter: "0.01"}, time.Second, 3, "http_429", "HTTP 429 Too Many Requests (rate_limit_exceeded): fake failure"},
		{"non-JSON", fakeserver.Fault{NonJSON: true}, time.Second, 3, "bad_response", "the answer is not a chat completion: the body is an HTML page, not JSON (a proxy's, a sign-in page, or a web page at --base-url): <html><body>502 Bad Gateway</body></html>"},
		{"reset", fakeserver.Fault{Reset: true}, time.Second, 3, "network", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fs, ts := startServer(t, fakeserver.Options{Fault: func(string, int) fakeserver.Fault { return tt.fault }})
			var buf bytes.Buffer
			opts := fast
			opts.Retries, opts.Timeout = 2, tt.timeout
			sum, err := runner.Run(context.Background(), runner.FromItems(makeItems(1)), client(ts), runner.NewOutput(&buf), opts)
			if err != nil || sum.Errors != 1 || sum.ExitCode() != 1 {
				t.Fatalf("%v %v", sum, err)
			}
			if n, _ := fs.Calls("prompt 0"); n != tt.calls {
				t.Errorf("%d calls, want %d", n, tt.calls)
			}
			recs := parseLines(t, buf.Bytes())
			if len(recs) != 1 || recs[0].Output != nil || recs[0].Error == nil || recs[0].Error.Code != tt.code || !strings.HasPrefix(recs[0].Error.Message, tt.msg) {
				t.Errorf("record %s", buf.Bytes())
			}
			// a run that went through with errors names the last, and the
			// way on (it named none short of a stop)
			if line := sum.String(); !strings.Contains(line, "; the last error: "+tt.code+": "+tt.msg) || !strings.HasSuffix(line, ", then run again with -o FILE to ask them again") {
				t.Errorf("summary %q", line)
			}
		})
	}
}

func TestBudgetStopsTheRun(t *testing.T) {
	fs, ts := startServer(t, fakeserver.Options{Fault: func(user string, n int) fakeserver.Fault {
		if promptIndex(user) == 1 && n == 1 {
			return fakeserver.Fault{Status: 500}
		}
		return fakeserver.Fault{}
	}})
	var buf bytes.Buffer
	opts := fast
	opts.Concurrency, opts.MaxRequests = 1, 5
	sum, err := runner.Run(context.Background(), runner.FromItems(makeItems(10)), client(ts), runner.NewOutput(&buf), opts)
	if err != nil {
		t.Fatal(err)
	}
	// Five calls: one of them a retry, so four answers.
	if _, total := fs.Calls(""); total != 5 || sum.Calls != 5 || sum.Answered != 4 || sum.Left != 6 || sum.Stopped != "budget" || sum.ExitCode() != 1 {
		t.Errorf("summary %v, server calls %d", sum, total)
	}
	if n := len(parseLines(t, buf.Bytes())); n != 4 {
		t.Errorf("%d records, want 4", n)
	}
}

// TestBudgetWithRateLimit: calls claimed from the budget while they wait
// their turn of the rate limit are made when the budget stops the run, so
// the budget is spent in calls, and the summary counts the calls the server
// got: the claims were dropped when the budget ran out (97 calls made of 100,
// and "stopped: budget"). A run stopped by its context while calls wait
// counts only the calls made (183 counted, 179 made).
func TestBudgetWithRateLimit(t *testing.T) {
	fs, ts := startServer(t, fakeserver.Options{})
	var buf bytes.Buffer
	opts := fast
	opts.Concurrency, opts.MaxRequests, opts.RPS = 4, 6, 20
	sum, err := runner.Run(context.Background(), runner.FromItems(makeItems(20)), client(ts), runner.NewOutput(&buf), opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, total := fs.Calls(""); total != 6 || sum.Calls != 6 || sum.Answered != 6 || sum.Stopped != "budget" {
		t.Errorf("budget: summary %v, server calls %d", sum, total)
	}
	if n := len(parseLines(t, buf.Bytes())); n != 6 {
		t.Errorf("budget: %d records, want 6", n)
	}

	fs2, ts2 := startServer(t, fakeserver.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Millisecond)
	defer cancel()
	buf.Reset()
	opts.MaxRequests, opts.RPS = 0, 10 // a turn each 100 ms: the stop comes while calls wait
	sum, err = runner.Run(ctx, runner.FromItems(makeItems(20)), client(ts2), runner.NewOutput(&buf), opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, total := fs2.Calls(""); sum.Calls != total || total == 0 || total >= 20 {
		t.Errorf("stopped: summary %v, server calls %d", sum, total)
	}
}

// A run stops after MaxConsecutiveErrors error records in a row, and its
// summary names the last error and what to look at for it.
func TestConsecutiveErrorsStopTheRun(t *testing.T) {
	azure, err := os.ReadFile("../openai/testdata/error_400_azure_content_filter.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		status int
		body   []byte
		last   string
		see    string
	}{
		{500, nil, "http_500: HTTP 500 Internal Server Error", "the provider is down or overloaded: wait a while"},
		{429, nil, "http_429: HTTP 429 Too Many Requests", "a rate limit, or the account's quota when the message says so: lower --concurrency or set --rps, or check the account's plan and billing"},
		{400, nil, "http_400: HTTP 400 Bad Request", "the provider refuses the requests as sent: the message says what it wants (a model's own parameters: --max-tokens, --temperature)"},
		{401, nil, "http_401: HTTP 401 Unauthorized", "check the API key (--api-key-env names its variable)"},
		{404, nil, "http_404: HTTP 404 Not Found", "check --base-url (the API's root, with its /v1 where it has one) and --model"},
		// Azure OpenAI's content filter, as recorded from it
		{400, azure, "content_filter: HTTP 400 Bad Request (content_filter): The response was filtered", "the provider's safety filter blocks these prompts, and asking again gets the same: check its settings (Azure OpenAI: the deployment's content filter)"},
	} {
		_, ts := startServer(t, fakeserver.Options{Fault: func(user string, n int) fakeserver.Fault {
			if promptIndex(user) >= 2 {
				return fakeserver.Fault{Status: tt.status, Body: tt.body}
			}
			return fakeserver.Fault{}
		}})
		var buf bytes.Buffer
		opts := fast
		opts.Concurrency, opts.Retries, opts.MaxConsecutiveErrors = 1, 1, 3
		sum, _ := runner.Run(context.Background(), runner.FromItems(makeItems(20)), client(ts), runner.NewOutput(&buf), opts)
		if sum.Answered != 2 || sum.Errors != 3 || sum.Left != 15 ||
			!strings.HasPrefix(sum.Stopped, "3 consecutive errors (the last: "+tt.last) ||
			!strings.HasSuffix(sum.Stopped, "); "+tt.see+", then run again with -o FILE to go on") {
			t.Errorf("HTTP %d: summary %+v", tt.status, sum)
		}
	}
}

func TestCancelFinishesCallsInFlight(t *testing.T) {
	_, ts := startServer(t, fakeserver.Options{Fault: func(string, int) fakeserver.Fault {
		return fakeserver.Fault{Delay: 200 * time.Millisecond}
	}})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	var buf bytes.Buffer
	sum, err := runner.Run(ctx, runner.FromItems(makeItems(12)), client(ts), runner.NewOutput(&buf), fast)
	if err != nil {
		t.Fatal(err)
	}
	// The four calls in flight finish and are written; nothing else starts.
	if sum.Answered != 4 || sum.Left != 8 || sum.Stopped != "signal" {
		t.Errorf("summary %v", sum)
	}
	recs := parseLines(t, buf.Bytes())
	for i, r := range recs {
		if r.RequestID != fmt.Sprintf("case-%02d.a1", i) || r.Output == nil {
			t.Errorf("record %d: %+v", i, r)
		}
	}
}

func TestRateLimit(t *testing.T) {
	_, ts := startServer(t, fakeserver.Options{})
	opts := fast
	opts.RPS = 40
	start := time.Now()
	var buf bytes.Buffer
	sum, _ := runner.Run(context.Background(), runner.FromItems(makeItems(9)), client(ts), runner.NewOutput(&buf), opts)
	// Nine calls at 40 per second: the last starts 200ms after the first.
	if d := time.Since(start); sum.Answered != 9 || d < 190*time.Millisecond {
		t.Errorf("9 calls took %v at 40 rps (%v)", d, sum)
	}
}

func TestOpenOutputResumes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.jsonl")
	content := `{"schema_version":"fbeval-response/v1","request_id":"case-00.a1","case_id":"case-00","output":"x"}` + "\n" +
		`{"schema_version":"fbeval-response/v1","request_id":"case-01.a1","case_id":"case-01","error":{"code":"http_500","message":"m"}}` + "\n" +
		`{"schema_version":"coglang-generation-eval-response/v0.1","case_id":"case-02.a1","output":"y"}` + "\n" +
		`{"schema_version":"fbeval-response/v1","request_id":"case-03.a1","case_id":"cas`
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runner.OpenOutput(path, runner.Resume{})
	if err != nil {
		t.Fatal(err)
	}
	if torn := int64(len(content) - strings.LastIndexByte(content, '\n') - 1); out.Repaired != torn {
		t.Errorf("repaired %d bytes, want %d", out.Repaired, torn)
	}
	_, ts := startServer(t, fakeserver.Options{Reply: func(u string) string { return u }})
	sum, err := runner.Run(context.Background(), runner.FromItems(makeItems(5)), client(ts), out, fast)
	out.Close()
	if err != nil || sum.Skipped != 2 || sum.Answered != 3 {
		t.Fatalf("summary %v %v", sum, err)
	}
	data, _ := os.ReadFile(path)
	recs := parseLines(t, data)
	var got []string
	for _, r := range recs {
		got = append(got, r.RequestID)
	}
	want := "case-00.a1 case-01.a1  case-01.a1 case-03.a1 case-04.a1"
	if strings.Join(got, " ") != want {
		t.Errorf("ids %q, want %q", strings.Join(got, " "), want)
	}

	if err := os.WriteFile(path, []byte("{\"request_id\":\"a\",\"output\":\"x\"}\nnot json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := runner.OpenOutput(path, runner.Resume{}); err == nil || !strings.Contains(err.Error(), "out.jsonl:2: not a response record") {
		t.Errorf("a broken complete line: %v", err)
	}
}

// TestKeyNeverWritten runs a whole command through Execute against a server whose
// error bodies echo the Authorization header, and checks every byte written.
func TestKeyNeverWritten(t *testing.T) {
	const key = "sk-test-SECRET-0123456789"
	const headerSecret = "hdr-SECRET-abcdef"
	t.Setenv("FBEVAL_TEST_KEY", key)
	var mu sync.Mutex
	var seenAuth []string
	fs := fakeserver.New(fakeserver.Options{Fault: func(user string, n int) fakeserver.Fault {
		switch promptIndex(user) % 3 {
		case 0:
			return fakeserver.Fault{Status: 401, EchoKey: true}
		case 1:
			return fakeserver.Fault{Status: 500, EchoKey: true}
		}
		return fakeserver.Fault{}
	}})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seenAuth = append(seenAuth, r.Header.Get("Authorization"))
		mu.Unlock()
		fs.ServeHTTP(w, r)
	}))
	defer ts.Close()

	dir := t.TempDir()
	reqPath, outPath := writeRequests(t, dir, 6), filepath.Join(dir, "out.jsonl")
	base := ts.URL + "/v1"
	f := runner.NetFlags{Input: reqPath, Output: outPath, Model: "m", BaseURL: &base, APIKeyEnv: "FBEVAL_TEST_KEY",
		Header: []string{"X-Extra: " + headerSecret}, Concurrency: 2, Retries: 1, Backoff: time.Millisecond, MaxBackoff: time.Millisecond, Timeout: time.Second}
	var stdout, stderr bytes.Buffer
	code := runner.Execute(context.Background(), &f, runner.Setup{
		Name: "fbeval-openai",
		Auth: func(k string) http.Header { return http.Header{"Authorization": {"Bearer " + k}} },
		New:  func(h *runner.HTTP) runner.Provider { return &openai.Client{HTTP: h, Opts: openai.Options{Model: "m"}} },
	}, nil, &stdout, &stderr)
	if code != 1 {
		t.Errorf("exit %d, want 1 (provider errors)", code)
	}
	if len(seenAuth) == 0 || seenAuth[0] != "Bearer "+key {
		t.Fatalf("the key was not sent: %q", seenAuth)
	}
	file, _ := os.ReadFile(outPath)
	for name, b := range map[string][]byte{"stdout": stdout.Bytes(), "stderr": stderr.Bytes(), "output file": file} {
		for _, secret := range []string{key, headerSecret, "SECRET"} {
			if bytes.Contains(b, []byte(secret)) {
				t.Errorf("%s holds a secret: %s", name, b)
			}
		}
	}
	recs := parseLines(t, file)
	if len(recs) != 6 || recs[0].Error == nil || recs[0].Error.Code != "http_401" || recs[1].Error.Code != "http_500" || recs[2].Output == nil {
		t.Errorf("records: %s", file)
	}
	if !strings.Contains(stderr.String(), "6 requests: 2 answered, 4 errors") {
		t.Errorf("summary: %s", stderr.String())
	}
}

func TestRedact(t *testing.T) {
	got := runner.Redact("key sk-abcdef and Bearer sk-abcdef, x", []string{"sk-abcdef", "abc"})
	if got != "key [redacted] and Bearer [redacted], x" {
		t.Errorf("got %q", got)
	}
}

// TestLatencyIsTheCallOnly: latency_ms is the time of the provider call, not the time
// a request waited for a free worker (--concurrency) or for the rate limit. With one
// worker and every answer taking d, the sixth request waits 5d before its call; its
// latency must still be about d.
func TestLatencyIsTheCallOnly(t *testing.T) {
	const d = 300 * time.Millisecond
	_, ts := startServer(t, fakeserver.Options{Fault: func(string, int) fakeserver.Fault { return fakeserver.Fault{Delay: d} }})
	for _, opts := range []runner.Options{
		{Concurrency: 1, Timeout: 10 * time.Second},
		{Concurrency: 6, RPS: 1000.0 / 300, Timeout: 10 * time.Second}, // each call waits its turn of the rate limit
	} {
		var buf bytes.Buffer
		if _, err := runner.Run(context.Background(), runner.FromItems(makeItems(6)), client(ts), runner.NewOutput(&buf), opts); err != nil {
			t.Fatal(err)
		}
		for i, line := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
			var rec struct {
				LatencyMS *float64 `json:"latency_ms"`
			}
			if err := json.Unmarshal(line, &rec); err != nil || rec.LatencyMS == nil {
				t.Fatalf("record %d: %v %s", i+1, err, line)
			}
			// At least the answer's delay, and under four of them: the sixth call waits
			// five turns of the rate limit (1.5 s), so a latency that counted the queue
			// would reach 1.8 s. The slack keeps a loaded machine from failing the test.
			if ms := *rec.LatencyMS; ms < float64(d.Milliseconds()) || ms >= float64(4*d.Milliseconds()) {
				t.Errorf("concurrency %d, rps %v: record %d latency %.0f ms, want about %v", opts.Concurrency, opts.RPS, i+1, ms, d)
			}
		}
	}
}

func TestRedactRuns(t *testing.T) {
	const key = "sk-proj-0123456789abcdefXYZ"
	secrets := []string{key, "hdrvalue-7777", "abc"}
	for _, tc := range []struct{ in, want string }{
		{"key " + key + " end", "key [redacted] end"},
		// A key split over two messages: each half is 8 bytes or more of it.
		{"first: sk-proj-0123456", "first: [redacted]"},
		{"second: 789abcdefXYZ!", "second: [redacted]!"},
		// Fewer than 8 bytes of a secret are ordinary text.
		{"sk-proj and 0123456", "sk-proj and 0123456"},
		{"x hdrvalue-77 y", "x [redacted] y"},
		{"abc and abcd", "abc and abcd"},
		{"two 01234567 and cdefXYZ! 89abcdefXY", "two [redacted] and cdefXYZ! [redacted]"},
	} {
		if got := runner.Redact(tc.in, secrets); got != tc.want {
			t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	long := strings.Repeat("é", 400) + key
	got := runner.ProviderText("a\nb\t"+long, secrets)
	if len(got) > runner.MaxMessageBytes || strings.ContainsAny(got, "\n\t") || !strings.HasPrefix(got, "a b é") || !strings.HasSuffix(got, "...") {
		t.Errorf("ProviderText: %d bytes, %q", len(got), got)
	}
	if got := runner.ProviderText("bad \xff byte", nil); got != "bad \uFFFD byte" {
		t.Errorf("ProviderText kept invalid UTF-8: %q", got)
	}
}

// TestUnscorableAnswers: an answer that is not UTF-8, or whose record is longer than
// the scorer reads, is written as a bad_response error, never as an answer.
// answerFunc is a Provider answering with f's text.
type answerFunc func(req *contract.Request) string

func (f answerFunc) Do(_ context.Context, req *contract.Request) (runner.Result, error) {
	return runner.Result{Output: runner.String(f(req))}, nil
}

func TestUnscorableAnswers(t *testing.T) {
	// The JSON decoders mend bad bytes in a string, but an answer taken from raw
	// JSON (a tool call's input) or a future decoder may not: the engine checks.
	var calls sync.Map
	p := answerFunc(func(req *contract.Request) string {
		n, _ := calls.LoadOrStore(req.RequestID, new(int))
		*n.(*int)++
		switch req.RequestID {
		case "case-00.a1":
			return "bad \xff byte"
		case "case-01.a1":
			if *n.(*int) == 1 {
				return "bad once \xed\xb2\x80"
			}
			return "mended"
		case "case-02.a1":
			return strings.Repeat("long ", 100)
		}
		return "fine"
	})
	var buf bytes.Buffer
	opts := fast
	opts.MaxRecordBytes = 400
	opts.Retries = 1
	sum, err := runner.Run(context.Background(), runner.FromItems(makeItems(4)), p, runner.NewOutput(&buf), opts)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Answered != 2 || sum.Errors != 2 || sum.Retries != 2 {
		t.Errorf("%v, want 2 answers, 2 errors and the bad UTF-8 asked again", sum)
	}
	recs := parseLines(t, buf.Bytes())
	if len(recs) != 4 || recs[0].Error == nil || recs[0].Error.Code != "bad_response" || !strings.Contains(recs[0].Error.Message, "not valid UTF-8 (byte 4)") ||
		recs[1].Output == nil || *recs[1].Output != "mended" ||
		recs[2].Error == nil || recs[2].Error.Code != "bad_response" || !strings.Contains(recs[2].Error.Message, "more than the 400 a scorer reads") ||
		recs[3].Output == nil {
		t.Errorf("records:\n%s", buf.Bytes())
	}
	if !utf8.Valid(buf.Bytes()) {
		t.Errorf("the output is not UTF-8:\n%q", buf.Bytes())
	}
}

// TestResumeAsksUnscorableAgain: a record the scorer would reject (not UTF-8, longer
// than its line limit) answers nothing when a run resumes.
func TestResumeAsksUnscorableAgain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.jsonl")
	data := "{\"request_id\":\"a\",\"output\":\"ok\"}\n{\"request_id\":\"b\",\"output\":\"bad \xff\"}\n"
	if !testing.Short() {
		data += `{"request_id":"c","output":"` + strings.Repeat("x", runner.MaxRecordBytes) + "\"}\n"
	}
	data += "{\"request_id\":\"d\",\"output\":\"ok\"}\n"
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runner.OpenOutput(path, runner.Resume{})
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if !out.Answered("a") || out.Answered("b") || out.Answered("c") || !out.Answered("d") || out.Repaired != 0 {
		t.Errorf("answered a %v b %v c %v d %v, repaired %d; want a and d only", out.Answered("a"), out.Answered("b"), out.Answered("c"), out.Answered("d"), out.Repaired)
	}
}

// TestAnswersLoseTheKey: an answer, and the provider output kept beside it, never
// carry 8 bytes in a row of a credential; other header values stay (ordinary text).
func TestAnswersLoseTheKey(t *testing.T) {
	const key = "sk-live-9f8e7d6c5b4a3210"
	p := providerFunc(func(req *contract.Request) (runner.Result, error) {
		return runner.Result{Output: runner.String("half sk-live-9f8e and 7d6c5b4a3210 at https://example.org"),
			Metadata: contract.Object{runner.Field("provider_output", contract.Raw(`{"content":"`+key+`"}`))}}, nil
	})
	var buf bytes.Buffer
	opts := fast
	opts.Secrets = []string{key, "https://example.org"}
	opts.Keys = []string{key}
	if _, err := runner.Run(context.Background(), runner.FromItems(makeItems(1)), p, runner.NewOutput(&buf), opts); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	if !strings.Contains(got, `"output":"half [redacted] and [redacted] at https://example.org"`) || !strings.Contains(got, `"provider_output":{"content":"[redacted]"}`) {
		t.Errorf("record: %s", got)
	}

	// written in JSON escapes, in an envelope's arguments and in the provider's
	// message: a reader of that JSON read the key, which went through whole
	var escaped strings.Builder
	for _, r := range key {
		fmt.Fprintf(&escaped, `\u%04x`, r)
	}
	p = providerFunc(func(req *contract.Request) (runner.Result, error) {
		return runner.Result{Output: runner.String(`{"action":"call_tool","tool":"t","arguments":{"q":"` + escaped.String() + `"}}`),
			Metadata: contract.Object{runner.Field("provider_output", contract.Raw(`{"arguments":"{\"q\":\"`+escaped.String()+`\"}"}`))}}, nil
	})
	buf.Reset()
	if _, err := runner.Run(context.Background(), runner.FromItems(makeItems(1)), p, runner.NewOutput(&buf), opts); err != nil {
		t.Fatal(err)
	}
	got = buf.String()
	var rec struct {
		Output   string
		Metadata struct {
			ProviderOutput json.RawMessage `json:"provider_output"`
		}
	}
	if err := json.Unmarshal([]byte(got), &rec); err != nil {
		t.Fatalf("%v: %s", err, got)
	}
	var args, meta any
	json.Unmarshal([]byte(rec.Output), &args)
	json.Unmarshal(rec.Metadata.ProviderOutput, &meta)
	if read := fmt.Sprint(args, meta); strings.Contains(read, key[:8]) || strings.Contains(read, key[8:]) || !strings.Contains(got, "[redacted]") {
		t.Errorf("read as JSON, the record holds the key: %s\n%s", read, got)
	}
}

type providerFunc func(req *contract.Request) (runner.Result, error)

func (f providerFunc) Do(_ context.Context, req *contract.Request) (runner.Result, error) {
	return f(req)
}

// TestOverlongBatchObject: a request batch object on one line holding a request
// longer than the record limit is no "0 requests": the file is refused at that
// request's position (exit 2 in the runners), as every shape a request file can
// have is read or refused. (The object is read member by member, so only the
// request is over the limit, not the line.)
func TestOverlongBatchObject(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 64 MiB line")
	}
	big := strings.Repeat("x", contract.DefaultMaxLineBytes)
	data := `{"schema_version":"fbeval-request-batch/v1","requests":[{"schema_version":"fbeval-request/v1","request_id":"r","case_id":"c","suite":"toolcall","attempt":1,"seed":1,"messages":[{"role":"user","content":"` + big + `"}]}]}`
	items, err := runner.ReadRequests("big.json", strings.NewReader(data))
	if err == nil || !strings.Contains(err.Error(), "big.json:1:57: a record longer than 67108864 bytes (no request fbeval exports is this long: is this the request file?)") {
		t.Errorf("%d requests, error %v; want the file refused at its position", len(items), err)
	}
	// The runners have no --max-line-bytes flag: the message must not send the
	// user looking for one.
	if err != nil && strings.Contains(err.Error(), "--max-line-bytes") {
		t.Errorf("error names a flag the runners lack: %v", err)
	}
}

// TestWindowBehindSlowRequest: while the first request is held, the other workers
// go on only until the window of started, unwritten requests is full: what waits to
// be written stays bounded however long the file is.
func TestWindowBehindSlowRequest(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	calls := 0
	p := providerFunc(func(req *contract.Request) (runner.Result, error) {
		if req.RequestID == "case-00.a1" {
			<-release
		} else {
			mu.Lock()
			calls++
			mu.Unlock()
		}
		return runner.Result{Output: runner.String("ok")}, nil
	})
	held := make(chan int, 1)
	go func() {
		// long enough for the other worker to answer every request, unbounded
		time.Sleep(300 * time.Millisecond)
		mu.Lock()
		held <- calls
		mu.Unlock()
		close(release)
	}()
	var buf bytes.Buffer
	opts := fast
	opts.Concurrency = 2
	sum, err := runner.Run(context.Background(), runner.FromItems(makeItems(2000)), p, runner.NewOutput(&buf), opts)
	if err != nil || sum.Answered != 2000 {
		t.Fatalf("%v, %v", sum, err)
	}
	if n := <-held; n > 255 {
		t.Errorf("%d requests answered behind the held first one; want at most 255 (a window of 256)", n)
	}
	if recs := parseLines(t, buf.Bytes()); len(recs) != 2000 || recs[0].RequestID != "case-00.a1" || recs[1999].RequestID != "case-1999.a1" {
		t.Fatalf("records out of order or missing: %d", len(recs))
	}
}

// TestOpenOutputIsNotAnInput: an output file that is one of the run's inputs,
// by its name, another name or a link, is refused before it is opened (with
// --fresh it would be emptied, resuming would append to it); another file, a
// new file and /dev/null are not.
func TestOpenOutputIsNotAnInput(t *testing.T) {
	dir := t.TempDir()
	req := filepath.Join(dir, "req.jsonl")
	other := filepath.Join(dir, "other.jsonl")
	link := filepath.Join(dir, "link.jsonl")
	content := []byte(`{"schema_version":"fbeval-request/v1","request_id":"a","messages":[{"role":"user","content":"x"}]}` + "\n")
	for _, p := range []string{req, other} {
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(req, link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		out    string
		inputs []string
		fresh  bool
		want   string
	}{
		{req, []string{req}, true, "the run reads that file (" + req + ")"},
		{req, []string{other, req}, false, "the run reads that file (" + req + ")"},
		{link, []string{req}, true, "the run reads that file (" + req + ")"},
		{filepath.Join(dir, ".", "req.jsonl"), []string{req}, false, "the run reads that file"},
		{dir, []string{req}, false, "-o " + dir + ": is a folder: name a file in it (-o " + filepath.Join(dir, "responses.jsonl") + ")"},
		{other, []string{req}, false, "holds a request file (fbeval-request/v1), not response records"},
		{filepath.Join(dir, "new.jsonl"), []string{req}, true, ""},
		{os.DevNull, []string{os.DevNull}, false, ""},
		// where "cannot open the output file: open ...: no such file or directory"
		{filepath.Join(dir, "nodir", "r.jsonl"), []string{req}, false, "-o " + filepath.Join(dir, "nodir", "r.jsonl") + ": the folder " + filepath.Join(dir, "nodir") + " does not exist: make it, or name an output in a folder that does"},
		{filepath.Join(req, "r.jsonl"), []string{req}, false, "-o " + filepath.Join(req, "r.jsonl") + ": " + req + " is not a folder: name an output in a folder"},
		// where "open ...: is a directory" of a name not there
		{filepath.Join(dir, "new2.jsonl") + "/", []string{req}, false, "-o " + filepath.Join(dir, "new2.jsonl") + "/: names a folder (the / at its end), and none is there: name a file (-o " + filepath.Join(dir, "new2.jsonl") + ")"},
	} {
		out, err := runner.OpenOutput(tc.out, runner.Resume{Fresh: tc.fresh, Inputs: tc.inputs})
		if out != nil {
			out.Close()
		}
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("-o %s, inputs %v: %v; want %q", tc.out, tc.inputs, err, tc.want)
		}
		if data, _ := os.ReadFile(req); string(data) != string(content) {
			t.Fatalf("-o %s: the request file changed: %q", tc.out, data)
		}
	}
}

// TestOpenOutputNotResponses: an -o file that holds what cannot be a
// runner's response file (another fbeval file, named by its schema_version, or
// text that is not JSON lines) is refused with --fresh or without, and left as
// it was; response records of either family, an empty file and a torn first
// line are resumed (or, with --fresh, started over).
func TestOpenOutputNotResponses(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content, want string
	}{
		{"report", "{\n  \"schema_version\": \"fbeval-report/v1\",\n  \"suite\": \"toolcall\"\n}\n", "holds an fbeval report (fbeval-report/v1), not response records, so it is neither resumed nor started over (--fresh): write the responses to another file"},
		{"result", `{"schema_version": "coglang-generation-eval-result/v0.1", "tool": "fbeval"}`, "holds a CogLang result (coglang-generation-eval-result/v0.1)"},
		{"study", `{"schema_version": "fbeval-study/v1", "suite": "toolcall"}`, "holds a study file (fbeval-study/v1)"},
		{"fixture", `{"schema_version": "coglang-generation-eval-fixture/v0.1", "cases": [`, "holds a CogLang fixture"},
		{"cases", `{"schema_version":"fbeval-case-result/v1","case_id":"a"}` + "\n", "holds a case-results file (fbeval-case-result/v1)"},
		{"batch", `{"schema_version": "fbeval-response-batch/v1", "responses": []}`, "holds a response file (fbeval-response-batch/v1)"},
		{"list", `[{"request_id": "a", "output": "x"}]`, "holds a JSON list (a runner appends JSON lines)"},
		{"junit", "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>", `holds text that is not JSON lines (it starts "<?xml version=\"1.0\" encoding=\"UTF-8\"?>")`},
		{"text", "schema_version: coglang-generation-eval-result/v0.1\n", "holds text that is not JSON lines"},
		// a provider's own lines, saved where the runner's records go
		{"batch output", `{"id": "batch_req_1", "custom_id": "a", "response": {"status_code": 200, "body": {}}, "error": null}` + "\n", "holds an OpenAI Batch output line (custom_id, response), not response records, so it is neither resumed nor started over (--fresh): write the responses to another file"},
		// a document printed over lines: a schema, HESchema's config
		{"json schema", "{\n  \"$schema\": \"https://json-schema.org/draft/2020-12/schema\",\n  \"type\": \"object\"\n}\n", "holds a JSON Schema, not response records, so it is neither resumed nor started over (--fresh)"},
		{"heschema config", "{\n  \"datasetHash\": \"ab\",\n  \"schemaHashes\": {},\n  \"repeats\": 3\n}\n", "holds HESchema's config.json (a run's configuration), not response records"},
		{"chat completion", `{"id":"chatcmpl-1","object":"chat.completion","model":"m","choices":[]}` + "\n", "holds an OpenAI chat completion (the API's reply), not response records"},
		// Anthropic's batch body: one line, cut off where the head is read
		{"anthropic batch", `{"requests":[{"custom_id":"a_r0f28a999","params":{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"` + strings.Repeat("x", 70000) + `"}]}}]}` + "\n", `holds an Anthropic Message Batches create body ({"requests": [{"custom_id", "params"}, ...]}, as fbeval-batch to-anthropic writes it), not response records`},
		{"anthropic batch, small", `{ "requests": [ { "custom_id": "a", "params": {} } ] }`, "holds an Anthropic Message Batches create body"},
		{"requests object", `{"requests": [{"request_id": "a"}]}`, `holds a batch object of requests ({"requests": [...]}), not response records`},
		{"responses", `{"schema_version":"fbeval-response/v1","request_id":"a","output":"x"}` + "\n", ""},
		{"coglang responses", "\ufeff" + `{"schema_version": "coglang-generation-eval-response/v0.1", "case_id": "L1-001", "output": "Equal[1, 1]"}` + "\n", ""},
		{"unversioned", `{"request_id":"a","output":"x"}` + "\n", ""},
		{"torn", `{"request_id":"a","out`, ""},
		{"empty", "", ""},
		{"blank", "\n\n", ""},
	} {
		for _, fresh := range []bool{false, true} {
			path := filepath.Join(dir, "out.jsonl")
			if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := runner.OpenOutput(path, runner.Resume{Fresh: fresh})
			if out != nil {
				out.Close()
			}
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("%s (fresh %v): %v; want %q", tc.name, fresh, err, tc.want)
			}
			if data, _ := os.ReadFile(path); tc.want != "" && string(data) != tc.content {
				t.Errorf("%s (fresh %v): the file changed: %q", tc.name, fresh, data)
			}
		}
	}
}

// TestStdoutNotAnInput: a standard output that is a file the run reads (as
// `runner req.jsonl >> req.jsonl` makes it) is refused; another file,
// /dev/null and a buffer are not.
func TestStdoutNotAnInput(t *testing.T) {
	dir := t.TempDir()
	req := filepath.Join(dir, "req.jsonl")
	other := filepath.Join(dir, "other.jsonl")
	for _, p := range []string{req, other} {
		if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	open := func(p string) *os.File {
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	if err := runner.StdoutNotAnInput(open(req), []string{other, req}, "the responses"); err == nil || !strings.Contains(err.Error(), "standard output is "+req+", which the run reads") {
		t.Errorf("stdout onto the request file: %v", err)
	}
	for name, w := range map[string]io.Writer{"another file": open(other), "/dev/null": open(os.DevNull), "a buffer": new(bytes.Buffer)} {
		if err := runner.StdoutNotAnInput(w, []string{req}, "the responses"); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestRunWarnsOfAnswersThatMeasureNothing: a live run says at once, not hours
// later at scoring, when the model's answers hold its thinking (a server
// without a reasoning parser) or every answer so far is empty (a reasoning
// model that spends its tokens before it answers): once each, as the first
// such answer is written, and the summary counts them.
func TestRunWarnsOfAnswersThatMeasureNothing(t *testing.T) {
	for _, tt := range []struct {
		name  string
		reply func(i int) string
		warn  []string
		tail  string
		tools bool // the requests offer a tool
	}{
		{"thinking", func(i int) string { return "<think>\nplan " + fmt.Sprint(i) + "\n</think>\n{}" },
			[]string{"the answer to case-00.a1 holds the model's thinking (<think>...</think>, [THINK] or <|channel|> markup) before its answer, which strict scoring fails: the server returns the model's reasoning as part of the answer; have it return the reasoning apart (vLLM: --reasoning-parser), or stop the run (Ctrl-C) if that was not meant"},
			"; 24 answers hold the model's thinking", false},
		{"empty", func(int) string { return "" },
			[]string{"the first 10 answers are all empty (the last's finish_reason stop): the model ends its answers with no text: check the model and its chat template; stop the run (Ctrl-C) if that was not meant"},
			"; 24 answers empty", false},
		{"some empty", func(i int) string {
			if i%2 == 0 {
				return ""
			}
			return "{}"
		}, nil, "; 12 answers empty", false},
		{"plain", func(int) string { return "{}" }, nil, ", 0 retries", false},
		// a server that did not parse the model's tool calls (vLLM without its
		// tool-call parser, llama.cpp without --jinja) returns them as text
		{"tool-call markup", func(i int) string {
			return fmt.Sprintf("<tool_call>\n{\"name\": \"search\", \"arguments\": {\"n\": %d}}\n</tool_call>", i)
		}, []string{"the answer to case-00.a1 is the model's <tool_call> markup (Hermes, Qwen), a tool call the server left unparsed in the text, which scoring fails: start the server with the tool-call parser of the model (vLLM: --enable-auto-tool-choice --tool-call-parser NAME; llama.cpp: --jinja), or stop the run (Ctrl-C) if that was not meant"},
			"; 24 answers are tool calls left in the text", true},
		{"bare function call", func(int) string { return `{"name": "search", "arguments": {"n": 1}}` },
			[]string{"the answer to case-00.a1 is a {\"name\", \"arguments\"} function call (OpenAI's function, Hermes' format), a tool call the server left unparsed in the text, which scoring fails: start the server with the tool-call parser of the model (vLLM: --enable-auto-tool-choice --tool-call-parser NAME; llama.cpp: --jinja), or stop the run (Ctrl-C) if that was not meant"},
			"; 24 answers are tool calls left in the text", true},
		// without tools offered, such an answer is the model's own, to score
		{"markup without tools", func(int) string { return "[TOOL_CALLS][{\"name\": \"search\", \"arguments\": {}}]" }, nil, ", 0 retries", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, ts := startServer(t, fakeserver.Options{Reply: func(user string) string { return tt.reply(promptIndex(user)) }})
			var warned []string
			opts := fast
			opts.Warn = func(msg string) { warned = append(warned, msg) }
			items := makeItems(24)
			if tt.tools {
				for i := range items {
					items[i].Req.Tools = []contract.ToolDefinition{{Name: "search", Parameters: jsontext.Value(`{"type":"object"}`)}}
				}
			}
			sum, err := runner.Run(context.Background(), runner.FromItems(items), client(ts), runner.NewOutput(io.Discard), opts)
			if err != nil || sum.Answered != 24 {
				t.Fatalf("summary %v, %v", sum, err)
			}
			if !slices.Equal(warned, tt.warn) {
				t.Errorf("warned %q, want %q", warned, tt.warn)
			}
			if !strings.HasSuffix(sum.String(), tt.tail) {
				t.Errorf("summary %q, want it to end %q", sum.String(), tt.tail)
			}
		})
	}
}

// runRecorded runs n requests against a server that answers each with the
// recorded body of ../openai/testdata/file, writing to out, and returns the
// summary and the warnings given.
func runRecorded(t *testing.T, file string, n int, out io.Writer) (runner.Summary, []string) {
	t.Helper()
	body, err := os.ReadFile("../openai/testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	_, ts := startServer(t, fakeserver.Options{Fault: func(string, int) fakeserver.Fault { return fakeserver.Fault{Status: 200, Body: body} }})
	var warned []string
	opts := fast
	opts.Warn = func(msg string) { warned = append(warned, msg) }
	sum, err := runner.Run(context.Background(), runner.FromItems(makeItems(n)), client(ts), runner.NewOutput(out), opts)
	if err != nil {
		t.Fatal(err)
	}
	return sum, warned
}

// TestRunWarnsOfTheAnswerInTheReasoning: answers empty beside the model's
// reasoning returned apart (vLLM's reasoning parser took the answer: content
// null, the answer in reasoning_content, finish_reason stop) are said once,
// at the first, with where the text went, and not as a reasoning model that
// spent its tokens (which told a run whose every answer stopped to raise
// --max-tokens).
func TestRunWarnsOfTheAnswerInTheReasoning(t *testing.T) {
	var out bytes.Buffer
	sum, warned := runRecorded(t, "chat_vllm_answer_in_reasoning.json", 12, &out)
	if sum.Answered != 12 || sum.Empty != 12 || sum.EmptyReasoning != 12 {
		t.Fatalf("summary %+v", sum)
	}
	want := []string{"the answer to case-00.a1 is empty, and the reasoning the server returned apart holds 116 bytes of text (kept in the record's metadata.reasoning; finish_reason stop): a server's reasoning parser that took the answer for the model's reasoning (vLLM: check --reasoning-parser against the model and its chat template); stop the run (Ctrl-C) if that was not meant"}
	if !slices.Equal(warned, want) {
		t.Errorf("warned %q, want %q", warned, want)
	}
	if !strings.Contains(out.String(), `"metadata":{"reasoning":"{\"action\":\"ask_clarification\"`) {
		t.Errorf("records do not keep the reasoning:\n%s", out.String())
	}
}

// TestRunWarnsOfEmptyByFinish: the first ten answers all empty are said by
// what their finish reason says: withheld or refused (a run of refusals was
// told to raise --max-tokens), cut at the token limit.
func TestRunWarnsOfEmptyByFinish(t *testing.T) {
	for file, want := range map[string]string{
		"chat_content_filter.json":        "the first 10 answers are all empty (the last's finish_reason content_filter): the model refuses them, or a safety filter withholds them: the records keep what the provider said of it, where it says (metadata.stop_details, metadata.refusal, metadata.content_filter_results); check the prompts and the provider's filter settings; stop the run (Ctrl-C) if that was not meant",
		"chat_vllm_reasoning_length.json": "the answer to case-00.a1 is empty, and the reasoning the server returned apart holds 192 bytes of text (kept in the record's metadata.reasoning; finish_reason length): the model spent its tokens thinking: raise --max-tokens; stop the run (Ctrl-C) if that was not meant",
	} {
		if _, warned := runRecorded(t, file, 12, io.Discard); !slices.Equal(warned, []string{want}) {
			t.Errorf("%s: warned %q, want %q", file, warned, want)
		}
	}
}

// TestRunWarnsOfManyCalls: an answer that calls more than one tool is said
// at the first and counted in the summary: only its first call is scored.
func TestRunWarnsOfManyCalls(t *testing.T) {
	sum, warned := runRecorded(t, "chat_tool_call_null_content.json", 3, io.Discard)
	if sum.Answered != 3 || sum.ManyCalls != 3 {
		t.Fatalf("summary %+v", sum)
	}
	want := []string{"the answer to case-00.a1 calls 2 tools, and only the first is scored (the answer's envelope holds one; the others are in its metadata.provider_output): a model that calls tools in parallel, which a study of one call a case scores by its first"}
	if !slices.Equal(warned, want) {
		t.Errorf("warned %q, want %q", warned, want)
	}
	if !strings.HasSuffix(sum.String(), "; 3 answers call more than one tool (the first is scored)") {
		t.Errorf("summary %q", sum.String())
	}
}

// TestTemperatureRefused: the refusals of a temperature that OpenAI's reasoning
// models and Anthropic's models after Claude Opus 4.6 send (as reports show
// them) name the way on, when a temperature was sent; nothing else does.
func TestTemperatureRefused(t *testing.T) {
	zero, half := 0.0, 0.5
	for _, tt := range []struct {
		status int
		body   string
		sent   *float64
		want   string // the end of the message; "" for none added
	}{
		{400, `{"error":{"message":"Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.","type":"invalid_request_error","param":"temperature","code":"unsupported_value"}}`, &zero, "was sent 0: set the study's temperature to 1 or leave it out and export again, or give fbeval-x --temperature 1 to send these requests 1)"},
		{400, `{"type":"error","error":{"type":"invalid_request_error","message":"` + "`temperature`" + ` is deprecated for this model."},"request_id":"req_1"}`, &half, "was sent 0.5: set the study's temperature to 1 or leave it out and export again, or give fbeval-x --temperature 1 to send these requests 1)"},
		{400, `{"error":{"message":"Unsupported parameter: 'temperature' is not supported with this model.","type":"invalid_request_error","param":"temperature","code":"unsupported_parameter"}}`, &zero, "(the model takes no temperature, and was sent 0: leave it out of the study and export again)"},
		// nothing sent, another error, another status: nothing added
		{400, `{"type":"error","error":{"type":"invalid_request_error","message":"` + "`temperature`" + ` is deprecated for this model."}}`, nil, ""},
		{400, `{"error":{"message":"temperature: must be at most 2","type":"invalid_request_error"}}`, &zero, ""},
		{500, `{"error":{"message":"temperature is deprecated","type":"server_error"}}`, &zero, ""},
	} {
		err := runner.TemperatureRefused(runner.StatusError(tt.status, []byte(tt.body)), "fbeval-x", tt.sent)
		var ce *runner.CallError
		if !errors.As(err, &ce) {
			t.Fatalf("%s: %v", tt.body, err)
		}
		added := strings.Contains(ce.Message, " (the model takes no temperature")
		if tt.want == "" && added || tt.want != "" && !strings.HasSuffix(ce.Message, tt.want) {
			t.Errorf("%s: %q, want it to end %q", tt.body, ce.Message, tt.want)
		}
	}
}

// TestBatchTemperatureAdvice: a batch's result does not say what temperature
// its line sent, so the way on is named whether or not the request carries one.
func TestBatchTemperatureAdvice(t *testing.T) {
	zero := 0.0
	takesOne := "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported."
	takesNone := "Unsupported parameter: 'temperature' is not supported with this model."
	for _, tt := range []struct {
		code, message string
		carried       *float64
		want          string
	}{
		{"http_400", takesOne, &zero, " (the model takes no temperature but its default, 1, and was sent one in its batch line (its request's 0, or fbeval-batch to-x --temperature's): set the study's temperature to 1 or leave it out and export again (and make the batch without --temperature), or give fbeval-batch to-x --temperature 1 to send these requests 1)"},
		{"http_400", takesOne, nil, " (the model takes no temperature but its default, 1, and was sent one in its batch line, given to fbeval-batch to-x --temperature (its request carries none): make the batch again with --temperature 1 or without it)"},
		{"http_400", takesNone, &zero, " (the model takes no temperature, and was sent one in its batch line (its request's 0, or fbeval-batch to-x --temperature's): leave it out of the study, export again and make the batch without --temperature)"},
		{"http_400", takesNone, nil, " (the model takes no temperature, and was sent one in its batch line, given to fbeval-batch to-x --temperature (its request carries none): make the batch again without --temperature)"},
		// a Claude model that dropped the sampling parameters; Claude Opus 4.8 in adaptive mode
		{"http_400", "temperature: Extra inputs are not permitted", nil, " (the model takes no temperature, and was sent one in its batch line, given to fbeval-batch to-x --temperature (its request carries none): make the batch again without --temperature)"},
		{"http_400", "`temperature` may only be set to 1 when thinking is enabled or in adaptive mode.", &zero, " (the model takes no temperature but its default, 1, and was sent one in its batch line (its request's 0, or fbeval-batch to-x --temperature's): set the study's temperature to 1 or leave it out and export again (and make the batch without --temperature), or give fbeval-batch to-x --temperature 1 to send these requests 1)"},
		{"http_400", "temperature: must be at most 2", nil, ""},
		{"http_400", "temperature: Input should be less than or equal to 1", &zero, ""},
		{"http_500", takesOne, nil, ""},
	} {
		if got := runner.BatchTemperatureAdvice(tt.code, tt.message, "fbeval-batch to-x", tt.carried); got != tt.want {
			t.Errorf("%s %q (carried %v):\n got %q\nwant %q", tt.code, tt.message, tt.carried, got, tt.want)
		}
	}
}

// TestRedactEscaped: a key written in JSON escapes inside an answer that is
// JSON text (an envelope's arguments, a provider's message kept as JSON) is
// the key to whoever reads that JSON: it goes, escapes and all, and the text
// stays JSON; escapes of anything else stay as they are.
func TestRedactEscaped(t *testing.T) {
	const key = "sk-proj-0123456789abcdefXYZ"
	esc := func(s string) string {
		var b strings.Builder
		for _, r := range s {
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		return b.String()
	}
	for _, tc := range []struct{ in, want string }{
		{`{"q":"` + esc(key) + `"}`, `{"q":"[redacted]"}`},
		{`{"q":"x ` + esc(key[:12]) + key[12:] + ` y"}`, `{"q":"x [redacted] y"}`},
		{`{"q":"` + key + `"}`, `{"q":"[redacted]"}`},
		{`{"q":"caf\u00e9 \n \"quoted\" \ud83d\ude00"}`, `{"q":"caf\u00e9 \n \"quoted\" \ud83d\ude00"}`},
		{`{"q":"` + esc("sk-proj") + ` and ` + esc("0123456") + `"}`, `{"q":"` + esc("sk-proj") + ` and ` + esc("0123456") + `"}`},
		{`\u00`, `\u00`},
	} {
		got := runner.RedactEscaped(tc.in, []string{key})
		if got != tc.want {
			t.Errorf("RedactEscaped(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if strings.HasPrefix(tc.in, "{") && !json.Valid([]byte(got)) {
			t.Errorf("RedactEscaped(%q) = %q: no longer JSON", tc.in, got)
		}
	}
}

func FuzzRedactEscaped(f *testing.F) {
	f.Add(`{"q":"\u0073\u006b-proj-0123456789"}`)
	f.Add(`\ud800\udc00 \u12`)
	f.Fuzz(func(t *testing.T, s string) {
		const key = "sk-proj-0123456789"
		got := runner.RedactEscaped(s, []string{key})
		// nothing of the key, 8 bytes in a row, is left, plain or read as JSON
		var v string
		if err := json.Unmarshal([]byte(`"`+got+`"`), &v); err == nil && strings.Contains(v, key[:8]) && !strings.Contains(s, `\\`) {
			t.Errorf("RedactEscaped(%q) = %q, which reads as %q", s, got, v)
		}
		if strings.Contains(got, key[:8]) {
			t.Errorf("RedactEscaped(%q) = %q keeps the key's bytes", s, got)
		}
	})
}

// fullAfter is a writer that takes n writes, then fails every one as a full
// disk does.
type fullAfter struct {
	n   int
	buf bytes.Buffer
}

func (w *fullAfter) Write(p []byte) (int, error) {
	if w.n == 0 {
		return 0, syscall.ENOSPC
	}
	w.n--
	return w.buf.Write(p)
}

// TestAnsweredCountsWritten: a run that a full disk stops counts as answered
// the records it wrote, not the answers it got (it said 306 answered of a
// file that held 301).
func TestAnsweredCountsWritten(t *testing.T) {
	_, ts := startServer(t, fakeserver.Options{})
	w := &fullAfter{n: 3}
	opts := fast
	opts.Concurrency = 4
	sum, err := runner.Run(context.Background(), runner.FromItems(makeItems(20)), client(ts), runner.NewOutput(w), opts)
	if err == nil {
		t.Fatal("no write error")
	}
	if n := len(parseLines(t, w.buf.Bytes())); sum.Answered != n || n != 3 || sum.Answered+sum.Errors+sum.Left != 20 {
		t.Errorf("summary %v, %d records written", sum, n)
	}
}

// TestOpenOutputWholeLastRecord: a last record that is whole but has no line
// end (a file cut by hand) is read as answered and given its line end, not
// cut as torn and asked again (a paid call).
func TestOpenOutputWholeLastRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.jsonl")
	content := `{"schema_version":"fbeval-response/v1","request_id":"case-00.a1","case_id":"case-00","output":"x"}` + "\n" +
		`{"schema_version":"fbeval-response/v1","request_id":"case-01.a1","case_id":"case-01","output":"y"}`
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runner.OpenOutput(path, runner.Resume{})
	if err != nil {
		t.Fatal(err)
	}
	if out.Repaired != 0 || !out.Answered("case-01.a1") {
		t.Errorf("repaired %d, case-01 answered %v", out.Repaired, out.Answered("case-01.a1"))
	}
	if err := out.Write([]byte(`{"schema_version":"fbeval-response/v1","request_id":"case-02.a1","case_id":"case-02","output":"z"}` + "\n")); err != nil {
		t.Fatal(err)
	}
	out.Close()
	data, _ := os.ReadFile(path)
	if n := len(parseLines(t, data)); n != 3 || !strings.HasSuffix(string(data), "\n") {
		t.Errorf("%d records:\n%s", n, data)
	}
}

// FuzzOpenOutput: any existing -o file opens or is refused with an error;
// opened, it holds whole lines only (a torn last line cut, a whole last
// record given its line end).
func FuzzOpenOutput(f *testing.F) {
	f.Add(`{"schema_version":"fbeval-response/v1","request_id":"a","output":"x"}` + "\n" + `{"request_id":"b","output":"y"}`)
	f.Add(`{"request_id":"a","output":"x"}` + "\n" + `{"request_id":"b","out`)
	f.Add("\n\n")
	f.Fuzz(func(t *testing.T, content string) {
		path := filepath.Join(t.TempDir(), "out.jsonl")
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := runner.OpenOutput(path, runner.Resume{})
		if err != nil {
			return
		}
		out.Close()
		data, _ := os.ReadFile(path)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			t.Fatalf("opened, the file ends inside a line: %q", data)
		}
	})
}

// TestProviderTextEscapedOnStderr: a provider's error message with control
// and bidi characters (an OSC 8 link, a screen clear, U+202E) reaches the
// runner's stderr lines escaped, as fbeval writes such text: the line that
// stops the run quoted it raw to the terminal or CI log.
func TestProviderTextEscapedOnStderr(t *testing.T) {
	const hostile = "\x1b]8;;http://evil/\x07click\x1b]8;;\x07 \x1b[2J\x1b[31mRED \u202eRTL"
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": hostile, "type": "not_found_error"}})
		w.Write(b)
	}))
	defer ts.Close()
	dir := t.TempDir()
	reqPath := writeRequests(t, dir, 3)
	base := ts.URL + "/v1"
	f := runner.NetFlags{Input: reqPath, Output: filepath.Join(dir, "out.jsonl"), Model: "m", BaseURL: &base, APIKeyEnv: "FBEVAL_TEST_NO_KEY",
		Concurrency: 1, MaxConsecutiveErrors: 1, Backoff: time.Millisecond, MaxBackoff: time.Millisecond, Timeout: time.Second}
	var stdout, stderr bytes.Buffer
	runner.Execute(context.Background(), &f, runner.Setup{
		Name: "fbeval-openai",
		Auth: func(k string) http.Header { return http.Header{"Authorization": {"Bearer " + k}} },
		New:  func(h *runner.HTTP) runner.Provider { return &openai.Client{HTTP: h, Opts: openai.Options{Model: "m"}} },
	}, nil, &stdout, &stderr)
	if !strings.Contains(stderr.String(), `\x1b]8;;http://evil/\x07click`) || strings.ContainsAny(stderr.String(), "\x1b\x07\u202e") {
		t.Errorf("stderr: %q", stderr.String())
	}
}

// TestHeaderWithoutColon: a --header with no colon is refused without its
// value; a key pasted alone (no name before it) is not shown at all (it was
// quoted whole as the header's "name").
func TestHeaderWithoutColon(t *testing.T) {
	dir := t.TempDir()
	reqPath := writeRequests(t, dir, 1)
	base := "http://127.0.0.1:1/v1"
	for header, want := range map[string]string{
		"sk-PASTEDKEY1234567890abcdef":    "fbeval-openai: --header wants NAME: VALUE, a colon after the name (a --header had none; its text is not shown here, in case it is a credential)\n",
		"Authorization Bearer sk-abcdef1": "fbeval-openai: --header wants NAME: VALUE, a colon after the name (--header \"Authorization ...\" had none; its value is not shown here, in case it is a credential)\n",
		"X-Token=abc123def":               "fbeval-openai: --header wants NAME: VALUE, a colon after the name (--header \"X-Token ...\" had none; its value is not shown here, in case it is a credential)\n",
		":sk-abcdef1234567890":            "fbeval-openai: --header wants NAME: VALUE, a name before the colon (a --header had none; its text is not shown here, in case it is a credential)\n",
	} {
		f := runner.NetFlags{Input: reqPath, Output: filepath.Join(dir, "out.jsonl"), Model: "m", BaseURL: &base, APIKeyEnv: "FBEVAL_TEST_NO_KEY", Header: []string{header}, Concurrency: 1, Timeout: time.Second}
		var stdout, stderr bytes.Buffer
		code := runner.Execute(context.Background(), &f, runner.Setup{
			Name: "fbeval-openai",
			New:  func(h *runner.HTTP) runner.Provider { return &openai.Client{HTTP: h, Opts: openai.Options{Model: "m"}} },
		}, nil, &stdout, &stderr)
		if code != 2 || stderr.String() != want {
			t.Errorf("%q: exit %d, stderr %q", header, code, stderr.String())
		}
	}
}

// writeRequests writes n requests (makeItems) to req.jsonl in dir, and
// returns its path.
func writeRequests(t *testing.T, dir string, n int) string {
	t.Helper()
	var reqs []byte
	for _, it := range makeItems(n) {
		b, _ := contract.Marshal(it.Req.Object(), contract.Compact)
		reqs = append(append(reqs, b...), '\n')
	}
	path := filepath.Join(dir, "req.jsonl")
	if err := os.WriteFile(path, reqs, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestOpenOutputPrettyPrinted: responses pretty-printed over lines (jq
// without -c) are named so, with the way to resume them, where the line
// said "not a response record (unexpected end of JSON input)".
func TestOpenOutputPrettyPrinted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.jsonl")
	content := "{\n  \"schema_version\": \"fbeval-response/v1\",\n  \"request_id\": \"a\",\n  \"output\": \"x\"\n}\n"
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runner.OpenOutput(path, runner.Resume{})
	if out != nil {
		out.Close()
	}
	want := path + ":1: holds records pretty-printed over several lines (as jq writes them without -c), and -o resumes a file of one record a line: write them compact (jq -c . FILE) to resume it, or write to another file"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

// TestOpenOutputOtherVersion: records of another version of the response
// format are no answers to resume (they were taken as answered, every request
// skipped, and the scorer refused them after).
func TestOpenOutputOtherVersion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.jsonl")
	if err := os.WriteFile(path, []byte(`{"schema_version":"fbeval-response/v2","request_id":"a","output":"x"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runner.OpenOutput(path, runner.Resume{})
	if out != nil {
		out.Close()
	}
	if err == nil || !strings.Contains(err.Error(), `:1: not a response record (schema_version "fbeval-response/v2": another version of the format than this fbeval reads (fbeval-response/v1)`) {
		t.Errorf("got %v", err)
	}
}

// TestResumeEmptyError: an answer beside an error that says nothing ({}) is
// answered, as the scorer reads it, not asked again; one beside a code is not.
func TestResumeEmptyError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.jsonl")
	lines := `{"request_id":"a","output":"x","error":{}}` + "\n" + `{"request_id":"b","output":"x","error":{"code":"http_429"}}` + "\n"
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runner.OpenOutput(path, runner.Resume{})
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if !out.Answered("a") || out.Answered("b") {
		t.Errorf("answered a %v (want true), b %v (want false)", out.Answered("a"), out.Answered("b"))
	}
}
