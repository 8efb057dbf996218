package toolcall

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/fbeval/fbeval/contract/strictjson"
	"github.com/fbeval/fbeval/fixtures/fixturetest"
)

// suiteFiles are the JSON Schema Test Suite files (draft 2020-12) of the keywords
// tool contracts use.
var suiteFiles = []string{
	"type.json", "required.json", "properties.json", "additionalProperties.json",
	"enum.json", "const.json", "minimum.json", "maximum.json", "exclusiveMinimum.json",
	"exclusiveMaximum.json", "multipleOf.json", "minLength.json", "maxLength.json",
	"pattern.json", "optional/format/date.json", "items.json", "minItems.json",
	"maxItems.json", "allOf.json", "anyOf.json", "oneOf.json", "not.json",
	"boolean_schema.json",
}

func suiteDir(t *testing.T) string {
	t.Helper()
	return fixturetest.Interop(t, "json-schema-test-suite", "draft2020-12")
}

// TestJSONSchemaTestSuite runs the official suite's cases for the keywords above:
// every case gets the suite's verdict through the scoring path (Schema.Validate:
// the fast path, then the library) and from the library alone, and wherever the
// fast path decides, it agrees with the library.
func TestJSONSchemaTestSuite(t *testing.T) {
	dir := suiteDir(t)
	var cases, decidedValid, decidedInvalid, deferred int
	for _, name := range suiteFiles {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		doc, err := strictjson.Parse(string(data))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for gi := 0; gi < doc.Len(); gi++ {
			group := doc.Index(gi)
			desc, _ := group.Get("description")
			schemaDoc, _ := group.Get("schema")
			s, err := compileValue(schemaDoc)
			if err != nil {
				t.Errorf("%s: %s: %v", name, desc.Str(), err)
				continue
			}
			tests, _ := group.Get("tests")
			for ti := 0; ti < tests.Len(); ti++ {
				tc := tests.Index(ti)
				tdesc, _ := tc.Get("description")
				inst, _ := tc.Get("data")
				want, _ := tc.Get("valid")
				where := name + ": " + desc.Str() + ": " + tdesc.Str()
				cases++
				lib := s.compiled.Validate(s.instance(inst)) == nil
				if lib != want.Bool() {
					t.Errorf("%s: library says valid=%v, suite %v", where, lib, want.Bool())
				}
				errs := s.Validate(inst)
				if lib := s.validateLib(inst, ""); !reflect.DeepEqual(errs, lib) {
					t.Errorf("%s: the fast path names %q, the library %q", where, errs, lib)
				}
				if (len(errs) == 0) != want.Bool() {
					t.Errorf("%s: Validate gives %d errors, suite says valid=%v", where, len(errs), want.Bool())
				}
				if !want.Bool() && len(errs) > 0 && errs[0].Message == "" {
					t.Errorf("%s: an error without a message", where)
				}
				if s.fast == nil {
					deferred++
					continue
				}
				fast := s.fast.Valid(inst)
				if fast != lib {
					t.Errorf("%s: fast path says valid=%v, library %v", where, fast, lib)
				}
				if fast {
					decidedValid++
				} else {
					decidedInvalid++
				}
			}
		}
	}
	t.Logf("%d cases: the fast path decides %d (%d valid, %d invalid, confirmed by the library) and defers %d (schemas with keywords it lacks)",
		cases, decidedValid+decidedInvalid, decidedValid, decidedInvalid, deferred)
	if cases < 300 {
		t.Fatalf("only %d cases read", cases)
	}
	if decidedValid+decidedInvalid < cases/2 {
		t.Errorf("the fast path decides only %d of %d cases", decidedValid+decidedInvalid, cases)
	}
}
