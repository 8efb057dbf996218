// Package openai speaks the OpenAI-compatible wire formats for the fbeval runners:
// request bodies of the Chat Completions and Responses APIs built from an fbeval
// request, and their answers read back into a runner.Result. fbeval-openai sends
// them; fbeval-batch writes and reads them in Batch API files.
//
//	body, _ := openai.ChatBody(&req, openai.Options{Model: "gpt-4o-mini"})
//	// POST body to /chat/completions, then:
//	res, err := openai.ParseChat(answer)
package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/runners/internal/runner"
)

// Options shape the request bodies.
type Options struct {
	Model     string
	API       string // "chat" (default) or "responses"
	MaxTokens int    // 0: left to the provider
	// MaxCompletionTokens is sent as Chat Completions' max_completion_tokens, for
	// models that refuse max_tokens (the Responses API has max_output_tokens only).
	MaxCompletionTokens int
	Temperature         *float64
	NoSeed              bool   // leave the request's seed out (Chat Completions only)
	Provider            string // written to records; "" is "openai-compatible"
}

// sampling returns the token limit (sent as max_tokens, or max_output_tokens)
// and temperature of req (runner.Sampling); --max-completion-tokens stands
// for a token limit too, so with it the request's is not sent as max_tokens.
func (o *Options) sampling(req *contract.Request) (maxTokens int, temperature *float64) {
	maxTokens, temperature = runner.Sampling(req, o.MaxTokens, o.Temperature)
	if o.MaxCompletionTokens > 0 {
		maxTokens = o.MaxTokens
	}
	return maxTokens, temperature
}

// maxTokensRefused names the flag for a model that refuses max_tokens (OpenAI's
// reasoning models: "Use 'max_completion_tokens' instead"), which a study's
// max_tokens or --max-tokens sent.
func maxTokensRefused(err error) error {
	var ce *runner.CallError
	if errors.As(err, &ce) && ce.Code == "http_400" && strings.Contains(ce.Message, "'max_completion_tokens'") {
		ce.Message += " (give fbeval-openai --max-completion-tokens N, which sends the limit as max_completion_tokens)"
	}
	return err
}

// Path is the endpoint of the API, relative to the base URL.
func (o *Options) Path() string {
	if o.API == "responses" {
		return "/responses"
	}
	return "/chat/completions"
}

func (o *Options) provider() string {
	if o.Provider != "" {
		return o.Provider
	}
	return "openai-compatible"
}

func messages(msgs []contract.Message) []contract.Object {
	out := make([]contract.Object, len(msgs))
	for i, m := range msgs {
		out[i] = contract.Object{runner.Field("role", m.Role), runner.Field("content", m.Content)}
	}
	return out
}

// ChatBody is the Chat Completions request body for req: model, messages, then
// max_tokens (or max_completion_tokens), temperature, seed, response_format, and the
// request's tools with tool_choice "auto", where given.
func ChatBody(req *contract.Request, o Options) contract.Object {
	body := contract.Object{runner.Field("model", o.Model), runner.Field("messages", messages(req.Messages))}
	maxTokens, temperature := o.sampling(req)
	if maxTokens > 0 {
		body = append(body, runner.Field("max_tokens", maxTokens))
	}
	if o.MaxCompletionTokens > 0 {
		body = append(body, runner.Field("max_completion_tokens", o.MaxCompletionTokens))
	}
	if temperature != nil {
		body = append(body, runner.Field("temperature", *temperature))
	}
	if !o.NoSeed && req.Seed != 0 {
		body = append(body, runner.Field("seed", req.Seed))
	}
	if rf := req.ResponseFormat; rf != nil {
		body = append(body, runner.Field("response_format", contract.Object{
			runner.Field("type", rf.Type),
			runner.Field("json_schema", contract.Object{
				runner.Field("name", rf.JSONSchema.Name),
				runner.Field("schema", contract.Raw(rf.JSONSchema.Schema)),
				runner.Field("strict", rf.JSONSchema.Strict),
			}),
		}))
	}
	if len(req.Tools) > 0 {
		tools := make([]contract.Object, len(req.Tools))
		for i, t := range req.Tools {
			tools[i] = contract.Object{
				runner.Field("type", "function"),
				runner.Field("function", contract.Object{
					runner.Field("name", t.Name),
					runner.Field("description", t.Description),
					runner.Field("parameters", runner.ToolParameters(t.Parameters)),
					runner.Field("strict", t.Strict),
				}),
			}
		}
		body = append(body, runner.Field("tools", tools), runner.Field("tool_choice", "auto"))
	}
	return body
}

// ResponsesBody is the Responses API request body for req: the system messages
// joined as instructions, the other turns as input, then max_output_tokens,
// temperature, text.format, and the request's tools (function tools) with
// tool_choice "auto", where given.
func ResponsesBody(req *contract.Request, o Options) contract.Object {
	var system []string
	var turns []contract.Message
	for _, m := range req.Messages {
		if m.Role == "system" || m.Role == "developer" {
			system = append(system, m.Content)
		} else {
			turns = append(turns, m)
		}
	}
	body := contract.Object{runner.Field("model", o.Model)}
	if len(system) > 0 {
		body = append(body, runner.Field("instructions", strings.Join(system, "\n\n")))
	}
	body = append(body, runner.Field("input", messages(turns)))
	maxTokens, temperature := o.sampling(req)
	if n := max(maxTokens, o.MaxCompletionTokens); n > 0 {
		body = append(body, runner.Field("max_output_tokens", n))
	}
	if temperature != nil {
		body = append(body, runner.Field("temperature", *temperature))
	}
	if rf := req.ResponseFormat; rf != nil {
		body = append(body, runner.Field("text", contract.Object{runner.Field("format", contract.Object{
			runner.Field("type", rf.Type),
			runner.Field("name", rf.JSONSchema.Name),
			runner.Field("schema", contract.Raw(rf.JSONSchema.Schema)),
			runner.Field("strict", rf.JSONSchema.Strict),
		})}))
	}
	if len(req.Tools) > 0 {
		tools := make([]contract.Object, len(req.Tools))
		for i, t := range req.Tools {
			tools[i] = contract.Object{
				runner.Field("type", "function"),
				runner.Field("name", t.Name),
				runner.Field("description", t.Description),
				runner.Field("parameters", runner.ToolParameters(t.Parameters)),
				runner.Field("strict", t.Strict),
			}
		}
		body = append(body, runner.Field("tools", tools), runner.Field("tool_choice", "auto"))
	}
	return body
}

// Body is the request body of the chosen API, as JSON.
func Body(req *contract.Request, o Options) ([]byte, error) {
	if o.API == "responses" {
		return contract.Marshal(ResponsesBody(req, o), contract.Compact)
	}
	return contract.Marshal(ChatBody(req, o), contract.Compact)
}

type chatCompletion struct {
	ID      string                  `json:"id"`
	Model   string                  `json:"model"`
	Choices []chatChoice            `json:"choices"`
	Error   json.RawMessage         `json:"error"` // OpenRouter: an error in a 200 answer
	Usage   runner.Usage[chatUsage] `json:"usage"`
}

type chatUsage struct {
	PromptTokens     json.RawMessage `json:"prompt_tokens"`
	CompletionTokens json.RawMessage `json:"completion_tokens"`
	TotalTokens      json.RawMessage `json:"total_tokens"`
}

type chatChoice struct {
	Index        *int            `json:"index"`
	Message      json.RawMessage `json:"message"`
	FinishReason *string         `json:"finish_reason"`
	Error        json.RawMessage `json:"error"` // OpenRouter: a choice that ended in an error
	// Azure OpenAI: what its content filter found in the answer, by
	// category, kept where it withheld it
	ContentFilterResults jsontext.Value `json:"content_filter_results"`
}

// firstChoice is the choice of index 0 (the one asked for), or the first
// listed when none says its index.
func (c *chatCompletion) firstChoice() *chatChoice {
	for i := range c.Choices {
		if ix := c.Choices[i].Index; ix != nil && *ix == 0 {
			return &c.Choices[i]
		}
	}
	return &c.Choices[0]
}

// interrupted are the finish reasons of an answer the server ended, not the
// model: vLLM's "abort" (the request aborted) and "error" (an internal error
// of the request), Mistral's "error", DeepSeek's
// "insufficient_system_resource". The text beside them is cut short by the
// server, so it is no answer to score: the call is a provider error, asked
// again (--retries, and on resume).
var interrupted = []string{"abort", "error", "insufficient_system_resource"}

type chatMessage struct {
	Content   json.RawMessage `json:"content"`
	Refusal   *string         `json:"refusal"`
	ToolCalls []struct {
		Type     string        `json:"type"`
		Function *functionCall `json:"function"`
	} `json:"tool_calls"`
	FunctionCall *functionCall `json:"function_call"` // deprecated, still sent by some servers
	// the model's reasoning, returned apart from its answer: vLLM before
	// 0.17, llama.cpp and DeepSeek name it reasoning_content; vLLM since,
	// Ollama and OpenRouter, reasoning
	// (read as text where they are: a server's other form of them is no
	// reason to lose the answer)
	ReasoningContent json.RawMessage `json:"reasoning_content"`
	Reasoning        json.RawMessage `json:"reasoning"`
}

// reasoning is the message's reasoning returned apart, "" where it has none
// as text.
func (m *chatMessage) reasoning() string {
	for _, raw := range []json.RawMessage{m.ReasoningContent, m.Reasoning} {
		var r string
		if len(raw) > 0 && raw[0] == '"' && runner.JSON.Unmarshal(raw, &r) == nil && strings.TrimSpace(r) != "" {
			return r
		}
	}
	return ""
}

// functionCall is a call's name and arguments: a string of JSON, as the API
// defines them, or the JSON itself, as llama.cpp's llama-server and TGI have
// sent them (argumentsText).
type functionCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// argumentsText is a call's arguments as text: a JSON string's contents, or
// any other JSON value as written (the envelope keeps it exactly).
func (f *functionCall) argumentsText() string {
	raw := f.Arguments
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if raw[0] == '"' && runner.JSON.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// ParseChat reads a chat completion's first choice. A function tool call wins over
// any content (Ollama sends "content": "" beside tool_calls; a model may say what it
// is about to do): the output is the envelope of the first call (runner.ToolCall),
// and the message is kept in metadata as provider_output. Otherwise the output is
// the text content (a list of content parts is joined). A refusal makes "refusal"
// the finish reason (for "stop"), beside no content, empty content or the start
// of an answer; it is the output where there is no text, and kept in metadata
// where there is.
func ParseChat(body []byte) (runner.Result, error) {
	var c chatCompletion
	if err := runner.DecodeBody(body, &c, "a chat completion"); err != nil {
		return runner.Result{}, err
	}
	errorMember := c.Error
	if len(c.Choices) > 0 {
		errorMember = c.firstChoice().Error
	}
	if ce := runner.ErrorInAnswer(errorMember); ce != nil {
		return runner.Result{}, ce
	}
	if len(c.Choices) == 0 || len(c.firstChoice().Message) == 0 || string(c.firstChoice().Message) == "null" {
		return runner.Result{}, runner.BadResponse("the chat completion has no choices")
	}
	ch := c.firstChoice()
	if fr := ch.FinishReason; fr != nil && slices.Contains(interrupted, *fr) {
		return runner.Result{}, &runner.CallError{Code: "interrupted", Message: "the server ended the answer (finish_reason " + *fr + "), not the model: no answer to score", Retry: true}
	}
	var msg chatMessage
	if err := runner.JSON.Unmarshal(ch.Message, &msg); err != nil {
		return runner.Result{}, runner.BadResponse("the chat completion's message is not a message: %s", runner.DecodeErrorText(ch.Message, "the message", &msg, err))
	}
	res := runner.Result{Model: c.Model, RawResponseID: c.ID}
	if ch.FinishReason != nil {
		res.FinishReason = *ch.FinishReason
	}
	if cf := slices.Clone(ch.ContentFilterResults); res.FinishReason == "content_filter" && len(cf) > 0 && cf.Kind() == '{' && cf.Compact() == nil {
		// which category the filter withheld it for: what to adjust in
		// the deployment's filter
		res.Metadata = append(res.Metadata, runner.Field("content_filter_results", contract.Raw(cf)))
	}
	c.Usage.Keep(&res)
	if u := c.Usage.V; u != nil {
		var counts runner.Counts
		in, out, total := counts.Of("usage.prompt_tokens", u.PromptTokens), counts.Of("usage.completion_tokens", u.CompletionTokens), runner.Lenient(u.TotalTokens)
		counts.Keep(&res)
		res.InputTokens, res.OutputTokens = in, out
		if in != nil && out != nil && total != nil && *total > *in+*out {
			// Gemini's OpenAI-compatible API leaves the thinking tokens
			// out of completion_tokens and counts them in total_tokens;
			// they are output tokens, billed as such
			n := *total - *in
			res.OutputTokens = &n
		}
	}
	var first *functionCall
	for _, tc := range msg.ToolCalls {
		if tc.Function != nil && (tc.Type == "function" || tc.Type == "") {
			res.Calls++
			if first == nil {
				first = tc.Function
			}
		}
	}
	if first != nil {
		return runner.ToolResult(res, runner.ToolCall{Name: first.Name, Arguments: first.argumentsText()}, ch.Message), nil
	}
	if fc := msg.FunctionCall; fc != nil {
		return runner.ToolResult(res, runner.ToolCall{Name: fc.Name, Arguments: fc.argumentsText()}, ch.Message), nil
	}
	text, hasText, err := contentText(msg.Content)
	if err != nil {
		return runner.Result{}, err
	}
	refusal := ""
	if msg.Refusal != nil {
		refusal = *msg.Refusal
	}
	switch {
	case hasText && (text != "" || refusal == ""):
		res.Output = &text
	case msg.Refusal != nil:
		res.Output = &refusal
	default:
		// An empty answer is still an answer (a length cut, say): scored as wrong.
		res.Output = runner.String("")
	}
	if strings.TrimSpace(*res.Output) == "" {
		if r := msg.reasoning(); r != "" {
			// the model's text went to its reasoning: a thinking model cut
			// short at its token limit, or a server's reasoning parser that
			// took the answer for reasoning (vLLM's, on a model that writes
			// no end of its thinking); kept, so the record shows which
			res.Metadata = append(res.Metadata, contract.Member{Key: runner.ReasoningKey, Value: r})
		}
	}
	if msg.Refusal != nil && (refusal != "" || !hasText) {
		// a refusal is one beside "content": "" or the start of an answer too
		if res.FinishReason == "" || res.FinishReason == "stop" {
			res.FinishReason = "refusal"
		}
		keepRefusal(&res, refusal)
	}
	return res, nil
}

// keepRefusal keeps the text of a refusal in the record's metadata when the
// output is other text (the start of an answer the model broke off).
func keepRefusal(res *runner.Result, refusal string) {
	if refusal != "" && *res.Output != refusal {
		res.Metadata = append(res.Metadata, contract.Member{Key: "refusal", Value: refusal})
	}
}

// contentText reads message content: a string, null, or a list of parts with text.
func contentText(raw json.RawMessage) (string, bool, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", false, nil
	}
	var s string
	if runner.JSON.Unmarshal(raw, &s) == nil {
		return s, true, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := runner.JSON.Unmarshal(raw, &parts); err != nil {
		return "", false, runner.BadResponse("message content is neither text nor a list of parts")
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String(), true, nil
}

type responsesAnswer struct {
	ID                string `json:"id"`
	Model             string `json:"model"`
	Status            string `json:"status"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	// Error is the error of a failed response ({"code": "server_error",
	// ...}), or of a server that put its error in a 200 answer (no status)
	Error  json.RawMessage              `json:"error"`
	Output json.RawMessage              `json:"output"`
	Usage  runner.Usage[responsesUsage] `json:"usage"`
}

type responsesUsage struct {
	InputTokens  json.RawMessage `json:"input_tokens"`
	OutputTokens json.RawMessage `json:"output_tokens"`
}

// unfinished are the statuses of a Responses API response that holds no
// answer yet, or never will: a background response queued or in progress, one
// cancelled.
var unfinished = []string{"queued", "in_progress", "cancelled"}

type responsesItem struct {
	Type      string `json:"type"`
	Phase     string `json:"phase"` // a message's: "commentary" or "final_answer"
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Content   []struct {
		Type    string `json:"type"`
		Text    string `json:"text"`
		Refusal string `json:"refusal"`
	} `json:"content"`
}

// ParseResponses reads a Responses API answer. A function_call item wins over any
// message: the output is the envelope of the first call (runner.ToolCall), and the
// output items are kept in metadata as provider_output. Otherwise the output is the
// output_text parts of its message items joined (refusal parts when there is no
// text), without the messages labelled commentary when another is not. The finish reason is the status, or the reason an incomplete
// answer stopped. A failed answer is the provider error "failed", its error code
// in the message; one queued, in progress or cancelled is the provider error of
// that status.
func ParseResponses(body []byte) (runner.Result, error) {
	var a responsesAnswer
	if err := runner.DecodeBody(body, &a, "a Responses API response"); err != nil {
		return runner.Result{}, err
	}
	if a.Status == "failed" {
		code := "failed"
		var e struct {
			Code any `json:"code"`
		}
		if json.Unmarshal(a.Error, &e) == nil && e.Code != nil && e.Code != "" {
			code = fmt.Sprint(e.Code)
		}
		return runner.Result{}, &runner.CallError{Code: "failed", Message: "the response failed (" + code + ")"}
	}
	if a.Status == "" && (len(a.Output) == 0 || string(a.Output) == "null") {
		// no response but an error in a 200 answer (a proxy's, OpenRouter's):
		// its status code, retried as that status is, as for a chat
		// completion (beside an output, an error is no error)
		if ce := runner.ErrorInAnswer(a.Error); ce != nil {
			return runner.Result{}, ce
		}
	}
	if slices.Contains(unfinished, a.Status) {
		// a background response not done, or one cancelled: no answer yet
		return runner.Result{}, &runner.CallError{Code: a.Status, Message: "the response is " + a.Status + ": no answer to score"}
	}
	var items []responsesItem
	if len(a.Output) > 0 && string(a.Output) != "null" {
		if err := runner.JSON.Unmarshal(a.Output, &items); err != nil {
			return runner.Result{}, runner.BadResponse("the answer's output is not a list of items: %s", runner.DecodeErrorText(a.Output, "the output", &items, err))
		}
	}
	res := runner.Result{Model: a.Model, RawResponseID: a.ID, FinishReason: a.Status}
	if a.IncompleteDetails != nil && a.IncompleteDetails.Reason != "" {
		res.FinishReason = a.IncompleteDetails.Reason
	}
	a.Usage.Keep(&res)
	if u := a.Usage.V; u != nil {
		var counts runner.Counts
		res.InputTokens, res.OutputTokens = counts.Of("usage.input_tokens", u.InputTokens), counts.Of("usage.output_tokens", u.OutputTokens)
		counts.Keep(&res)
	}
	first := -1
	for i, item := range items {
		if item.Type == "function_call" {
			res.Calls++
			if first < 0 {
				first = i
			}
		}
	}
	if first >= 0 {
		return runner.ToolResult(res, runner.ToolCall{Name: items[first].Name, Arguments: items[first].Arguments}, a.Output), nil
	}
	// a model that labels its messages (gpt-5.3-codex and later) answers in
	// its final_answer message; the commentary before it is no part of it
	// (a message with no label counts as the answer; commentary alone is
	// what there is)
	final := slices.ContainsFunc(items, func(it responsesItem) bool { return it.Type == "message" && it.Phase != "commentary" })
	var text, refusal strings.Builder
	hasText := false
	for _, item := range items {
		if item.Type != "message" || final && item.Phase == "commentary" {
			continue
		}
		for _, c := range item.Content {
			switch c.Type {
			case "output_text":
				text.WriteString(c.Text)
				hasText = true
			case "refusal":
				refusal.WriteString(c.Refusal)
			}
		}
	}
	switch {
	case hasText && (text.Len() > 0 || refusal.Len() == 0):
		res.Output = runner.String(text.String())
	case refusal.Len() > 0:
		res.Output = runner.String(refusal.String())
	case items == nil && a.Status == "":
		return runner.Result{}, runner.BadResponse("the answer has no output")
	default:
		res.Output = runner.String("")
	}
	if refusal.Len() > 0 {
		// a refusal part beside output_text is a refusal too; one cut at
		// the token limit keeps the reason it stopped (a chat completion's
		// "length" is kept so)
		if res.FinishReason == "" || res.FinishReason == "completed" {
			res.FinishReason = "refusal"
		}
		keepRefusal(&res, refusal.String())
	}
	return res, nil
}

// Client asks an OpenAI-compatible server; it is a runner.Provider.
type Client struct {
	HTTP *runner.HTTP
	Opts Options
}

// Do sends one request and reads its answer.
func (c *Client) Do(ctx context.Context, req *contract.Request) (runner.Result, error) {
	body, err := Body(req, c.Opts)
	if err != nil {
		return runner.Result{}, &runner.CallError{Code: "bad_request", Message: err.Error()}
	}
	data, err := c.HTTP.PostJSON(ctx, c.Opts.Path(), body)
	var res runner.Result
	if ce := (*runner.CallError)(nil); errors.As(err, &ce) && ce.Generation != nil {
		// the model's answer, which the provider would not return as a tool
		// call: scored as the failure it is, not asked again
		res, _ = runner.RefusedGeneration(ce)
		err = nil
	} else if err != nil {
		_, temperature := c.Opts.sampling(req)
		return runner.Result{}, runner.TemperatureRefused(maxTokensRefused(err), "fbeval-openai", temperature)
	} else if c.Opts.API == "responses" {
		res, err = ParseResponses(data)
	} else {
		res, err = ParseChat(data)
	}
	if err != nil {
		return res, err
	}
	res.Provider = c.Opts.provider()
	if res.Model == "" {
		res.Model = c.Opts.Model
	}
	return res, nil
}
