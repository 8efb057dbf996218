package schemas

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/contract"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

func compileDoc(t *testing.T, c *jsonschema.Compiler, doc any) (*jsonschema.Schema, error) {
	t.Helper()
	const url = "mem:///test/schema.json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	return c.Compile(url)
}

// The one configuration: references refused, formats asserted the Python way,
// patterns searched the Python way, extensions applied.
func TestNewCompiler(t *testing.T) {
	for _, ref := range []string{"https://example.com/a.json", "file:///etc/passwd", URL("fbeval-response")} {
		_, err := compileDoc(t, NewCompiler(), map[string]any{"$ref": ref})
		if err == nil || !strings.Contains(err.Error(), errRefused.Error()) {
			t.Errorf("$ref %s: %v, want it refused", ref, err)
		}
	}
	s, err := compileDoc(t, NewCompiler(), map[string]any{"type": "string", "format": "date", "pattern": "^[0-9-]+$"})
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]bool{"2027-01-11": true, "0000-01-01": false, "2027-02-29": false, "2027-01-11\n": false, "x": false} {
		if got := s.Validate(in) == nil; got != want {
			t.Errorf("%q valid = %v, want %v", in, got, want)
		}
	}
	p, err := compileDoc(t, NewCompiler(), map[string]any{"pattern": "^a$"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Validate("a\n") != nil {
		t.Error(`"a\n" does not match ^a$ as Python's re.search matches it`)
	}
	applied := 0
	NewCompiler(func(*jsonschema.Compiler) { applied++ }, func(*jsonschema.Compiler) { applied++ })
	if applied != 2 {
		t.Errorf("%d extensions applied, want 2", applied)
	}
}

func TestPointer(t *testing.T) {
	tests := []struct {
		base   jsontext.Pointer
		tokens []string
		want   jsontext.Pointer
	}{
		{"", nil, ""},
		{"", []string{""}, "/"},
		{"", []string{"a", "0"}, "/a/0"},
		{"", []string{"a/b", "m~n"}, "/a~1b/m~0n"},
		{"/x", []string{"~1"}, "/x/~01"},
		{"/x", []string{"é", "b"}, "/x/é/b"},
	}
	for _, tt := range tests {
		got := AppendPointer(tt.base, tt.tokens)
		if got != tt.want {
			t.Errorf("AppendPointer(%q, %q) = %q, want %q", tt.base, tt.tokens, got, tt.want)
		}
		if !got.IsValid() || !slices.Equal(slices.Collect(got[len(tt.base):].Tokens()), tt.tokens) && len(tt.tokens) > 0 {
			t.Errorf("%q does not read back as %q", got, tt.tokens)
		}
	}
}

func TestLeaves(t *testing.T) {
	s, err := compileDoc(t, NewCompiler(), map[string]any{
		"type": "object",
		"properties": map[string]any{
			"a": map[string]any{"anyOf": []any{map[string]any{"type": "string"}, map[string]any{"minimum": 10}}},
			"b": map[string]any{"type": "integer"},
		},
		"required": []any{"c"},
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Validate(map[string]any{"a": 1, "b": "x"})
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("no validation error: %v", err)
	}
	keep := func(k jsonschema.ErrorKind) bool { _, ok := k.(*kind.AnyOf); return ok }
	var got []string
	for l := range Leaves(ve, keep) {
		got = append(got, string(Pointer(l.InstanceLocation))+" "+l.Keyword()+" parent="+string(Pointer(l.Parent)))
	}
	slices.Sort(got)
	want := []string{" required parent=", "/a anyOf parent=", "/b type parent="}
	if !slices.Equal(got, want) {
		t.Errorf("whole anyOf: leaves %q, want %q", got, want)
	}
	got = got[:0]
	for l := range Leaves(ve, nil) {
		got = append(got, string(Pointer(l.InstanceLocation))+" "+l.Keyword())
	}
	slices.Sort(got)
	want = []string{" required", "/a minimum", "/a type", "/b type"}
	if !slices.Equal(got, want) {
		t.Errorf("every cause: leaves %q, want %q", got, want)
	}
	for l := range Leaves(ve, nil) {
		if m := Message(l.ErrorKind); m == "" || strings.ContainsAny(m, "\r\n") {
			t.Errorf("message %q", m)
		}
	}
}

// TestCompileErrors: a schema the metaschema refuses is said as its first
// mistake, at its line and column in the document and its pointer, in the
// words of Validate (a mistyped type name named, the others counted), never
// as the library's tree of allOf and anyOf failures or the document's
// internal URL.
func TestCompileErrors(t *testing.T) {
	for _, tt := range []struct{ doc, want string }{
		{`{"type":"object","properties":{"city":{"type":"strin"}}}`,
			`1:47: schema: /properties/city/type: value must be one of "array", "boolean", "integer", "null", "number", "object", "string"; got "strin"; did you mean "string"`},
		{"{\n  \"properties\": {\"guests\": {\"minimum\": \"1\"}},\n  \"required\": \"guests\"\n}",
			`2:40: schema: /properties/guests/minimum: got string, want number (and 1 more mistake, at /required)`},
		{`{"additionalProperties": "false"}`, `1:26: schema: /additionalProperties: got string, want boolean or object`},
		{`{"type": ["string", "nul"]}`, `1:21: schema: /type/1: value must be one of "array", "boolean", "integer", "null", "number", "object", "string"; got "nul"; did you mean "null"`},
		// a $ref that resolves nowhere: placed, with what a $ref may name
		// (the library named the document's internal URL)
		{`{"properties": {"a": {"$ref": "#/defs/x"}}}`, `1:31: schema: /properties/a/$ref: $ref "#/defs/x" names no place in this document: a $ref names a place in it by a JSON Pointer ("#/$defs/Name") or a schema of it by the $id that schema gives itself; other files are not read`},
		{`{"properties": {"assignee": {"$ref": "Person"}}}`, `1:38: schema: /properties/assignee/$ref: $ref "Person" names no schema of this document: a $ref names a place in it by a JSON Pointer ("#/$defs/Name") or a schema of it by the $id that schema gives itself; other files are not read`},
		{`{"$ref": "definitions/create_shipment", "definitions": {"create_shipment": {}}}`, `1:10: schema: /$ref: $ref "definitions/create_shipment" names no schema of this document: a $ref names a place in it by a JSON Pointer ("#/$defs/Name") or a schema of it by the $id that schema gives itself; other files are not read`},
		{`{"$ref": "#anchor"}`, `1:10: schema: /$ref: $ref "#anchor" names no anchor of this document: a $ref names a place in it by a JSON Pointer ("#/$defs/Name") or a schema of it by the $id that schema gives itself; other files are not read`},
		// a draft fbeval does not compile, or no meta-schema: said so (the
		// library's words were that schemas must be self-contained)
		{`{"$schema": "http://json-schema.org/draft-03/schema#", "type": "object"}`, `1:13: schema: /$schema: $schema "http://json-schema.org/draft-03/schema#" is no meta-schema fbeval compiles: it compiles JSON Schema drafts 4, 6, 7, 2019-09 and 2020-12 ("https://json-schema.org/draft/2020-12/schema", the draft of a schema without $schema): name one of them, or leave $schema out`},
		{`{"$schema": "https://example.com/meta", "type": "object"}`, `1:13: schema: /$schema: $schema "https://example.com/meta" is no meta-schema fbeval compiles: it compiles JSON Schema drafts 4, 6, 7, 2019-09 and 2020-12 ("https://json-schema.org/draft/2020-12/schema", the draft of a schema without $schema): name one of them, or leave $schema out`},
		// not JSON: at its line and column, what an editor or Python put there named
		{"\ufeff{\"type\": \"object\"}", "1:1: schema: invalid JSON: a UTF-8 byte order mark, as Notepad and PowerShell's UTF8 encoding save one: save the file as UTF-8 without it"},
		{"{\n  'type': 'object'}", "2:3: schema: invalid JSON: a string in single quotes, as Python's str() of a dict writes it: JSON strings take double quotes (json.dumps writes them)"},
		{"{\"type\": \"object\",\n \"type\": \"string\"}", `2:2: schema: invalid JSON: duplicate object key "type"`},
	} {
		_, _, err := Compile([]byte(tt.doc))
		var ie *contract.InputError
		if errors.As(err, &ie) {
			ie.File = "s.json" // as the caller names it
			tt.want = "s.json:" + tt.want
		}
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s:\n got %v\nwant %s", tt.doc, err, tt.want)
		}
	}
}

// TestReasons: one reason per mistake, the branches of an anyOf read for the
// one meant, and a oneOf that more than one branch passes said as the library
// says it (it has no branch that failed).
func TestReasons(t *testing.T) {
	s, err := compileDoc(t, NewCompiler(), map[string]any{
		"type": "object",
		"properties": map[string]any{
			"one":  map[string]any{"oneOf": []any{map[string]any{"type": "integer"}, map[string]any{"minimum": 0}}},
			"any":  map[string]any{"anyOf": []any{map[string]any{"type": "string", "minLength": 3}, map[string]any{"type": "integer"}}},
			"list": map[string]any{"anyOf": []any{map[string]any{"enum": []any{"a", "b"}}, map[string]any{"type": "array", "items": map[string]any{"enum": []any{"a", "b"}}}}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Validate(map[string]any{"one": 5, "any": "x", "list": []any{"a", "c"}})
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("no validation error: %v", err)
	}
	var got []string
	for _, r := range Reasons(ve) {
		got = append(got, string(Pointer(r.Loc))+": "+r.Msg)
	}
	slices.Sort(got)
	want := []string{
		`/any: minLength: got 1, want 3`,                  // the string branch: the value is a string
		`/list/1: value must be one of "a", "b"; got "c"`, // inside the list, not "want one of a, b" of the list whole
		`/one: 'oneOf' failed, subschemas 0, 1 matched`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("reasons:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestUnicodeEscapesInPatterns: \uXXXX in a pattern (Pydantic's and Zod's
// [\u4e00-\u9fa5]) means the code point, as in Python's re; an escaped
// backslash before u stays a backslash.
func TestUnicodeEscapesInPatterns(t *testing.T) {
	for _, tt := range []struct {
		pattern, in string
		want        bool
	}{
		{`^[\u4e00-\u9fa5A-Za-z ]+$`, "北京 Beijing", true},
		{`^[\u4e00-\u9fa5]+$`, "Paris", false},
		{`^\U0001F600$`, "😀", true},
		{`^\\u0041$`, `\u0041`, true}, // \\ is a backslash, then u0041
		{`^\\u0041$`, "A", false},
	} {
		re, err := compilePyRegexp(tt.pattern)
		if err != nil {
			t.Errorf("%s: %v", tt.pattern, err)
			continue
		}
		if got := re.MatchString(tt.in); got != tt.want {
			t.Errorf("%s on %q: %v, want %v", tt.pattern, tt.in, got, tt.want)
		}
		if re.(pyRegexp).String() != tt.pattern {
			t.Errorf("%s: String() = %s", tt.pattern, re.(pyRegexp).String())
		}
	}
}
