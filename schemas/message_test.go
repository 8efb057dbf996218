package schemas

import (
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// TestMessageNumbers: a message writes the numbers of a value that fails as
// JSON writes them, exactly: the library's printer wrote 1000000 as
// "1 × 10⁰⁶", 100000 as "100,000" and a 30-digit integer rounded, in reports
// and in the feedback a repair round sends the model.
func TestMessageNumbers(t *testing.T) {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(`{"properties": {
		"max": {"maximum": 100000}, "min": {"minimum": -5.5},
		"exMax": {"exclusiveMaximum": 1e3}, "exMin": {"exclusiveMinimum": 0},
		"mult": {"multipleOf": 0.01}, "len": {"maxLength": 3}, "items": {"maxItems": 1},
		"enum": {"enum": [1000000]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	sch, err := compileDoc(t, NewCompiler(), doc) // the compiler fbeval validates with
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ value, want string }{
		{`{"max": 1000000}`, "maximum: got 1000000, want 100000"},
		{`{"max": 100000.5}`, "maximum: got 100000.5, want 100000"},
		{`{"max": 123456789012345678901234567890}`, "maximum: got 123456789012345678901234567890, want 100000"},
		{`{"max": 1e21}`, "maximum: got 1000000000000000000000, want 100000"},
		{`{"max": 1e400}`, "maximum: got 1e+400, want 100000"},
		{`{"max": 1.5e-3}`, ""},
		{`{"min": -1234567}`, "minimum: got -1234567, want -5.5"},
		{`{"min": -5.75}`, "minimum: got -5.75, want -5.5"},
		{`{"exMax": 1000}`, "exclusiveMaximum: got 1000, want 1000"},
		{`{"exMin": -0.0001}`, "exclusiveMinimum: got -0.0001, want 0"},
		{`{"exMin": 0}`, "exclusiveMinimum: got 0, want 0"},
		{`{"mult": 1234567.123}`, "multipleOf: got 1234567.123, want 0.01"},
		{`{"len": "` + strings.Repeat("x", 12345) + `"}`, "maxLength: got 12345, want 3"},
		{`{"items": [1, 2]}`, "maxItems: got 2, want 1"},
		{`{"enum": 5}`, "value must be 1000000"},
	} {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(tc.value))
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if ve, ok := sch.Validate(v).(*jsonschema.ValidationError); ok {
			for l := range Leaves(ve, nil) {
				got = Message(l.ErrorKind)
			}
		}
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.value, got, tc.want)
		}
	}
}

// TestAdditionalPropertiesSorted: the library lists extra properties as it
// ranges over a map; fbeval validate wrote them in another order each run.
func TestAdditionalPropertiesSorted(t *testing.T) {
	k := &kind.AdditionalProperties{Properties: []string{"run", "output", "provider", "model"}}
	if got, want := Message(k), "additional properties 'model', 'output', 'provider', 'run' not allowed"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if k.Properties[0] != "run" {
		t.Error("the error's own list was sorted in place")
	}
}
