package toolcall

import (
	"slices"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/contract/strictjson"
	"github.com/fbeval/fbeval/schemas"
)

// The schema path and the fast path give the same verdicts on dates and patterns.
func TestPyCompatSchema(t *testing.T) {
	s, err := CompileSchema([]byte(`{"type":"object","properties":{
		"d":{"type":"string","format":"date"},
		"t":{"type":"string","pattern":"^([01][0-9]|2[0-3]):[0-5][0-9]$"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if s.fast == nil {
		t.Fatal("no fast path for a date and a pattern")
	}
	tests := []struct {
		in   string
		want bool
	}{
		{`{"d":"2027-01-11","t":"09:30"}`, true},
		{`{"d":"0000-01-11"}`, false},
		{`{"d":"2027-02-29"}`, false},
		{`{"t":"09:30\n"}`, true},
		{`{"t":"9:30"}`, false},
	}
	for _, tt := range tests {
		v, err := strictjson.Parse(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		errs := s.Validate(v)
		lib := s.compiled.Validate(schemas.Instance(v)) == nil
		if s.Valid(v) != tt.want || (len(errs) == 0) != tt.want || lib != tt.want {
			t.Errorf("%s: fast %v, errors %v, library %v; want valid %v", tt.in, s.Valid(v), errs, lib, tt.want)
		}
		for _, e := range errs {
			if e.Keyword == "format" && !strings.Contains(e.Message, "not a calendar date") {
				t.Errorf("%s: date error message %q", tt.in, e.Message)
			}
		}
	}
}

// Every keyword that fails is an error, as Python's jsonschema's iter_errors gives
// them, though jsonschema/v6 stops at a failing type, const, enum or format. The
// counts are Python's (jsonschema 4.10, Draft 2020-12).
func TestPyErrorCounts(t *testing.T) {
	s, err := CompileSchema([]byte(`{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"type": "object",
		"properties": {
			"currency": {"type": "string", "enum": ["INR", "USD", "EUR"]},
			"n": {"type": "integer", "minimum": 1, "maximum": 9},
			"k": {"const": "a", "enum": ["b"], "type": "string", "minLength": 3},
			"d": {"type": "string", "format": "date", "pattern": "^2"},
			"o": {"type": "integer", "properties": {"x": {"type": "string"}}, "required": ["y"]},
			"any": {"anyOf": [{"type": "string"}, {"minimum": 10}]},
			"arr": {"type": "array", "items": {"type": "integer", "maximum": 3}}
		},
		"required": ["currency"],
		"additionalProperties": false
	}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		in   string
		want []string // path keyword, sorted
	}{
		{`{"currency": 5}`, []string{"/currency enum", "/currency type"}},
		{`{"currency": "GBP"}`, []string{"/currency enum"}},
		{`{"currency": "INR", "n": 50.5}`, []string{"/n maximum", "/n type"}},
		{`{"currency": "INR", "n": 2.5}`, []string{"/n type"}},
		{`{"currency": "INR", "n": 2.0}`, nil},
		{`{"currency": "INR", "n": true}`, []string{"/n type"}},
		{`{"currency": "INR", "n": "50"}`, []string{"/n type"}},
		{`{"currency": "INR", "k": 1}`, []string{"/k const", "/k enum", "/k type"}},
		{`{"currency": "INR", "k": "x"}`, []string{"/k const", "/k enum", "/k minLength"}},
		{`{"currency": "INR", "d": "3027-02-30"}`, []string{"/d format", "/d pattern"}},
		{`{"currency": "INR", "o": {"x": 1}}`, []string{"/o required", "/o type", "/o/x type"}},
		{`{"currency": "INR", "any": 5}`, []string{"/any anyOf"}},
		{`{"currency": "INR", "arr": [1, 4.5, "a"]}`, []string{"/arr/1 maximum", "/arr/1 type", "/arr/2 type"}},
		{`{"currency": 5, "n": 0, "z": 1}`, []string{" additionalProperties", "/currency enum", "/currency type", "/n minimum"}},
	}
	for _, tt := range tests {
		v, err := strictjson.Parse(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range s.Validate(v) {
			got = append(got, e.Path+" "+e.Keyword)
		}
		slices.Sort(got)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: errors %q, want %q", tt.in, got, tt.want)
		}
	}
}

// Lone surrogate escapes are read as Python's json reads them: a character of
// their own, unequal to any other, sorted by code point, a duplicate key only of
// themselves.
func TestLoneSurrogates(t *testing.T) {
	if _, err := strictjson.Parse(`{"\ud800":1,"\ud800":2}`); err == nil || !strings.Contains(err.Error(), "duplicate") {
		t.Errorf("a repeated lone surrogate key: %v", err)
	}
	v, err := strictjson.Parse(`{"\ue000":1,"\ud800":2,"\ud7ff":3,"\ufffd":4}`)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strictjson.Canonical(v), `{"`+"\ud7ff"+`":3,"\ud800":2,"`+"\ue000"+`":1,"`+"\ufffd"+`":4}`; got != want {
		t.Errorf("canonical %s, want %s", got, want)
	}
	a, _ := strictjson.Parse(`"\ud800"`)
	b, _ := strictjson.Parse(`"\ufffd"`)
	if strictjson.Equal(a, b) {
		t.Error("a lone surrogate equals U+FFFD")
	}
	back, err := strictjson.Parse(strictjson.Canonical(a))
	if err != nil || !strictjson.Equal(a, back) {
		t.Errorf("round trip: %v", err)
	}
}
