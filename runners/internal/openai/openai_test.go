package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/runners/internal/runner"
)

func TestBodies(t *testing.T) {
	temp := 0.0
	plain := contract.Request{Seed: 42, Messages: []contract.Message{{Role: "system", Content: "S"}, {Role: "user", Content: "U"}}}
	// a request exported with --decoding native_schema: its response_format is
	// sent, always (a study of structured output that ran without it would be
	// a prompt-only run under the other name)
	native := plain
	settings := plain
	settings.MaxTokens, settings.Temperature = new(512), new(0.7)
	native.ResponseFormat = &contract.ResponseFormat{Type: "json_schema", JSONSchema: contract.JSONSchema{Name: "env", Schema: []byte(`{"type":"object"}`), Strict: true}}
	for _, tt := range []struct {
		name string
		req  *contract.Request
		opts Options
		want string
	}{
		{"chat", &plain, Options{Model: "m"}, `{"model":"m","messages":[{"role":"system","content":"S"},{"role":"user","content":"U"}],"seed":42}`},
		{"chat all", &native, Options{Model: "m", MaxTokens: 100, Temperature: &temp}, `{"model":"m","messages":[{"role":"system","content":"S"},{"role":"user","content":"U"}],"max_tokens":100,"temperature":0.0,"seed":42,"response_format":{"type":"json_schema","json_schema":{"name":"env","schema":{"type":"object"},"strict":true}}}`},
		{"chat no seed", &plain, Options{Model: "m", NoSeed: true}, `{"model":"m","messages":[{"role":"system","content":"S"},{"role":"user","content":"U"}]}`},
		{"responses", &native, Options{Model: "m", API: "responses", MaxTokens: 9}, `{"model":"m","instructions":"S","input":[{"role":"user","content":"U"}],"max_output_tokens":9,"text":{"format":{"type":"json_schema","name":"env","schema":{"type":"object"},"strict":true}}}`},
		{"responses plain", &plain, Options{Model: "m", API: "responses"}, `{"model":"m","instructions":"S","input":[{"role":"user","content":"U"}]}`},
		// a study that sets max_tokens and temperature: every request carries
		// them, and they are sent unless a flag stands in
		{"chat study settings", &settings, Options{Model: "m"}, `{"model":"m","messages":[{"role":"system","content":"S"},{"role":"user","content":"U"}],"max_tokens":512,"temperature":0.7,"seed":42}`},
		{"chat flags stand in", &settings, Options{Model: "m", MaxTokens: 64, Temperature: &temp}, `{"model":"m","messages":[{"role":"system","content":"S"},{"role":"user","content":"U"}],"max_tokens":64,"temperature":0.0,"seed":42}`},
		{"chat max_completion_tokens stands in", &settings, Options{Model: "m", MaxCompletionTokens: 99}, `{"model":"m","messages":[{"role":"system","content":"S"},{"role":"user","content":"U"}],"max_completion_tokens":99,"temperature":0.7,"seed":42}`},
		{"responses study settings", &settings, Options{Model: "m", API: "responses"}, `{"model":"m","instructions":"S","input":[{"role":"user","content":"U"}],"max_output_tokens":512,"temperature":0.7}`},
	} {
		got, err := Body(tt.req, tt.opts)
		if err != nil || string(got) != tt.want {
			t.Errorf("%s:\n got %s\nwant %s (%v)", tt.name, got, tt.want, err)
		}
	}
}

func TestParseChat(t *testing.T) {
	for _, tt := range []struct {
		name, body, output, finish, err string
		in, out                         int64
	}{
		{"text", `{"id":"c1","model":"m","choices":[{"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`, "hi", "stop", "", 3, 1},
		{"tool call", `{"id":"c2","choices":[{"message":{"content":null,"tool_calls":[{"type":"function","function":{"name":"f","arguments":"{\"a\":1}"}},{"function":{"arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`, `{"action":"call_tool","tool":"f","arguments":{"a":1},"missingFields":[],"reason":""}`, "tool_calls", "", -1, -1},
		{"legacy function call", `{"choices":[{"message":{"content":null,"function_call":{"name":"f","arguments":""}},"finish_reason":"function_call"}]}`, `{"action":"call_tool","tool":"f","arguments":{},"missingFields":[],"reason":""}`, "function_call", "", -1, -1},
		{"parts", `{"choices":[{"message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},"finish_reason":"length"}]}`, "ab", "length", "", -1, -1},
		{"refusal", `{"choices":[{"message":{"content":null,"refusal":"no"},"finish_reason":"stop"}]}`, "no", "refusal", "", -1, -1},
		// the SDK's content and refusal are both Optional: a refusal beside an
		// empty content, or beside the start of an answer, is a refusal too
		{"refusal beside empty content", `{"choices":[{"message":{"content":"","refusal":"no"},"finish_reason":"stop"}]}`, "no", "refusal", "", -1, -1},
		{"refusal beside text", `{"choices":[{"message":{"content":"{\"a\":","refusal":"no"},"finish_reason":"stop"}]}`, `{"a":`, "refusal", "", -1, -1},
		{"empty refusal beside text", `{"choices":[{"message":{"content":"hi","refusal":""},"finish_reason":"stop"}]}`, "hi", "stop", "", -1, -1},
		{"null refusal", `{"choices":[{"message":{"content":"","refusal":null},"finish_reason":"stop"}]}`, "", "stop", "", -1, -1},
		{"refusal with content_filter", `{"choices":[{"message":{"content":"","refusal":"no"},"finish_reason":"content_filter"}]}`, "no", "content_filter", "", -1, -1},
		{"no choices", `{"choices":[]}`, "", "", "no choices", -1, -1},
		// reasoning in a form other than text is no reason to lose the answer
		{"reasoning not text", `{"choices":[{"message":{"content":"hi","reasoning":{"effort":"low"},"reasoning_content":5},"finish_reason":"stop"}]}`, "hi", "stop", "", -1, -1},
		{"truncated", `{"choices":[{"mess`, "", "", "not a chat completion", -1, -1},
		{"html", `<html>`, "", "", "not a chat completion: the body is an HTML page, not JSON", -1, -1},
		// a batch result of status 200 with a body of null
		{"null body", `null`, "", "", "the answer's body is null, not a chat completion", -1, -1},
		{"choices not a list", `{"choices":"no\u00e9 choice here, not a list, though a long string that the decoder's error shows around its fault, over several lines"}`, "", "", "the answer is not a chat completion: ", -1, -1},
	} {
		res, err := ParseChat([]byte(tt.body))
		if tt.err != "" {
			// the decoder's error on one line, cut whole: it is a record's message
			if err == nil || !strings.Contains(err.Error(), tt.err) || strings.ContainsAny(err.Error(), "\n\t") || !utf8.ValidString(err.Error()) || len(err.Error()) > 250 {
				t.Errorf("%s: err %v, want %q", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil || res.Output == nil || *res.Output != tt.output || res.FinishReason != tt.finish {
			t.Errorf("%s: %+v %v", tt.name, res, err)
		}
		// a refusal the output is not is kept beside it
		if kept := slices.ContainsFunc(res.Metadata, func(m contract.Member) bool { return m.Key == "refusal" && m.Value == "no" }); kept != (tt.name == "refusal beside text") {
			t.Errorf("%s: metadata %v", tt.name, res.Metadata)
		}
		if tt.in >= 0 && (res.InputTokens == nil || *res.InputTokens != tt.in || *res.OutputTokens != tt.out) {
			t.Errorf("%s: tokens %v %v", tt.name, res.InputTokens, res.OutputTokens)
		}
	}
}

// The recorded bodies in testdata follow the OpenAI API types (see testdata/README.md).
func TestParseRecordedBodies(t *testing.T) {
	flights := `{"action":"call_tool","tool":"search_flights","arguments":{"origin":"Osaka","destination":"Auckland","departureDate":"2027-07-14","travellers":4},"missingFields":[],"reason":""}`
	for _, tt := range []struct {
		file, api, output, finish, model, id string
		in, out                              int64
		metadata                             bool // provider_output kept
	}{
		// Ollama: "content": "" beside tool_calls; the call wins.
		{"chat_tool_call_empty_content.json", "chat", flights, "tool_calls", "qwen3:0.6b", "chatcmpl-342", 412, 38, true},
		// OpenAI: content null, two calls: the first is the answer, numbers kept as written.
		{"chat_tool_call_null_content.json", "chat", `{"action":"call_tool","tool":"search_hotels","arguments":{"city":"Lisbon","checkIn":"2027-03-02","nights":3,"maxNightlyPrice":120.50},"missingFields":[],"reason":""}`, "tool_calls", "gpt-4o-mini-2024-07-18", "chatcmpl-BxR4t0vIPxq1", 380, 41, true},
		// A preamble beside a call: the call wins.
		{"chat_text_and_tool_call.json", "chat", `{"action":"call_tool","tool":"search_flights","arguments":{"origin":"Osaka"},"missingFields":[],"reason":""}`, "tool_calls", "gpt-4o-mini-2024-07-18", "chatcmpl-BxR4t0vIPxq2", 300, 20, true},
		// Text with no call stays text (a clarification).
		{"chat_text.json", "chat", "Which city would you like to stay in?", "stop", "gpt-4o-mini-2024-07-18", "chatcmpl-BxR4t0vIPxq5", 300, 9, false},
		// llama.cpp's llama-server (ggml-org/llama.cpp#20198) and TGI (#2136) have sent
		// the arguments as a JSON object, not the string the API defines: the same call.
		{"chat_tool_call_object_arguments.json", "chat", flights, "tool_calls", "qwen2.5-7b-instruct-q4_k_m.gguf", "chatcmpl-Zr8Jk2Lq5Vw9Xy1N", 412, 38, true},
		// Arguments that are not JSON are kept as a string: the scorer fails the call, not the runner.
		{"chat_bad_arguments.json", "chat", `{"action":"call_tool","tool":"search_flights","arguments":"{\"origin\": \"Osaka\"","missingFields":[],"reason":""}`, "tool_calls", "qwen3:0.6b", "chatcmpl-342b", -1, -1, true},
		{"responses_function_call.json", "responses", flights, "completed", "gpt-4.1-mini-2025-04-14", "resp_67ccd2bed1ec8190b14f964abc054267", 291, 23, true},
		// Cut short at max_tokens: the text as it stands, finish_reason length
		// (scoring counts such answers: score/toolcall/study answerFlags).
		{"chat_length.json", "chat", `{"action":"call_tool","tool":"search_flights","arguments":{"origin":"Os`, "length", "gpt-4o-mini-2024-07-18", "chatcmpl-BxR4t0vIPxq7", 300, 16, false},
		// Withheld by the content filter (OpenAI's, Azure OpenAI's): no content,
		// finish_reason content_filter (scoring counts such answers:
		// score.FinishReason).
		{"chat_content_filter.json", "chat", "", "content_filter", "gpt-4o-mini-2024-07-18", "chatcmpl-CqF8m2WbX0aLk3", 305, 11, false},
		// A reasoning model that spent max_output_tokens before it answered:
		// no text, the incomplete_details reason as the finish reason.
		{"responses_incomplete.json", "responses", "", "max_output_tokens", "o4-mini-2025-04-16", "resp_67ccd4b1e2a48190a1b2c3d4e5f60718", 291, 64, false},
		{"responses_text.json", "responses", `{"action":"refuse","tool":null,"arguments":{},"missingFields":[],"reason":"I cannot share that."}`, "completed", "gpt-4.1-mini-2025-04-14", "resp_67ccd3a9da748190baa7f1570fe91ac6", 36, 87, false},
		// vLLM with a reasoning parser (--reasoning-parser deepseek_r1): the
		// thinking in reasoning_content beside the content; the answer is the content
		{"chat_reasoning_content.json", "chat", `{"action":"ask_clarification","tool":"search_hotels","arguments":{},"missingFields":["city"],"reason":"Which city?"}`, "stop", "deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B", "chatcmpl-8f2c1e0a9b7d4c3e", 310, 92, false},
		// vLLM since 0.17: the thinking in reasoning (reasoning_content is gone),
		// and every member of its ChatCompletionResponse, nulls included
		{"chat_vllm_reasoning.json", "chat", `{"action":"ask_clarification","tool":"search_hotels","arguments":{},"missingFields":["city"],"reason":"Which city?"}`, "stop", "Qwen/Qwen3-8B", "chatcmpl-5d0b8f3e2c9a4e71b6f0c2d4a8e1f937", 310, 108, false},
		// the same model spent max_tokens thinking: content null, no text; the
		// finish reason says why (scoring counts such answers)
		{"chat_vllm_reasoning_length.json", "chat", "", "length", "Qwen/Qwen3-8B", "chatcmpl-a71c4e09d2b84f5c9e3d6b1f0a2c8e45", 291, 64, false},
		// vLLM's reasoning parser took the whole answer for reasoning:
		// content null, finish_reason stop; no text to score (the
		// reasoning is kept: TestEmptyAnswerKeepsReasoning)
		{"chat_vllm_answer_in_reasoning.json", "chat", "", "stop", "Qwen/Qwen3-8B", "chatcmpl-3e9d2a7c51b04f6a8d2e1c0b9a7f6e54", 310, 32, false},
		// Ollama's OpenAI-compatible API with a thinking model: the thinking in
		// reasoning (left out when empty), system_fingerprint fp_ollama
		{"chat_ollama_reasoning.json", "chat", `{"action":"ask_clarification","tool":"search_hotels","arguments":{},"missingFields":["city"],"reason":"Which city?"}`, "stop", "qwen3:8b", "chatcmpl-417", 305, 71, false},
		// a reasoning model: its reasoning item (a summary) before the message;
		// the answer is the message's text alone
		{"responses_reasoning.json", "responses", `{"action":"refuse","tool":null,"arguments":{},"missingFields":[],"reason":"I cannot share that."}`, "completed", "o4-mini-2025-04-16", "resp_68a1f0c2b3d48190a1b2c3d4e5f60718", 36, 412, false},
		// a model that labels its messages (phase): the answer is the
		// final_answer message, not the commentary before it glued on
		{"responses_phase.json", "responses", `{"action":"call_tool","tool":"search_flights","arguments":{"origin":"Osaka"},"missingFields":[],"reason":""}`, "completed", "gpt-5.3-codex", "resp_69b2e1d3c4e59201b2c3d4e5f6071a2b", 291, 96, false},
		// Gemini's OpenAI-compatible API: the thinking tokens are in
		// total_tokens, not completion_tokens; they are output tokens
		{"chat_gemini_thinking_usage.json", "chat", `{"action":"ask_clarification","tool":"search_hotels","arguments":{},"missingFields":["city"],"reason":"Which city?"}`, "stop", "gemini-2.5-flash", "Fq0yaKbWLpqfz7IPk7mB8Qc", 310, 606, false},
	} {
		body, err := os.ReadFile(filepath.Join("testdata", tt.file))
		if err != nil {
			t.Fatal(err)
		}
		parse := ParseChat
		if tt.api == "responses" {
			parse = ParseResponses
		}
		res, err := parse(body)
		if err != nil {
			t.Errorf("%s: %v", tt.file, err)
			continue
		}
		if res.Output == nil || *res.Output != tt.output {
			t.Errorf("%s: output\n got %v\nwant %s", tt.file, str(res.Output), tt.output)
		}
		if res.FinishReason != tt.finish || res.Model != tt.model || res.RawResponseID != tt.id {
			t.Errorf("%s: finish %q model %q id %q", tt.file, res.FinishReason, res.Model, res.RawResponseID)
		}
		if tt.in >= 0 && (res.InputTokens == nil || *res.InputTokens != tt.in || res.OutputTokens == nil || *res.OutputTokens != tt.out) {
			t.Errorf("%s: tokens %v %v", tt.file, res.InputTokens, res.OutputTokens)
		}
		if _, ok := res.Metadata.Get("provider_output"); ok != tt.metadata {
			t.Errorf("%s: metadata %v, want provider_output %v", tt.file, res.Metadata, tt.metadata)
		}
		if tt.metadata {
			raw, _ := res.Metadata[0].Value.(contract.Raw)
			c := jsontext.Value(slices.Clone(raw))
			if c.Compact() != nil || string(c) != string(raw) {
				t.Errorf("%s: provider_output is not compact JSON: %s", tt.file, raw)
			}
		}
	}
}

// An empty answer beside the model's reasoning returned apart keeps that
// reasoning in the record's metadata, so the record shows where the text
// went (a reasoning parser that took the answer, a model that spent its
// tokens thinking); an answer with text keeps none.
func TestEmptyAnswerKeepsReasoning(t *testing.T) {
	for file, want := range map[string]string{
		"chat_vllm_answer_in_reasoning.json": `{"action":"ask_clarification","tool":"search_hotels","arguments":{},"missingFields":["city"],"reason":"Which city?"}`,
		"chat_vllm_reasoning_length.json":    "The user wants flights from Osaka to Auckland for four travellers. The date is given as July 14, 2027, so departureDate should be 2027-07-14. Let me check the schema again: origin, destination",
		"chat_reasoning_content.json":        "",
		"chat_ollama_reasoning.json":         "",
	} {
		body, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		res, err := ParseChat(body)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		got, ok := res.Metadata.Get(runner.ReasoningKey)
		if want == "" && ok || want != "" && got != want {
			t.Errorf("%s: metadata.reasoning %v (%v), want %q", file, got, ok, want)
		}
	}
}

// TestCallsCounted: an answer's function calls are counted (the first is
// the output): a model that calls tools in parallel is said by the run.
func TestCallsCounted(t *testing.T) {
	for file, want := range map[string]int{
		"chat_tool_call_null_content.json":  2,
		"chat_tool_call_empty_content.json": 1,
		"chat_text.json":                    0,
		"responses_function_call.json":      1,
	} {
		body, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		parse := ParseChat
		if strings.HasPrefix(file, "responses_") {
			parse = ParseResponses
		}
		res, err := parse(body)
		if err != nil || res.Calls != want {
			t.Errorf("%s: %d calls (%v), want %d", file, res.Calls, err, want)
		}
	}
}

// TestAzureContentFilterKept: an answer Azure OpenAI's filter withheld keeps
// what the filter found, by category, in the record's metadata: which
// category to adjust in the deployment's filter.
func TestAzureContentFilterKept(t *testing.T) {
	body, err := os.ReadFile("testdata/chat_azure_content_filter.json")
	if err != nil {
		t.Fatal(err)
	}
	res, err := ParseChat(body)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := res.Metadata.Get("content_filter_results")
	if res.FinishReason != "content_filter" || *res.Output != "" || fmt.Sprintf("%s", got) != `{"hate":{"filtered":false,"severity":"safe"},"self_harm":{"filtered":false,"severity":"safe"},"sexual":{"filtered":false,"severity":"safe"},"violence":{"filtered":true,"severity":"medium"}}` {
		t.Errorf("finish %q, output %q, metadata %v", res.FinishReason, *res.Output, res.Metadata)
	}
}

func TestParseRecordedFailure(t *testing.T) {
	body, err := os.ReadFile("testdata/responses_failed.json")
	if err != nil {
		t.Fatal(err)
	}
	_, err = ParseResponses(body)
	var ce *runner.CallError
	if !errors.As(err, &ce) || ce.Code != "failed" || ce.Message != "the response failed (server_error)" || ce.Retry {
		t.Errorf("failed response: %#v", err)
	}
}

// TestParseNoAnswer: a generation the server ended is a provider error,
// asked again, not the model's answer scored as wrong (the recorded bodies are
// in TestErrorInA200Answer); the choice read is the one of index 0.
func TestParseNoAnswer(t *testing.T) {
	for _, reason := range []string{"error", "insufficient_system_resource"} {
		body := `{"id":"c","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"{\"act"},"finish_reason":"` + reason + `"}]}`
		if _, err := ParseChat([]byte(body)); err == nil || !strings.Contains(err.Error(), "interrupted: the server ended the answer (finish_reason "+reason+")") {
			t.Errorf("%s: %v", reason, err)
		}
	}
	// commentary before a message with no label: the unlabelled one is the answer
	resp := `{"id":"r","object":"response","status":"completed","model":"m","output":[{"type":"message","phase":"commentary","content":[{"type":"output_text","text":"I'll prepare."}]},{"type":"message","content":[{"type":"output_text","text":"{}"}]}]}`
	if res, err := ParseResponses([]byte(resp)); err != nil || str(res.Output) != "{}" {
		t.Errorf("commentary and an unlabelled message: %v %v", str(res.Output), err)
	}
	// the choice of index 0, wherever it is listed
	body := `{"id":"c","model":"m","choices":[{"index":1,"message":{"role":"assistant","content":"second"},"finish_reason":"stop"},{"index":0,"message":{"role":"assistant","content":"first"},"finish_reason":"stop"}]}`
	if res, err := ParseChat([]byte(body)); err != nil || str(res.Output) != "first" {
		t.Errorf("choices out of order: %v %v", str(res.Output), err)
	}
}

func str(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}

func TestToolBodies(t *testing.T) {
	req := contract.Request{Messages: []contract.Message{{Role: "system", Content: "S"}, {Role: "user", Content: "U"}},
		Tools: []contract.ToolDefinition{
			{Name: "search_flights", Description: "Search flights.", Parameters: []byte(`{}`)},
			{Name: "book", Description: "Book.", Parameters: []byte(`{"properties":{"n":{"type":"integer"}}}`), Strict: true},
		}}
	for _, tt := range []struct {
		name string
		opts Options
		want string
	}{
		{"chat", Options{Model: "m", NoSeed: true}, `{"model":"m","messages":[{"role":"system","content":"S"},{"role":"user","content":"U"}],` +
			`"tools":[{"type":"function","function":{"name":"search_flights","description":"Search flights.","parameters":{"type":"object"},"strict":false}},` +
			`{"type":"function","function":{"name":"book","description":"Book.","parameters":{"type":"object","properties":{"n":{"type":"integer"}}},"strict":true}}],"tool_choice":"auto"}`},
		{"chat max_completion_tokens", Options{Model: "m", NoSeed: true, MaxCompletionTokens: 64}, `{"model":"m","messages":[{"role":"system","content":"S"},{"role":"user","content":"U"}],"max_completion_tokens":64,` +
			`"tools":[{"type":"function","function":{"name":"search_flights","description":"Search flights.","parameters":{"type":"object"},"strict":false}},` +
			`{"type":"function","function":{"name":"book","description":"Book.","parameters":{"type":"object","properties":{"n":{"type":"integer"}}},"strict":true}}],"tool_choice":"auto"}`},
		{"responses", Options{Model: "m", API: "responses", MaxCompletionTokens: 64}, `{"model":"m","instructions":"S","input":[{"role":"user","content":"U"}],"max_output_tokens":64,` +
			`"tools":[{"type":"function","name":"search_flights","description":"Search flights.","parameters":{"type":"object"},"strict":false},` +
			`{"type":"function","name":"book","description":"Book.","parameters":{"type":"object","properties":{"n":{"type":"integer"}}},"strict":true}],"tool_choice":"auto"}`},
	} {
		got, err := Body(&req, tt.opts)
		if err != nil || string(got) != tt.want {
			t.Errorf("%s:\n got %s\nwant %s (%v)", tt.name, got, tt.want, err)
		}
	}
}

func TestParseResponses(t *testing.T) {
	for _, tt := range []struct{ name, body, output, finish, err string }{
		{"text", `{"id":"r","status":"completed","output":[{"type":"reasoning"},{"type":"message","content":[{"type":"output_text","text":"x"},{"type":"output_text","text":"y"}]}],"usage":{"input_tokens":5,"output_tokens":2}}`, "xy", "completed", ""},
		{"incomplete", `{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[{"type":"message","content":[{"type":"output_text","text":"{"}]}]}`, "{", "max_output_tokens", ""},
		{"function call", `{"status":"completed","output":[{"type":"message","content":[{"type":"output_text","text":"Searching."}]},{"type":"function_call","name":"f","arguments":"{\"q\":1}"}]}`, `{"action":"call_tool","tool":"f","arguments":{"q":1},"missingFields":[],"reason":""}`, "completed", ""},
		{"refusal", `{"status":"completed","output":[{"type":"message","content":[{"type":"refusal","refusal":"no"}]}]}`, "no", "refusal", ""},
		{"refusal beside text", `{"status":"completed","output":[{"type":"message","content":[{"type":"output_text","text":"{"},{"type":"refusal","refusal":"no"}]}]}`, "{", "refusal", ""},
		{"refusal beside empty text", `{"status":"completed","output":[{"type":"message","content":[{"type":"output_text","text":""},{"type":"refusal","refusal":"no"}]}]}`, "no", "refusal", ""},
		{"failed", `{"status":"failed","error":{"code":"server_error","message":"x"}}`, "", "", "failed"},
		// a refusal cut at the token limit keeps the reason it stopped, as a
		// chat completion keeps "length" (it was a refusal, not cut short)
		{"refusal cut short", `{"id":"resp_2","object":"response","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"model":"gpt-5","output":[{"type":"message","id":"msg_2","role":"assistant","status":"incomplete","content":[{"type":"refusal","refusal":"I'm sorry, I can"}]}],"usage":{"input_tokens":100,"input_tokens_details":{"cached_tokens":0},"output_tokens":16,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":116}}`, "I'm sorry, I can", "max_output_tokens", ""},
		{"failed, a number for its code", `{"status":"failed","error":{"code":500,"message":"x"}}`, "", "", "the response failed (500)"},
		// an error in place of a response, in a 200 answer (a proxy's): its
		// status, as for a chat completion (it was a bad_response of a
		// decoder's words)
		{"an error in a 200 answer", `{"error":{"code":502,"message":"Provider returned error","metadata":{"provider_name":"X"}}}`, "", "", "HTTP 502 Bad Gateway: Provider returned error (in a 200 answer)"},
		{"an empty error beside an output", `{"output":[{"type":"message","content":[{"type":"output_text","text":"{}"}]}],"error":{}}`, "{}", "", ""},
		{"an error of no status in a 200 answer", `{"error":{"code":"rate_limited","message":"slow down"}}`, "", "", "the answer is an error: rate_limited: slow down"},
		{"not json", `nope`, "", "", "not a Responses API response"},
	} {
		res, err := ParseResponses([]byte(tt.body))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: err %v", tt.name, err)
			}
			continue
		}
		if err != nil || *res.Output != tt.output || res.FinishReason != tt.finish {
			t.Errorf("%s: %+v %v", tt.name, res, err)
		}
	}
}

func FuzzParseChat(f *testing.F) {
	f.Add([]byte(`{"choices":[{"message":{"content":"hi"}}]}`))
	f.Add([]byte(`{"choices":[{"message":{"content":[{"text":"a"}]}}],"usage":{"prompt_tokens":1}}`))
	f.Add([]byte(`{"choices":[{"message":{"tool_calls":[{"function":{"arguments":"{}"}}]}}]}`))
	f.Add([]byte(`{"choices":[{"message":{"content":"","tool_calls":[{"type":"function","function":{"name":"f","arguments":"{\"a\":"}}]}}]}`))
	f.Add([]byte(`{"choices":[{"message":{"content":null,"function_call":{"name":"f","arguments":""}}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		res, err := ParseChat(b)
		if err == nil && res.Output == nil {
			t.Fatal("no error and no output")
		}
	})
}

func FuzzParseResponses(f *testing.F) {
	f.Add([]byte(`{"status":"completed","output":[{"type":"message","content":[{"type":"output_text","text":"x"}]}]}`))
	f.Add([]byte(`{"status":"failed"}`))
	f.Add([]byte(`{"status":"completed","output":[{"type":"function_call","name":"f","arguments":"{\"a\":1}"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		res, err := ParseResponses(b)
		if err == nil && res.Output == nil {
			t.Fatal("no error and no output")
		}
	})
}

func BenchmarkParseChat(b *testing.B) {
	body := []byte(`{"id":"c1","model":"m","choices":[{"message":{"role":"assistant","content":"{\"action\":\"refuse\",\"tool\":null,\"arguments\":{},\"missingFields\":[],\"reason\":\"x\"}"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`)
	for b.Loop() {
		if _, err := ParseChat(body); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRecordedErrors: a live call answered with a recorded API error body gets the
// code and message of the one error table (docs/runners.md).
func TestRecordedErrors(t *testing.T) {
	zero := 0.0
	for _, tt := range []struct {
		file, code, message string
		status              int
		temperature         *float64 // the request's (its study's)
	}{
		// a reasoning model sent a study's temperature of 0 (the body as the
		// reports show it: gabrii/Cursor-Azure-GPT-5#33, tmc/langchaingo#1355):
		// the way on is named; with none sent, nothing is said of it
		{"error_400_temperature.json", "http_400", "HTTP 400 Bad Request (unsupported_value): Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported. (the model takes no temperature but its default, 1, and was sent 0: set the study's temperature to 1 or leave it out and export again, or give fbeval-openai --temperature 1 to send these requests 1)", 400, &zero},
		{"error_400_temperature.json", "http_400", "HTTP 400 Bad Request (unsupported_value): Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.", 400, nil},
		{"error_400.json", "http_400", "HTTP 400 Bad Request (invalid_function_parameters)", 400, nil},
		{"error_500.json", "http_500", "HTTP 500 Internal Server Error (server_error)", 500, nil},
		// a reasoning model given max_tokens (a study's, or --max-tokens): the
		// flag that sends the limit its way is named
		{"error_400_max_tokens.json", "http_400", "HTTP 400 Bad Request (unsupported_parameter): Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead. (give fbeval-openai --max-completion-tokens N, which sends the limit as max_completion_tokens)", 400, nil},
		// Gemini's OpenAI-compatible API: its own error in a list, or as JSON
		// text in the message
		{"error_gemini_429_list.json", "http_429", "HTTP 429 Too Many Requests (RESOURCE_EXHAUSTED): Resource has been exhausted (e.g. check quota).", 429, nil},
		{"error_gemini_429_nested.json", "http_429", "HTTP 429 Too Many Requests (RESOURCE_EXHAUSTED): Resource has been exhausted (e.g. check quota).", 429, nil},
		// older vLLM releases: the error object unwrapped, as run-batch writes it
		{"error_400_vllm_flat.json", "http_400", "HTTP 400 Bad Request (BadRequestError): This model's maximum context length is 4096 tokens.", 400, nil},
		// Azure OpenAI's content filter blocked the prompt: a code of its own,
		// as asking again gets the same
		{"error_400_azure_content_filter.json", "content_filter", "HTTP 400 Bad Request (content_filter): The response was filtered due to the prompt triggering Azure OpenAI's content management policy.", 400, nil},
		// and the category it blocked it for, which its settings name
		{"error_400_azure_content_filter.json", "content_filter", "HTTP 400 Bad Request (content_filter): The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry. To learn more about our content filtering policies please read our documentation: https://go.microsoft.com/fwlink/?linkid=2198766 (filtered for self_harm medium)", 400, nil},
		{"error_400_azure_content_filter_responses.json", "content_filter", "HTTP 400 Bad Request (content_filter): The response was filtered due to the prompt triggering Azure OpenAI’s content management policy.", 400, nil},
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
		if !errors.As(err, &ce) || ce.Code != tt.code || !strings.HasPrefix(ce.Message, tt.message) || strings.Contains(ce.Message, "\n") ||
			tt.temperature == nil && strings.Contains(ce.Message, "--temperature") || len(runner.ProviderText(ce.Message, nil)) < len(ce.Message) {
			t.Errorf("%s: %v, want %s %q", tt.file, err, tt.code, tt.message)
		}
	}
}

// TestErrorInA200Answer: a server that answers 200 with an error body
// (OpenRouter, once a model has started: "any error occurred while the LLM is
// producing the output will be emitted in the response body"), or a choice that
// ended in an error (finish_reason "error", an empty message and the choice's
// error), is a provider error with the error's status and message, retried as
// that status is; not an empty answer scored against the model.
func TestErrorInA200Answer(t *testing.T) {
	for _, tt := range []struct {
		file, code, message string
		retry               bool
	}{
		{"chat_error_in_200.json", "http_502", "HTTP 502 Bad Gateway: Provider returned error (in a 200 answer)", true},
		{"chat_choice_error.json", "http_502", "HTTP 502 Bad Gateway: Upstream error from Together: the model stopped responding (in a 200 answer)", true},
		// a generation the server ended (vLLM's abort), and a background
		// response not done: no answer, asked again
		{"chat_vllm_abort.json", "interrupted", "the server ended the answer (finish_reason abort), not the model: no answer to score", true},
		{"responses_in_progress.json", "in_progress", "the response is in_progress: no answer to score", false},
	} {
		body, err := os.ReadFile(filepath.Join("testdata", tt.file))
		if err != nil {
			t.Fatal(err)
		}
		parse := ParseChat
		if strings.HasPrefix(tt.file, "responses_") {
			parse = ParseResponses
		}
		res, err := parse(body)
		var ce *runner.CallError
		if !errors.As(err, &ce) || ce.Code != tt.code || ce.Message != tt.message || ce.Retry != tt.retry {
			t.Errorf("%s: %+v, %v; want %s %q retry %v", tt.file, res, err, tt.code, tt.message, tt.retry)
		}
	}
	// an error whose code is no HTTP status: its text, as a bad response
	if _, err := ParseChat([]byte(`{"error":{"code":"rate_limited","message":"slow down"}}`)); err == nil || err.Error() != "bad_response: the answer is an error: rate_limited: slow down" {
		t.Errorf("a code that is no status: %v", err)
	}
	// an error member beside choices that answered is no error
	body := []byte(`{"id":"x","model":"m","choices":[{"message":{"role":"assistant","content":"{}"},"finish_reason":"stop","error":null}],"error":null}`)
	if res, err := ParseChat(body); err != nil || res.Output == nil || *res.Output != "{}" {
		t.Errorf("null errors: %+v, %v", res, err)
	}
}

// TestParseUsageCounts: counts are read by the scorer's rule; one it would
// refuse (negative, a fraction, a string, past int64) is left out of the
// record and said in its metadata, the answer kept (the record was written
// with it and refused by the scorer, or a fraction failed the body with the
// decoder's words); total_tokens, which no record carries, is read only where
// it can be.
func TestParseUsageCounts(t *testing.T) {
	chat := func(usage string) string {
		return `{"id":"c","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"{}"},"finish_reason":"stop"}],"usage":` + usage + `}`
	}
	resp := func(usage string) string {
		return `{"id":"r","object":"response","status":"completed","model":"m","output":[{"type":"message","content":[{"type":"output_text","text":"{}"}]}],"usage":` + usage + `}`
	}
	n := func(v int64) *int64 { return &v }
	for _, tc := range []struct {
		name, body string
		responses  bool
		in, out    *int64
		note       string
	}{
		{"whole", chat(`{"prompt_tokens":5,"completion_tokens":3,"total_tokens":8}`), false, n(5), n(3), ""},
		{"as floats", chat(`{"prompt_tokens":5.0,"completion_tokens":3e0,"total_tokens":8}`), false, n(5), n(3), ""},
		{"negative", chat(`{"prompt_tokens":-5,"completion_tokens":3,"total_tokens":-2}`), false, nil, n(3), "usage.prompt_tokens -5: not a whole number of tokens from 0, left out of the record"},
		{"fraction", chat(`{"prompt_tokens":1.5,"completion_tokens":3}`), false, nil, n(3), "usage.prompt_tokens 1.5: "},
		{"string", chat(`{"prompt_tokens":5,"completion_tokens":"3"}`), false, n(5), nil, `usage.completion_tokens "3": `},
		{"past int64", chat(`{"prompt_tokens":1e30,"completion_tokens":3}`), false, nil, n(3), "usage.prompt_tokens 1e30: "},
		{"total alone broken", chat(`{"prompt_tokens":5,"completion_tokens":3,"total_tokens":-1}`), false, n(5), n(3), ""},
		{"responses negative", resp(`{"input_tokens":5,"output_tokens":-1}`), true, n(5), nil, "usage.output_tokens -1: "},
		{"responses whole", resp(`{"input_tokens":5,"output_tokens":1}`), true, n(5), n(1), ""},
		// usage that is no object: left out, the answer kept (every answer
		// was a bad_response, asked again for ever)
		{"usage a string", chat(`"n/a"`), false, nil, nil, `usage "n/a": not an object of token counts, left out of the record`},
		{"usage a list", resp(`[5, 1]`), true, nil, nil, `usage [5, 1]: not an object`},
	} {
		parse := ParseChat
		if tc.responses {
			parse = ParseResponses
		}
		res, err := parse([]byte(tc.body))
		if err != nil || str(res.Output) != "{}" {
			t.Errorf("%s: %v %v", tc.name, str(res.Output), err)
			continue
		}
		same := func(a, b *int64) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }
		if !same(res.InputTokens, tc.in) || !same(res.OutputTokens, tc.out) {
			t.Errorf("%s: counts %v %v", tc.name, res.InputTokens, res.OutputTokens)
		}
		note := ""
		for _, m := range res.Metadata {
			if m.Key == "usage_left_out" {
				note = m.Value.(string)
			}
		}
		if tc.note == "" && note != "" || !strings.HasPrefix(note, tc.note) {
			t.Errorf("%s: usage_left_out %q, want %q...", tc.name, note, tc.note)
		}
	}
}

// TestParseDecodeErrors: a body the parser cannot read is named in fbeval's
// words at its place (it was the fast decoder's: "Syntax error at index 407:
// invalid char", "Mismatch type int64 with value ...", "no sources available,
// the input json is empty: errors.SyntaxError{...}").
func TestParseDecodeErrors(t *testing.T) {
	for body, want := range map[string]string{
		``: "bad_response: the answer is not a chat completion: the body is empty",
		`{"id":"c","choices":[{"index":0,"message":{"role":"assistant","content":"x"}}],"usage":{"prompt_tokens":NaN}}`: "bad_response: the answer is not a chat completion: invalid JSON: NaN or Infinity, which JSON does not have (Python's json.dumps writes them for a float nan, a dataframe's missing value): write null (json.dumps(..., allow_nan=False) refuses them; pandas' to_json writes null) (line 1, column 105 of the body)",
		`{"id":"c","choices":{"index":0}}`: "bad_response: the answer is not a chat completion: want a JSON list, got a JSON object at /choices (line 1, column 21 of the body)",
		"{\"id\":\"c\",\n \"choices\": [{\"index\": 0, \"message\": {\"role\": \"assistant\", \"content\": \"x\"}, \"finish_reason\": 7}]}": "bad_response: the answer is not a chat completion: want a string, got a JSON number at /choices/0/finish_reason (line 2, column 94 of the body)",
	} {
		if _, err := ParseChat([]byte(body)); err == nil || err.Error() != want {
			t.Errorf("%q:\n got %v\nwant %s", body, err, want)
		}
	}
	if _, err := ParseResponses([]byte(`{"id":"r","object":"response","status":"completed","output":{"type":"message"}}`)); err == nil || err.Error() != "bad_response: the answer's output is not a list of items: want a JSON list, got a JSON object (line 1, column 1 of the output)" {
		t.Errorf("responses output: %v", err)
	}
}

// TestToolUseFailed: Groq's HTTP 400 tool_use_failed (the model's tool call did
// not parse, or did not match the tool's schema) is the model's answer, failed:
// a record of the text it wrote (failed_generation, "" where the body gives
// none) with finish reason tool_use_failed and the provider's message in its
// metadata, not a provider error a resumed run asks again until the model
// gets it right.
func TestToolUseFailed(t *testing.T) {
	for _, tt := range []struct{ file, output, message string }{
		{"error_400_groq_tool_use_failed.json", "<tool-use>\n{\n  \"tool_calls\": [\n", "HTTP 400 Bad Request (tool_use_failed): Failed to call a function."},
		{"error_400_groq_tool_validation.json", "", "HTTP 400 Bad Request (tool_use_failed): tool call validation failed: parameters for tool HassTurnOff did not match schema"},
	} {
		body, err := os.ReadFile(filepath.Join("testdata", tt.file))
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			w.Write(body)
		}))
		c := &Client{HTTP: &runner.HTTP{Client: srv.Client(), BaseURL: srv.URL}, Opts: Options{Model: "m"}}
		res, err := c.Do(context.Background(), &contract.Request{Messages: []contract.Message{{Role: "user", Content: "u"}}})
		srv.Close()
		if err != nil || res.Output == nil || !strings.HasPrefix(*res.Output, tt.output) || tt.output == "" && *res.Output != "" ||
			res.FinishReason != "tool_use_failed" || res.Error != nil || res.Model != "m" || len(res.Metadata) != 1 ||
			res.Metadata[0].Key != "provider_error" || !strings.HasPrefix(res.Metadata[0].Value.(string), tt.message) {
			t.Errorf("%s: %+v, %v; want the output %q, finish reason tool_use_failed, metadata %q", tt.file, res, err, tt.output, tt.message)
		}
	}
}
