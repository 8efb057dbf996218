package anthropic

import (
	"strings"
	"testing"

	"github.com/fbeval/fbeval/contract"
)

func TestBody(t *testing.T) {
	req := contract.Request{Messages: []contract.Message{{Role: "system", Content: "S1"}, {Role: "user", Content: "U"}, {Role: "assistant", Content: "A"}, {Role: "system", Content: "S2"}, {Role: "user", Content: "fix"}}}
	b, err := contract.Marshal(Body(&req, Options{Model: "c"}), contract.Compact)
	want := `{"model":"c","max_tokens":1024,"system":"S1\n\nS2","messages":[{"role":"user","content":"U"},{"role":"assistant","content":"A"},{"role":"user","content":"fix"}]}`
	if err != nil || string(b) != want {
		t.Errorf("got %s\nwant %s", b, want)
	}
}

func TestParseMessage(t *testing.T) {
	for _, tt := range []struct {
		name, body, output, finish, err string
		in                              int64
	}{
		{"text", `{"id":"msg_1","type":"message","model":"c","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"stop_reason":"end_turn","usage":{"input_tokens":10,"output_tokens":2,"cache_creation_input_tokens":5,"cache_read_input_tokens":100}}`, "ab", "end_turn", "", 115},
		{"refusal", `{"type":"message","content":[],"stop_reason":"refusal","usage":{"input_tokens":4,"output_tokens":0}}`, "", "refusal", "", 4},
		{"tool use", `{"type":"message","content":[{"type":"tool_use","id":"t","name":"f","input":{"a":1}}],"stop_reason":"tool_use"}`, `{"a":1}`, "tool_use", "", -1},
		{"error object", `{"type":"error","error":{"type":"overloaded_error","message":"x"}}`, "", "", "not a message", -1},
		{"truncated", `{"type":"message","content":[{"ty`, "", "", "not a message", -1},
	} {
		res, err := ParseMessage([]byte(tt.body))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
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
	f.Fuzz(func(t *testing.T, b []byte) {
		res, err := ParseMessage(b)
		if err == nil && res.Output == nil {
			t.Fatal("no error and no output")
		}
	})
}
