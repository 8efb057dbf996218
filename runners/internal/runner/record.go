package runner

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/fbeval/fbeval/contract"
)

// Result is what a runner learned from one provider call: the output text, or a
// provider error, and what the provider said about the call. Nil and empty fields
// are left out of the record.
type Result struct {
	Output        *string
	Provider      string
	Model         string
	LatencyMS     *float64
	RawResponseID string
	InputTokens   *int64
	OutputTokens  *int64
	FinishReason  string
	Error         *contract.ProviderError
	Metadata      contract.Object
	// Calls counts the tool calls of an answer that called tools; the
	// first is the output (ToolResult), the others only in its metadata.
	Calls int
	// Run is what the runner was run with, written as the record's "run".
	Run *RunInfo
}

// RunInfo is what a runner was run with: written in every record it produces (the
// "run" member: runner, provider, model, study, recipe, settings), and checked when it resumes an
// output file, so one file never mixes two studies or two models unnoticed. Model is
// the model asked for (the record's "model" is the one the provider reports, which
// may be a dated version of it); Study is the request's study identity, and
// Recipe its recipe (see export.Recipe), which scoring checks.
type RunInfo struct {
	Runner   string `json:"runner"`
	Provider string `json:"provider"`
	Model    string `json:"model"`
	Study    string `json:"study"`
	Recipe   string `json:"recipe,omitempty"`
	// Settings are the runner's flags that change its answers, as
	// "name=value" words ("api=chat max_tokens=request temperature=0.7"):
	// a file is resumed only with the same.
	Settings string `json:"settings,omitempty"`
	// RecipeTag is, in the records of a batch's results converted without
	// the request file (no recipe to name), the recipe tag their custom ids
	// carry: the first 8 hex digits of the recipe, which a later conversion
	// into the file checks its results' against.
	RecipeTag string `json:"recipe_tag,omitempty"`
}

// Object returns the run member's value, empty fields left out.
func (r *RunInfo) Object() contract.Object {
	var o contract.Object
	for _, m := range [...]contract.Member{{Key: "runner", Value: r.Runner}, {Key: "provider", Value: r.Provider}, {Key: "model", Value: r.Model}, {Key: "study", Value: r.Study}, {Key: "recipe", Value: r.Recipe}, {Key: "settings", Value: r.Settings}, {Key: "recipe_tag", Value: r.RecipeTag}} {
		if m.Value != "" {
			o = append(o, m)
		}
	}
	return o
}

// OK reports whether the result is an answer rather than a provider error.
func (r *Result) OK() bool { return r.Error == nil && r.Output != nil }

// ResponseRecord returns the response record answering req, in the family of req:
// fbeval-response/v1 (schema_version, request_id, case_id, output, then the optional
// fields) or, for a CogLang request, coglang-generation-eval-response/v0.1
// (schema_version, case_id, output, then the optional fields); "run" comes last.
func ResponseRecord(req *contract.Request, res *Result) contract.Object {
	var o contract.Object
	if IsCogLang(req) {
		o = contract.Object{Field("schema_version", contract.CogLangResponse), Field("case_id", req.CaseID)}
	} else {
		o = contract.Object{Field("schema_version", contract.ResponseV1), Field("request_id", req.RequestID)}
		// A batch result read without its request file knows no case id.
		if req.CaseID != "" {
			o = append(o, Field("case_id", req.CaseID))
		}
	}
	if res.Error == nil && res.Output != nil {
		o = append(o, Field("output", *res.Output))
	}
	add := func(k, v string) {
		if v != "" {
			o = append(o, Field(k, v))
		}
	}
	add("provider", res.Provider)
	add("model", res.Model)
	if res.LatencyMS != nil {
		o = append(o, Field("latency_ms", *res.LatencyMS))
	}
	add("raw_response_id", res.RawResponseID)
	if res.InputTokens != nil {
		o = append(o, Field("input_token_count", *res.InputTokens))
	}
	if res.OutputTokens != nil {
		o = append(o, Field("output_token_count", *res.OutputTokens))
	}
	add("finish_reason", res.FinishReason)
	if e := res.Error; e != nil {
		o = append(o, Field("error", contract.Object{Field("code", e.Code), Field("message", e.Message)}))
	}
	if len(res.Metadata) > 0 {
		o = append(o, Field("metadata", res.Metadata))
	}
	if res.Run != nil {
		o = append(o, Field("run", res.Run.Object()))
	}
	return o
}

// AppendRecord appends the response record answering req as compact JSON and a
// newline. The line breaks JSON leaves raw in a string (U+2028, U+2029, U+0085)
// are written as their escapes: the CogLang reference scorer splits a file by
// every line break Python's str.splitlines knows, and read a record holding one
// as two halves of invalid JSON.
func AppendRecord(dst []byte, req *contract.Request, res *Result) ([]byte, error) {
	start := len(dst)
	dst, err := contract.AppendJSON(dst, ResponseRecord(req, res), contract.Compact, 0)
	if err != nil {
		return dst, err
	}
	return append(escapeLineBreaks(dst, start), '\n'), nil
}

// escapeLineBreaks writes U+2028, U+2029 and U+0085 in the JSON text
// dst[start:] as \u2028, \u2029 and \u0085 (outside strings JSON text is
// ASCII: every such character is in one).
func escapeLineBreaks(dst []byte, start int) []byte {
	text := dst[start:]
	if !bytes.Contains(text, []byte("\u2028")) && !bytes.Contains(text, []byte("\u2029")) && !bytes.Contains(text, []byte("\u0085")) {
		return dst
	}
	out := slices.Clone(text)
	for _, r := range []struct{ raw, escaped string }{{"\u2028", `\u2028`}, {"\u2029", `\u2029`}, {"\u0085", `\u0085`}} {
		out = bytes.ReplaceAll(out, []byte(r.raw), []byte(r.escaped))
	}
	return append(dst[:start], out...)
}

// String returns a pointer to s, for the output of a Result.
func String(s string) *string { return &s }

// Field is one member of a contract.Object.
func Field(key string, value any) contract.Member { return contract.Member{Key: key, Value: value} }

// Sampling returns the token limit and temperature a request is sent with:
// the runner's flags (maxTokens 0 and temperature nil where none is given),
// or where none is given the request's (the study's, which every request of a
// study that sets them carries). Every provider's body takes them from here.
func Sampling(req *contract.Request, maxTokens int, temperature *float64) (int, *float64) {
	if maxTokens <= 0 && req.MaxTokens != nil {
		maxTokens = *req.MaxTokens
	}
	if temperature == nil {
		temperature = req.Temperature
	}
	return maxTokens, temperature
}

// TemperatureRefused names the way on for a model that refuses the temperature
// it was sent (TemperatureAdvice): err is returned, its message extended when it
// is such a refusal and a temperature was sent.
func TemperatureRefused(err error, runner string, sent *float64) error {
	var ce *CallError
	if errors.As(err, &ce) {
		ce.Message += TemperatureAdvice(ce.Code, ce.Message, runner, sent)
	}
	return err
}

// TemperatureAdvice is what to add to the message of a provider error (code,
// message) when it is a model's refusal of the temperature it was sent (a
// study's, or --temperature, sent by the command runner; nil: none), "" for any
// other: models released after Claude Opus 4.6 answer "`temperature` is
// deprecated for this model.", OpenAI's reasoning models "Unsupported value:
// 'temperature' does not support 0 with this model. Only the default (1) value
// is supported.", Claude Opus 4.8 in adaptive mode "`temperature` may only be
// set to 1 when thinking is enabled or in adaptive mode. ...". These take 1,
// their default. Others take none: an older OpenAI one ("Unsupported
// parameter: 'temperature' is not supported with this model."), Claude models
// that dropped the sampling parameters ("temperature: Extra inputs are not
// permitted"). (At Anthropic's API version 2026-10-21 no model takes one;
// fbeval-anthropic sends 2023-06-01, a batch is sent at the version its
// creator chose.)
func TemperatureAdvice(code, message, runner string, sent *float64) string {
	if sent == nil {
		return ""
	}
	return temperatureAdvice(code, message, fmt.Sprintf("was sent %v", *sent),
		"leave it out of the study and export again",
		"set the study's temperature to 1 or leave it out and export again, or give "+runner+" --temperature 1 to send these requests 1")
}

// BatchTemperatureAdvice is TemperatureAdvice for a batch's result of a
// request that carries the temperature carried (nil: none), the batch files
// written by command (fbeval-batch to-openai, say). The result does not say
// what its batch line sent, which is the request's unless command's
// --temperature stood in: the refusal says one was sent, so the way on is
// named whether or not the request carries one.
func BatchTemperatureAdvice(code, message, command string, carried *float64) string {
	if carried == nil {
		return temperatureAdvice(code, message, "was sent one in its batch line, given to "+command+" --temperature (its request carries none)",
			"make the batch again without --temperature",
			"make the batch again with --temperature 1 or without it")
	}
	return temperatureAdvice(code, message, fmt.Sprintf("was sent one in its batch line (its request's %v, or %s --temperature's)", *carried, command),
		"leave it out of the study, export again and make the batch without --temperature",
		"set the study's temperature to 1 or leave it out and export again (and make the batch without --temperature), or give "+command+" --temperature 1 to send these requests 1")
}

// temperatureAdvice is the way on for a refused temperature: sent says what
// the model was sent; none is the way on for a model that takes no
// temperature, one for a model that takes its default, 1.
func temperatureAdvice(code, message, sent, none, one string) string {
	if code != "http_400" || !strings.Contains(message, "temperature") {
		return ""
	}
	switch {
	case strings.Contains(message, "Unsupported parameter") || strings.Contains(message, "Extra inputs are not permitted"):
		return " (the model takes no temperature, and " + sent + ": " + none + ")"
	case strings.Contains(message, "deprecated") || strings.Contains(message, "not support") || strings.Contains(message, "Unsupported value") ||
		strings.Contains(message, "may only be set to 1"):
		return " (the model takes no temperature but its default, 1, and " + sent + ": " + one + ")"
	}
	return ""
}

// Counts reads a provider's token counts by the rule the scorer reads a
// record's (contract.ParseCount). A count that breaks it (negative, a
// fraction, a string) is left out of the record, which the scorer would
// refuse with it, and said in the record's metadata ("usage_left_out"): the
// answer stands (asked again, a provider that sends such counts would send
// them again). Note is what was left out.
type Counts struct{ Note []string }

// Of returns the count raw holds (nil when absent or null, or left out),
// name saying where it is in the answer.
func (c *Counts) Of(name string, raw []byte) *int64 {
	v := bytes.TrimSpace(raw)
	if len(v) == 0 || string(v) == "null" {
		return nil
	}
	if n, ok := contract.ParseCount(string(v)); ok {
		return &n
	}
	c.Note = append(c.Note, name+" "+brief(v))
	return nil
}

// Keep writes what was left out into res's metadata.
func (c *Counts) Keep(res *Result) {
	if len(c.Note) > 0 {
		res.Metadata = append(res.Metadata, Field("usage_left_out", strings.Join(c.Note, ", ")+": not a whole number of tokens from 0, left out of the record"))
	}
}

// Lenient returns the count raw holds, or nil where it holds none by
// ParseCount's rule: for a count the record does not carry (total_tokens).
func Lenient(raw []byte) *int64 {
	if n, ok := contract.ParseCount(string(bytes.TrimSpace(raw))); ok {
		return &n
	}
	return nil
}

// Usage is an answer's usage member, read leniently: an object is decoded
// into T; anything else (a string, a list: a provider's bug) leaves V nil
// and is said in Bad, so the answer stands with its counts left out (as
// Counts leaves out a count), where it failed the whole answer.
type Usage[T any] struct {
	V   *T
	Bad string
}

// UnmarshalJSON reads the usage member.
func (u *Usage[T]) UnmarshalJSON(b []byte) error {
	v := bytes.TrimSpace(b)
	switch {
	case len(v) == 0 || string(v) == "null":
		return nil
	case v[0] == '{':
		var t T
		if err := JSON.Unmarshal(v, &t); err == nil {
			u.V = &t
			return nil
		}
	}
	u.Bad = "usage " + brief(v)
	return nil
}

// Keep says in res's metadata that the usage was left out, when it was.
func (u *Usage[T]) Keep(res *Result) {
	if u.Bad != "" {
		res.Metadata = append(res.Metadata, Field("usage_left_out", u.Bad+": not an object of token counts, left out of the record"))
	}
}

// brief is a value a provider sent, for a note: on one line, cut at 40 bytes.
func brief(v []byte) string { return capText(strings.Join(strings.Fields(string(v)), " "), 40) }
