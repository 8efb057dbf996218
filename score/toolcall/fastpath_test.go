package toolcall

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/contract/strictjson"
	"github.com/fbeval/fbeval/fixtures/fixturetest"
	"github.com/fbeval/fbeval/schemas"
)

// fastPathSchemas are schemas whose fast path must agree with the library (on
// validity, and on the errors named where it is invalid): the
// inline tool contracts, a few with other keywords, and, when present, HESchema's 36
// variants.
func fastPathSchemas(t testing.TB) map[string]*Schema {
	t.Helper()
	docs := map[string]string{
		"hotels":   hotelsSchema,
		"payments": paymentsSchema,
		"calendar": `{"type":"object","properties":{"startTime":{"type":"string","pattern":"^([01][0-9]|2[0-3]):[0-5][0-9]$"},"title":{"type":"string","minLength":1,"maxLength":5}},"required":["startTime"]}`,
		"numbers":  `{"type":"object","properties":{"a":{"type":"number","exclusiveMinimum":0.1,"exclusiveMaximum":9.5,"multipleOf":0.5},"b":{"type":["integer","null"],"maximum":12345678901234567890},"c":{"minimum":-1.5}},"additionalProperties":{"type":"string"}}`,
		"arrays":   `{"type":"array","items":{"type":"string","enum":["x","y"]},"minItems":1,"maxItems":3}`,
		"booleans": `{"properties":{"t":true,"f":false}}`,
		"draft7":   `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"d":{"type":"string","format":"date"}}}`,
		"const":    `{"properties":{"a":{"const":1},"b":{"const":{"x":[1,"y",null,true]}},"c":{"enum":[1.5,"s",null,false,[1],{"k":2}]},"d":{"const":12345678901234567890}}}`,
		"logic":    `{"properties":{"a":{"allOf":[{"type":"integer"},{"minimum":2}]},"b":{"anyOf":[{"type":"string","maxLength":2},{"type":"null"}]},"c":{"oneOf":[{"type":"number"},{"type":"integer"}]},"d":{"not":{"enum":["x",1]}}}}`,
	}
	out := map[string]*Schema{}
	for name, doc := range docs {
		s, err := CompileSchema([]byte(doc))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = s
	}
	dir := fixturetest.Interop(t, "heschema", "schemas")
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s, err := CompileSchema(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[filepath.Base(f)] = s
	}
	return out
}

var fastPathInstances = []string{
	hotelArgs,
	`{"city":"Delhi","checkIn":"2027-01-11","checkOut":"2027-01-13","guests":3.0,"maxNightlyPrice":6000}`,
	`{"city":"Delhi","checkIn":"2027-01-11","checkOut":"2027-01-13","guests":3.5,"maxNightlyPrice":6000}`,
	`{"city":"","checkIn":"2027-02-30","checkOut":"27-01-13","guests":0,"maxNightlyPrice":20001}`,
	`{"city":"é","checkIn":"2027-01-11","checkOut":"2027-01-13","guests":8,"maxNightlyPrice":1e4}`,
	`{"city":"Delhi","checkIn":"2027-01-11","checkOut":"2027-01-13","guests":true,"maxNightlyPrice":null}`,
	`{"city":"Delhi","checkIn":"2027-01-11","checkOut":"2027-01-13","guests":1,"maxNightlyPrice":1,"x":1}`,
	`{"recipient":"A","reference":"r","amountMinor":100000,"currency":"INR"}`,
	`{"recipient":"A","reference":"r","amountMinor":100000.0,"currency":"inr"}`,
	`{"recipient":"A","reference":"r","amountMinor":123456789012345678901234567890,"currency":"USD"}`,
	`{"recipient":"A","reference":"r","amountMinor":-0,"currency":"EUR"}`,
	`{"startTime":"23:59","title":"abcde"}`, `{"startTime":"24:00","title":"abcdef"}`, `{"startTime":"12:30\n"}`,
	`{"startTime":"x12:30"}`, `{"title":"ab"}`,
	`{"a":0.5,"b":12345678901234567890,"c":-1.5,"z":"s"}`, `{"a":0.1,"b":12345678901234567891}`,
	`{"a":9.5}`, `{"a":1.25}`, `{"a":2,"b":null,"c":-2}`, `{"a":9.0,"b":1.0,"c":-1.4999999999999999}`, `{"z":1}`,
	`["x"]`, `[]`, `["x","y","x","y"]`, `["z"]`, `[1]`,
	`{"t":1,"f":1}`, `{"t":1}`, `{"d":"2027-01-01"}`, `{"d":"2027-1-1"}`, `{"d":5}`,
	`{"origin":"A","destination":"B","departureDate":"2027-01-01","travellers":9}`,
	`{"origin":"A","destination":"B","departureDate":"2027-01-01","travellers":10}`,
	`{"query":"q","maxResults":10,"topic":"news"}`, `{"query":"q","maxResults":0,"topic":"sports"}`,
	`{"sku":"S","orderId":"O","warehouse":"DEL","quantity":50}`, `{"sku":"S","orderId":"O","warehouse":"XXX","quantity":51}`,
	`{"title":"T","venue":"V","date":"2027-01-01","startTime":"09:00","durationMinutes":240}`,
	`{"title":"T","venue":"V","date":"2027-01-01","startTime":"9:00","durationMinutes":4}`,
	`null`, `1`, `"s"`, `[]`, `{}`,
	`{"a":1,"b":{"x":[1,"y",null,true]},"c":1.5,"d":12345678901234567890}`, `{"a":1.0,"b":{"x":[1.0,"y",null,true]},"c":"s"}`,
	`{"a":2,"b":{"x":[1,"y",null]},"c":1.25}`, `{"b":{"x":[1,"y",null,1]},"c":[1],"d":12345678901234567891}`,
	`{"b":{"x":[1,"y",null,true],"z":1},"c":{"k":2.0}}`, `{"c":{"k":2,"j":1}}`, `{"c":false}`, `{"c":0}`, `{"c":[true]}`,
	`{"a":3,"b":"ab","c":1.5,"d":"y"}`, `{"a":3.0,"b":null,"c":2,"d":"x"}`, `{"a":1,"b":"abc"}`, `{"a":"3","b":1,"d":1.0}`,
	`{"d":2}`, `{"d":null}`,
}

func checkFastPath(t *testing.T, set map[string]*Schema, inst string) {
	v, err := strictjson.Parse(inst)
	if err != nil {
		return
	}
	for name, s := range set {
		if s.fast == nil {
			continue
		}
		fast := s.fast.Valid(v)
		slow := s.compiled.Validate(schemas.Instance(v)) == nil
		if fast != slow {
			t.Fatalf("%s on %s: fast path says valid=%v, library %v", name, inst, fast, slow)
		}
		// and where it is not valid, the errors named from the fast path's walk
		// are the library's
		if got, want := s.Validate(v), s.validateLib(v, ""); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s on %s: the fast path names %q, the library %q", name, inst, got, want)
		}
	}
}

func TestFastPathAgreement(t *testing.T) {
	set := fastPathSchemas(t)
	withFast := 0
	for name, s := range set {
		if s.fast != nil {
			withFast++
		} else if !strings.Contains(name, "complex-equivalent") && !strings.Contains(name, "contradictory") {
			t.Errorf("%s has no fast path", name)
		}
	}
	if withFast < 9 {
		t.Fatalf("only %d schemas have a fast path", withFast)
	}
	for _, inst := range fastPathInstances {
		checkFastPath(t, set, inst)
	}
	// Every probe mutation of every instance object, too.
	for _, inst := range fastPathInstances {
		v, _ := strictjson.Parse(inst)
		if v.Kind() != strictjson.Object {
			continue
		}
		for _, m := range v.Members() {
			for _, bad := range []strictjson.Value{strictjson.ArrayValue(), strictjson.IntValue(7), strictjson.IntValue(0), strictjson.FloatValue(-1), strictjson.NullValue(), strictjson.StringValue("")} {
				checkFastPath(t, set, strictjson.Canonical(with(v, m.Key, bad)))
			}
			checkFastPath(t, set, strictjson.Canonical(without(v, m.Key)))
		}
	}
}

func FuzzFastPath(f *testing.F) {
	for _, s := range fastPathInstances {
		f.Add(s)
	}
	set := fastPathSchemas(f)
	f.Fuzz(func(t *testing.T, inst string) {
		checkFastPath(t, set, inst)
	})
}
