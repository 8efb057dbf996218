package toolcall

import (
	"sync"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/contract/strictjson"
)

// EnvelopeSchema is the JSON Schema every output must satisfy before anything else
// is checked.
const EnvelopeSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "properties": {
    "action": {"enum": ["call_tool", "ask_clarification", "refuse"]},
    "tool": {"type": ["string", "null"]},
    "arguments": {"type": "object"},
    "missingFields": {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
    "reason": {"type": "string"}
  },
  "required": ["action", "tool", "arguments", "missingFields", "reason"],
  "additionalProperties": false
}`

var envelope = sync.OnceValue(func() *Schema {
	s, err := CompileSchema([]byte(EnvelopeSchema))
	if err != nil {
		// A constant that does not compile is a programming error, caught by tests.
		panic("toolcall: envelope schema: " + err.Error())
	}
	return s
})

// envelopeFields are the five keys of an envelope.
var envelopeFields = [...]string{"action", "tool", "arguments", "missingFields", "reason"}

// envelopeOK reports whether v satisfies EnvelopeSchema. It is the fast path: the
// schema runs only on failure, to name the errors. A test holds the two in agreement.
func envelopeOK(v strictjson.Value) bool {
	if v.Kind() != strictjson.Object || v.Len() != len(envelopeFields) {
		return false
	}
	members := v.Members()
	for i := range members {
		m := &members[i]
		switch m.Key {
		case "action":
			if m.Value.Kind() != strictjson.String || !validAction(m.Value.Str()) {
				return false
			}
		case "tool":
			if m.Value.Kind() != strictjson.String && m.Value.Kind() != strictjson.Null {
				return false
			}
		case "arguments":
			if m.Value.Kind() != strictjson.Object {
				return false
			}
		case "missingFields":
			if m.Value.Kind() != strictjson.Array || !uniqueStrings(m.Value) {
				return false
			}
		case "reason":
			if m.Value.Kind() != strictjson.String {
				return false
			}
		default:
			return false
		}
	}
	// Keys are unique, so five known keys are all five.
	return true
}

func validAction(a string) bool {
	return a == contract.ActionCallTool || a == contract.ActionAsk || a == contract.ActionRefuse
}

func uniqueStrings(arr strictjson.Value) bool {
	items := arr.Items()
	for i := range items {
		if items[i].Value.Kind() != strictjson.String {
			return false
		}
		for j := 0; j < i; j++ {
			if items[j].Value.Str() == items[i].Value.Str() {
				return false
			}
		}
	}
	return true
}

// ValidateEnvelope returns the envelope errors of v, sorted; nil when v is an
// envelope.
func ValidateEnvelope(v strictjson.Value) []SchemaError {
	if envelopeOK(v) {
		return nil
	}
	return envelope().Validate(v)
}

// envelopeParts is a validated envelope, taken apart.
type envelopeParts struct {
	action    string
	tool      strictjson.Value // string or null
	arguments strictjson.Value // object
	missing   strictjson.Value // array of unique strings
	reason    string
}

// splitEnvelope takes apart a value for which envelopeOK holds.
func splitEnvelope(v strictjson.Value) envelopeParts {
	var e envelopeParts
	members := v.Members()
	for i := range members {
		m := &members[i]
		switch m.Key {
		case "action":
			e.action = m.Value.Str()
		case "tool":
			e.tool = m.Value
		case "arguments":
			e.arguments = m.Value
		case "missingFields":
			e.missing = m.Value
		case "reason":
			e.reason = m.Value.Str()
		}
	}
	return e
}
