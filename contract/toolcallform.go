package contract

import (
	"bytes"
	"iter"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// ToolCallForm says what an answer is when it is a tool call written in a form
// other than the toolcall envelope, or "" when it is not one:
//   - an API's tool-call object as its SDK defines it, which a runner wrote as
//     the output where it should have written the envelope: OpenAI's Chat
//     Completions tool call, its function or a message holding tool_calls, a
//     Responses API function_call item, Anthropic's tool_use block, Gemini's
//     functionCall part, Ollama's tool call, or a list of any of them;
//   - a model's own tool-call format, as a server that did not parse it leaves
//     it in the text, or as a model writes it where the prompt asks for the
//     envelope: <tool_call> (Hermes, Qwen), [TOOL_CALLS] (Mistral),
//     <|python_tag|> (Llama), <|tool_call|> (Granite), or a bare
//     {"name", "arguments"} or {"name", "parameters"} object.
//
// An object with an "action" member is an envelope, whatever else it holds.
// It reads at most the top two levels of a JSON answer, so it is cheap enough
// for every answer that fails.
func ToolCallForm(output []byte) string {
	s := bytes.TrimSpace(output)
	if len(s) == 0 {
		return ""
	}
	isJSON := s[0] == '{' || s[0] == '[' && !bytes.HasPrefix(s, []byte("[TOOL_CALLS]"))
	if !isJSON {
		for _, m := range toolCallMarkup {
			if bytes.Contains(s, m.mark) {
				return m.form
			}
		}
		return ""
	}
	if !bytes.Contains(s, []byte(`"name"`)) {
		return "" // every form names its tool
	}
	return toolCallForm(s, 0)
}

var toolCallMarkup = []struct {
	mark []byte
	form string
}{
	{[]byte("<tool_call>"), "the model's <tool_call> markup (Hermes, Qwen)"},
	{[]byte("[TOOL_CALLS]"), "the model's [TOOL_CALLS] markup (Mistral)"},
	{[]byte("<|python_tag|>"), "the model's <|python_tag|> markup (Llama)"},
	{[]byte("<|tool_call|>"), "the model's <|tool_call|> markup (Granite)"},
}

// toolCallForm is ToolCallForm of a JSON value, a list's items read one level
// down.
func toolCallForm(v jsontext.Value, depth int) string {
	switch v.Kind() {
	case '[':
		if depth > 0 {
			return ""
		}
		for item := range objectItems(v) {
			if form := toolCallForm(item, depth+1); form != "" {
				return "a list holding " + form
			}
		}
		return ""
	case '{':
	default:
		return ""
	}
	names, members, ok := objectOf(v)
	if !ok {
		return ""
	}
	has := func(k string) bool { _, ok := members[k]; return ok }
	str := func(k string) string { s, _ := stringOf(members[k]); return s }
	named := func(m map[string]jsontext.Value) bool { return m["name"].Kind() == '"' }
	if has("action") {
		return "" // the envelope, right or wrong
	}
	switch {
	case str("type") == "tool_use" && named(members) && has("input"):
		return "Anthropic's tool_use content block"
	case str("type") == "function_call" && named(members) && has("arguments"):
		return "an OpenAI Responses API function_call item"
	case members["function"].Kind() == '{':
		if _, fn, ok := objectOf(members["function"]); ok && named(fn) && fn["arguments"] != nil {
			if str("type") == "function" {
				return "an OpenAI Chat Completions tool call (an item of message.tool_calls)"
			}
			return `an Ollama tool call ({"function": {"name", "arguments"}})`
		}
	case members["functionCall"].Kind() == '{':
		if _, fn, ok := objectOf(members["functionCall"]); ok && named(fn) {
			return "a Gemini functionCall part"
		}
	case members["tool_calls"].Kind() == '[' && depth == 0:
		if form := toolCallForm(members["tool_calls"], 0); form != "" {
			return "a chat message with tool_calls"
		}
	case members["content"].Kind() == '[' && depth == 0:
		if form := toolCallForm(members["content"], 0); form != "" {
			return "a message whose content holds " + form[len("a list holding "):]
		}
	case named(members) && has("arguments"):
		return `a {"name", "arguments"} function call (OpenAI's function, Hermes' format)`
	case named(members) && members["parameters"].Kind() == '{' && len(names) == 2:
		return `a {"name", "parameters"} function call (Llama's format)`
	}
	return ""
}

// EncodedTwice reports whether an answer is a JSON string whose text is a
// JSON object or list: the model's JSON encoded once more, as a runner that
// encodes the answer it writes into the record's output string (json.dumps of
// a text that was JSON already) makes it, or more than once more (a string
// that holds a string that holds JSON).
func EncodedTwice(output []byte) bool {
	for {
		inner, ok := StringText(output)
		if !ok {
			return false
		}
		v := jsontext.Value(bytes.TrimSpace([]byte(inner)))
		if v.Kind() != '"' {
			return (v.Kind() == '{' || v.Kind() == '[') && v.IsValid()
		}
		output = v // each round is shorter: it ends
	}
}

// ListedAnswer reports whether an answer is a JSON list of answers, not an
// answer: every item a text, or the answer parsed (an object with an
// "action"), as a notebook that keeps [c.message.content for c in
// resp.choices], or its answers parsed in a list, writes it. A tool call's
// list and a message's content list are other forms (ToolCallForm,
// WrappedAnswer).
func ListedAnswer(output []byte) bool {
	s := bytes.TrimSpace(output)
	if len(s) < 2 || s[0] != '[' || !jsontext.Value(s).IsValid() {
		return false
	}
	d := jsontext.NewDecoder(bytes.NewReader(s), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if _, err := d.ReadToken(); err != nil {
		return false
	}
	n := 0
	for d.PeekKind() != ']' {
		item, err := d.ReadValue()
		if err != nil {
			return false
		}
		switch item.Kind() {
		case '"':
		case '{':
			if _, members, ok := objectOf(item); !ok || members["action"] == nil {
				return false
			}
		default:
			return false
		}
		n++
	}
	return n > 0
}

// Quoted reports whether an answer is one JSON string (white space around it
// aside), whatever its text: the answer in quotes, as a runner that encodes
// the text it writes as the output makes it (json.dumps of the model's text).
func Quoted(output []byte) bool {
	s := bytes.TrimSpace(output)
	return len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' && jsontext.Value(s).IsValid()
}

// BlankText reports whether an answer holds no text: nothing but white space,
// or that encoded (a JSON string of it, "\"\"", or null), as a runner that
// encodes the text it writes, or a missing text, makes it (json.dumps of ""
// or of None).
func BlankText(output []byte) bool {
	s := bytes.TrimSpace(output)
	switch {
	case len(s) == 0:
		return true
	case s[0] == '"':
		t, ok := stringOf(s)
		return ok && strings.TrimSpace(t) == "" && jsontext.Value(s).IsValid()
	}
	return string(s) == "null"
}

// StringText returns the text of an answer that is one JSON string (white
// space around it aside) holding some text, and whether it is one: an answer
// in quotes, as a runner that encodes the text it writes makes it.
func StringText(output []byte) (string, bool) {
	s := bytes.TrimSpace(output)
	if len(s) < 3 || s[0] != '"' || s[len(s)-1] != '"' || !jsontext.Value(s).IsValid() {
		return "", false
	}
	return stringOf(s)
}

// objectItems yields the items of the JSON list v up to the first that is not
// an object (or that cannot be read).
func objectItems(v jsontext.Value) iter.Seq[jsontext.Value] {
	return func(yield func(jsontext.Value) bool) {
		d := jsontext.NewDecoder(bytes.NewReader(v), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
		if _, err := d.ReadToken(); err != nil {
			return
		}
		for d.PeekKind() == '{' {
			item, err := d.ReadValue()
			if err != nil || !yield(item) {
				return
			}
		}
	}
}

// WrappedAnswer says what an answer is when it is an API's message or content
// around the model's text, as a runner of one's own writes it when it takes
// the message where it should take its text (choices[0].message for
// choices[0].message.content, a Messages reply's content list for its text),
// or "" when it is not one: an OpenAI chat message or completion choice, a
// Responses API message item or output_text part, Anthropic's text blocks or a
// message holding them, a Gemini content or text part, and a whole reply
// holding one (a chat completion, a Responses API response, a Gemini
// response), as a runner that writes the body it was sent makes it. An object with an
// "action" member is an envelope, whatever else it holds; a tool call is
// ToolCallForm's.
func WrappedAnswer(output []byte) string {
	s := bytes.TrimSpace(output)
	if len(s) == 0 || s[0] != '{' && s[0] != '[' || !bytes.Contains(s, []byte(`"text"`)) && !bytes.Contains(s, []byte(`"content"`)) {
		return ""
	}
	return wrappedAnswer(s, 0)
}

// The forms a whole reply's list holds the answer in, as wrappedAnswer names
// them.
const (
	choiceForm        = "an OpenAI chat completion choice"
	responsesItemForm = "an OpenAI Responses API message item"
	candidateForm     = "a Gemini candidate"
	geminiContentForm = "a Gemini content"
)

func wrappedAnswer(v jsontext.Value, depth int) string {
	if v.Kind() == '[' {
		if depth > 0 {
			return ""
		}
		for item := range objectItems(v) {
			// the first item says what the list is
			if form := wrappedAnswer(item, depth+1); form != "" {
				return "a list holding " + form
			}
			break
		}
		return ""
	}
	_, members, ok := objectOf(v)
	if !ok || members["action"] != nil || members["tool_calls"] != nil {
		return ""
	}
	str := func(k string) string { s, _ := stringOf(members[k]); return s }
	content := members["content"].Kind()
	// a whole reply: named by the item its list holds where the answer is
	// (its first choice or candidate; a Responses output may start with
	// reasoning), which must be that item's kind, not any wrapped text (a
	// tool's arguments may hold a list "choices" of {"text"} parts)
	holds := func(list, item string) bool {
		if members[list].Kind() != '[' {
			return false
		}
		for v := range objectItems(members[list]) {
			if strings.HasPrefix(wrappedAnswer(v, depth+1), item) {
				return true
			}
			if list != "output" {
				break
			}
		}
		return false
	}
	switch {
	case depth == 0 && holds("choices", choiceForm):
		return "an OpenAI chat completion (the whole reply)"
	case depth == 0 && str("object") == "response" && holds("output", responsesItemForm):
		return "an OpenAI Responses API response (the whole reply)"
	case depth == 0 && holds("candidates", candidateForm):
		return "a Gemini response (the whole reply)"
	case content == '{' && str("role") == "" && members["finishReason"] != nil && strings.HasPrefix(wrappedAnswer(members["content"], depth+1), geminiContentForm):
		// a Gemini candidate: {"content": {"role", "parts"}, "finishReason"}
		return candidateForm
	case members["message"].Kind() == '{' && members["finish_reason"] != nil:
		if wrappedAnswer(members["message"], depth+1) != "" {
			return choiceForm + " (choices[0])"
		}
	case str("type") == "message" && content == '[':
		if str("role") == "assistant" && members["id"] != nil && members["status"] != nil {
			return responsesItemForm
		}
		return "an Anthropic message (its content list)"
	case str("role") != "" && (content == '"' || content == '['):
		return "a chat message ({\"role\", \"content\"})"
	case str("type") == "text" && members["text"].Kind() == '"':
		return "Anthropic's text content block"
	case str("type") == "output_text" && members["text"].Kind() == '"':
		return "an OpenAI Responses API output_text part"
	case members["parts"].Kind() == '[' && str("role") != "":
		return geminiContentForm + " ({\"role\", \"parts\"})"
	case len(members) == 1 && members["text"].Kind() == '"':
		return "a Gemini text part ({\"text\"})"
	}
	return ""
}
