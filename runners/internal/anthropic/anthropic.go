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
	"strings"

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

// Body is the Messages request body for req: model, max_tokens, system (every system
// message of the request, joined by a blank line: the API takes system text apart
// from the turns), messages (the user and assistant turns), temperature.
func Body(req *contract.Request, o Options) contract.Object {
	var system []string
	var turns []contract.Object
	for _, m := range req.Messages {
		if m.Role == "system" || m.Role == "developer" {
			system = append(system, m.Content)
			continue
		}
		turns = append(turns, contract.Object{runner.Field("role", m.Role), runner.Field("content", m.Content)})
	}
	maxTokens := o.MaxTokens
	if maxTokens <= 0 {
		maxTokens = DefaultMaxTokens
	}
	body := contract.Object{runner.Field("model", o.Model), runner.Field("max_tokens", maxTokens)}
	if len(system) > 0 {
		body = append(body, runner.Field("system", strings.Join(system, "\n\n")))
	}
	body = append(body, runner.Field("messages", turns))
	if o.Temperature != nil {
		body = append(body, runner.Field("temperature", *o.Temperature))
	}
	return body
}

type message struct {
	ID      string `json:"id"`
	Type    string `json:"type"`
	Model   string `json:"model"`
	Content []struct {
		Type  string          `json:"type"`
		Text  string          `json:"text"`
		Input json.RawMessage `json:"input"`
	} `json:"content"`
	StopReason *string `json:"stop_reason"`
	Usage      *struct {
		InputTokens              *int64 `json:"input_tokens"`
		OutputTokens             *int64 `json:"output_tokens"`
		CacheCreationInputTokens *int64 `json:"cache_creation_input_tokens"`
		CacheReadInputTokens     *int64 `json:"cache_read_input_tokens"`
	} `json:"usage"`
}

// ParseMessage reads a Messages API answer. The output is its text blocks joined;
// with no text block, the first tool_use block's input as JSON text (the arguments
// are the answer a toolcall study scores). Input tokens count cache writes and reads
// too (the API reports them apart); stop_reason, "refusal" included, is the finish
// reason.
func ParseMessage(body []byte) (runner.Result, error) {
	var m message
	if err := runner.JSON.Unmarshal(body, &m); err != nil {
		return runner.Result{}, runner.BadResponse("the answer is not a message: %.120s", err.Error())
	}
	if m.Type != "message" && m.Type != "" {
		return runner.Result{}, runner.BadResponse("the answer is a %q, not a message", m.Type)
	}
	if m.Content == nil && m.StopReason == nil {
		return runner.Result{}, runner.BadResponse("the answer has no content")
	}
	res := runner.Result{Model: m.Model, RawResponseID: m.ID}
	if m.StopReason != nil {
		res.FinishReason = *m.StopReason
	}
	if u := m.Usage; u != nil {
		if u.InputTokens != nil || u.CacheCreationInputTokens != nil || u.CacheReadInputTokens != nil {
			var n int64
			for _, p := range []*int64{u.InputTokens, u.CacheCreationInputTokens, u.CacheReadInputTokens} {
				if p != nil {
					n += *p
				}
			}
			res.InputTokens = &n
		}
		res.OutputTokens = u.OutputTokens
	}
	var text strings.Builder
	hasText := false
	var tool json.RawMessage
	for _, b := range m.Content {
		switch b.Type {
		case "text":
			text.WriteString(b.Text)
			hasText = true
		case "tool_use":
			if tool == nil {
				tool = b.Input
			}
		}
	}
	switch {
	case hasText:
		res.Output = runner.String(text.String())
	case tool != nil:
		res.Output = runner.String(string(tool))
	default:
		res.Output = runner.String("")
	}
	return res, nil
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
	data, err := c.HTTP.PostJSON(ctx, "/messages", body)
	if err != nil {
		return runner.Result{}, err
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
