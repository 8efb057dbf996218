package anthropic

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/runners/internal/runner"
)

func TestBody(t *testing.T) {
	req := contract.Request{Messages: []contract.Message{{Role: "system", Content: "S1"}, {Role: "user", Content: "U"}, {Role: "assistant", Content: "A"}, {Role: "system", Content: "S2"}, {Role: "user", Content: "fix"}}}
	b, err := contract.Marshal(Body(&req, Options{Model: "c"}), contract.Compact)
	want := `{"model":"c","max_tokens":1024,"system":"S1\n\nS2","messages":[{"role":"user","content":"U"},{"role":"assistant","content":"A"},{"role":"user","content":"fix"}]}`
	if err != nil || string(b) != want {
		t.Errorf("got %s\nwant %s", b, want)
	}
}

// A repair after an empty answer sends that answer back as an assistant turn of
// no text, which the Messages API refuses with HTTP 400 ("all messages must have
// non-empty content except for the optional final assistant message"): it is left
// out, and the user turns around it go as one turn of two text blocks.
func TestBodyEmptyAssistantTurn(t *testing.T) {
	for _, tt := range []struct {
		name string
		msgs []contract.Message
		want string
	}{
		{"empty answer", []contract.Message{{Role: "system", Content: "S"}, {Role: "user", Content: "U"}, {Role: "assistant", Content: ""}, {Role: "user", Content: "fix"}},
			`[{"role":"user","content":[{"type":"text","text":"U"},{"type":"text","text":"fix"}]}]`},
		{"blank answer", []contract.Message{{Role: "user", Content: "U"}, {Role: "assistant", Content: " \n"}, {Role: "user", Content: "fix"}, {Role: "assistant", Content: "A"}, {Role: "user", Content: "fix 2"}},
			`[{"role":"user","content":[{"type":"text","text":"U"},{"type":"text","text":"fix"}]},{"role":"assistant","content":"A"},{"role":"user","content":"fix 2"}]`},
		{"last turn kept", []contract.Message{{Role: "user", Content: "U"}, {Role: "assistant", Content: ""}},
			`[{"role":"user","content":"U"},{"role":"assistant","content":""}]`},
	} {
		req := contract.Request{Messages: tt.msgs}
		b, err := contract.Marshal(Body(&req, Options{Model: "c"}), contract.Compact)
		if err != nil || !strings.Contains(string(b), `"messages":`+tt.want) {
			t.Errorf("%s: got %s\nwant messages %s", tt.name, b, tt.want)
		}
	}
}

func TestToolAndSchemaBody(t *testing.T) {
	req := contract.Request{Messages: []contract.Message{{Role: "system", Content: "S"}, {Role: "user", Content: "U"}},
		ResponseFormat: &contract.ResponseFormat{Type: "json_schema", JSONSchema: contract.JSONSchema{Name: "env", Schema: []byte(`{"type":"object","additionalProperties":false}`)}},
		Tools:          []contract.ToolDefinition{{Name: "search_flights", Description: "Search flights.", Parameters: []byte(`{}`)}}}
	b, err := contract.Marshal(Body(&req, Options{Model: "c", MaxTokens: 64}), contract.Compact)
	want := `{"model":"c","max_tokens":64,"system":"S","messages":[{"role":"user","content":"U"}],` +
		`"tools":[{"name":"search_flights","description":"Search flights.","input_schema":{"type":"object"},"strict":false}],"tool_choice":{"type":"auto"},` +
		`"output_config":{"format":{"type":"json_schema","schema":{"type":"object","additionalProperties":false}}}}`
	if err != nil || string(b) != want {
		t.Errorf("got %s\nwant %s", b, want)
	}
	// a study's max_tokens and temperature, which its requests carry, are
	// sent unless a flag stands in
	plain := contract.Request{Messages: []contract.Message{{Role: "user", Content: "U"}}, MaxTokens: new(512), Temperature: new(0.5)}
	for _, tt := range []struct {
		opts Options
		want string
	}{
		{Options{Model: "c"}, `{"model":"c","max_tokens":512,"messages":[{"role":"user","content":"U"}],"temperature":0.5}`},
		{Options{Model: "c", MaxTokens: 64, Temperature: new(0.0)}, `{"model":"c","max_tokens":64,"messages":[{"role":"user","content":"U"}],"temperature":0.0}`},
	} {
		if b, _ := contract.Marshal(Body(&plain, tt.opts), contract.Compact); string(b) != tt.want {
			t.Errorf("%+v: got %s\nwant %s", tt.opts, b, tt.want)
		}
	}
	// a request of another decoding has no response_format, and sends none
	req.ResponseFormat = nil
	b, _ = contract.Marshal(Body(&req, Options{Model: "c"}), contract.Compact)
	if strings.Contains(string(b), "output_config") {
		t.Errorf("output_config sent for a request without a response_format: %s", b)
	}
}

// The recorded bodies in testdata follow the Anthropic API types (see testdata/README.md).
func TestParseRecordedBodies(t *testing.T) {
	for _, tt := range []struct {
		file, output, finish string
		in, out              int64
		metadata             bool
	}{
		// A preamble text block before the tool_use block: the call wins.
		{"message_text_tool_use.json", `{"action":"call_tool","tool":"search_flights","arguments":{"origin":"Osaka","destination":"Auckland","departureDate":"2027-07-14","travellers":4},"missingFields":[],"reason":""}`, "tool_use", 472, 91, true},
		// Text with no call stays text.
		{"message_text.json", `{"action":"ask_clarification","tool":"search_flights","arguments":{},"missingFields":["origin"],"reason":"Where from?"}`, "end_turn", 415, 30, false},
		// Cut short at max_tokens: the text as it stands, stop_reason max_tokens
		// (scoring counts such answers: score/toolcall/study answerFlags).
		{"message_max_tokens.json", `{"action":"call_tool","tool":"search_flights","arguments":{"origin":"Osaka","destin`, "max_tokens", 400, 24, false},
		// Stopped by Anthropic's safety classifiers: no content, stop_reason
		// refusal (scoring counts such answers: score.FinishReason).
		{"message_refusal.json", "", "refusal", 410, 0, false},
		// The same with the refusal's stop_details: kept in metadata.
		{"message_refusal_stop_details.json", "", "refusal", 410, 0, false},
		// Extended thinking: thinking and redacted_thinking blocks before the
		// text; the answer is the text alone, not the thinking.
		{"message_thinking.json", `{"action":"call_tool","tool":"search_flights","arguments":{"origin":"Osaka","destination":"Auckland","departureDate":"2027-07-14","travellers":4},"missingFields":[],"reason":""}`, "end_turn", 412, 388, false},
	} {
		body, err := os.ReadFile(filepath.Join("testdata", tt.file))
		if err != nil {
			t.Fatal(err)
		}
		res, err := ParseMessage(body)
		if err != nil || res.Output == nil || *res.Output != tt.output || res.FinishReason != tt.finish {
			t.Errorf("%s: %+v %v", tt.file, res, err)
			continue
		}
		if *res.InputTokens != tt.in || *res.OutputTokens != tt.out {
			t.Errorf("%s: tokens %d %d", tt.file, *res.InputTokens, *res.OutputTokens)
		}
		if got := len(res.Metadata) == 1 && res.Metadata[0].Key == "provider_output"; got != tt.metadata {
			if tt.file != "message_refusal_stop_details.json" {
				t.Errorf("%s: metadata %v", tt.file, res.Metadata)
			}
		}
		if tt.file == "message_refusal_stop_details.json" {
			if len(res.Metadata) != 1 || res.Metadata[0].Key != "stop_details" || fmt.Sprintf("%s", res.Metadata[0].Value) != `{"type":"refusal","category":"cyber","explanation":"The request could enable cyber harm."}` {
				t.Errorf("%s: metadata %v", tt.file, res.Metadata)
			}
		}
		if tt.metadata {
			raw, _ := res.Metadata[0].Value.(contract.Raw)
			if !strings.HasPrefix(string(raw), `[{"type":"text","text":"I'll search for that."},{"type":"tool_use",`) {
				t.Errorf("%s: provider_output %s", tt.file, raw)
			}
		}
	}
}

// TestParsePauseTurn: a turn paused mid-way (stop_reason pause_turn) holds no
// answer yet: a provider error asked again, not its text scored as the answer.
func TestParsePauseTurn(t *testing.T) {
	body, err := os.ReadFile("testdata/message_pause_turn.json")
	if err != nil {
		t.Fatal(err)
	}
	_, err = ParseMessage(body)
	var ce *runner.CallError
	if !errors.As(err, &ce) || ce.Code != "pause_turn" {
		t.Errorf("%#v, want the provider error pause_turn", err)
	}
}

// TestThinkingOnlyKeepsReasoning: an answer of thinking and no text (its
// tokens spent there) keeps the thinking in metadata.reasoning, as the
// OpenAI-compatible runner keeps a reasoning returned apart.
func TestThinkingOnlyKeepsReasoning(t *testing.T) {
	res, err := ParseMessage([]byte(`{"type":"message","content":[{"type":"thinking","thinking":"Osaka to Auckland, four","signature":"s"}],"stop_reason":"max_tokens"}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := res.Metadata.Get(runner.ReasoningKey); *res.Output != "" || got != "Osaka to Auckland, four" {
		t.Errorf("output %q, metadata %v", *res.Output, res.Metadata)
	}
	res, err = ParseMessage([]byte(`{"type":"message","content":[{"type":"thinking","thinking":"t","signature":"s"},{"type":"text","text":"a"}],"stop_reason":"end_turn"}`))
	if _, ok := res.Metadata.Get(runner.ReasoningKey); err != nil || ok {
		t.Errorf("an answer with text keeps its thinking: %v %v", res.Metadata, err)
	}
}

func TestParseMessage(t *testing.T) {
	for _, tt := range []struct {
		name, body, output, finish, err string
		in                              int64
	}{
		{"text", `{"id":"msg_1","type":"message","model":"c","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"stop_reason":"end_turn","usage":{"input_tokens":10,"output_tokens":2,"cache_creation_input_tokens":5,"cache_read_input_tokens":100}}`, "ab", "end_turn", "", 115},
		{"refusal", `{"type":"message","content":[],"stop_reason":"refusal","usage":{"input_tokens":4,"output_tokens":0}}`, "", "refusal", "", 4},
		{"tool use", `{"type":"message","content":[{"type":"tool_use","id":"t","name":"f","input":{"a":1}}],"stop_reason":"tool_use"}`, `{"action":"call_tool","tool":"f","arguments":{"a":1},"missingFields":[],"reason":""}`, "tool_use", "", -1},
		// an error answered with 200: the error its type is (it was "the
		// answer is a \"error\", not a message", its type and text lost)
		{"error object", `{"type":"error","error":{"type":"overloaded_error","message":"x"},"request_id":"req_1"}`, "", "", "http_529: HTTP 529 Overloaded (overloaded_error): x (in a 200 answer)", -1},
		{"error object of an unknown type", `{"type":"error","error":{"type":"gateway_error","message":"x"}}`, "", "", "bad_response: the answer is an error: gateway_error: x", -1},
		// the SDK's content is a list and a tool_use's input an object: null
		// content and a call without input are malformed, asked again (they
		// were an empty answer and a call of no arguments)
		{"event stream", "event: message_start\ndata: {\"type\":\"message_start\"}\n\n", "", "", "bad_response: the answer is not a message: the body is an event stream (text/event-stream), not JSON: the server streams its answers though the request asks for none", -1},
		{"thinking not text", `{"type":"message","content":[{"type":"thinking","thinking":{"x":1}},{"type":"text","text":"a"}],"stop_reason":"end_turn"}`, "a", "end_turn", "", -1},
		{"content null", `{"type":"message","content":null,"stop_reason":"end_turn"}`, "", "", "the message's content is null, not a list of blocks", -1},
		{"tool use without input", `{"type":"message","content":[{"type":"tool_use","id":"t","name":"f"}],"stop_reason":"tool_use"}`, "", "", `the tool_use block of "f" has no input`, -1},
		{"truncated", `{"type":"message","content":[{"ty`, "", "", "not a message", -1},
		{"content not a list", `{"type":"message","content":"not a list","stop_reason":"end_turn"}`, "", "", "the message content is not a list of blocks: ", -1},
	} {
		res, err := ParseMessage([]byte(tt.body))
		var ce *runner.CallError
		if errors.As(err, &ce) {
			err = fmt.Errorf("%s: %s", ce.Code, ce.Message)
		}
		if tt.err != "" {
			// the decoder's error on one line: it is a record's message
			if err == nil || !strings.Contains(err.Error(), tt.err) || strings.ContainsAny(err.Error(), "\n\t") || len(err.Error()) > 250 {
				t.Errorf("%s: err %v", tt.name, err)
			}
			continue
		}
		if err != nil || *res.Output != tt.output || res.FinishReason != tt.finish {
			t.Errorf("%s: %+v %v", tt.name, res, err)
		}
		if tt.in >= 0 && (res.InputTokens == nil || *res.InputTokens != tt.in) {
			t.Errorf("%s: input tokens %v, want %d", tt.name, res.InputTokens, tt.in)
		}
	}
}

func FuzzParseMessage(f *testing.F) {
	f.Add([]byte(`{"type":"message","content":[{"type":"text","text":"a"}],"stop_reason":"end_turn"}`))
	f.Add([]byte(`{"content":[{"type":"tool_use","input":{}}]}`))
	f.Add([]byte(`{"type":"message","content":[{"type":"text","text":"I'll search."},{"type":"tool_use","id":"t","name":"f","input":{"a":1}}],"stop_reason":"tool_use"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		res, err := ParseMessage(b)
		if err == nil && res.Output == nil {
			t.Fatal("no error and no output")
		}
	})
}

// TestRecordedErrors: a live call answered with a recorded API error body gets the
// code and message of the one error table (docs/runners.md); 529 has a text, and no
// double space.
func TestRecordedErrors(t *testing.T) {
	zero := 0.0
	for _, tt := range []struct {
		file, code, message string
		status              int
		temperature         *float64 // the request's (its study's)
	}{
		{"error_529.json", "http_529", "HTTP 529 Overloaded (overloaded_error)", 529, nil},
		{"error_400.json", "http_400", "HTTP 400 Bad Request (invalid_request_error)", 400, nil},
		// a model released after Claude Opus 4.6 sent a study's temperature:
		// the way on is named
		{"error_400_temperature.json", "http_400", "HTTP 400 Bad Request (invalid_request_error): `temperature` is deprecated for this model. (the model takes no temperature but its default, 1, and was sent 0: set the study's temperature to 1 or leave it out and export again, or give fbeval-anthropic --temperature 1 to send these requests 1)", 400, &zero},
		// and none sent: nothing to say of it
		{"error_400_temperature.json", "http_400", "HTTP 400 Bad Request (invalid_request_error): `temperature` is deprecated for this model.", 400, nil},
		// Claude models that dropped the sampling parameters take none
		{"error_400_temperature_extra.json", "http_400", "HTTP 400 Bad Request (invalid_request_error): temperature: Extra inputs are not permitted (the model takes no temperature, and was sent 0: leave it out of the study and export again)", 400, &zero},
		// Claude Opus 4.8 in adaptive mode takes 1
		{"error_400_temperature_adaptive.json", "http_400", "HTTP 400 Bad Request (invalid_request_error): `temperature` may only be set to 1 when thinking is enabled or in adaptive mode. Please consult our documentation at https://platform.claude.com/docs/en/build-with-claude/extended-thinking (the model takes no temperature but its default, 1, and was sent 0: set the study's temperature to 1 or leave it out and export again, or give fbeval-anthropic --temperature 1 to send these requests 1)", 400, &zero},
	} {
		body, err := os.ReadFile(filepath.Join("testdata", tt.file))
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(tt.status)
			w.Write(body)
		}))
		c := &Client{HTTP: &runner.HTTP{Client: srv.Client(), BaseURL: srv.URL}, Opts: Options{Model: "m"}}
		_, err = c.Do(context.Background(), &contract.Request{Messages: []contract.Message{{Role: "user", Content: "u"}}, Temperature: tt.temperature})
		srv.Close()
		var ce *runner.CallError
		if !errors.As(err, &ce) {
			t.Fatalf("%s: %v", tt.file, err)
		}
		// the provider's text is cut to its bound; the way on follows it whole
		said, _, _ := strings.Cut(ce.Message, " (the model takes")
		if ce.Code != tt.code || !strings.HasPrefix(ce.Message, tt.message) || strings.Contains(ce.Message, "  ") ||
			tt.temperature == nil && strings.Contains(ce.Message, "--temperature") || len(runner.ProviderText(said, nil)) < len(said) {
			t.Errorf("%s: %v, want %s %q", tt.file, err, tt.code, tt.message)
		}
	}
}

// TestMessagesPath: the base URL is the API's root with its /v1, as the runner's
// default has it, or without, as the Anthropic SDK's base_url and
// ANTHROPIC_BASE_URL have it (https://api.anthropic.com): both call /v1/messages.
func TestMessagesPath(t *testing.T) {
	body, err := os.ReadFile(filepath.Join("testdata", "message_text.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.URL.Path
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	defer srv.Close()
	for base, want := range map[string]string{
		"":              "/v1/messages",
		"/":             "/v1/messages",
		"/v1":           "/v1/messages",
		"/v1/":          "/v1/messages",
		"/proxy":        "/proxy/v1/messages",
		"/proxy/v1":     "/proxy/v1/messages",
		"/anthropic/":   "/anthropic/v1/messages",
		"/v1/anthropic": "/v1/anthropic/v1/messages",
	} {
		got = ""
		c := &Client{HTTP: &runner.HTTP{Client: srv.Client(), BaseURL: srv.URL + base}, Opts: Options{Model: "m"}}
		if _, err := c.Do(context.Background(), &contract.Request{Messages: []contract.Message{{Role: "user", Content: "u"}}}); err != nil || got != want {
			t.Errorf("base %q: called %q (%v), want %q", base, got, err, want)
		}
	}
}

// TestParseUsageCounts: a count the scorer would refuse is left out and said
// in the metadata, the answer kept; an input part broken leaves the input
// count out whole (a sum without it would count too few); cache reads and
// writes add to the input tokens.
func TestParseUsageCounts(t *testing.T) {
	msg := func(usage string) []byte {
		return []byte(`{"id":"m","type":"message","role":"assistant","model":"c","content":[{"type":"text","text":"{}"}],"stop_reason":"end_turn","usage":` + usage + `}`)
	}
	res, err := ParseMessage(msg(`{"input_tokens":5,"cache_read_input_tokens":10,"output_tokens":2}`))
	if err != nil || *res.InputTokens != 15 || *res.OutputTokens != 2 || len(res.Metadata) != 0 {
		t.Errorf("whole: %+v %v", res, err)
	}
	for usage, want := range map[string]string{
		`{"input_tokens":-7,"output_tokens":2}`:                                  "usage.input_tokens -7: not a whole number of tokens from 0, left out of the record",
		`{"input_tokens":5,"cache_creation_input_tokens":0.5,"output_tokens":2}`: "usage.cache_creation_input_tokens 0.5: ",
	} {
		res, err := ParseMessage(msg(usage))
		if err != nil || res.InputTokens != nil || res.OutputTokens == nil || *res.OutputTokens != 2 || len(res.Metadata) != 1 || !strings.HasPrefix(res.Metadata[0].Value.(string), want) {
			t.Errorf("%s: %+v %v, want %q", usage, res, err, want)
		}
	}
	if res, err := ParseMessage(msg(`"n/a"`)); err != nil || res.InputTokens != nil || len(res.Metadata) != 1 || res.Metadata[0].Value != `usage "n/a": not an object of token counts, left out of the record` {
		t.Errorf("usage a string: %+v %v", res, err)
	}
	res, err = ParseMessage(msg(`{"input_tokens":5,"output_tokens":-2}`))
	if err != nil || *res.InputTokens != 5 || res.OutputTokens != nil {
		t.Errorf("output broken: %+v %v", res, err)
	}
}
