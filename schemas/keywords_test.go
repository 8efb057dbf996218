package schemas

import (
	"errors"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/contract/strictjson"
)

// TestMisspelt: a key JSON Schema ignores that misspells a keyword that checks
// is found wherever a schema holds schemas; property names, values, the
// keywords of older drafts and OpenAPI, extensions and annotations are not.
func TestMisspelt(t *testing.T) {
	tests := []struct {
		name, doc, ptr, want string
	}{
		{"swapped letters", `{"type":"string","fromat":"date"}`, "/fromat", "format"},
		{"case", `{"Type":"string"}`, "/Type", "type"},
		{"all lower", `{"type":"object","additionalproperties":false}`, "/additionalproperties", "additionalProperties"},
		{"one letter", `{"type":"object","requried":["a"]}`, "/requried", "required"},
		{"plural", `{"enums":["a"]}`, "/enums", "enum"},
		{"under properties", `{"properties":{"city":{"type":"string","minLenght":1}}}`, "/properties/city/minLenght", "minLength"},
		{"under items", `{"items":{"maximun":3}}`, "/items/maximun", "maximum"},
		{"under anyOf", `{"anyOf":[{"type":"string"},{"patern":"^a"}]}`, "/anyOf/1/patern", "pattern"},
		{"under $defs", `{"$defs":{"d":{"minimun":1}}}`, "/$defs/d/minimun", "minimum"},
		{"under not", `{"not":{"Const":1}}`, "/not/Const", "const"},
		{"key with a slash", `{"properties":{"a/b":{"itmes":{}}}}`, "/properties/a~1b/itmes", "items"},
		{"first in document order", `{"requried":[],"fromat":"date"}`, "/requried", "required"},
		{"dollar dropped", `{"ref":"#/$defs/a","$defs":{"a":{}}}`, "/ref", "$ref"},
		{"short keyword by case", `{"NOT":{}}`, "/NOT", "not"},

		{"property named like a typo", `{"properties":{"fromat":{"type":"string"}}}`, "", ""},
		{"values are data", `{"const":{"requried":1},"enum":[{"Type":1}],"default":{"fromat":1},"examples":[{"itmes":1}]}`, "", ""},
		{"note is no not", `{"note":"x","notes":"y","iff":1}`, "", ""},
		{"older drafts and OpenAPI", `{"id":"x","dependencies":{"a":["b"]},"additionalItems":false,"example":1,"nullable":true}`, "", ""},
		{"extensions", `{"x-requried":1,"x-sum":"a"}`, "", ""},
		{"annotation misspelt", `{"descripton":"no check is lost","titel":"t"}`, "", ""},
		{"boolean schemas", `{"properties":{"a":true},"items":false}`, "", ""},
		{"not an object", `true`, "", ""},
		// words built on a keyword are other words (json-schema-to-typescript's
		// tsType, ajv-keywords' typeof), a plural's s aside
		{"built on a keyword", `{"properties":{"when":{"type":"string","tsType":"Date"}},"typeof":"object","dtype":"int","$type":"x","@type":"y"}`, "", ""},
		{"plural", `{"types":"string"}`, "/types", "type"},
		// a plural keyword written singular: three edits from it
		{"singular", `{"type":"object","additionalProperty":false}`, "/additionalProperty", "additionalProperties"},
		{"singular y", `{"patternProperty":{"^a":{}}}`, "/patternProperty", "patternProperties"},
		{"singular items", `{"prefixItem":[{}]}`, "/prefixItem", "prefixItems"},
	}
	for _, tt := range []struct{ doc, ptr, want string }{
		{`{"type":"string","format":"dat"}`, "/format", "date"},
		{`{"properties":{"at":{"format":"date_time"}}}`, "/properties/at/format", "date-time"},
		{`{"items":{"format":"Email"}}`, "/items/format", "email"},
		{`{"format":"date"}`, "", ""},
		{`{"format":"int64"}`, "", ""},           // OpenAPI's
		{`{"format":"currency-code"}`, "", ""},   // one's own, near none
		{`{"const":{"format":"dat"}}`, "", ""},   // data, not a schema
		{`{"properties":{"format":{}}}`, "", ""}, // a property named format
		{`{"format":"date-tim"}`, "/format", "date-time"},
		{`{"format":"DateTime"}`, "/format", "date-time"},
		// other tools' formats, and one's own near one: no typos
		{`{"format":"ulid"}`, "", ""}, // Zod
		{`{"format":"url"}`, "", ""},  // ajv-formats
		{`{"format":"guid"}`, "", ""}, // NJsonSchema
		{`{"format":"cuid2"}`, "", ""},
		{`{"format":"json"}`, "", ""},
		{`{"format":"uuid4"}`, "", ""},
		// two letters swapped, a four-letter format's last letter wrong
		{`{"format":"emial"}`, "/format", "email"},
		{`{"format":"tiem"}`, "/format", "time"},
		{`{"format":"data"}`, "/format", "date"},
		{`{"format":"rate"}`, "", ""}, // a word of one's own
		{`{"format":"byte"}`, "", ""}, // OpenAPI's
	} {
		doc, err := strictjson.Parse(tt.doc)
		if err != nil {
			t.Fatal(err)
		}
		if ptr, _, want := MisspeltFormat(doc); ptr != tt.ptr || want != tt.want {
			t.Errorf("%s: MisspeltFormat = %q, %q; want %q, %q", tt.doc, ptr, want, tt.ptr, tt.want)
		}
	}
	for _, tt := range tests {
		doc, err := strictjson.Parse(tt.doc)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		ptr, _, want := Misspelt(doc)
		if ptr != tt.ptr || want != tt.want {
			t.Errorf("%s: Misspelt = %q, %q; want %q, %q", tt.name, ptr, want, tt.ptr, tt.want)
		}
	}
}

// TestCompileMisspelt: a schema file with a misspelt keyword is refused at the
// key's value, its line and column, with the keyword meant and the way to keep
// a keyword of one's own.
func TestCompileMisspelt(t *testing.T) {
	data := []byte("{\n  \"type\": \"object\",\n  \"properties\": {\"date\": {\"type\": \"string\", \"fromat\": \"date\"}}\n}\n")
	_, _, err := Compile(data)
	var ie *contract.InputError
	if !errors.As(err, &ie) || ie.Line != 3 || ie.Col != 55 {
		t.Fatalf("got %#v, want an input error at 3:55", err)
	}
	if want := `schema: /properties/date/fromat: not a JSON Schema keyword, so it checks nothing: did you mean "format"? (a keyword of your own starts "x-")`; !strings.Contains(err.Error(), want) {
		t.Errorf("got %v\nwant %s", err, want)
	}
	if _, _, err := Compile([]byte(`{"type":"string","x-fromat":"date"}`)); err != nil {
		t.Errorf("an extension's keyword: %v", err)
	}
	// OpenAPI's nullable: the author meant null to pass, JSON Schema refuses it
	_, _, err = Compile([]byte(`{"type":"object","properties":{"note":{"type":"string","nullable":true}}}`))
	if err == nil || !strings.Contains(err.Error(), `schema: /properties/note/nullable: nullable is OpenAPI's, which JSON Schema ignores, so null is refused here all the same`) {
		t.Errorf("nullable: %v", err)
	}
	for _, ok := range []string{`{"type":"string","nullable":false}`, `{"type":["string","null"],"nullable":true}`,
		// no type: an anyOf, an enum, a const say what passes
		`{"anyOf":[{"type":"string"},{"type":"null"}],"nullable":true}`, `{"enum":["gold",null],"nullable":true}`, `{"minLength":1,"nullable":true}`} {
		if _, _, err := Compile([]byte(ok)); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}

// FuzzCompile: any schema file compiles or fails with one line, never a
// panic; a mistake placed in the file is at a line and column inside it, and
// a schema that compiles names no misspelt keyword.
func FuzzCompile(f *testing.F) {
	f.Add([]byte(`{"type":"object","properties":{"a":{"type":"string","format":"date"}},"required":["a"]}`))
	f.Add([]byte(`{"type":"string","fromat":"date"}`))
	f.Add([]byte(`{"anyOf":[{"minimun":1},{"$ref":"#/$defs/x"}],"$defs":{"x":{"Type":"null"}}}`))
	f.Add([]byte("{\n  \"properties\": {\"a/b\": {\"itmes\": {}}}\n}"))
	f.Add([]byte(`{"type":5}`))
	f.Add([]byte(`true`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, doc, err := Compile(data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			var ie *contract.InputError
			if errors.As(err, &ie) && (ie.Line < 1 || ie.Col < 1 || ie.Line > strings.Count(string(data), "\n")+1) {
				t.Fatalf("placed at %d:%d, outside the file: %v", ie.Line, ie.Col, err)
			}
			return
		}
		if s == nil {
			t.Fatal("no schema and no error")
		}
		if ptr, _, _ := Misspelt(doc); ptr != "" {
			t.Fatalf("compiled with a misspelt keyword at %s", ptr)
		}
	})
}

// TestMisspeltVocabulary: in a schema whose $schema names a meta-schema with
// registered keywords, an x- key near one of them is its misspelling; other x-
// keys, and x- keys in a schema that names no such meta-schema, are left alone.
func TestMisspeltVocabulary(t *testing.T) {
	const meta = "https://example.test/meta/v1"
	RegisterKeywords(meta, []string{"x-total", "x-rank"})
	doc := func(s string) strictjson.Value {
		v, err := strictjson.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	err := misspeltError(doc(`{"$schema":"` + meta + `#","x-totl":1,"x-note":"mine"}`))
	var me *MetaschemaError
	if !errors.As(err, &me) || me.Pointer != "/x-totl" || !strings.Contains(me.Msg, `not a keyword of the vocabulary of `+meta+`, so it checks nothing: did you mean "x-total"?`) {
		t.Errorf("got %v", err)
	}
	if err := misspeltError(doc(`{"$schema":"` + meta + `","x-total":1,"x-note":"mine"}`)); err != nil {
		t.Errorf("keywords and another x- key: %v", err)
	}
	if err := misspeltError(doc(`{"x-totl":1}`)); err != nil {
		t.Errorf("no vocabulary named: %v", err)
	}
	// two edits from a keyword, or built on one: an extension of one's own
	// (Replicate's x-order beside x-ordered)
	RegisterKeywords(meta+"/2", []string{"x-ordered"})
	if err := misspeltError(doc(`{"$schema":"` + meta + `/2","properties":{"a":{"x-order":0}}}`)); err != nil {
		t.Errorf("x-order: %v", err)
	}
	// two letters swapped is a typo
	if err := misspeltError(doc(`{"$schema":"` + meta + `/2","x-odrered":{}}`)); err == nil || !strings.Contains(err.Error(), `did you mean "x-ordered"`) {
		t.Errorf("x-odrered: %v", err)
	}
}
