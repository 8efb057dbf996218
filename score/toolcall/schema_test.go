package toolcall

import (
	"reflect"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/contract/strictjson"
)

func TestCompileSchemaRefusesReferences(t *testing.T) {
	tests := []struct {
		name, schema, ref string
	}{
		{"https", `{"$ref": "https://example.com/s.json"}`, "https://example.com/s.json"},
		{"http", `{"properties": {"a": {"$ref": "http://example.com/a.json#/x"}}}`, "http://example.com/a.json"},
		{"file url", `{"$ref": "file:///etc/passwd"}`, "file:///etc/passwd"},
		{"relative file", `{"$ref": "other.json"}`, "other.json"},
		{"absolute path", `{"$ref": "/etc/schema.json"}`, "/etc/schema.json"},
		{"relative to remote id", `{"$id": "https://example.com/root.json", "$ref": "defs.json"}`, "https://example.com/defs.json"},
		{"dynamic", `{"$dynamicRef": "https://example.com/d.json#meta"}`, "https://example.com/d.json"},
		{"unknown metaschema", `{"$schema": "https://example.com/meta.json", "type": "object"}`, "https://example.com/meta.json"},
	}
	for _, tt := range tests {
		_, err := CompileSchema([]byte(tt.schema))
		if err == nil {
			t.Errorf("%s: compiled", tt.name)
			continue
		}
		msg := err.Error()
		refused := "refused"
		if tt.name == "unknown metaschema" {
			refused = "is no meta-schema fbeval compiles" // and none is fetched
		}
		if !strings.Contains(msg, tt.ref) || !strings.Contains(msg, refused) || strings.Contains(msg, "\n") {
			t.Errorf("%s: error %q does not name %q as refused on one line", tt.name, msg, tt.ref)
		}
	}
}

func TestCompileSchemaLocalReferences(t *testing.T) {
	s, err := CompileSchema([]byte(`{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"$defs": {"n": {"type": "integer", "maximum": 3}},
		"properties": {"a": {"$ref": "#/$defs/n"}}
	}`))
	if err != nil {
		t.Fatal(err)
	}
	v, _ := strictjson.Parse(`{"a": 4}`)
	got := s.Validate(v)
	want := []SchemaError{{Path: "/a", Keyword: "maximum", Message: "maximum: got 4, want 3"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("errors = %+v, want %+v", got, want)
	}
}

func TestCompileSchemaRejectsBadDocuments(t *testing.T) {
	for _, s := range []string{`{"type": "object", "type": "array"}`, `[1]`, `{"type": 5}`, `{"minimum": "x"}`, `not json`} {
		if _, err := CompileSchema([]byte(s)); err == nil {
			t.Errorf("CompileSchema(%s) succeeded", s)
		}
	}
}

// TestSchemaNumbers checks that the validator sees numbers as Python's jsonschema
// does: 1.0 is an integer, big integers stay exact, booleans are not numbers.
func TestSchemaNumbers(t *testing.T) {
	s, err := CompileSchema([]byte(`{"type": "integer", "minimum": 1, "maximum": 9223372036854775808}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		in   string
		want []string // keywords
	}{
		{`1`, nil},
		{`1.0`, nil},
		{`1e0`, nil},
		{`1.5`, []string{"type"}},
		{`0`, []string{"minimum"}},
		{`0.0`, []string{"minimum"}},
		{`9223372036854775808`, nil},
		{`9223372036854775809`, []string{"maximum"}},
		{`true`, []string{"type"}},
		{`"1"`, []string{"type"}},
	}
	for _, tt := range tests {
		v, err := strictjson.Parse(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range s.Validate(v) {
			got = append(got, e.Keyword)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Validate(%s) keywords = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestSchemaFormatAsserted(t *testing.T) {
	s, err := CompileSchema([]byte(`{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "string", "format": "date"}`))
	if err != nil {
		t.Fatal(err)
	}
	for in, valid := range map[string]bool{`"2027-01-31"`: true, `"2027-02-30"`: false, `"27-01-01"`: false, `"tomorrow"`: false} {
		v, _ := strictjson.Parse(in)
		if got := len(s.Validate(v)) == 0; got != valid {
			t.Errorf("date %s valid = %v, want %v", in, got, valid)
		}
	}
}

func TestSchemaErrorsFlattenedAndSorted(t *testing.T) {
	// Counted as Python's jsonschema counts them: one per missing property, one for
	// all additional properties, one for a failed anyOf.
	s, err := CompileSchema([]byte(`{
		"type": "object",
		"properties": {
			"b": {"type": "string", "minLength": 2},
			"a": {"anyOf": [{"type": "string"}, {"type": "integer", "maximum": 1}]},
			"c~/": {"type": "string"}
		},
		"required": ["z", "y", "a"],
		"additionalProperties": false
	}`))
	if err != nil {
		t.Fatal(err)
	}
	v, _ := strictjson.Parse(`{"b": "x", "a": 5, "c~/": 1, "q": 1, "p": 2}`)
	want := []SchemaError{
		{"", "additionalProperties", "additional properties 'p', 'q' not allowed"},
		{"", "required", "missing property 'y'"},
		{"", "required", "missing property 'z'"},
		{"/a", "anyOf", "'anyOf' failed"}, // one error, as Python's jsonschema gives
		{"/b", "minLength", "minLength: got 1, want 2"},
		{"/c~0~1", "type", "got number, want string"},
	}
	for i := 0; i < 20; i++ { // the library's order varies from run to run
		if got := s.Validate(v); !reflect.DeepEqual(got, want) {
			t.Fatalf("errors =\n%+v\nwant\n%+v", got, want)
		}
	}
}

func TestValidateEnvelope(t *testing.T) {
	tests := []struct {
		in   string
		want []SchemaError
	}{
		{`{"action":"call_tool","tool":"t","arguments":{},"missingFields":[],"reason":""}`, nil},
		{`{"reason":"","missingFields":["a","b"],"arguments":{"x":[1]},"tool":null,"action":"refuse"}`, nil},
		{`[]`, []SchemaError{{"", "type", "got array, want object"}}},
		{`{"action":"call_tool","tool":"t","arguments":{},"missingFields":[]}`,
			[]SchemaError{{"", "required", "missing property 'reason'"}}},
		{`{"action":"book","tool":"t","arguments":{},"missingFields":[],"reason":"","x":1}`, []SchemaError{
			{"", "additionalProperties", "additional properties 'x' not allowed"},
			{"/action", "enum", "value must be one of 'call_tool', 'ask_clarification', 'refuse'"},
		}},
		{`{"action":"ask_clarification","tool":1,"arguments":null,"missingFields":["a","a",2],"reason":false}`, []SchemaError{
			{"/arguments", "type", "got null, want object"},
			{"/missingFields", "uniqueItems", "items at 0 and 1 are equal"},
			{"/missingFields/2", "type", "got number, want string"},
			{"/reason", "type", "got boolean, want string"},
			{"/tool", "type", "got number, want null or string"},
		}},
	}
	for _, tt := range tests {
		v, err := strictjson.Parse(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		got := ValidateEnvelope(v)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ValidateEnvelope(%s) =\n%+v\nwant\n%+v", tt.in, got, tt.want)
		}
		if envelopeOK(v) != (len(tt.want) == 0) {
			t.Errorf("envelopeOK(%s) = %v", tt.in, envelopeOK(v))
		}
	}
}

func BenchmarkValidateEnvelope(b *testing.B) {
	v, err := strictjson.Parse(benchOutput)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if errs := ValidateEnvelope(v); errs != nil {
			b.Fatal(errs)
		}
	}
}

func BenchmarkValidateEnvelopeSchema(b *testing.B) {
	v, err := strictjson.Parse(benchOutput)
	if err != nil {
		b.Fatal(err)
	}
	s := envelope()
	b.ReportAllocs()
	for b.Loop() {
		if errs := s.Validate(v); errs != nil {
			b.Fatal(errs)
		}
	}
}
