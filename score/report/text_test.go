package report

import (
	"bytes"
	"encoding/xml"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/contract"
)

// TestCogLangTextOneLinePerValue: a name from the files scored (a response
// file's, a case id, a level) cannot make a line of its own in the text
// format, which scripts read line by line: a file named "r.jsonl\nok: true"
// wrote a second ok line, true, under the result's false.
func TestCogLangTextOneLinePerValue(t *testing.T) {
	full := load(t, "testdata/live_coglang.json").held()
	c := *full.CogLang
	c.OK = false
	c.AnswerSource = "r.jsonl\nok: true"
	c.FailureCases = slices.Clone(c.FailureCases)
	if len(c.FailureCases) == 0 {
		t.Fatal("the result has no failure case to rename")
	}
	c.FailureCases[0].CaseID = "x\nok: true"
	var b bytes.Buffer
	if err := WriteText(&b, Doc{Name: "r.json", Kind: KindCogLang, CogLang: &c}); err != nil {
		t.Fatal(err)
	}
	var oks []string
	for line := range strings.Lines(b.String()) {
		if strings.HasPrefix(line, "ok:") {
			oks = append(oks, line)
		}
	}
	if !slices.Equal(oks, []string{"ok: false\n"}) {
		t.Errorf("ok lines %q, want one, false:\n%s", oks, b.String())
	}
	for _, want := range []string{"answer_source: r.jsonl\\nok: true\n", "failure x\\nok: true level="} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
}

// TestJUnitNamesPrintable: the root's and the suites' names, from a response
// file's name and the fixture's levels, are written with their control and
// bidi characters escaped, as the test cases' texts are (the root wrote ESC as
// U+FFFD and U+202E raw).
func TestJUnitNamesPrintable(t *testing.T) {
	full := load(t, "testdata/live_coglang.json").held()
	c := *full.CogLang
	c.AnswerSource = "cg\x1b[31m\u202e.jsonl"
	var b bytes.Buffer
	if err := WriteJUnit(&b, Doc{Name: "r.json", Kind: KindCogLang, CogLang: &c}); err != nil {
		t.Fatal(err)
	}
	var root struct {
		Name string `xml:"name,attr"`
	}
	if err := xml.Unmarshal(b.Bytes(), &root); err != nil {
		t.Fatal(err)
	}
	if want := `coglang: cg\x1b[31m\u202e.jsonl`; root.Name != want {
		t.Errorf("root name %q, want %q", root.Name, want)
	}
}

// TestLongAnswerCut: one answer of a megabyte, read as a head the model made
// up (and quoted by a parse error), is cut in the table and Markdown as an
// output is: the table was 25 MB (every row padded to the column), the
// Markdown past GitHub's 1 MiB step-summary limit, which drops it whole.
func TestLongAnswerCut(t *testing.T) {
	full := load(t, "testdata/live_coglang.json").held()
	c := *full.CogLang
	c.FailureCases = slices.Clone(c.FailureCases)
	long := strings.Repeat("A", 1<<20)
	c.FailureCases[0].HallucinatedHeads = []string{long}
	c.FailureCases[0].ParseError = &long
	doc := Doc{Name: "r.json", Kind: KindCogLang, CogLang: &c}
	var md, table bytes.Buffer
	if err := WriteMarkdown(&md, doc); err != nil {
		t.Fatal(err)
	}
	if err := WriteTableWidth(&table, doc, 0); err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string]*bytes.Buffer{"markdown": &md, "table": &table} {
		if b.Len() > 64<<10 {
			t.Errorf("%s: %d bytes for one long answer", name, b.Len())
		}
		if !strings.Contains(b.String(), strings.Repeat("A", maxCellRunes)+"…") {
			t.Errorf("%s: the head is not shown cut", name)
		}
	}
}

// TestLoneSurrogateCells: an answer holding a lone surrogate (\udfff in its
// JSON) is shown as that escape in table and Markdown cells, as JUnit and
// HTML show it (the cells wrote three U+FFFD).
func TestLoneSurrogateCells(t *testing.T) {
	full := load(t, "testdata/live_coglang.json").held()
	c := *full.CogLang
	c.FailureCases = slices.Clone(c.FailureCases)
	c.FailureCases[0].HallucinatedHeads = []string{"lone\xed\xbf\xbf\tend"}
	doc := Doc{Name: "r.json", Kind: KindCogLang, CogLang: &c}
	for name, write := range map[string]func(io.Writer, Doc) error{
		"markdown": WriteMarkdown,
		"table":    func(w io.Writer, d Doc) error { return WriteTableWidth(w, d, 0) },
	} {
		var b bytes.Buffer
		if err := write(contract.NewPrintableWriter(&b), doc); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), `lone\udfff end`) || strings.Contains(b.String(), "\ufffd") {
			t.Errorf("%s: no lone\\udfff end, or a U+FFFD, in\n%s", name, b.String())
		}
	}
}
