package report

import (
	"bytes"
	"encoding/xml"
	"slices"
	"strings"
	"testing"
)

// junitHeld is the JUnit XML of a CogLang result held whole and joined by id.
func junitHeld(t *testing.T, doc Doc) string {
	t.Helper()
	var b bytes.Buffer
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	if err := enc.Encode(junitCogLang(doc.Name, doc.held().CogLang)); err != nil {
		t.Fatal(err)
	}
	b.WriteByte('\n')
	return b.String()
}

// TestJUnitCogLangStream: a CogLang result's JUnit XML written as its cases are
// read has the bytes of the one built from the result held whole, whether the
// result lists every case, the failing ones or none; a result whose lists do
// not stand in step is held, with the same bytes.
func TestJUnitCogLangStream(t *testing.T) {
	docs := map[string]Doc{}
	for _, name := range []string{"coglang_failures", "live_coglang", "live_coglang_summary"} {
		docs[name] = load(t, "testdata/"+name+".json")
	}
	big, err := Open("big.json", strings.NewReader(bigCogLang(t, 50)), OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	docs["big"] = big
	full := docs["live_coglang"].held()
	c := *full.CogLang
	c.FailureCases = slices.Clone(c.FailureCases)
	slices.Reverse(c.FailureCases)
	docs["failures reversed"] = Doc{Name: "r.json", Kind: KindCogLang, CogLang: &c}
	d := *full.CogLang
	d.Cases = slices.Clone(d.Cases)
	d.Cases[len(d.Cases)-1].CaseID = d.Cases[0].CaseID
	docs["an id twice"] = Doc{Name: "r.json", Kind: KindCogLang, CogLang: &d}
	for name, doc := range docs {
		var got bytes.Buffer
		if err := WriteJUnit(&got, doc); err != nil {
			t.Fatal(err)
		}
		if want := junitHeld(t, doc); got.String() != want {
			t.Errorf("%s: streamed\n%s\nheld\n%s", name, clip(got.String(), 3000), clip(want, 3000))
		}
		streamed, err := junitCogLangStream(&bytes.Buffer{}, doc.CogLang)
		if err != nil {
			t.Fatal(err)
		}
		if wantStream := !strings.Contains(name, " "); streamed != wantStream {
			t.Errorf("%s: streamed %v, want %v", name, streamed, wantStream)
		}
	}
}
