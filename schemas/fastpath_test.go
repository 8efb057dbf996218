package schemas

import (
	"testing"

	"github.com/fbeval/fbeval/contract/strictjson"
)

// The fast path gives the library's verdict, without allocating on valid input.
// (score/toolcall holds it to the library over every tool contract and HESchema's
// schema variants, and fuzzes it.)
func TestFastAgreesWithLibrary(t *testing.T) {
	doc := []byte(`{"type":"object","additionalProperties":false,"required":["d","n"],"properties":{
		"d":{"type":"string","format":"date"},
		"t":{"type":"string","pattern":"^([01][0-9]|2[0-3]):[0-5][0-9]$"},
		"n":{"type":"integer","minimum":1,"maximum":12345678901234567890},
		"e":{"enum":["a",1.0,null]},
		"x":{"anyOf":[{"type":"string","maxLength":2},{"type":"array","items":{"const":{"k":[1]}},"minItems":1}]}}}`)
	s, _, err := Compile(doc)
	if err != nil {
		t.Fatal(err)
	}
	f := NewFast(s)
	if f == nil {
		t.Fatal("no fast path")
	}
	for in, want := range map[string]bool{
		`{"d":"2027-01-11","n":3}`:                       true,
		`{"d":"2027-01-11","n":3.0,"t":"09:30\n","e":1}`: true,
		`{"d":"2027-01-11","n":12345678901234567891}`:    false,
		`{"d":"0000-01-11","n":3}`:                       false,
		`{"d":"2027-01-11","n":3,"e":"b"}`:               false,
		`{"d":"2027-01-11","n":3,"x":[{"k":[1.0]}]}`:     true,
		`{"d":"2027-01-11","n":3,"x":"abc"}`:             false,
		`{"d":"2027-01-11","n":3,"z":1}`:                 false,
		`{"d":"2027-01-11"}`:                             false,
		`[]`:                                             false,
	} {
		v, err := strictjson.Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		fast, lib := f.Valid(v), s.Validate(Instance(v)) == nil
		if fast != want || lib != want {
			t.Errorf("%s: fast %v, library %v, want %v", in, fast, lib, want)
		}
	}
	// numbers within int64 bounds compare without big.Rat
	s, _, err = Compile([]byte(`{"type":"object","required":["n"],"properties":{"d":{"format":"date"},"t":{"pattern":"^[0-9:]+$"},"n":{"type":"integer","maximum":9},"e":{"enum":["a",1]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	f = NewFast(s)
	v, _ := strictjson.Parse(`{"d":"2027-01-11","n":3,"t":"09:30","e":"a"}`)
	if !f.Valid(v) {
		t.Fatal("valid instance refused")
	}
	if n := testing.AllocsPerRun(100, func() { f.Valid(v) }); n != 0 {
		t.Errorf("Valid allocates %v times on a valid instance", n)
	}
}
