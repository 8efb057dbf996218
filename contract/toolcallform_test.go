package contract

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestToolCallForm: the tool-call objects of the OpenAI and Anthropic APIs, taken
// out of the runners' recorded replies (shaped as the official SDKs define them),
// Gemini's and Ollama's as their documentation shows them, and the markup of
// models whose server did not parse their tool calls, are named; the envelope,
// right or wrong, and other answers are not.
func TestToolCallForm(t *testing.T) {
	part := func(file string, path ...any) string { return recordedPart(t, file, path...) }
	const (
		chat      = "../runners/internal/openai/testdata/chat_tool_call_null_content.json"
		ollama    = "../runners/internal/openai/testdata/chat_tool_call_empty_content.json"
		objArgs   = "../runners/internal/openai/testdata/chat_tool_call_object_arguments.json"
		responses = "../runners/internal/openai/testdata/responses_function_call.json"
		messages  = "../runners/internal/anthropic/testdata/message_text_tool_use.json"
	)
	for _, tc := range []struct{ name, output, want string }{
		{"chat message", part(chat, "choices", 0, "message"), "a chat message with tool_calls"},
		{"chat tool_calls", part(chat, "choices", 0, "message", "tool_calls"), "a list holding an OpenAI Chat Completions tool call"},
		{"chat tool call", part(chat, "choices", 0, "message", "tool_calls", 0), "an OpenAI Chat Completions tool call"},
		{"chat function", part(chat, "choices", 0, "message", "tool_calls", 0, "function"), `a {"name", "arguments"} function call`},
		{"ollama's openai tool call", part(ollama, "choices", 0, "message", "tool_calls", 0), "an OpenAI Chat Completions tool call"},
		{"llama.cpp object arguments", part(objArgs, "choices", 0, "message", "tool_calls", 0, "function"), `a {"name", "arguments"} function call`},
		{"responses output", part(responses, "output"), "a list holding an OpenAI Responses API function_call item"},
		{"responses item", part(responses, "output", 1), "an OpenAI Responses API function_call item"},
		{"anthropic message", part(messages), "a message whose content holds Anthropic's tool_use content block"},
		{"anthropic content", part(messages, "content"), "a list holding Anthropic's tool_use content block"},
		{"anthropic block", part(messages, "content", 1), "Anthropic's tool_use content block"},
		// ai.google.dev, "Function calling": a Part of a candidate's content
		{"gemini part", `{"functionCall":{"name":"search_flights","args":{"origin":"Osaka"}}}`, "a Gemini functionCall part"},
		{"gemini parts", `[{"functionCall":{"id":"c1","name":"search_flights","args":{}}}]`, "a list holding a Gemini functionCall part"},
		// ollama/ollama docs/api.md, "Chat request (with tools)": message.tool_calls
		{"ollama tool call", `{"function":{"name":"search_flights","arguments":{"origin":"Osaka"}}}`, "an Ollama tool call"},
		{"ollama message", `{"role":"assistant","content":"","tool_calls":[{"function":{"name":"search_flights","arguments":{}}}]}`, "a chat message with tool_calls"},
		// the models' own formats, as servers without their tool-call parser
		// return them (vLLM's hermes, mistral, llama3_json and granite parsers
		// read these)
		{"hermes", "<tool_call>\n{\"name\": \"search_flights\", \"arguments\": {\"origin\": \"Osaka\"}}\n</tool_call>", "the model's <tool_call> markup"},
		{"hermes after text", "I will search.\n<tool_call>\n{\"name\": \"search_flights\", \"arguments\": {}}\n</tool_call>", "the model's <tool_call> markup"},
		{"mistral", `[TOOL_CALLS][{"name": "search_flights", "arguments": {"origin": "Osaka"}}]`, "the model's [TOOL_CALLS] markup"},
		{"llama python tag", `<|python_tag|>{"name": "search_flights", "parameters": {"origin": "Osaka"}}`, "the model's <|python_tag|> markup"},
		{"granite", `<|tool_call|>[{"name": "search_flights", "arguments": {}}]`, "the model's <|tool_call|> markup"},
		{"llama json", `{"name": "search_flights", "parameters": {"origin": "Osaka"}}`, `a {"name", "parameters"} function call`},
		{"hermes json", ` {"name": "search_flights", "arguments": {"origin": "Osaka"}} `, `a {"name", "arguments"} function call`},
		// not tool calls in another form
		{"envelope", `{"action":"call_tool","tool":"search_flights","arguments":{"name":"x"},"missingFields":[],"reason":""}`, ""},
		{"envelope with a name", `{"action":"call_tool","name":"search_flights","arguments":{}}`, ""},
		{"bare arguments with a name", `{"name":"Ada","arguments":1}`, `a {"name", "arguments"} function call`},
		{"bare arguments", `{"name":"Ada Lovelace","guests":2}`, ""},
		{"tool definition", `{"type":"function","function":{"name":"search_flights","description":"d","parameters":{}}}`, ""},
		{"tool definition without type", `{"name":"search_flights","description":"d","parameters":{}}`, ""},
		{"name not a string", `{"name":1,"arguments":{}}`, ""},
		{"text", "I cannot help with that.", ""},
		{"empty", "", ""},
		{"broken", `{"name":"search_flights","arguments":`, ""},
		{"list of numbers", `[1, 2, {"name":"x","arguments":{}}]`, ""},
		{"nested too deep", `[[{"name":"x","arguments":{}}]]`, ""},
	} {
		got := ToolCallForm([]byte(tc.output))
		if tc.want == "" && got != "" || !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: %q, want %q...", tc.name, got, tc.want)
		}
	}
}

// TestWrappedAnswer: the messages and content around a model's text in the
// OpenAI and Anthropic APIs, taken out of the runners' recorded replies (as the
// official SDKs define them), and Gemini's as its documentation shows them, are
// named; an answer, an envelope and a tool call (ToolCallForm's) are not.
func TestWrappedAnswer(t *testing.T) {
	part := func(file string, path ...any) string { return recordedPart(t, file, path...) }
	const (
		chat      = "../runners/internal/openai/testdata/chat_text.json"
		responses = "../runners/internal/openai/testdata/responses_text.json"
		messages  = "../runners/internal/anthropic/testdata/message_text.json"
		toolCall  = "../runners/internal/openai/testdata/chat_tool_call_null_content.json"
		reasoning = "../runners/internal/openai/testdata/responses_reasoning.json"
	)
	for _, tc := range []struct{ name, output, want string }{
		// the whole reply, as a runner that writes the body it was sent makes it
		{"chat completion", part(chat), "an OpenAI chat completion (the whole reply)"},
		{"responses response", part(responses), "an OpenAI Responses API response (the whole reply)"},
		{"responses with reasoning", part(reasoning), "an OpenAI Responses API response (the whole reply)"},
		{"gemini response", `{"candidates": [{"content": {"role": "model", "parts": [{"text": "{\"action\": \"refuse\"}"}]}, "finishReason": "STOP", "index": 0}], "usageMetadata": {"promptTokenCount": 5}}`, "a Gemini response (the whole reply)"},
		{"gemini candidate", `{"content": {"role": "model", "parts": [{"text": "x"}]}, "finishReason": "STOP"}`, "a Gemini candidate"},
		// the whole reply, as a runner that writes the body it was sent makes it
		{"chat completion", part(chat), "an OpenAI chat completion (the whole reply)"},
		{"responses response", part(responses), "an OpenAI Responses API response (the whole reply)"},
		{"responses with reasoning", part(reasoning), "an OpenAI Responses API response (the whole reply)"},
		{"gemini response", `{"candidates": [{"content": {"role": "model", "parts": [{"text": "{\"action\": \"refuse\"}"}]}, "finishReason": "STOP", "index": 0}], "usageMetadata": {"promptTokenCount": 5}}`, "a Gemini response (the whole reply)"},
		{"gemini candidate", `{"content": {"role": "model", "parts": [{"text": "x"}]}, "finishReason": "STOP"}`, "a Gemini candidate"},
		{"chat message", part(chat, "choices", 0, "message"), `a chat message ({"role", "content"})`},
		{"chat choice", part(chat, "choices", 0), "an OpenAI chat completion choice"},
		{"chat choices", part(chat, "choices"), "a list holding an OpenAI chat completion choice"},
		{"responses output", part(responses, "output"), "a list holding an OpenAI Responses API message item"},
		{"responses item", part(responses, "output", 0), "an OpenAI Responses API message item"},
		{"responses content", part(responses, "output", 0, "content"), "a list holding an OpenAI Responses API output_text part"},
		{"anthropic message", part(messages), "an Anthropic message"},
		{"anthropic content", part(messages, "content"), "a list holding Anthropic's text content block"},
		{"anthropic block", part(messages, "content", 0), "Anthropic's text content block"},
		// ai.google.dev, "Generating content": a candidate's content and its parts
		{"gemini content", `{"role": "model", "parts": [{"text": "{\"action\": \"refuse\"}"}]}`, `a Gemini content`},
		{"gemini part", `{"text": "{\"action\": \"refuse\"}"}`, `a Gemini text part`},
		// ollama/ollama docs/api.md, "Chat request": the reply's message
		{"ollama message", `{"role": "assistant", "content": "{\"action\": \"refuse\"}"}`, `a chat message`},
		// not an answer wrapped
		{"tool call message", part(toolCall, "choices", 0, "message"), ""},
		{"tool call completion", part(toolCall), ""},
		{"arguments with choices", `{"choices": ["a", "b"], "content": "x"}`, ""},
		// a tool's arguments shaped like parts of a reply: no whole reply
		{"poll arguments", `{"question": "Lunch?", "choices": [{"text": "pizza"}, {"text": "soup"}]}`, ""},
		{"candidates of text", `{"candidates": [{"text": "Ann"}], "round": 2}`, ""},
		{"content of text", `{"content": {"text": "hi"}, "to": "ann"}`, ""},
		{"output list of messages", `{"object": "response", "output": [{"type": "message", "content": [{"type": "text", "text": "x"}]}]}`, ""},
		{"envelope", `{"action":"refuse","tool":null,"arguments":{"text":"x"},"missingFields":[],"reason":"content"}`, ""},
		{"arguments with text", `{"text": "hello", "lang": "en"}`, ""},
		{"text", "I cannot help.", ""},
		{"broken", `{"role": "assistant", "content": `, ""},
	} {
		got := WrappedAnswer([]byte(tc.output))
		if tc.want == "" && got != "" || !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: %q, want %q...", tc.name, got, tc.want)
		}
	}
}

// FuzzToolCallForm: any answer is named or not, without a panic, and a form
// named is one of the known ones; an answer encoded twice holds some text.
func FuzzToolCallForm(f *testing.F) {
	for _, s := range []string{`{"type":"tool_use","name":"a","input":{}}`, `[{"function":{"name":"a","arguments":"{}"}}]`, `<tool_call>{}`, `{"content":[{"type":"tool_use","name":"a","input":{}}]}`, `{`, ``} {
		f.Add(s)
	}
	f.Add(`"{\"a\": 1}"`)
	f.Fuzz(func(t *testing.T, s string) {
		if text, ok := StringText([]byte(s)); ok && EncodedTwice([]byte(s)) && text == "" {
			t.Fatalf("EncodedTwice(%q) of an empty text", s)
		}
		if EncodedTwice([]byte(s)) && !Quoted([]byte(s)) {
			t.Fatalf("EncodedTwice(%q) of an answer not in quotes", s)
		}
		WrappedAnswer([]byte(s))
		ListedAnswer([]byte(s))
		TableForm([]byte(s))
		BlankText([]byte(s))
		got := ToolCallForm([]byte(s))
		if got != "" && !strings.HasPrefix(got, "a") && !strings.HasPrefix(got, "the model's") && !strings.HasPrefix(got, "Anthropic's") {
			t.Fatalf("ToolCallForm(%q) = %q", s, got)
		}
	})
}

func TestEncodedTwice(t *testing.T) {
	for _, tt := range []struct {
		output string
		want   bool
	}{
		{`"{\"action\":\"refuse\",\"tool\":null,\"arguments\":{},\"missingFields\":[],\"reason\":\"no\"}"`, true},
		{" \"[1, 2]\"\n", true},
		{`"  {\"a\": 1}  "`, true},
		{`{"action":"refuse"}`, false},
		{`"{\"action\": "`, false}, // not a JSON string
		{`"{\"action\":"`, false},  // a string whose text is not JSON
		{`"I cannot help."`, false},
		{`"\"quoted\""`, false},
		{`""`, false},
		{``, false},
		// encoded three and four times (jq's tojson|tojson of a text that was JSON)
		{`"\"{\\\"a\\\": 1}\""`, true},
		{`"\"\\\"[1]\\\"\""`, true},
		{`"\"\\\"text\\\"\""`, false},
	} {
		if got := EncodedTwice([]byte(tt.output)); got != tt.want {
			t.Errorf("EncodedTwice(%s) = %v, want %v", tt.output, got, tt.want)
		}
	}
}

func TestBlankText(t *testing.T) {
	for _, tt := range []struct {
		output string
		want   bool
	}{
		{``, true},
		{" \n\t", true},
		{`""`, true},   // json.dumps("")
		{`" "`, true},  // json.dumps(" ")
		{`"\n"`, true}, // json.dumps("\n")
		{`null`, true}, // json.dumps(None)
		{` null` + "\n", true},
		{`"null"`, false},
		{`nul`, false},
		{`null null`, false},
		{`"x"`, false},
		{`"`, false},
		{`" `, false},
		{`{}`, false},
		{`0`, false},
	} {
		if got := BlankText([]byte(tt.output)); got != tt.want {
			t.Errorf("BlankText(%q) = %v, want %v", tt.output, got, tt.want)
		}
	}
}

// recordedPart returns the member at path (keys and list indexes) of a
// recorded reply, as JSON.
func recordedPart(t *testing.T, file string, path ...any) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	for _, p := range path {
		switch p := p.(type) {
		case string:
			v = v.(map[string]any)[p]
		case int:
			v = v.([]any)[p]
		}
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func TestQuoted(t *testing.T) {
	for _, tt := range []struct {
		output string
		want   bool
	}{
		{`"Sure: {\"action\": \"call_tool\"}"`, true},
		{` "text" ` + "\n", true},
		{`""`, true},
		{`"{\"action\":\"call_tool\",\"argu"`, true},
		{`"a" "b"`, false},
		{`"unclosed`, false},
		{`{"action":"call_tool"}`, false},
		{`"`, false},
		{`"bad \x escape"`, false},
		{``, false},
	} {
		if got := Quoted([]byte(tt.output)); got != tt.want {
			t.Errorf("Quoted(%s) = %v, want %v", tt.output, got, tt.want)
		}
	}
}

func TestListedAnswer(t *testing.T) {
	for _, tt := range []struct {
		output string
		want   bool
	}{
		{`["{\"action\":\"call_tool\"}"]`, true},
		{`["Sure: {\"action\"", "another choice"]`, true},
		{`[{"action":"refuse","arguments":{}}]`, true},
		{` [ "x" ] `, true},
		{`[]`, false},
		{`[1, 2]`, false},
		{`[{"type":"text","text":"x"}]`, false},
		{`[{"name":"f","arguments":"{}"}]`, false},
		{`["a", 1]`, false},
		{`{"action":"call_tool"}`, false},
		{`["unclosed"`, false},
	} {
		if got := ListedAnswer([]byte(tt.output)); got != tt.want {
			t.Errorf("ListedAnswer(%s) = %v, want %v", tt.output, got, tt.want)
		}
	}
}
