package fakeserver_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/runners/internal/anthropic"
	"github.com/fbeval/fbeval/runners/internal/fakeserver"
	"github.com/fbeval/fbeval/runners/internal/openai"
)

const answersFile = `{"schema_version":"fbeval-request/v1","request_id":"a.1","case_id":"a","suite":"toolcall","attempt":1,"messages":[{"role":"system","content":"rules"},{"role":"system","content":"tool"},{"role":"user","content":"book it"}],"reference_output":"ANSWER A"}
{"schema_version":"fbeval-request/v1","request_id":"b.1","case_id":"b","suite":"toolcall","attempt":1,"messages":[{"role":"system","content":"rules"},{"role":"user","content":"book it"}],"reference_output":"ANSWER B"}
{"schema_version":"coglang-generation-eval-request/v0.1","case_id":"C1","instructions":"one expression","prompt":"list nodes","reference_expr":"Nodes[]"}
`

func load(t *testing.T) (fakeserver.Answers, []contract.Request) {
	t.Helper()
	a, err := fakeserver.LoadAnswers("answers.jsonl", strings.NewReader(answersFile))
	if err != nil {
		t.Fatal(err)
	}
	var reqs []contract.Request
	rd := contract.NewReader("answers.jsonl", strings.NewReader(answersFile), contract.ReadOptions{})
	for rd.Scan() {
		r, err := contract.DecodeRequest(rd.Record())
		if err != nil {
			t.Fatal(err)
		}
		reqs = append(reqs, r)
	}
	return a, reqs
}

// TestAnswersThroughEveryAPI: each request, sent as each runner sends it, gets its
// own reference output, though a and b share their last user message.
func TestAnswersThroughEveryAPI(t *testing.T) {
	answers, reqs := load(t)
	ts := httptest.NewServer(fakeserver.New(fakeserver.Options{Answers: answers}))
	defer ts.Close()
	want := []string{"ANSWER A", "ANSWER B", "Nodes[]"}
	for i := range reqs {
		req := &reqs[i]
		chat, _ := openai.Body(req, openai.Options{Model: "m"})
		responses, _ := openai.Body(req, openai.Options{Model: "m", API: "responses"})
		msgs, _ := contract.Marshal(anthropic.Body(req, anthropic.Options{Model: "m"}), contract.Compact)
		for _, call := range []struct {
			path string
			body []byte
			read func([]byte) (string, error)
		}{
			{"/v1/chat/completions", chat, func(b []byte) (string, error) { r, err := openai.ParseChat(b); return *r.Output, err }},
			{"/v1/responses", responses, func(b []byte) (string, error) { r, err := openai.ParseResponses(b); return *r.Output, err }},
			{"/v1/messages", msgs, func(b []byte) (string, error) { r, err := anthropic.ParseMessage(b); return *r.Output, err }},
		} {
			resp, err := http.Post(ts.URL+call.path, "application/json", bytes.NewReader(call.body))
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			buf.ReadFrom(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("%s %s: HTTP %d %s", req.RequestID, call.path, resp.StatusCode, buf.Bytes())
			}
			got, err := call.read(buf.Bytes())
			if err != nil || got != want[i] {
				t.Errorf("%s %s: %q %v, want %q", req.RequestID, call.path, got, err, want[i])
			}
		}
	}
	// A conversation with no canned answer is a 404, not some other answer.
	other := contract.Request{Messages: []contract.Message{{Role: "user", Content: "book it"}}}
	body, _ := openai.Body(&other, openai.Options{Model: "m"})
	resp, err := http.Post(ts.URL+"/v1/chat/completions", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown conversation: HTTP %d, want 404", resp.StatusCode)
	}
}

// TestOnlyTheAPIsPaths: the server answers the paths the APIs have, under /v1
// (behind any prefix, as a proxy puts them), and 404 elsewhere, as OpenAI, Ollama
// and vLLM do: a runner given a base URL without its /v1, or with the endpoint
// already on it, is not answered by the fake server when a real one would not.
func TestOnlyTheAPIsPaths(t *testing.T) {
	ts := httptest.NewServer(fakeserver.New(fakeserver.Options{Reply: func(string) string { return "ok" }}))
	defer ts.Close()
	body := []byte(`{"model":"m","messages":[{"role":"user","content":"u"}]}`)
	for path, want := range map[string]int{
		"/v1/chat/completions":                  200,
		"/v1/responses":                         200,
		"/v1/messages":                          200,
		"/proxy/v1/chat/completions":            200,
		"/chat/completions":                     404,
		"/messages":                             404,
		"/v1/chat/completions/chat/completions": 404,
		"/v1/models":                            404,
		"/v1/chat/completions/":                 404,
	} {
		resp, err := http.Post(ts.URL+path, "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("POST %s: HTTP %d, want %d", path, resp.StatusCode, want)
		}
	}
	// another method: 404 where the path is none of the APIs' (it was 400),
	// 405 where it is one
	for path, want := range map[string]int{"/foo": 404, "/v1/models": 404, "/v1/chat/completions": 405} {
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s: HTTP %d, want %d", path, resp.StatusCode, want)
		}
	}
}

func TestLoadAnswersErrors(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"no reference", `{"schema_version":"fbeval-request/v1","request_id":"a","messages":[{"role":"user","content":"x"}]}`,
			"f.jsonl:1: request a has no reference output; export with --include-reference"},
		{"conflict", `{"schema_version":"fbeval-request/v1","request_id":"a","messages":[{"role":"user","content":"x"}],"reference_output":"1"}` + "\n" +
			`{"schema_version":"fbeval-request/v1","request_id":"b","messages":[{"role":"user","content":"x"}],"reference_output":"2"}`,
			"f.jsonl:2: request b repeats an earlier conversation with another reference output"},
		{"not JSON", `{"schema_version":`, "invalid JSON"},
	} {
		_, err := fakeserver.LoadAnswers("f.jsonl", strings.NewReader(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
	// The same conversation with the same reference (a repeat) is fine.
	line := `{"schema_version":"fbeval-request/v1","request_id":"%s","messages":[{"role":"user","content":"x"}],"reference_output":"1"}`
	in := strings.Replace(line, "%s", "r1", 1) + "\n" + strings.Replace(line, "%s", "r2", 1)
	if a, err := fakeserver.LoadAnswers("f.jsonl", strings.NewReader(in)); err != nil || len(a) != 1 {
		t.Errorf("repeats: %v %v", a, err)
	}
}

// TestRunBatches answers batch files in the documented shapes, in reverse order,
// with an error result for a conversation the answers lack.
func TestRunBatches(t *testing.T) {
	answers, reqs := load(t)
	srv := fakeserver.New(fakeserver.Options{Answers: answers})
	var in bytes.Buffer
	for i := range reqs[:2] {
		body, _ := openai.Body(&reqs[i], openai.Options{Model: "m"})
		in.WriteString(`{"custom_id":"` + reqs[i].RequestID + `","method":"POST","url":"/v1/chat/completions","body":` + string(body) + "}\n\n")
	}
	in.WriteString(`{"custom_id":"x","method":"POST","url":"/v1/chat/completions","body":{"model":"m","messages":[{"role":"user","content":"?"}]}}` + "\n")
	var out bytes.Buffer
	if err := srv.RunOpenAIBatch("batch.jsonl", &in, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 3 ||
		!strings.HasPrefix(lines[0], `{"id":"batch_req_3","custom_id":"x","response":{"status_code":404,"request_id":"req_3","body":{"error":`) ||
		!strings.HasPrefix(lines[2], `{"id":"batch_req_1","custom_id":"a.1","response":{"status_code":200,"request_id":"req_1","body":{"choices":[{"finish_reason":"stop","index":0,"message":{"content":"ANSWER A"`) ||
		!strings.HasSuffix(lines[2], `},"error":null}`) {
		t.Errorf("OpenAI output:\n%s", out.String())
	}

	body := `{"requests":[{"custom_id":"a_2e1","params":` + mustMarshal(t, anthropic.Body(&reqs[0], anthropic.Options{Model: "m"})) +
		`},{"custom_id":"x","params":{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"?"}]}}]}`
	out.Reset()
	if err := srv.RunAnthropicBatch("batch.json", strings.NewReader(body), &out); err != nil {
		t.Fatal(err)
	}
	lines = strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2 ||
		lines[0] != `{"custom_id":"x","result":{"type":"errored","error":{"error":{"message":"the fake server has no answer for this conversation","type":"not_found_error"},"type":"error"}}}` ||
		!strings.HasPrefix(lines[1], `{"custom_id":"a_2e1","result":{"type":"succeeded","message":{"content":[{"text":"ANSWER A","type":"text"}]`) {
		t.Errorf("Anthropic results:\n%s", out.String())
	}

	for _, tt := range []struct{ in, want string }{
		{`{"custom_id":"a","method":"GET","url":"/v1/chat/completions","body":{}}`, "batch.jsonl:1: a batch request line needs custom_id, method POST"},
		{"\n" + `{"custom_id":`, "batch.jsonl:2: not a batch request line"},
	} {
		if err := srv.RunOpenAIBatch("batch.jsonl", strings.NewReader(tt.in), &out); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want %q", tt.in, err, tt.want)
		}
	}
	for _, tt := range []struct{ in, want string }{
		{`[]`, "batch.json: not a Message Batches create body"},
		{`{"requests":[{"custom_id":"a"}]}`, "batch.json: request 1 needs custom_id and params"},
	} {
		if err := srv.RunAnthropicBatch("batch.json", strings.NewReader(tt.in), &out); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want %q", tt.in, err, tt.want)
		}
	}
}

func mustMarshal(t *testing.T, v contract.Object) string {
	t.Helper()
	b, err := contract.Marshal(v, contract.Compact)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func FuzzLoadAnswers(f *testing.F) {
	f.Add([]byte(answersFile))
	f.Add([]byte(`[{"schema_version":"fbeval-request/v1"}]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := fakeserver.LoadAnswers("f", bytes.NewReader(b))
		if err != nil && a != nil {
			t.Fatal("answers with an error")
		}
	})
}

func FuzzRunBatch(f *testing.F) {
	f.Add([]byte(`{"custom_id":"a","method":"POST","url":"/v1/chat/completions","body":{"model":"m","messages":[{"role":"user","content":"x"}]}}`))
	f.Add([]byte(`{"requests":[{"custom_id":"a","params":{"model":"m","system":"s","messages":[{"role":"user","content":"x"}]}}]}`))
	f.Add([]byte(`{"custom_id":"a","method":"POST","url":"/v1/responses","body":"x"}`))
	srv := fakeserver.New(fakeserver.Options{})
	f.Fuzz(func(t *testing.T, b []byte) {
		var out bytes.Buffer
		if srv.RunOpenAIBatch("f", bytes.NewReader(b), &out) == nil {
			for _, l := range bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n")) {
				if len(l) > 0 && !json.Valid(l) {
					t.Fatalf("output line is not JSON: %s", l)
				}
			}
		}
		out.Reset()
		srv.RunAnthropicBatch("f", bytes.NewReader(b), &out)
	})
}
