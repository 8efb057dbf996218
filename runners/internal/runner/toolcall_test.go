package runner

import (
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/fbeval/fbeval/contract"
)

func TestEnvelope(t *testing.T) {
	for _, tt := range []struct{ name, args, want string }{
		{"search", `{"city": "Goa", "nights": 3.50}`, `{"action":"call_tool","tool":"search","arguments":{"city":"Goa","nights":3.50},"missingFields":[],"reason":""}`},
		{"f", ``, `{"action":"call_tool","tool":"f","arguments":{},"missingFields":[],"reason":""}`},
		{"f", `  `, `{"action":"call_tool","tool":"f","arguments":{},"missingFields":[],"reason":""}`},
		{"f", `{"a":`, `{"action":"call_tool","tool":"f","arguments":"{\"a\":","missingFields":[],"reason":""}`},
		{"f", `[1]`, `{"action":"call_tool","tool":"f","arguments":[1],"missingFields":[],"reason":""}`},
		{`a"b`, `{}`, `{"action":"call_tool","tool":"a\"b","arguments":{},"missingFields":[],"reason":""}`},
	} {
		c := ToolCall{Name: tt.name, Arguments: tt.args}
		if got := c.Envelope(); got != tt.want {
			t.Errorf("%q %q:\n got %s\nwant %s", tt.name, tt.args, got, tt.want)
		}
	}
}

func TestToolParameters(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{}`, `{"type":"object"}`},
		{` { } `, `{"type":"object"}`},
		{`true`, `{"type":"object"}`},
		{``, `{"type":"object"}`},
		{`false`, `false`},
		{`{"type":"object","properties":{"a":{}}}`, `{"type":"object","properties":{"a":{}}}`},
		{`{"properties": {"type": {"type": "string"}}}`, `{"type":"object","properties":{"type":{"type":"string"}}}`},
		{`{"anyOf":[{"required":["a"]}]}`, `{"type":"object","anyOf":[{"required":["a"]}]}`},
	} {
		if got := string(ToolParameters(jsontext.Value(tt.in))); got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.in, got, tt.want)
		}
	}
}

func FuzzToolCall(f *testing.F) {
	for _, s := range []string{`{"a":1}`, ``, `{"a":`, `[1]`, `"x"`, "{\"a\":\"\xff\"}", `{"a":1e999}`} {
		f.Add("search", s)
	}
	f.Fuzz(func(t *testing.T, name, args string) {
		c := ToolCall{Name: name, Arguments: args}
		env := c.Envelope()
		if env != args && !jsontext.Value(env).IsValid() {
			t.Fatalf("envelope is not JSON: %s", env)
		}
		params := ToolParameters(jsontext.Value(args))
		if jsontext.Value(args).IsValid() && !jsontext.Value(params).IsValid() {
			t.Fatalf("parameters of valid JSON are not JSON: %s", params)
		}
		res := ToolResult(Result{}, c, []byte(args))
		if _, err := contract.Marshal(res.Metadata, contract.Compact); err != nil {
			t.Fatalf("metadata does not marshal: %v", err)
		}
	})
}
