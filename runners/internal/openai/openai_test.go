package openai

import (
	"strings"
	"testing"

	"github.com/fbeval/fbeval/contract"
)

func TestBodies(t *testing.T) {
	temp := 0.0
	req := contract.Request{Seed: 42, Messages: []contract.Message{{Role: "system", Content: "S"}, {Role: "user", Content: "U"}},
		ResponseFormat: &contract.ResponseFormat{Type: "json_schema", JSONSchema: contract.JSONSchema{Name: "env", Schema: []byte(`{"type":"object"}`), Strict: true}}}
	for _, tt := range []struct {
		name string
		opts Options
		want string
	}{
		{"chat", Options{Model: "m"}, `{"model":"m","messages":[{"role":"system","content":"S"},{"role":"user","content":"U"}],"seed":42}`},
		{"chat all", Options{Model: "m", MaxTokens: 100, Temperature: &temp, NativeSchema: true}, `{"model":"m","messages":[{"role":"system","content":"S"},{"role":"user","content":"U"}],"max_tokens":100,"temperature":0.0,"seed":42,"response_format":{"type":"json_schema","json_schema":{"name":"env","schema":{"type":"object"},"strict":true}}}`},
		{"chat no seed", Options{Model: "m", NoSeed: true}, `{"model":"m","messages":[{"role":"system","content":"S"},{"role":"user","content":"U"}]}`},
		{"responses", Options{Model: "m", API: "responses", MaxTokens: 9, NativeSchema: true}, `{"model":"m","instructions":"S","input":[{"role":"user","content":"U"}],"max_output_tokens":9,"text":{"format":{"type":"json_schema","name":"env","schema":{"type":"object"},"strict":true}}}`},
	} {
		got, err := Body(&req, tt.opts)
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
		{"tool call", `{"id":"c2","choices":[{"message":{"content":null,"tool_calls":[{"type":"function","function":{"name":"f","arguments":"{\"a\":1}"}},{"function":{"arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`, `{"a":1}`, "tool_calls", "", -1, -1},
		{"parts", `{"choices":[{"message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},"finish_reason":"length"}]}`, "ab", "length", "", -1, -1},
		{"refusal", `{"choices":[{"message":{"content":null,"refusal":"no"},"finish_reason":"stop"}]}`, "no", "refusal", "", -1, -1},
		{"no choices", `{"choices":[]}`, "", "", "no choices", -1, -1},
		{"truncated", `{"choices":[{"mess`, "", "", "not a chat completion", -1, -1},
		{"html", `<html>`, "", "", "not a chat completion", -1, -1},
	} {
		res, err := ParseChat([]byte(tt.body))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: err %v, want %q", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil || res.Output == nil || *res.Output != tt.output || res.FinishReason != tt.finish {
			t.Errorf("%s: %+v %v", tt.name, res, err)
		}
		if tt.in >= 0 && (res.InputTokens == nil || *res.InputTokens != tt.in || *res.OutputTokens != tt.out) {
			t.Errorf("%s: tokens %v %v", tt.name, res.InputTokens, res.OutputTokens)
		}
	}
}

func TestParseResponses(t *testing.T) {
	for _, tt := range []struct{ name, body, output, finish, err string }{
		{"text", `{"id":"r","status":"completed","output":[{"type":"reasoning"},{"type":"message","content":[{"type":"output_text","text":"x"},{"type":"output_text","text":"y"}]}],"usage":{"input_tokens":5,"output_tokens":2}}`, "xy", "completed", ""},
		{"incomplete", `{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[{"type":"message","content":[{"type":"output_text","text":"{"}]}]}`, "{", "max_output_tokens", ""},
		{"function call", `{"status":"completed","output":[{"type":"function_call","arguments":"{\"q\":1}"}]}`, `{"q":1}`, "completed", ""},
		{"refusal", `{"status":"completed","output":[{"type":"message","content":[{"type":"refusal","refusal":"no"}]}]}`, "no", "refusal", ""},
		{"failed", `{"status":"failed","error":{"code":"server_error","message":"x"}}`, "", "", "failed"},
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
