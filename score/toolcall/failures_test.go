package toolcall

import (
	"reflect"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/contract/strictjson"
	"github.com/fbeval/fbeval/fixtures"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// mutations returns values near gold (an object): each member deleted, each set
// to values of every type and to edge numbers and strings, an unknown member
// added, and pairs of those changes, so that most keywords fail alone and
// together.
func mutations(gold strictjson.Value) []strictjson.Value {
	bad := []strictjson.Value{
		strictjson.NullValue(), strictjson.BoolValue(true), strictjson.IntValue(0), strictjson.IntValue(-1),
		strictjson.IntValue(7), strictjson.IntValue(1 << 40), strictjson.FloatValue(1.5), strictjson.FloatValue(2.0),
		strictjson.FloatValue(-0.25), strictjson.FloatValue(1e300), strictjson.StringValue(""), strictjson.StringValue("x"),
		strictjson.StringValue("2027-02-30"), strictjson.StringValue("0000-01-01"), strictjson.StringValue("25:99"),
		strictjson.StringValue("a very long string that goes on and on past any maximum length a schema of a tool would set, surely"),
		strictjson.StringValue("12:30\n"), strictjson.ArrayValue(), strictjson.ArrayValue(strictjson.IntValue(1), strictjson.StringValue("y")),
		strictjson.ObjectValue(), strictjson.ObjectValue(strictjson.Member{Key: "k", Value: strictjson.IntValue(1)}),
	}
	var one []strictjson.Value
	for _, m := range gold.Members() {
		one = append(one, without(gold, m.Key))
		for _, b := range bad {
			one = append(one, with(gold, m.Key, b))
		}
		if m.Value.Kind() == strictjson.String {
			one = append(one, with(gold, m.Key, strictjson.StringValue(m.Value.Str()+"!")))
		}
	}
	one = append(one, with(gold, "unexpected", strictjson.StringValue("x")),
		with(with(gold, "zz", strictjson.IntValue(1)), "aa", strictjson.IntValue(2)),
		strictjson.ObjectValue())
	out := append([]strictjson.Value{gold}, one...)
	// pairs: every first-order change of one member with a few of another's
	ms := gold.Members()
	for i := range ms {
		for j := range ms {
			if i == j {
				continue
			}
			for _, a := range []strictjson.Value{strictjson.IntValue(-1), strictjson.StringValue(""), strictjson.NullValue()} {
				for _, b := range []strictjson.Value{strictjson.FloatValue(1.5), strictjson.ArrayValue(), strictjson.StringValue("x")} {
					out = append(out, with(with(gold, ms[i].Key, a), ms[j].Key, b))
				}
			}
			out = append(out, without(with(gold, ms[i].Key, strictjson.BoolValue(false)), ms[j].Key))
		}
	}
	return out
}

// TestFailuresAgreeWithLibrary: on every schema variant of every built-in domain,
// for the gold arguments of every case and many values near them, the errors named
// from the fast path's walk (Fast.Failures) are the ones named from the library's
// error tree with the Python-compatible re-validations, byte for byte.
func TestFailuresAgreeWithLibrary(t *testing.T) {
	items, err := garbleItems()
	if err != nil {
		t.Fatal(err)
	}
	golds := map[string][]strictjson.Value{} // by domain
	seen := map[*Case]bool{}
	for _, it := range items {
		if seen[it.c] || it.c.action != "call_tool" {
			continue
		}
		seen[it.c] = true
		d := it.judge.tool.Domain
		if len(golds[d]) < 6 {
			golds[d] = append(golds[d], it.c.args)
		}
	}
	var checked, walked, invalid int
	for _, d := range fixtures.ToolcallDomains() {
		if len(golds[d]) == 0 {
			t.Fatalf("no gold arguments for %s", d)
		}
		for _, variant := range fixtures.ToolcallVariantNames() {
			doc, err := fixtures.ToolcallVariant(d, variant)
			if err != nil {
				t.Fatal(err)
			}
			s, err := CompileSchema(doc)
			if err != nil {
				t.Fatal(err)
			}
			for _, gold := range golds[d] {
				for _, v := range mutations(gold) {
					checked++
					want := s.validateLib(v, "/arguments")
					got := s.validate(v, "/arguments")
					if len(want) > 0 {
						invalid++
					}
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("%s %s: %s:\n fast %q\n  lib %q", d, variant, strictjson.Canonical(v), got, want)
					}
					if s.fast != nil && len(want) > 0 {
						if _, ok := s.fast.Failures(v, nil); ok {
							walked++
						}
					}
				}
			}
		}
	}
	t.Logf("%d values, %d invalid, %d named by the walk", checked, invalid, walked)
	if walked < invalid*9/10 {
		t.Errorf("the walk names only %d of %d invalid values", walked, invalid)
	}
}

// TestKeywordOf: the keyword of every kind keywordOf names without the library is
// the last of the library's keyword path.
func TestKeywordOf(t *testing.T) {
	for _, k := range []jsonschema.ErrorKind{
		&kind.Type{}, &kind.Required{}, &kind.AdditionalProperties{}, &kind.Enum{}, &kind.Const{}, &kind.Format{},
		&kind.Minimum{}, &kind.Maximum{}, &kind.ExclusiveMinimum{}, &kind.ExclusiveMaximum{}, &kind.MinLength{},
		&kind.MaxLength{}, &kind.Pattern{}, &kind.AnyOf{}, &kind.OneOf{}, &kind.Not{}, &kind.FalseSchema{}, &kind.MultipleOf{},
	} {
		want := ""
		if kp := k.KeywordPath(); len(kp) > 0 {
			want = kp[len(kp)-1]
		}
		if got := keywordOf(k); got != want {
			t.Errorf("%T: keywordOf %q, the library's path ends in %q", k, got, want)
		}
	}
}

// TestCandidateSameAsReference: a candidate schema that is the reference document
// (laid out and ordered otherwise) is validated once, as the reference; any other
// is compiled on its own. Either way the Results are the same.
func TestCandidateSameAsReference(t *testing.T) {
	ref := hotelsTool()
	doc, err := strictjson.Parse(hotelsSchema)
	if err != nil {
		t.Fatal(err)
	}
	ms := doc.Members()
	reordered := make([]strictjson.Member, len(ms))
	for i := range ms {
		reordered[len(ms)-1-i] = ms[i]
	}
	same := mustJudge(t, ref, strictjson.Canonical(strictjson.ObjectValue(reordered...)))
	if same.Candidate() != same.Reference() {
		t.Error("a candidate equal to the reference is compiled apart")
	}
	other := mustJudge(t, ref, strings.Replace(hotelsSchema, `"maximum": 8`, `"maximum": 8.5`, 1))
	if other.Candidate() == other.Reference() {
		t.Error("a candidate unlike the reference is taken for it")
	}
	apart := mustJudge(t, ref, "")
	apart.candidate = mustJudge(t, ref, "").reference // the same schema, compiled apart
	c := mustCase(t, "", call("search_hotels", hotelArgs), hotelState)
	for _, out := range []string{
		call("search_hotels", `{"city":"","checkIn":"2027-13-01","checkOut":"x","guests":0,"maxNightlyPrice":-1,"x":1}`),
		call("search_hotels", `{"city":"Goa","guests":"9"}`), benchOutput,
	} {
		if got, want := same.Score(out, c), apart.Score(out, c); !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\nshared %+v\n apart %+v", out, got, want)
		}
	}
}
