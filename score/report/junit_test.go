package report

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
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

// readCounter counts the bytes read from r.
type readCounter struct {
	r io.ReaderAt
	n int64
}

func (c *readCounter) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n += int64(n)
	return n, err
}

// TestJUnitCountsKept: a saved report opened with JUnitCounts, its counts kept
// by the reading that checks its lists, gives the JUnit XML of one opened
// without, reading fewer bytes of it to write it: the toolcall reports,
// CogLang results listing every case, the failing ones or none, the results
// held instead (lists out of step, an id twice: found without reading them),
// and a failure case whose outcome is not its scored case's.
func TestJUnitCountsKept(t *testing.T) {
	texts := map[string][]byte{}
	for _, name := range []string{"toolcall_small", "toolcall_large", "live_toolcall", "coglang_failures", "live_coglang", "live_coglang_summary"} {
		data, err := os.ReadFile("testdata/" + name + ".json")
		if err != nil {
			t.Fatal(err)
		}
		texts[name] = data
	}
	texts["big"] = []byte(bigCogLang(t, 50))
	saved := func(doc Doc) []byte {
		var b bytes.Buffer
		if err := WriteJSON(&b, doc); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	tc := load(t, "testdata/toolcall_small.json").held()
	r := tc.Toolcall
	r.Rows[0].ProviderError, r.Rows[0].FinalSuccess = true, false
	r.Rows[5].Missing, r.Rows[5].FinalSuccess = true, false
	texts["toolcall errors"] = saved(tc)
	full := load(t, "testdata/live_coglang.json").held()
	edit := func(change func(c *CogLangResult)) []byte {
		c := *full.CogLang
		c.Cases, c.FailureCases = slices.Clone(c.Cases), slices.Clone(c.FailureCases)
		change(&c)
		return saved(Doc{Name: "r.json", Kind: KindCogLang, CogLang: &c})
	}
	texts["failures reversed"] = edit(func(c *CogLangResult) { slices.Reverse(c.FailureCases) })
	texts["an id twice"] = edit(func(c *CogLangResult) { c.Cases[len(c.Cases)-1].CaseID = c.Cases[0].CaseID })
	texts["a failure case errs"] = edit(func(c *CogLangResult) {
		c.FailureCases[0].FailureCategories = []string{JUnitProviderError}
	})
	texts["failures only"] = edit(func(c *CogLangResult) {
		var failing []CogLangCase
		for _, cs := range c.Cases {
			if len(cs.FailureCategories) > 0 {
				failing = append(failing, cs)
			}
		}
		c.Cases = failing
	})
	texts["no cases"] = edit(func(c *CogLangResult) { c.Cases = nil })
	if len(full.CogLang.FailureCases) == 0 || len(full.CogLang.Cases) != full.CogLang.CaseCount {
		t.Fatal("live_coglang.json no longer lists every case and some failing ones")
	}
	for name, text := range texts {
		var out [2]bytes.Buffer
		var read [2]int64
		for i, keep := range []bool{false, true} {
			src := &readCounter{r: bytes.NewReader(text)}
			doc, err := Open(name+".json", src, OpenOptions{JUnitCounts: keep})
			if err != nil {
				t.Fatal(err)
			}
			opened := src.n
			if err := WriteJUnit(&out[i], doc); err != nil {
				t.Fatal(err)
			}
			read[i] = src.n - opened
		}
		if out[0].String() != out[1].String() {
			t.Errorf("%s: kept counts\n%s\nread counts\n%s", name, clip(out[1].String(), 3000), clip(out[0].String(), 3000))
		}
		if read[1] >= read[0] {
			t.Errorf("%s: writing read %d bytes with the counts kept, %d without", name, read[1], read[0])
		}
	}
}

// TestJUnitWithoutTempDir: where no temporary file can be made, JUnit reads the
// rows (or cases) once per suite instead of keeping the later suites' test
// cases, with the same bytes.
func TestJUnitWithoutTempDir(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"toolcall_small", "coglang_failures", "live_coglang"} {
		doc := load(t, "testdata/"+name+".json")
		var kept, again bytes.Buffer
		t.Setenv("TMPDIR", dir)
		if err := WriteJUnit(&kept, doc); err != nil {
			t.Fatal(err)
		}
		t.Setenv("TMPDIR", "/nonexistent/fbeval")
		if err := WriteJUnit(&again, doc); err != nil {
			t.Fatal(err)
		}
		if kept.String() != again.String() {
			t.Errorf("%s: a suite at a time\n%s\nkept\n%s", name, clip(again.String(), 3000), clip(kept.String(), 3000))
		}
	}
}

// TestJUnitSpools: the test cases kept for later suites come back as they were
// added, suite by suite, whatever their strings hold.
func TestJUnitSpools(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	s, err := newJUnitSpools(3)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	long := strings.Repeat("é\x00<&>\n", 20000)
	cases := [][]JUnitCase{nil, {
		{ClassName: "toolcall/a", Name: "c#r2"},
		{ClassName: "", Name: "", SystemOut: "passed after 2 attempts"},
		{Name: "f", Failure: &JUnitProblem{Message: "WRONG_ACTION", Type: JUnitWrongAnswer, Text: long}},
	}, {
		{Name: "e", Error: &JUnitProblem{Message: "", Type: JUnitMissing}},
		{Name: "both", Failure: &JUnitProblem{Text: "x"}, Error: &JUnitProblem{Message: "y"}, SystemOut: "z"},
	}}
	for k := range 2 {
		for i := 1; i < 3; i++ {
			if err := s.add(i, cases[i][k]); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := s.add(1, cases[1][2]); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		var got []JUnitCase
		if err := s.each(i, func(tc JUnitCase) error { got = append(got, tc); return nil }); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(cases[i]) {
			t.Fatalf("suite %d: %d cases back, want %d", i, len(got), len(cases[i]))
		}
		for k := range got {
			w, g := cases[i][k], got[k]
			if g.ClassName != w.ClassName || g.Name != w.Name || g.SystemOut != w.SystemOut ||
				(g.Failure == nil) != (w.Failure == nil) || (g.Error == nil) != (w.Error == nil) ||
				(g.Failure != nil && *g.Failure != *w.Failure) || (g.Error != nil && *g.Error != *w.Error) {
				t.Errorf("suite %d case %d: %+v, want %+v", i, k, g, w)
			}
		}
	}
}

// junitCaseByEncoder is tc as writeJUnitSuites' encoder writes it after a
// suite's properties.
func junitCaseByEncoder(t testing.TB, tc JUnitCase) string {
	var b bytes.Buffer
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	root, suite, props := xml.StartElement{Name: xml.Name{Local: "testsuites"}}, xml.StartElement{Name: xml.Name{Local: "testsuite"}}, xml.StartElement{Name: xml.Name{Local: "properties"}}
	for _, tok := range []xml.Token{root, suite, props, props.End()} {
		if err := enc.EncodeToken(tok); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Flush(); err != nil {
		t.Fatal(err)
	}
	before := b.Len()
	if err := enc.EncodeElement(tc, xml.StartElement{Name: xml.Name{Local: "testcase"}}); err != nil {
		t.Fatal(err)
	}
	return b.String()[before:]
}

// TestAppendJUnitCase: a test case written by hand has the bytes encoding/xml
// writes, whatever its strings hold.
func TestAppendJUnitCase(t *testing.T) {
	texts := []string{"", "plain", "a \"b\" 'c' <d> & e", "tab\tnl\ncr\r", "\x00\x01\x1f\x7f", "\xff\xfe bad utf-8 \xc3",
		"é漢字🙂", "\ufffd\ufffe\uffff", "\u2028\u0085", "]]>", "&#xA;", "\ud7ff\ue000\U0010ffff"}
	for i, a := range texts {
		for j, b := range texts {
			c := texts[(i+j)%len(texts)]
			for _, tc := range []JUnitCase{
				{ClassName: a, Name: b},
				{ClassName: "toolcall/no_schema", Name: a, SystemOut: b},
				{Name: a, Failure: &JUnitProblem{Message: b, Type: JUnitWrongAnswer, Text: c}},
				{Name: b, Error: &JUnitProblem{Message: c, Type: a, Text: b}, SystemOut: c},
				{Failure: &JUnitProblem{Text: a}, Error: &JUnitProblem{Message: b}},
			} {
				if got, want := string(appendJUnitCase(nil, &tc)), junitCaseByEncoder(t, tc); got != want {
					t.Fatalf("%+v:\nby hand %q\nencoder %q", tc, got, want)
				}
			}
		}
	}
}

func FuzzAppendJUnitCase(f *testing.F) {
	f.Add("toolcall/a", "c#r2", "m", "t", "text\n<x>", "", uint8(1))
	f.Add("", "\xff", "\x00", "'", "\"&", "out", uint8(3))
	f.Fuzz(func(t *testing.T, class, name, msg, typ, text, out string, which uint8) {
		tc := JUnitCase{ClassName: class, Name: name, SystemOut: out}
		if which&1 != 0 {
			tc.Failure = &JUnitProblem{Message: msg, Type: typ, Text: text}
		}
		if which&2 != 0 {
			tc.Error = &JUnitProblem{Message: text, Type: msg, Text: typ}
		}
		if got, want := string(appendJUnitCase(nil, &tc)), junitCaseByEncoder(t, tc); got != want {
			t.Fatalf("by hand %q\nencoder %q", got, want)
		}
	})
}

// TestJUnitRowAfterProviderError: a row whose first attempt was a provider
// error and whose repair succeeded passes, as final_success_percent counts it
// (it was an <error>, so a suite's passes were one short of the arm's final
// successes); a row that did not finally succeed with one is an <error>.
func TestJUnitRowAfterProviderError(t *testing.T) {
	out := "{}"
	for _, tt := range []struct {
		row          Row
		pass, errors bool
	}{
		{Row{CaseID: "a", Repeat: 1, Attempts: 2, ProviderError: true, FinalSuccess: true, Output: &out}, true, false},
		{Row{CaseID: "a", Repeat: 1, Attempts: 2, ProviderError: true, FinalSuccess: false}, false, true},
		{Row{CaseID: "a", Repeat: 1, Attempts: 1, ProviderError: false, FinalSuccess: false, FinalCodes: []string{"JSON_INVALID"}}, false, false},
		{Row{CaseID: "a", Repeat: 1, Missing: true}, false, true},
	} {
		tc := junitRow(&tt.row)
		if pass := tc.Error == nil && tc.Failure == nil; pass != tt.pass || (tc.Error != nil) != tt.errors {
			t.Errorf("%+v: error %+v failure %+v", tt.row, tc.Error, tc.Failure)
		}
		if tt.pass && !strings.Contains(tc.SystemOut, "an earlier attempt was a provider error") {
			t.Errorf("passing row after a provider error: system-out %q", tc.SystemOut)
		}
	}
}

// TestJUnitCasePrintable: a test case's texts (a model's output, an id, a
// message) have their control and bidi characters written as escapes, as the
// other human formats write them: a CI page showed U+202E raw (reordering the
// line) and an escape sequence as U+FFFD.
func TestJUnitCasePrintable(t *testing.T) {
	tc := JUnitCase{Name: "case\u202eRTL", SystemOut: "out\x1b[2J", Failure: &JUnitProblem{Message: "m\x07", Text: "line\u2028two\r\nthree\xed\xa0\x80"}}
	got := tc.printable()
	if got.Name != `case\u202eRTL` || got.SystemOut != `out\x1b[2J` || got.Failure.Message != `m\x07` || got.Failure.Text != `line\u2028two\r`+"\n"+`three\ud800` {
		t.Errorf("%+v %+v", got, got.Failure)
	}
	if tc.Failure.Message != "m\x07" {
		t.Error("the case given was changed")
	}
	var v any
	if err := xml.Unmarshal(appendJUnitCase(nil, &got), &v); err != nil {
		t.Errorf("not XML: %v", err)
	}
}
