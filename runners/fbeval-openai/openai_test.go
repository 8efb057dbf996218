package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

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
		{"--model", "m", "--rps", "+Inf"}, {"--model", "m", "--rps", "1e-9"},
		// a temperature the API does not take (a 7 meant as 0.7)
		{"--model", "m", "--temperature", "7"}, {"--model", "m", "--temperature=-1"}, {"--model", "m", "--temperature", "NaN"}} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), args, strings.NewReader(""), &out, &errb); code != 2 || errb.Len() == 0 {
			t.Errorf("%q: exit %d, stderr %q", args, code, errb.String())
		}
	}
}

// TestEmptyValues: a flag given "" ("$MODEL" unset) is refused; --model,
// --api-key-env and --header say in their own words what they take, and the
// rest in the words every binary uses.
func TestEmptyValues(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--model", "", "x.jsonl"}, "fbeval-openai: --model \"\" names no model (a shell variable that is not set?): give the model's name as the provider knows it\n"},
		{[]string{"--model", "m", "--api-key-env", "", "x.jsonl"}, "fbeval-openai: --api-key-env takes the name of the environment variable that holds the key"},
		{[]string{"--model", "m", "--provider", "", "x.jsonl"}, "fbeval-openai: --provider \"\": an empty value names nothing (a shell variable that is not set?): give a value, or leave the flag out\n"},
		{[]string{"--model", "m", "-o", "", "x.jsonl"}, "fbeval-openai: --output \"\": an empty value names nothing"},
	} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), tt.args, strings.NewReader(""), &out, &errb); code != 2 || !strings.HasPrefix(errb.String(), tt.want) {
			t.Errorf("%q: exit %d, stderr %q, want %q", tt.args, code, errb.String(), tt.want)
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

// TestBaseURLWithEndpoint: a base URL pasted with the endpoint the runner adds
// (the whole URL of a curl example) is refused, and the message gives the root.
func TestBaseURLWithEndpoint(t *testing.T) {
	dir := t.TempDir()
	in := writeRequests(t, dir, 3)
	for base, root := range map[string]string{
		"http://127.0.0.1:8080/v1/chat/completions":  "--base-url http://127.0.0.1:8080/v1",
		"http://127.0.0.1:8080/v1/chat/completions/": "--base-url http://127.0.0.1:8080/v1",
		"https://api.openai.com/v1/responses":        "--base-url https://api.openai.com/v1",
		"http://localhost:11434/v1/completions":      "--base-url http://localhost:11434/v1",
		"http://localhost:11434/chat/completions":    "--base-url http://localhost:11434",
		"https://api.anthropic.com/v1/messages":      "--base-url https://api.anthropic.com/v1",
	} {
		var out, errb bytes.Buffer
		code := run(context.Background(), []string{"--model", "m", "--base-url", base, "--api-key-env", "FBEVAL_UNSET_KEY", in}, nil, &out, &errb)
		if code != 2 || out.Len() != 0 || strings.Count(errb.String(), "\n") != 1 || !strings.Contains(errb.String(), "the runner adds the endpoint itself") || !strings.HasSuffix(errb.String(), root+"\n") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", base, code, out.String(), errb.String())
		}
	}
}

// TestAzureDatedAPI: an Azure OpenAI URL of the API versioned by date, as the
// Azure portal gives it (a deployment in the path, an api-version query), is
// exit 2 with the v1 API's base URL, which takes the runner's calls as
// OpenAI's SDK makes them (learn.microsoft.com, "Azure OpenAI API version
// lifecycle": base_url https://RESOURCE.openai.azure.com/openai/v1/).
func TestAzureDatedAPI(t *testing.T) {
	dir := t.TempDir()
	in := writeRequests(t, dir, 3)
	for _, base := range []string{
		"https://myres.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21",
		"https://myres.openai.azure.com/openai/deployments/gpt-4o",
		"https://MyRes.openai.azure.com/?api-version=2024-10-21",
		"https://myres.cognitiveservices.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2025-01-01-preview",
	} {
		var out, errb bytes.Buffer
		code := run(context.Background(), []string{"--model", "m", "--base-url", base, "--api-key-env", "FBEVAL_UNSET_KEY", in}, nil, &out, &errb)
		host := strings.Split(strings.TrimPrefix(base, "https://"), "/")[0]
		want := "Azure's v1 API takes the runner's calls: --base-url https://" + host + "/openai/v1, the deployment's name as --model\n"
		if code != 2 || out.Len() != 0 || strings.Count(errb.String(), "\n") != 1 || !strings.HasSuffix(errb.String(), want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q, want ...%q", base, code, out.String(), errb.String(), want)
		}
	}
	// a gateway in front of Azure (API Management) with the dated path: the
	// same, the gateway's own route named as the other way
	var out0, errb0 bytes.Buffer
	if code := run(context.Background(), []string{"--model", "m", "--base-url", "https://myapim.azure-api.net/openai/deployments/gpt4o/chat/completions?api-version=2024-10-21", "--api-key-env", "FBEVAL_UNSET_KEY", in}, nil, &out0, &errb0); code != 2 || !strings.HasSuffix(errb0.String(), "--base-url https://myapim.azure-api.net/openai/v1 (or the route your gateway gives it), the deployment's name as --model\n") {
		t.Errorf("gateway: exit %d, stderr %q", code, errb0.String())
	}
	// a query elsewhere: the root without it (it said "give the whole URL")
	var out1, errb1 bytes.Buffer
	if code := run(context.Background(), []string{"--model", "m", "--base-url", "http://127.0.0.1:8080/v1?foo=1", "--api-key-env", "FBEVAL_UNSET_KEY", in}, nil, &out1, &errb1); code != 2 || !strings.HasSuffix(errb1.String(), "has a query or fragment, and the runner adds its endpoints' paths to the API's root, which takes none: --base-url http://127.0.0.1:8080/v1\n") {
		t.Errorf("query: exit %d, stderr %q", code, errb1.String())
	}
	// the v1 API's own URL is taken (the fake server serves /v1 behind any prefix)
	ts := httptest.NewServer(fakeserver.New(fakeserver.Options{}))
	defer ts.Close()
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"--model", "m", "--base-url", ts.URL + "/openai/v1", "--api-key-env", "FBEVAL_UNSET_KEY", in}, nil, &out, &errb); code != 0 {
		t.Errorf("v1: exit %d, stderr %q", code, errb.String())
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

// TestOutputBelongsToOneRun: -o resumes a file written by the same study and model;
// a file written for another model or another study is refused (exit 2, the flag
// that starts over named), and --fresh starts it over.
func TestOutputBelongsToOneRun(t *testing.T) {
	ts := httptest.NewServer(fakeserver.New(fakeserver.Options{Reply: func(u string) string { return "re: " + u }}))
	defer ts.Close()
	dir := t.TempDir()
	in := writeRequests(t, dir, 3)
	other := filepath.Join(dir, "other.jsonl")
	os.WriteFile(other, []byte(`{"schema_version":"fbeval-request/v1","request_id":"r000","case_id":"c000","suite":"toolcall","study":"sha256:0123456789abcdef","attempt":1,"seed":1,"messages":[{"role":"user","content":"prompt 0"}]}`+"\n"), 0o644)
	out := filepath.Join(dir, "out.jsonl")
	runIt := func(want int, args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		args = append([]string{"--base-url", ts.URL + "/v1", "--api-key-env", "FBEVAL_UNSET_KEY", "-o", out}, args...)
		if code := run(context.Background(), args, nil, &stdout, &stderr); code != want {
			t.Fatalf("%q: exit %d, want %d: %s", args, code, want, stderr.String())
		}
		return stderr.String()
	}
	runIt(0, "--model", "m", in)
	first, _ := os.ReadFile(out)
	if !strings.Contains(string(first), `"run":{"runner":"fbeval-openai","provider":"openai-compatible","model":"m","study":"sha256:`) {
		t.Fatalf("records do not say what they were run with:\n%s", first)
	}
	if msg := runIt(0, "--model", "m", in); !strings.Contains(msg, "3 skipped") {
		t.Errorf("resume: %s", msg)
	}
	// one line: the note that no key is sent comes once the run can start
	msg := runIt(2, "--model", "m2", in)
	if !strings.Contains(msg, `out.jsonl:1: written by another run (model "m"; this run's is "m2"); write these responses to another file, or start this one over with --fresh, which drops the answers it holds`) || strings.Count(msg, "\n") != 1 {
		t.Errorf("another model: %s", msg)
	}
	// another temperature or API: an interrupted run resumed with it would
	// mix answers of two settings in one file
	msg = runIt(2, "--model", "m", "--temperature", "1", in)
	if !strings.Contains(msg, `out.jsonl:1: written by another run (settings "api=chat max_tokens=request temperature=request"; this run's are "api=chat max_tokens=request temperature=1")`) {
		t.Errorf("another temperature: %s", msg)
	}
	msg = runIt(2, "--model", "m", "--api", "responses", in)
	if !strings.Contains(msg, `(settings "api=chat max_tokens=request temperature=request"; this run's are "api=responses max_tokens=request temperature=request")`) {
		t.Errorf("another API: %s", msg)
	}
	msg = runIt(2, "--model", "m", other)
	if !strings.Contains(msg, "out.jsonl:1: written by another run (study sha256:") || !strings.Contains(msg, "this run's requests are of sha256:0123456789abcdef") {
		t.Errorf("another study: %s", msg)
	}
	if data, _ := os.ReadFile(out); !bytes.Equal(data, first) {
		t.Error("a refused run changed the file")
	}
	runIt(0, "--model", "m2", "--fresh", in)
	data, _ := os.ReadFile(out)
	if bytes.Count(data, []byte("\n")) != 3 || !bytes.Contains(data, []byte(`"model":"m2","study"`)) || bytes.Contains(data, []byte(`"model":"m","study"`)) {
		t.Errorf("--fresh did not start over:\n%s", data)
	}
}

// TestProgressLines: when stderr is not a terminal, a progress line every
// --progress-every.
func TestProgressLines(t *testing.T) {
	ts := httptest.NewServer(fakeserver.New(fakeserver.Options{Fault: func(string, int) fakeserver.Fault { return fakeserver.Fault{Delay: 120 * time.Millisecond} }}))
	defer ts.Close()
	in := writeRequests(t, t.TempDir(), 4)
	var stdout, stderr bytes.Buffer
	args := []string{"--model", "m", "--base-url", ts.URL + "/v1", "--api-key-env", "FBEVAL_UNSET_KEY", "--concurrency", "1", "--progress-every", "100ms", in}
	if code := run(context.Background(), args, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	line := regexp.MustCompile(`^fbeval-openai: [0-4]/4 done \(\d+%\), 0 errors, \d+\.\d requests/s, ETA (\S+)$`)
	n := 0
	for _, l := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(l, " done (") {
			if !line.MatchString(l) {
				t.Errorf("progress line %q", l)
			}
			n++
		}
	}
	if n < 2 {
		t.Errorf("%d progress lines in a run of about 480ms, want several:\n%s", n, stderr.String())
	}
	stderr.Reset()
	args = []string{"--model", "m", "--base-url", ts.URL + "/v1", "--api-key-env", "FBEVAL_UNSET_KEY", "--progress-every", "0", in}
	run(context.Background(), args, nil, &stdout, &stderr)
	if strings.Contains(stderr.String(), " done (") {
		t.Errorf("--progress-every 0 printed progress:\n%s", stderr.String())
	}
}

// TestBaseURLFromEnvironment: without --base-url the runner takes
// OPENAI_BASE_URL, as the OpenAI SDK does, and says so; --base-url wins over
// it; a variable that holds no usable URL is named in the refusal.
func TestBaseURLFromEnvironment(t *testing.T) {
	ts := httptest.NewServer(fakeserver.New(fakeserver.Options{Reply: func(u string) string { return "re: " + u }}))
	defer ts.Close()
	dir := t.TempDir()
	in := writeRequests(t, dir, 3)
	args := []string{"--model", "m", "--api-key-env", "FBEVAL_UNSET_KEY", in}

	t.Setenv("OPENAI_BASE_URL", ts.URL+"/v1")
	var out, errb bytes.Buffer
	if code := run(context.Background(), args, nil, &out, &errb); code != 0 || strings.Count(out.String(), "\n") != 3 ||
		!strings.Contains(errb.String(), "fbeval-openai: the base URL is OPENAI_BASE_URL's, "+ts.URL+"/v1 (--base-url overrides it)\n") {
		t.Errorf("from the environment: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}

	out.Reset()
	errb.Reset()
	if code := run(context.Background(), append([]string{"--base-url", "localhost/v1"}, args...), nil, &out, &errb); code != 2 || !strings.HasPrefix(errb.String(), `fbeval-openai: --base-url "localhost/v1"`) {
		t.Errorf("--base-url beside it: exit %d, stderr %q", code, errb.String())
	}

	// a space in the quotes would call /v1/%20/chat/completions
	out.Reset()
	errb.Reset()
	if code := run(context.Background(), append([]string{"--base-url", ts.URL + "/v1 "}, args...), nil, &out, &errb); code != 2 ||
		errb.String() != "fbeval-openai: --base-url \""+ts.URL+"/v1 \" has white space at an end: give it without: "+ts.URL+"/v1\n" {
		t.Errorf("a space at the end: exit %d, stderr %q", code, errb.String())
	}
	// nothing but space: empty, not "give it without: " and nothing
	out.Reset()
	errb.Reset()
	if code := run(context.Background(), append([]string{"--base-url", " "}, args...), nil, &out, &errb); code != 2 ||
		errb.String() != "fbeval-openai: --base-url \" \" is empty (a shell variable that is not set?); give the whole URL, e.g. http://127.0.0.1:8080/v1\n" {
		t.Errorf("a blank URL: exit %d, stderr %q", code, errb.String())
	}

	t.Setenv("OPENAI_BASE_URL", ts.URL+"/v1/chat/completions")
	out.Reset()
	errb.Reset()
	if code := run(context.Background(), args, nil, &out, &errb); code != 2 || out.Len() != 0 ||
		errb.String() != "fbeval-openai: OPENAI_BASE_URL \""+ts.URL+"/v1/chat/completions\" names an endpoint (/chat/completions), and the runner adds the endpoint itself; give the API's root: --base-url "+ts.URL+"/v1\n" {
		t.Errorf("an endpoint in the environment: exit %d, stderr %q", code, errb.String())
	}
}

// TestOfficialAPINeedsAKey: the provider's own API with no key set is refused
// before a call (every one would be a 401), and a key in a --header counts.
func TestOfficialAPINeedsAKey(t *testing.T) {
	dir := t.TempDir()
	in := writeRequests(t, dir, 3)
	t.Setenv("OPENAI_BASE_URL", "")
	for _, args := range [][]string{
		{"--model", "m", "--api-key-env", "FBEVAL_UNSET_KEY", in},
		{"--model", "m", "--api-key-env", "FBEVAL_UNSET_KEY", "--base-url", "https://API.openai.com/v1", in},
	} {
		var out, errb bytes.Buffer
		code := run(context.Background(), args, nil, &out, &errb)
		if want := "fbeval-openai: FBEVAL_UNSET_KEY is not set, and https://"; code != 2 || out.Len() != 0 || strings.Count(errb.String(), "\n") != 1 || !strings.HasPrefix(errb.String(), want) {
			t.Errorf("%q: exit %d, stderr %q, want one line %q...", args, code, errb.String(), want)
		}
	}
	// with the key in a header the run goes on (stopped at once here: a run
	// already canceled makes no call)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	code := run(ctx, []string{"--model", "m", "--api-key-env", "FBEVAL_UNSET_KEY", "--header", "Authorization: Bearer sk-test", in}, nil, &out, &errb)
	if code == 2 || strings.Contains(errb.String(), "is not set") || !strings.Contains(errb.String(), "3 requests: 0 answered") {
		t.Errorf("a key in a header: exit %d, stderr %q", code, errb.String())
	}
}

// TestNativeSchemaSent: a request exported with --decoding native_schema asks
// for structured output, and the server gets it with no flag: before, only
// --native-schema sent it, and a run without the flag was prompt-only under
// the name native_schema. The old flag is still taken, and changes nothing.
// The study's max_tokens and temperature, carried by the request, are sent too.
func TestNativeSchemaSent(t *testing.T) {
	var mu sync.Mutex
	var bodies []string
	inner := fakeserver.New(fakeserver.Options{Reply: func(u string) string { return "re: " + u }})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(b))
		inner.ServeHTTP(w, r)
	}))
	defer ts.Close()
	dir := t.TempDir()
	in := filepath.Join(dir, "requests.jsonl")
	// the study's max_tokens and temperature, which its requests carry, go too
	req := `{"schema_version":"fbeval-request/v1","request_id":"r0","case_id":"c0","suite":"toolcall","attempt":1,"seed":1,"max_tokens":512,"temperature":0.7,"messages":[{"role":"user","content":"p"}],` +
		`"response_format":{"type":"json_schema","json_schema":{"name":"tool_call_envelope","schema":{"type":"object"},"strict":false}}}` + "\n"
	if err := os.WriteFile(in, []byte(req), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, flags := range [][]string{{"--api", "chat"}, {"--api", "responses"}, {"--api", "chat", "--native-schema"}} {
		bodies = nil
		var out, errb bytes.Buffer
		args := append([]string{"--model", "m", "--base-url", ts.URL + "/v1", "--api-key-env", "FBEVAL_UNSET_KEY"}, flags...)
		if code := run(context.Background(), append(args, in), nil, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", flags, code, errb.String())
		}
		want := `"response_format":{"type":"json_schema","json_schema":{"name":"tool_call_envelope","schema":{"type":"object"},"strict":false}}`
		if flags[1] == "responses" {
			want = `"text":{"format":{"type":"json_schema","name":"tool_call_envelope","schema":{"type":"object"},"strict":false}}`
		}
		settings := `"max_tokens":512,"temperature":0.7`
		if flags[1] == "responses" {
			settings = `"max_output_tokens":512,"temperature":0.7`
		}
		if len(bodies) != 1 || !strings.Contains(bodies[0], want) || !strings.Contains(bodies[0], settings) {
			t.Errorf("%v: the server got %q, want a body with %s", flags, bodies, want)
		}
	}
}

// TestHeaderWithoutColon: a --header written without its colon
// ("Authorization Bearer sk-...") is refused without repeating what follows
// the name, which is likely the credential (it was printed whole).
func TestHeaderWithoutColon(t *testing.T) {
	const secret = "sk-proj-NOCOLON0123456789abcdef"
	for _, h := range []string{"Authorization Bearer " + secret, "Authorization=Bearer " + secret, "x-api-key " + secret} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--header", h, "-"}, strings.NewReader(""), &stdout, &stderr)
		if code != 2 || strings.Contains(stderr.String(), "NOCOLON") || !strings.Contains(stderr.String(), "a colon after the name") {
			t.Errorf("--header %q: exit %d, stderr %q", h, code, stderr.String())
		}
	}
}
