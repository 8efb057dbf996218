// Package anthropic speaks the Anthropic Messages API for the fbeval runners: the
// request body built from an fbeval request and the answer read back into a
// runner.Result. fbeval-anthropic sends them; fbeval-batch writes and reads them in
// Message Batches files.
//
//	body := anthropic.Body(&req, anthropic.Options{Model: "claude-sonnet-4-5", MaxTokens: 1024})
//	// POST to /messages, then:
//	res, err := anthropic.ParseMessage(answer)
package anthropic

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/runners/internal/runner"
)

// Version is the anthropic-version header the runner sends.
const Version = "2023-06-01"

// DefaultMaxTokens is max_tokens when none is given: the API requires one.
const DefaultMaxTokens = 1024

// Options shape the request body.
type Options struct {
	Model       string
	MaxTokens   int // 0: DefaultMaxTokens
	Temperature *float64
	Provider    string // written to records; "" is "anthropic"
}

// turn is one message of a Messages request: a role and its text, more than one
// text when consecutive messages of the role were joined.
type turn struct {
	role  string
	texts []string
}

// object is the turn as the API takes it: its content a string, or a list of
// text blocks when it joins several messages.
func (t turn) object() contract.Object {
	if len(t.texts) == 1 {
		return contract.Object{runner.Field("role", t.role), runner.Field("content", t.texts[0])}
	}
	blocks := make([]contract.Object, len(t.texts))
	for i, text := range t.texts {
		blocks[i] = contract.Object{runner.Field("type", "text"), runner.Field("text", text)}
	}
	return contract.Object{runner.Field("role", t.role), runner.Field("content", blocks)}
}

// Body is the Messages request body for req: model, max_tokens, system (every system
// message of the request, joined by a blank line: the API takes system text apart
// from the turns), messages (the user and assistant turns; an empty assistant turn
// before the last is left out, see below), temperature, then the
// request's tools (with tool_choice auto) and its response_format as
// output_config.format ({"type": "json_schema", "schema"}): a request exported
// with --decoding native_schema asks for structured output, and gets it.
func Body(req *contract.Request, o Options) contract.Object {
	var system []string
	var turns []turn
	for i, m := range req.Messages {
		switch {
		case m.Role == "system" || m.Role == "developer":
			system = append(system, m.Content)
		case m.Role == "assistant" && strings.TrimSpace(m.Content) == "" && i < len(req.Messages)-1:
			// an empty answer a repair round sends back: the API refuses an
			// assistant turn of no text but the last ("all messages must have
			// non-empty content except for the optional final assistant
			// message"), so it is left out, and the user turns around it are
			// one turn, as the API joins consecutive turns of one role
		case len(turns) > 0 && turns[len(turns)-1].role == m.Role:
			turns[len(turns)-1].texts = append(turns[len(turns)-1].texts, m.Content)
		default:
			turns = append(turns, turn{role: m.Role, texts: []string{m.Content}})
		}
	}
	maxTokens, temperature := runner.Sampling(req, o.MaxTokens, o.Temperature)
	if maxTokens <= 0 {
		maxTokens = DefaultMaxTokens
	}
	body := contract.Object{runner.Field("model", o.Model), runner.Field("max_tokens", maxTokens)}
	if len(system) > 0 {
		body = append(body, runner.Field("system", strings.Join(system, "\n\n")))
	}
	messages := make([]contract.Object, len(turns))
	for i, t := range turns {
		messages[i] = t.object()
	}
	body = append(body, runner.Field("messages", messages))
	if temperature != nil {
		body = append(body, runner.Field("temperature", *temperature))
	}
	if len(req.Tools) > 0 {
		tools := make([]contract.Object, len(req.Tools))
		for i, t := range req.Tools {
			tools[i] = contract.Object{
				runner.Field("name", t.Name),
				runner.Field("description", t.Description),
				runner.Field("input_schema", runner.ToolParameters(t.Parameters)),
				runner.Field("strict", t.Strict),
			}
		}
		body = append(body, runner.Field("tools", tools), runner.Field("tool_choice", contract.Object{runner.Field("type", "auto")}))
	}
	if rf := req.ResponseFormat; rf != nil {
		body = append(body, runner.Field("output_config", contract.Object{runner.Field("format", contract.Object{
			runner.Field("type", "json_schema"),
			runner.Field("schema", contract.Raw(rf.JSONSchema.Schema)),
		})}))
	}
	return body
}

type message struct {
	ID         string          `json:"id"`
	Type       string          `json:"type"`
	Model      string          `json:"model"`
	Content    json.RawMessage `json:"content"`
	StopReason *string         `json:"stop_reason"`
	// StopDetails says why a refusal stopped the answer (its category and
	// explanation): kept in the record's metadata
	StopDetails jsontext.Value      `json:"stop_details"`
	Usage       runner.Usage[usage] `json:"usage"`
}

type usage struct {
	InputTokens              json.RawMessage `json:"input_tokens"`
	OutputTokens             json.RawMessage `json:"output_tokens"`
	CacheCreationInputTokens json.RawMessage `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     json.RawMessage `json:"cache_read_input_tokens"`
}

type block struct {
	Type     string          `json:"type"`
	Text     string          `json:"text"`
	Thinking json.RawMessage `json:"thinking"` // text, read where it is
	Name     string          `json:"name"`
	Input    json.RawMessage `json:"input"`
}

// ParseMessage reads a Messages API answer. A tool_use block wins over text (a model
// often says "I'll search for that." first): the output is the envelope of the first
// call (runner.ToolCall), and the content blocks are kept in metadata as
// provider_output. Otherwise the output is the text blocks joined. Input tokens count
// cache writes and reads too (the API reports them apart); stop_reason, "refusal"
// included, is the finish reason.
func ParseMessage(body []byte) (runner.Result, error) {
	var m message
	if err := runner.DecodeBody(body, &m, "a message"); err != nil {
		return runner.Result{}, err
	}
	if m.Type == "error" {
		// an error answered with 200 (a gateway's, a proxy's): the error
		// it is, as its status would have said
		return runner.Result{}, errorIn200(body)
	}
	if m.Type != "message" && m.Type != "" {
		return runner.Result{}, runner.BadResponse("the answer is a %q, not a message", m.Type)
	}
	if m.Content == nil && m.StopReason == nil {
		return runner.Result{}, runner.BadResponse("the answer has no content")
	}
	if string(m.Content) == "null" {
		// the API's content is a list, empty where the model said nothing
		return runner.Result{}, runner.BadResponse("the message's content is null, not a list of blocks")
	}
	if m.StopReason != nil && *m.StopReason == "pause_turn" {
		// a turn paused mid-way (a long-running server tool): its text is
		// no answer yet
		return runner.Result{}, &runner.CallError{Code: "pause_turn", Message: "the model paused its turn (stop_reason pause_turn): no answer to score"}
	}
	res := runner.Result{Model: m.Model, RawResponseID: m.ID}
	if m.StopReason != nil {
		res.FinishReason = *m.StopReason
	}
	if d := slices.Clone(m.StopDetails); len(d) > 0 && d.Kind() == '{' && d.Compact() == nil {
		res.Metadata = append(res.Metadata, runner.Field("stop_details", contract.Raw(d)))
	}
	m.Usage.Keep(&res)
	if u := m.Usage.V; u != nil {
		var counts runner.Counts
		ins := []*int64{counts.Of("usage.input_tokens", u.InputTokens), counts.Of("usage.cache_creation_input_tokens", u.CacheCreationInputTokens), counts.Of("usage.cache_read_input_tokens", u.CacheReadInputTokens)}
		inputBroken := len(counts.Note) > 0 // a sum with a part left out would count too few
		res.OutputTokens = counts.Of("usage.output_tokens", u.OutputTokens)
		counts.Keep(&res)
		if !inputBroken && (ins[0] != nil || ins[1] != nil || ins[2] != nil) {
			var n int64
			for _, p := range ins {
				if p != nil {
					n += *p
				}
			}
			res.InputTokens = &n
		}
	}
	var blocks []block
	if len(m.Content) > 0 && string(m.Content) != "null" {
		if err := runner.JSON.Unmarshal(m.Content, &blocks); err != nil {
			return runner.Result{}, runner.BadResponse("the message content is not a list of blocks: %s", runner.DecodeErrorText(m.Content, "the content", &blocks, err))
		}
	}
	first := -1
	for i, b := range blocks {
		if b.Type == "tool_use" {
			res.Calls++
			if first < 0 {
				first = i
			}
		}
	}
	if first >= 0 {
		if blocks[first].Input == nil {
			// the API's tool_use always has its input ({} for none)
			return runner.Result{}, runner.BadResponse("the tool_use block of %q has no input", blocks[first].Name)
		}
		return runner.ToolResult(res, runner.ToolCall{Name: blocks[first].Name, Arguments: string(blocks[first].Input)}, m.Content), nil
	}
	var text, thinking strings.Builder
	for _, b := range blocks {
		switch b.Type {
		case "text":
			text.WriteString(b.Text)
		case "thinking":
			var t string
			if len(b.Thinking) > 0 && b.Thinking[0] == '"' && runner.JSON.Unmarshal(b.Thinking, &t) == nil {
				thinking.WriteString(t)
			}
		}
	}
	res.Output = runner.String(text.String())
	if strings.TrimSpace(text.String()) == "" && strings.TrimSpace(thinking.String()) != "" {
		// the model's text went to its thinking (its tokens spent there):
		// kept, so the record shows where
		res.Metadata = append(res.Metadata, contract.Member{Key: runner.ReasoningKey, Value: thinking.String()})
	}
	return res, nil
}

// errorIn200 is the error of an error body answered with status 200: the
// status the API answers its type with, else a bad_response with its text.
func errorIn200(body []byte) error {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	_ = runner.JSON.Unmarshal(body, &e)
	var kind struct {
		Type string `json:"type"`
	}
	_ = runner.JSON.Unmarshal(e.Error, &kind)
	if st := ErrorStatus(kind.Type); st != 0 {
		ce := runner.StatusError(st, body)
		ce.Message += " (in a 200 answer)"
		return ce
	}
	if ce := runner.ErrorInAnswer(e.Error); ce != nil {
		return ce
	}
	return runner.BadResponse("the answer is an error, with nothing said of it")
}

// ErrorStatus is the HTTP status the Messages API answers an error type with (0 for
// a type it does not list), so that a batch result's error gets a live call's code.
func ErrorStatus(kind string) int {
	return map[string]int{
		"invalid_request_error": 400,
		"authentication_error":  401,
		"billing_error":         402,
		"permission_error":      403,
		"not_found_error":       404,
		"request_too_large":     413,
		"rate_limit_error":      429,
		"api_error":             500,
		"timeout_error":         504,
		"overloaded_error":      529,
	}[kind]
}

// MessagesPath is the path of the Messages API under base: /messages when base
// ends in /v1 (the runner's default, https://api.anthropic.com/v1), and
// /v1/messages when it does not, as the Anthropic SDK's base_url and
// ANTHROPIC_BASE_URL have it (https://api.anthropic.com).
func MessagesPath(base string) string {
	if strings.HasSuffix(strings.TrimRight(base, "/"), "/v1") {
		return "/messages"
	}
	return "/v1/messages"
}

// Client asks the Messages API; it is a runner.Provider.
type Client struct {
	HTTP *runner.HTTP
	Opts Options
}

// Do sends one request and reads its answer.
func (c *Client) Do(ctx context.Context, req *contract.Request) (runner.Result, error) {
	body, err := contract.Marshal(Body(req, c.Opts), contract.Compact)
	if err != nil {
		return runner.Result{}, &runner.CallError{Code: "bad_request", Message: err.Error()}
	}
	data, err := c.HTTP.PostJSON(ctx, MessagesPath(c.HTTP.BaseURL), body)
	if err != nil {
		_, temperature := runner.Sampling(req, c.Opts.MaxTokens, c.Opts.Temperature)
		return runner.Result{}, runner.TemperatureRefused(err, "fbeval-anthropic", temperature)
	}
	res, err := ParseMessage(data)
	if err != nil {
		return res, err
	}
	res.Provider = c.Opts.Provider
	if res.Provider == "" {
		res.Provider = "anthropic"
	}
	if res.Model == "" {
		res.Model = c.Opts.Model
	}
	return res, nil
}
