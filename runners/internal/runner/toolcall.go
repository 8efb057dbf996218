package runner

import (
	"bytes"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/fbeval/fbeval/contract"
)

// ToolCall is the first tool call of a provider's answer: the tool's name and its
// arguments as the provider gave them (JSON text; OpenAI's APIs send a string that
// should hold JSON, Anthropic's an object).
type ToolCall struct {
	Name      string
	Arguments string
}

// Envelope is the answer the toolcall scorer reads for the call:
// {"action":"call_tool","tool":NAME,"arguments":{...},"missingFields":[],"reason":""}.
// Arguments that are JSON are kept exactly (numbers as written); an empty string is
// {} (a call with no arguments); anything else is kept as a JSON string, which the
// scorer then fails as a call whose arguments are not an object.
func (c *ToolCall) Envelope() string {
	var args any
	switch v := jsontext.Value(bytes.TrimSpace([]byte(c.Arguments))); {
	case len(v) == 0:
		args = contract.Raw("{}")
	case v.IsValid():
		v = slices.Clone(v)
		if v.Compact() == nil {
			args = contract.Raw(v)
		} else {
			args = strings.ToValidUTF8(c.Arguments, "\uFFFD")
		}
	default:
		// bytes that are not UTF-8 become U+FFFD, so the envelope stays JSON every
		// reader takes (the contract writer would keep a lone surrogate's bytes as
		// its escape, which strict readers refuse)
		args = strings.ToValidUTF8(c.Arguments, "\uFFFD")
	}
	out, err := contract.Marshal(contract.Object{
		Field("action", contract.ActionCallTool),
		Field("tool", strings.ToValidUTF8(c.Name, "\uFFFD")),
		Field("arguments", args),
		Field("missingFields", []string{}),
		Field("reason", ""),
	}, contract.Compact)
	if err != nil {
		// not reached with valid UTF-8: keep the arguments text, so the answer is
		// scored as the wrong shape it is rather than lost
		return c.Arguments
	}
	return string(out)
}

// ToolResult is the Result of an answer that called a tool: the envelope as the
// output, and the provider's own output (the message, its content blocks or output
// items, compacted) kept in metadata as provider_output.
func ToolResult(res Result, call ToolCall, providerOutput []byte) Result {
	res.Output = String(call.Envelope())
	v := jsontext.Value(slices.Clone(providerOutput))
	if v.Compact() == nil {
		res.Metadata = append(res.Metadata, Field("provider_output", contract.Raw(v)))
	}
	return res
}

// ToolParameters is a tool's argument schema as the APIs take it: they want an
// object schema ({"type": "object", ...}), so the no-schema arm's {} (or true) is sent
// as {"type":"object"}, and an object schema without a top-level type gets
// "type":"object" first. Arguments are an object in the envelope anyway, so neither
// changes what passes; other schemas go as written.
func ToolParameters(p jsontext.Value) contract.Raw {
	v := bytes.TrimSpace(p)
	if len(v) == 0 || string(v) == "true" {
		return contract.Raw(`{"type":"object"}`)
	}
	if v[0] != '{' {
		return contract.Raw(v)
	}
	compact := jsontext.Value(slices.Clone(v))
	if compact.Compact() != nil {
		return contract.Raw(v)
	}
	if string(compact) == "{}" {
		return contract.Raw(`{"type":"object"}`)
	}
	if contract.FindMember(compact, func(name string, _ jsontext.Kind) bool { return name == "type" }) {
		return contract.Raw(compact)
	}
	return contract.Raw(append([]byte(`{"type":"object",`), compact[1:]...))
}
