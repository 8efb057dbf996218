package relations

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/schemas"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

func TestParseContractErrors(t *testing.T) {
	wrap := func(schema string) string {
		return `{"schema_version":"fbeval-contract/v1","id":"t","version":"1","schema":` + schema + `}`
	}
	cases := []struct{ name, data, want string }{
		{"not json", `{`, "c.json:1:2: invalid JSON: the file ends inside a JSON value"},
		{"duplicate key", `{"id":"a","id":"b"}`, `c.json:1:11: invalid JSON: the member "id" is given twice in one object: give it once (JSON readers keep one or the other)`},
		{"text after", `{"id":"a"} {"id":"b"}`, "c.json:1:12: invalid JSON: text after the JSON value: give one JSON value"},
		{"byte order mark", "\ufeff{\"id\":\"a\"}", "c.json:1:1: invalid JSON: a UTF-8 byte order mark, as Notepad and PowerShell's UTF8 encoding save one: save the file as UTF-8 without it"},
		{"empty", " \n", "c.json: invalid JSON: empty, no JSON value"},
		{"comma before the end", "{\"id\": \"a\",\n}", "c.json:1:11: invalid JSON: a comma before the closing '}', which JSON does not allow: remove it"},
		{"comment", "{\"id\": \"a\" /* mine */}", "c.json:1:12: invalid JSON: a comment, which JSON does not have: remove it"},
		{"wrong version", `{"schema_version":"x","id":"t","version":"1","schema":{}}`, "schema_version"},
		{"a study file", `{"schema_version":"fbeval-study/v1","suite":"toolcall","repeats":2}`, "c.json: this is a study file (fbeval-study/v1), not an fbeval contract (fbeval-contract/v1): give a file of that kind (docs/contracts.md)"},
		{"a response file", "{\"schema_version\":\"fbeval-response/v1\",\"request_id\":\"a\",\"output\":\"x\"}\n{\"request_id\":\"b\",\"output\":\"y\"}\n", "c.json: this is a response file (fbeval-response/v1), not an fbeval contract"},
		{"unknown field", `{"schema_version":"fbeval-contract/v1","id":"t","version":"1","schema":{},"extra":1}`, `c.json:1:83: unknown field "extra" (a contract's fields are bindings, description, id, schema, schema_version, version)`},
		{"unknown field near a known one", `{"schema_version":"fbeval-contract/v1","id":"t","version":"1","schema":{},"binding":{}}`, `unknown field "binding" (a contract's fields are bindings, description, id, schema, schema_version, version); did you mean bindings`},
		{"a JSON Schema alone", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{}}`, `c.json:1:1: this is a JSON Schema, not an fbeval contract (fbeval-contract/v1): a contract holds a schema in "schema" beside its id and version`},
		{"no id", `{"schema_version":"fbeval-contract/v1","version":"1","schema":{}}`, "id must be"},
		{"bad binding", `{"schema_version":"fbeval-contract/v1","id":"t","version":"1","schema":{},"bindings":{"a":"/b"}}`, "must be empty or start with /"},
		{"unknown op", wrap(`{"properties":{"p":{"x-compare":[{"left":"/a","op":"lt2","right":"/b"}]}}}`), "x-compare"},
		{"bad pointer", wrap(`{"x-sum":{"target":"total","of":"/l","field":"/a"}}`), "x-sum"},
		{"bad escape", wrap(`{"x-count":{"target":"/a~2","of":"/l"}}`), "x-count at #/x-count: target: pointer \"/a~2\" has a bad ~ escape"},
		{"bad expr", wrap(`{"x-decimal":{"target":"/t","expr":"{/a} * (2"}}`), "x-decimal at #/x-decimal: bad expr"},
		{"wildcard not allowed", wrap(`{"x-sum":{"target":"/t","of":"/l/*","field":"/a"}}`), "wildcard"},
		{"unknown rounding", wrap(`{"x-decimal":{"target":"/t","expr":"1","rounding":"bankers"}}`), "x-decimal"},
		{"tensor dims unknown name", wrap(`{"x-tensor":{"shape":["n"],"dims":{"m":"/m"}}}`), "x-tensor at #/x-tensor: dims names \"m\""},
		// a mistake in the schema at its line and column in the contract file
		{"not a schema", "{\"schema_version\":\"fbeval-contract/v1\",\"id\":\"t\",\"version\":\"1\",\n\"schema\":{\"properties\":{\"t\":{\"type\":\"nubmer\"}}}}", `c.json:2:37: schema: /properties/t/type: value must be one of "array", "boolean", "integer", "null", "number", "object", "string"; got "nubmer"; did you mean "number"`},
		{"relation keyword at its place", "{\"schema_version\":\"fbeval-contract/v1\",\"id\":\"t\",\"version\":\"1\",\n\"schema\":{\"x-sum\":{\"target\":\"/t\",\"of\":5,\"field\":\"/a\"}}}", `c.json:2:39: schema: /x-sum/of: got number, want string`},
		{"bad pointer at its place", "{\"schema_version\":\"fbeval-contract/v1\",\"id\":\"t\",\"version\":\"1\",\n\"schema\":{\"x-sum\":{\"target\":\"total\",\"of\":\"/l\",\"field\":\"/a\"}}}", `c.json:2:29: schema: /x-sum/target: 'total' does not match pattern`},
		// a key JSON Schema and the vocabulary ignore, a misspelling of one
		// that checks: it would check nothing
		{"misspelt keyword", "{\"schema_version\":\"fbeval-contract/v1\",\"id\":\"t\",\"version\":\"1\",\n\"schema\":{\"properties\":{\"t\":{\"minimun\":0}}}}", `c.json:2:40: schema: /properties/t/minimun: not a JSON Schema keyword nor a relation keyword, so it checks nothing: did you mean "minimum"?`},
		{"relation keyword without its x-", "{\"schema_version\":\"fbeval-contract/v1\",\"id\":\"t\",\"version\":\"1\",\n\"schema\":{\"type\":\"object\",\"properties\":{\"l\":{\"type\":\"array\",\"uniqueKeys\":[\"/sku\"]}}}}", `c.json:2:74: schema: /properties/l/uniqueKeys: not a JSON Schema keyword nor a relation keyword, so it checks nothing: did you mean "x-uniqueKeys"?`},
		{"relation keyword with x_", "{\"schema_version\":\"fbeval-contract/v1\",\"id\":\"t\",\"version\":\"1\",\n\"schema\":{\"x_count\":{\"target\":\"/t\",\"of\":\"/l\"}}}", `schema: /x_count: not a JSON Schema keyword nor a relation keyword, so it checks nothing: did you mean "x-count"?`},
		{"a binding's pointer", "{\"schema_version\":\"fbeval-contract/v1\",\"id\":\"t\",\"version\":\"1\",\"schema\":{},\n\"bindings\":{\"/b\":\"x\",\"/a\":\"y\"}}", `c.json:2:27: bindings "/a": pointer "y" must be empty or start with /`},
		{"another version", "{\"schema_version\":\"fbeval-contract/v2\",\"id\":\"t\",\"version\":\"1\",\"schema\":{}}", `c.json:1:19: schema_version must be "fbeval-contract/v1" (the version this fbeval reads), got "fbeval-contract/v2"`},
		{"a remote $ref", "{\"schema_version\":\"fbeval-contract/v1\",\"id\":\"t\",\"version\":\"1\",\n\"schema\":{\"properties\":{\"a\":{\"$ref\":\"https://example.com/a.json\"}}}}", `c.json:2:37: schema: /properties/a/$ref: $ref "https://example.com/a.json" names another document: refused, as a schema must be self-contained`},
		{"misspelt relation keyword", "{\"schema_version\":\"fbeval-contract/v1\",\"id\":\"t\",\"version\":\"1\",\n\"schema\":{\"x-summ\":{\"target\":\"/t\",\"of\":\"/l\",\"field\":\"/a\"}}}", `c.json:2:20: schema: /x-summ: not a JSON Schema keyword nor a relation keyword, so it checks nothing: did you mean "x-sum"?`},
		// a keyword on the other kind of value would check nothing there
		{"array keyword on an object", wrap(`{"type":"object","properties":{"lines":{"type":"array"}},"x-uniqueKeys":[["/sku"]]}`), `schema: x-uniqueKeys at #/x-uniqueKeys: applies to an array, and this schema is an object's: put it on the schema of the array it checks`},
		{"object keyword on an array", wrap(`{"type":"array","x-sum":{"target":"/t","of":"/l","field":"/a"}}`), `schema: x-sum at #/x-sum: applies to an object, and this schema is an array's: put it on the schema of the object it checks`},
		{"misspelt in where", wrap(`{"type":"object","x-count":{"target":"/n","of":"/l","where":{"minimun":1}}}`), `schema: /x-count/where/minimun: not a JSON Schema keyword nor a relation keyword, so it checks nothing: did you mean "minimum"?`},
		{"op written as a symbol", wrap(`{"x-compare":[{"left":"/a","op":"<=","right":"/b"}]}`), `schema: /x-compare/0/op: value must be one of "lt", "le", "eq", "ne", "ge", "gt"; got "<="`},
		{"array keyword on a string", wrap(`{"type":"string","x-uniqueKeys":[["/sku"]]}`), `schema: x-uniqueKeys at #/x-uniqueKeys: applies to an array, and this schema is a string's`},
		{"transposed relation keyword", wrap(`{"type":"object","x-comapre":[{"left":"/a","op":"lt","right":"/b"}]}`), `did you mean "x-compare"?`},
		{"remote ref refused", wrap(`{"$ref":"https://example.com/s.json"}`), "refused"},
		{"file ref refused", wrap(`{"$ref":"file:///etc/passwd"}`), "refused"},
		{"other document refused", wrap(`{"$ref":"other.json"}`), "refused"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseContract("c.json", []byte(tc.data))
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "c.json:") {
				t.Fatalf("error %q, want one line starting with the file and containing %q", msg, tc.want)
			}
		})
	}
}

func TestContractHashCanonical(t *testing.T) {
	a, err := ParseContract("a", []byte(`{"schema_version":"fbeval-contract/v1","id":"t","version":"1","schema":{"type":"object","title":"x"}}`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := ParseContract("b", []byte("{\n \"version\": \"1\", \"id\": \"t\",\n \"schema\": {\"title\": \"x\", \"type\": \"object\"}, \"schema_version\": \"fbeval-contract/v1\"}"))
	if err != nil {
		t.Fatal(err)
	}
	if a.Hash != b.Hash || len(a.Hash) != 64 {
		t.Fatalf("hashes %s %s", a.Hash, b.Hash)
	}
	c, _ := ParseContract("c", []byte(`{"schema_version":"fbeval-contract/v1","id":"t","version":"1","schema":{"type":"object","title":"y"}}`))
	if c.Hash == a.Hash {
		t.Fatal("different contracts share a hash")
	}
}

func TestRegistry(t *testing.T) {
	dir := t.TempDir()
	write := func(name, title string) {
		data := `{"schema_version":"fbeval-contract/v1","id":"t","version":"1","schema":{"title":"` + title + `"}}`
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.json", "x")
	write("b.json", "x") // identical copy is fine
	r, err := LoadRegistry(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r.Get("t", "1") == nil || len(r.Contracts()) != 1 {
		t.Fatal("contract not registered once")
	}
	write("c.json", "y")
	_, err = LoadRegistry(dir)
	if err == nil || !strings.Contains(err.Error(), "already defined differently in") {
		t.Fatalf("err = %v", err)
	}
}

func TestNewCompilerDeclaredVocabulary(t *testing.T) {
	compile := func(schema string) *jsonschema.Schema {
		t.Helper()
		c := schemas.NewCompiler(Vocabulary)
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(schema))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.AddResource("urn:test", doc); err != nil {
			t.Fatal(err)
		}
		s, err := c.Compile("urn:test")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	inst, _ := jsonschema.UnmarshalJSON(strings.NewReader(`{"a":2,"b":1}`))
	declared := compile(`{"$schema":"` + MetaSchemaURL + `","x-compare":[{"left":"/a","op":"lt","right":"/b"}]}`)
	err := declared.Validate(inst)
	if err == nil || !strings.Contains(err.Error(), "does not hold") {
		t.Fatalf("declared vocabulary not enforced: %v", err)
	}
	plain := compile(`{"$schema":"https://json-schema.org/draft/2020-12/schema","x-compare":[{"left":"/a","op":"lt","right":"/b"}]}`)
	if err := plain.Validate(inst); err != nil {
		t.Fatalf("undeclared vocabulary enforced: %v", err)
	}
	// Formats are asserted.
	f := compile(`{"format":"date"}`)
	if f.Validate("not a date") == nil {
		t.Fatal("format not asserted")
	}
	// dims need a contract.
	c := schemas.NewCompiler(Vocabulary)
	doc, _ := jsonschema.UnmarshalJSON(strings.NewReader(`{"$schema":"` + MetaSchemaURL + `","x-tensor":{"shape":["n"],"dims":{"n":"/n"}}}`))
	_ = c.AddResource("urn:t", doc)
	if _, err := c.Compile("urn:t"); err == nil || !strings.Contains(err.Error(), "contract") {
		t.Fatalf("dims accepted outside a contract: %v", err)
	}
}

func TestContextAndBindings(t *testing.T) {
	c, err := ParseContract("c", []byte(`{"schema_version":"fbeval-contract/v1","id":"t","version":"1",
		"schema":{"type":"object"},"bindings":{"/customer":"/customer/id","/currency":"/currency"}}`))
	if err != nil {
		t.Fatal(err)
	}
	ctx := func(version int, approved bool) *Context {
		return &Context{Version: version, Approved: approved, Facts: map[string]any{
			"customer": map[string]any{"id": "C-1"}, "currency": "EUR"}}
	}
	three := 3
	two := 2
	cases := []struct {
		name     string
		out      string
		ctx      *Context
		opts     CheckOptions
		verdict  string
		semantic string
		codes    []string
	}{
		{"match", `{"customer":"C-1","currency":"EUR"}`, ctx(3, true), CheckOptions{ContextVersion: &three}, Pass, Pass, nil},
		{"mismatch", `{"customer":"C-2","currency":"EUR"}`, ctx(3, true), CheckOptions{}, Fail, Fail, []string{"STATE_MISMATCH /customer"}},
		{"missing output", `{"currency":"EUR"}`, ctx(3, true), CheckOptions{}, Fail, Fail, []string{"STATE_MISMATCH /customer"}},
		{"unapproved never passes", `{"customer":"C-1","currency":"EUR"}`, ctx(3, false), CheckOptions{}, NotChecked, NotChecked, nil},
		{"no context", `{"customer":"C-1","currency":"EUR"}`, nil, CheckOptions{}, NotChecked, NotChecked, nil},
		{"stale", `{"customer":"C-1","currency":"EUR"}`, ctx(3, true), CheckOptions{ContextVersion: &two}, Fail, NotChecked, []string{"STALE_CONTEXT "}},
		{"schema failure beats unapproved", `[]`, ctx(3, false), CheckOptions{}, Fail, NotChecked, []string{"SCHEMA_VIOLATION "}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := c.Check([]byte(tc.out), tc.ctx, tc.opts)
			got := codes(r)
			if r.Verdict != tc.verdict || r.Semantic != tc.semantic || strings.Join(got, ";") != strings.Join(tc.codes, ";") {
				t.Fatalf("got %s/%s %q, want %s/%s %q", r.Verdict, r.Semantic, got, tc.verdict, tc.semantic, tc.codes)
			}
		})
	}
}

// TestStateMismatchText: a mismatch says how the values differ where each
// alone says little: two arrays or objects at the first place they differ
// (both read "array"), two strings that read alike by their Unicode form, the
// root as the output or the facts (it read " is ...").
func TestStateMismatchText(t *testing.T) {
	for _, tt := range []struct{ out, fact, facts, output, want string }{
		{"/items", "/cart", `{"cart":[{"sku":"A","qty":1},{"sku":"B","qty":2}]}`, `{"items":[{"sku":"A","qty":1},{"sku":"B","qty":3}]}`,
			"/items is array, the fact at /cart is array: they differ first at /items/1/qty, 3, the fact's 2"},
		{"/items", "/cart", `{"cart":[1,2]}`, `{"items":[1,2,3]}`,
			"/items is array, the fact at /cart is array: they differ first at /items, 3 items, the fact's 2"},
		{"/who", "/who", `{"who":{"a/b":1,"name":"x"}}`, `{"who":{"name":"x"}}`,
			"/who is object, the fact at /who is object: they differ first at /who/a~1b, missing, the fact's 1"},
		{"/who", "/who", `{"who":{"name":"x"}}`, `{"who":{"name":"x","role":"y"}}`,
			`/who is object, the fact at /who is object: they differ first at /who/role, "y", which the fact lacks`},
		{"/city", "/city", `{"city":"Café"}`, `{"city":"Café"}`,
			"/city is \"Caf\u00e9\", the fact at /city is \"Cafe\u0301\" (the same text in another Unicode normalization form, NFC against NFD: normalize both to compare them as equal)"},
		{"", "/order", `{"order":{"n":1}}`, `{"n":2}`,
			"the output is object, the fact at /order is object: they differ first at /n, 2, the fact's 1"},
	} {
		c, err := ParseContract("c", []byte(`{"schema_version":"fbeval-contract/v1","id":"t","version":"1","schema":{},"bindings":{"`+tt.out+`":"`+tt.fact+`"}}`))
		if err != nil {
			t.Fatal(err)
		}
		var facts map[string]any
		dec := json.NewDecoder(strings.NewReader(tt.facts))
		dec.UseNumber()
		if err := dec.Decode(&facts); err != nil {
			t.Fatal(err)
		}
		r := c.Check([]byte(tt.output), &Context{Version: 1, Approved: true, Facts: facts}, CheckOptions{})
		if len(r.Errors) != 1 || r.Errors[0].Message != tt.want {
			t.Errorf("%s:\n got %+v\nwant %s", tt.output, r.Errors, tt.want)
		}
	}
}

func TestParseContext(t *testing.T) {
	good := `{"version":4,"approved":true,"facts":{"a":1.50}}`
	c, err := ParseContext("x", []byte(good))
	if err != nil || c.Version != 4 || !c.Approved {
		t.Fatalf("%v %+v", err, c)
	}
	for _, bad := range []string{`{"version":1.5,"approved":true,"facts":{}}`, `{"version":1,"facts":{}}`,
		`{"version":1,"approved":true}`, `{"version":1,"approved":true,"facts":{},"x":1}`, `[]`} {
		if _, err := ParseContext("x", []byte(bad)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
	// an unknown field at its place, the one meant named; the facts alone (or
	// an output) given as the context said to be no context; the same first
	// field named whatever the map's order
	for _, tc := range []struct{ in, want string }{
		{`{"version": 3, "approved": true, "fact": {}}`, `x:1:42: unknown field "fact" (a context's fields are approved, description, facts, version); did you mean facts`},
		{`{"customer": {"id": "C-1"}, "currency": "EUR"}`, `x:1:41: unknown field "currency": this is no context, which holds its approved facts in "facts" beside its version and approved ({"version": 1, "approved": true, "facts": {...}}, docs/contracts.md)`},
	} {
		for range 5 {
			if _, err := ParseContext("x", []byte(tc.in)); err == nil || err.Error() != tc.want {
				t.Errorf("%s: %v\nwant %s", tc.in, err, tc.want)
				break
			}
		}
	}
	// the contract given as the context (the two flags swapped) says so
	_, err = ParseContext("c.json", []byte(`{"schema_version":"fbeval-contract/v1","id":"t","version":"1","schema":{}}`))
	if want := "c.json: this is an fbeval contract (fbeval-contract/v1), not an approved context ({version, approved, facts}): give a file of that kind (docs/contracts.md)"; err == nil || err.Error() != want {
		t.Errorf("contract as context: %v, want %s", err, want)
	}
}

func TestAssemble(t *testing.T) {
	c := mustContract(t, `{"type":"object","properties":{"lines":{"type":"array"},"total":{"type":"number"}},
		"x-sum":{"target":"/total","of":"/lines","field":"/amount","compute":"application"},
		"x-count":{"target":"/n","of":"/lines","compute":"application"},
		"x-product":{"target":"/grand","factors":["/total","/n"],"compute":"application"}}`)
	out, r, err := c.Assemble([]byte(`{"lines":[{"amount":0.1},{"amount":0.2}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != `{"grand":0.6,"lines":[{"amount":0.1},{"amount":0.2}],"n":2,"total":0.3}` {
		t.Fatalf("assembled %s", out)
	}
	if r.Verdict != Pass || r.Stage != "assembled" || r.Raw == nil || r.Raw.Stage != "raw" || len(r.Inserted) != 3 {
		t.Fatalf("result %+v", r)
	}
	// A wrong value the model gave is kept and fails; the raw result says so too.
	_, r, _ = c.Assemble([]byte(`{"lines":[{"amount":0.1},{"amount":0.2}],"total":0.30000000000000004}`))
	if r.Verdict != Fail || r.Raw.Verdict != Fail || codes(r)[0] != "SUM_MISMATCH /total,/lines" {
		t.Fatalf("got %q", codes(r))
	}
	// Check alone leaves omitted computed targets alone.
	if r := c.Check([]byte(`{"lines":[]}`), nil, CheckOptions{}); r.Verdict != Pass {
		t.Fatalf("check of raw output: %q", codes(r))
	}
	// a place whose object is absent: said so (it said the parent was no object)
	nested := mustContract(t, `{"type":"object","properties":{"lines":{"type":"array"},"summary":{"type":"object","properties":{"n":{"type":"integer"}}}},
		"x-count":{"target":"/summary/n","of":"/lines","compute":"application"}}`)
	if _, r, _ := nested.Assemble([]byte(`{"lines":[1]}`)); len(r.Errors) != 1 || r.Errors[0].Message != "cannot insert at /summary/n: the object it goes in, /summary, is absent from the output (the application computes the value, not the object that holds it)" {
		t.Errorf("absent parent: %+v", r.Errors)
	}
	_, r, err = c.Assemble([]byte(`{`))
	if err == nil || r.Verdict != Fail {
		t.Fatal("invalid JSON assembled")
	}
}

func TestLint(t *testing.T) {
	c := mustContract(t, `{"type":"object","required":["total"],
		"properties":{"total":{"type":"number"},"name":{"type":"string"},"lines":{"type":"array","items":{"properties":{"id":{}}},"x-uniqueKeys":[["/sku"]]}},
		"x-compare":[{"left":"/total","op":"lt","right":"/name"}],
		"x-sum":{"target":"/total","of":"/lines","field":"/amount","compute":"application"},
		"x-frobnicate":1}`)
	var got []string
	for _, f := range Lint(c) {
		got = append(got, f.Severity+" "+f.Code+" "+f.Location)
	}
	want := []string{
		"warning UNRESOLVED_POINTER #/properties/lines/x-uniqueKeys/0",
		"error INCOMPATIBLE_COMPARE #/x-compare/0",
		"error UNKNOWN_KEYWORD #/x-frobnicate",
		"error COMPUTED_REQUIRED #/x-sum",
		// x-sum's field, into each item of /lines, names none of the items' properties
		"warning UNRESOLVED_POINTER #/x-sum",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestResultOutput(t *testing.T) {
	c := mustContract(t, `{"x-compare":[{"left":"/a","op":"lt","right":"/b"}]}`)
	r := c.Check([]byte(`{"a":2,"b":1}`), nil, CheckOptions{})
	var text, js strings.Builder
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if text.String() != "FAIL\nCOMPARE_FAILED /a, /b: /a < /b does not hold: 2 vs 1\n" {
		t.Fatalf("text %q", text.String())
	}
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"verdict": "FAIL"`, `"expected": "/a < /b"`, `"actual": [`, `"scope": "the implemented checks passed`} {
		if !strings.Contains(js.String(), want) {
			t.Errorf("JSON lacks %s:\n%s", want, js.String())
		}
	}
	r = c.Check([]byte(`{"a":1,"b":2}`), nil, CheckOptions{})
	text.Reset()
	r.WriteText(&text)
	if !strings.HasPrefix(text.String(), "PASS: the implemented checks passed") {
		t.Fatalf("text %q", text.String())
	}
}

// An output that is not one JSON value is INVALID_JSON at its line and column,
// as a toolcall output's JSON_INVALID is, with what JSON does not allow there
// named: no library prefix, no bare "EOF".
func TestCheckInvalidJSON(t *testing.T) {
	c := mustContract(t, `{"type":"object"}`)
	for _, tt := range []struct{ output, want string }{
		{`{"a":1,}`, "invalid JSON at line 1, column 7 (offset 6): a comma before the closing '}', which JSON does not allow: remove it"},
		{"{\n \"a\": 1", "invalid JSON at line 2, column 8 (offset 9): the text ends inside a JSON value"},
		{`{"a":1}x`, "invalid JSON at line 1, column 8 (offset 7): text after the JSON value: give one JSON value"},
		{"{\"a\":1}\n{\"a\":2}", "invalid JSON at line 2, column 1 (offset 8): text after the JSON value: give one JSON value"},
		{`{'a': 1}`, "invalid JSON at line 1, column 2 (offset 1): a string in single quotes, as Python's str() of a dict writes it: JSON strings take double quotes (json.dumps writes them)"},
		{`{"a":1,"a":2}`, `invalid JSON at line 1, column 8 (offset 7): the member "a" is given twice in one object: give it once (JSON readers keep one or the other)`},
		{"\ufeff{}", "invalid JSON at line 1, column 1 (offset 0): a UTF-8 byte order mark, as Notepad and PowerShell's UTF8 encoding save one: save the file as UTF-8 without it"},
		{`{"a":NaN}`, "invalid JSON at line 1, column 6 (offset 5): NaN or Infinity, which JSON does not have (Python's json.dumps writes them for a float nan, a dataframe's missing value): write null (json.dumps(..., allow_nan=False) refuses them; pandas' to_json writes null)"},
		{"", "invalid JSON: empty, no JSON value"},
		{" \n\t", "invalid JSON: empty, no JSON value"},
	} {
		r := c.Check([]byte(tt.output), nil, CheckOptions{})
		if len(r.Errors) != 1 || r.Errors[0].Code != CodeInvalidJSON || r.Errors[0].Message != tt.want {
			t.Errorf("Check(%q) = %+v\nwant INVALID_JSON %q", tt.output, r.Errors, tt.want)
		}
	}
	// one value and white space after it is JSON
	if r := c.Check([]byte("{\"a\": 1}\n\n"), nil, CheckOptions{}); r.Verdict != "PASS" {
		t.Errorf("a value and a newline: %+v", r.Errors)
	}
}

// TestSchemaMisspeltRelationKeyword: a tool's schema that names the relations
// meta-schema and misspells a relation keyword is refused where it is compiled
// (a dataset's referenceSchema, a --schema file): it would check nothing.
func TestSchemaMisspeltRelationKeyword(t *testing.T) {
	data := []byte(`{"$schema":"` + MetaSchemaURL + `","type":"object","x-summ":{"target":"/t","of":"/l","field":"/a"}}`)
	_, _, err := schemas.Compile(data, Vocabulary)
	if err == nil || !strings.Contains(err.Error(), `schema: /x-summ: not a keyword of the vocabulary of `+MetaSchemaURL+`, so it checks nothing: did you mean "x-sum"?`) {
		t.Errorf("got %v", err)
	}
	if _, _, err := schemas.Compile([]byte(`{"$schema":"`+MetaSchemaURL+`","x-sum":{"target":"/t","of":"/l","field":"/a"}}`), Vocabulary); err != nil {
		t.Errorf("the keyword itself: %v", err)
	}
	// a relation keyword's own mistake in a schema file, at its line and column
	data = []byte("{\"$schema\":\"" + MetaSchemaURL + "\",\n \"type\":\"object\",\n \"x-uniqueKeys\":[[\"/sku\"]]}")
	var ie *contract.InputError
	if _, _, err := schemas.Compile(data, Vocabulary); !errors.As(err, &ie) || ie.Line != 3 || !strings.Contains(err.Error(), "schema: /x-uniqueKeys: x-uniqueKeys: applies to an array, and this schema is an object's") {
		t.Errorf("placed: %#v", err)
	}
	// a relation keyword in a schema that does not name the meta-schema is
	// ignored by JSON Schema: it would check nothing (a keyword copied from a
	// contract, where the vocabulary is always on)
	for _, meta := range []string{``, `"$schema":"https://json-schema.org/draft/2020-12/schema",`} {
		data := []byte(`{` + meta + `"type":"object","properties":{"guests":{"type":"integer"}},"x-compare":[{"left":"/guests","op":"le","right":{"const":2}}]}`)
		_, _, err := schemas.Compile(data, Vocabulary)
		if err == nil || !strings.Contains(err.Error(), `schema: /x-compare: x-compare is a keyword of the vocabulary of `+MetaSchemaURL+`, which this schema's $schema does not name, so it checks nothing: add "$schema": "`+MetaSchemaURL+`" at the schema's top`) {
			t.Errorf("%s: got %v", meta, err)
		}
	}
}

// TestLintCompareKinds: x-compare's lint names the types as the schema
// declares them; a date and a date-time compare as instants.
func TestLintCompareKinds(t *testing.T) {
	for _, tc := range []struct{ left, right, want, as string }{
		{`{"type":"string","format":"date"}`, `{"type":"number"}`, "declared date vs number always fails", ""},
		{`{"type":"string","format":"date-time"}`, `{"type":"boolean"}`, "declared date-time vs boolean always fails", ""},
		{`{"type":"integer"}`, `{"type":"string"}`, "declared integer vs string always fails", ""},
		{`{"type":"string","format":"decimal"}`, `{"type":"string"}`, "declared decimal string vs string always fails", ""},
		{`{"type":"string","format":"date"}`, `{"type":"string","format":"date-time"}`, "", ""},
		{`{"type":"integer"}`, `{"type":"number"}`, "", ""},
		{`{"type":"string","format":"decimal"}`, `{"type":"integer"}`, "", ""},
		// as reads a string side as its kind: compared by value, no lint
		{`{"type":"string","format":"decimal"}`, `{"type":"string"}`, "", "decimal"},
		{`{"type":"string"}`, `{"type":"string","format":"date-time"}`, "", "date"},
		{`{"type":"boolean"}`, `{"type":"string"}`, "declared boolean vs string always fails", "decimal"},
	} {
		as := ""
		if tc.as != "" {
			as = `,"as":"` + tc.as + `"`
		}
		c := mustContract(t, `{"properties":{"a":`+tc.left+`,"b":`+tc.right+`},"x-compare":[{"left":"/a","op":"lt","right":"/b"`+as+`}]}`)
		got := ""
		for _, f := range Lint(c) {
			if f.Code == "INCOMPATIBLE_COMPARE" {
				got = f.Message
			}
		}
		if !strings.HasSuffix(got, tc.want) || (tc.want == "") != (got == "") {
			t.Errorf("%s vs %s: got %q, want ...%q", tc.left, tc.right, got, tc.want)
		}
	}
}

// TestContractExpansionRefused: a contract whose schema nests anyOf and $ref
// so that each level doubles the work (24 levels: minutes and gigabytes for
// one output) is refused at its line and column, as a tool's schema is.
func TestContractExpansionRefused(t *testing.T) {
	defs := map[string]any{"d24": map[string]any{"not": map[string]any{}}}
	for i := range 24 {
		next := map[string]any{"$ref": fmt.Sprintf("#/$defs/d%d", i+1)}
		defs[fmt.Sprintf("d%d", i)] = map[string]any{"anyOf": []any{next, next}}
	}
	data, _ := json.Marshal(map[string]any{"schema_version": "fbeval-contract/v1", "id": "c", "version": "1", "schema": map[string]any{"$defs": defs, "$ref": "#/$defs/d0"}})
	_, err := ParseContract("c.json", data)
	if err == nil || !strings.Contains(err.Error(), "schema: /$defs/d12: checking one value against it would visit more than 20000 subschemas") || !strings.HasPrefix(err.Error(), "c.json:1:") {
		t.Fatalf("%v", err)
	}
}

// TestLintComputedCycle: computed targets that depend on each other (a from b,
// b from a) can never be computed: a lint error (--assemble computed none and
// passed); computed targets in a chain (each line's sum, then the total of the
// sums) are none.
func TestLintComputedCycle(t *testing.T) {
	cycle := mustContract(t, `{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"},"c":{"type":"number"}},
		"x-product":[{"target":"/a","factors":["/b","/c"],"compute":"application"},{"target":"/b","factors":["/a","/c"],"compute":"application"}]}`)
	var got []string
	for _, f := range Lint(cycle) {
		got = append(got, f.Severity+" "+f.Code+" "+f.Location+": "+f.Message)
	}
	if want := "error COMPUTED_CYCLE #/x-product: computed targets depend on each other (/a <- /b <- /a): none can be computed, and --assemble leaves them out"; !slices.Contains(got, want) {
		t.Errorf("lint %q, want %q among them", got, want)
	}
	chain := mustContract(t, `{"type":"object","properties":{"orders":{"type":"array","items":{"type":"object","properties":{"lines":{"type":"array"},"sum":{"type":"number"}},
		"x-sum":{"target":"/sum","of":"/lines","field":"/amt","compute":"application"}}},"total":{"type":"number"}},
		"x-sum":{"target":"/total","of":"/orders","field":"/sum","compute":"application"}}`)
	for _, f := range Lint(chain) {
		if f.Code == "COMPUTED_CYCLE" {
			t.Errorf("a chain taken for a cycle: %+v", f)
		}
	}
}
