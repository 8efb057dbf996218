package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/fixtures/fixturetest"
)

func load(t testing.TB, path string) Doc {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := Load(filepath.Base(path), data)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// golden compares got with testdata/name, or rewrites it under -update.
type writer func(io.Writer, Doc) error

var writers = []struct {
	ext   string
	write writer
}{
	{"md", WriteMarkdown},
	{"junit.xml", WriteJUnit},
	{"table.txt", WriteTable},
	{"html", WriteHTML},
}

var examples = []string{"toolcall_small", "coglang_failures"}

func TestGolden(t *testing.T) {
	for _, ex := range examples {
		doc := load(t, filepath.Join("testdata", ex+".json"))
		for _, w := range writers {
			t.Run(ex+"."+w.ext, func(t *testing.T) {
				var a, b bytes.Buffer
				if err := w.write(&a, doc); err != nil {
					t.Fatal(err)
				}
				if err := w.write(&b, doc); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(a.Bytes(), b.Bytes()) {
					t.Fatal("two renderings of the same report differ")
				}
				fixturetest.Golden(t, filepath.Join("testdata", ex+"."+w.ext+".golden"), a.Bytes())
			})
		}
	}
}

// checkWellFormed parses the page as XML: the HTML is written XHTML-style so a
// strict XML parser catches any unbalanced or unescaped markup.
func checkWellFormed(t *testing.T, page []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(page))
	dec.Strict = true
	var stack []string
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("page is not well formed: %v", err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			stack = append(stack, el.Name.Local)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) != 0 {
		t.Fatalf("unclosed elements: %v", stack)
	}
}

// checkOffline fails on anything a browser could fetch or run.
func checkOffline(t *testing.T, page string) {
	t.Helper()
	lower := strings.ToLower(page)
	// The only scripts are the sample browser's: its data block and its inline
	// code, neither with a source to fetch.
	lower = strings.ReplaceAll(lower, `<script type="application/json" id="fbeval-samples">`, "")
	lower = strings.ReplaceAll(lower, "<script>/*<![cdata[*/", "")
	for _, bad := range []string{"http://", "https://", "//", "<script", " src=", "<link", "<img", "<iframe", "@import", "url(", "javascript:", " on"} {
		if bad == " on" {
			// Event-handler attributes: " onclick=" and the like.
			for _, attr := range []string{" onload=", " onclick=", " onerror=", " onmouseover="} {
				if strings.Contains(lower, attr) {
					t.Errorf("page has an event handler %q", attr)
				}
			}
			continue
		}
		if strings.Contains(lower, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	for _, want := range []string{`<meta name="viewport"`, "@media print", "@media (max-width", `<figure class="hc"`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

func TestHTMLToolcall(t *testing.T) {
	doc := load(t, "testdata/toolcall_small.json").held()
	var b bytes.Buffer
	if err := WriteHTML(&b, doc); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	checkWellFormed(t, b.Bytes())
	checkOffline(t, page)
	// html/template writes + as &#43;; figures are compared as a reader sees them.
	text := strings.ReplaceAll(page, "&#43;", "+")
	r := doc.Toolcall
	var want []string
	for _, a := range r.Arms {
		m := a.Value
		want = append(want, pct(m.FirstPassSuccess), interval(m.FirstPassWilson95), pct(m.FinalSuccess), usd(m.CostPerSuccessUSD), ms(m.LatencyP95Ms))
	}
	for _, e := range r.Effects {
		want = append(want, points(e.Value.AbsoluteUplift), interval(e.Value.CI95), pvalue(e.Value.McNemarP))
	}
	for _, g := range r.Gates {
		want = append(want, num(g.Actual, 1))
	}
	for _, in := range r.Inputs {
		want = append(want, in.SHA256)
	}
	want = append(want, r.Warnings...)
	want = append(want, r.Classification...)
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("page lacks headline figure %q", w)
		}
	}
	// The failing output holds <script>, quotes and ampersands: they must arrive
	// escaped, never as markup.
	if strings.Contains(page, "<script>alert(") {
		t.Error("a model's output reached the page as a script")
	}
	for _, w := range []string{"&lt;script&gt;alert(", "R&amp;D", "&#34;bonus", `\u003cscript\u003ealert(`} {
		if !strings.Contains(page, w) {
			t.Errorf("page lacks escaped output %q", w)
		}
	}
	if _, n := r.failingRows(HTMLFailureLimit); strings.Count(page, `<pre class="out">`) != min(HTMLFailureLimit, n) {
		t.Errorf("page shows %d failing outputs, want %d", strings.Count(page, `<pre class="out">`), n)
	}
	if n := strings.Count(page, `<figure class="hc"`); n != 2 {
		t.Errorf("want two charts (forest plot and arms), got %d", n)
	}
	// The forest plot draws the zero line, and the answer comes before the arms.
	if !strings.Contains(page, `class="tk0"`) {
		t.Error("forest plot lacks the zero line")
	}
	if a, b := strings.Index(page, `id="answer"`), strings.Index(page, `id="arms"`); a < 0 || a > b {
		t.Error("the page does not open with what the study found")
	}
	for _, e := range r.Effects {
		if !strings.Contains(text, verdict(e.Value.Label)+`</span> <a href="#effect-`+e.Key) {
			t.Errorf("the answer lacks the verdict of %s", e.Key)
		}
	}
}

func TestHTMLCogLang(t *testing.T) {
	doc := load(t, "testdata/coglang_failures.json")
	var b bytes.Buffer
	if err := WriteHTML(&b, doc); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	checkWellFormed(t, b.Bytes())
	checkOffline(t, page)
	c := doc.CogLang
	want := []string{"L1</strong> passed", "L2</strong> blocked", "L3</strong> failed", "L4</strong> unevaluated",
		ratio(c.Summary.ValidateOKCount, c.CaseCount), ratio(c.Summary.ExpectedTopLevelHeadOKCount, c.CaseCount), "FetchAll[&lt;script&gt;"}
	for _, f := range c.FailureCases {
		want = append(want, f.CaseID)
	}
	for _, e := range c.PreflightSummary {
		want = append(want, e.Key)
	}
	for _, w := range want {
		if !strings.Contains(page, w) {
			t.Errorf("page lacks %q", w)
		}
	}
}

func TestShade(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		in   *float64
		want string
	}{{nil, "sna"}, {f(0), "s0"}, {f(4.9), "s0"}, {f(5), "s1"}, {f(75), "s8"}, {f(100), "s10"}, {f(130), "s10"}, {f(-3), "s0"}} {
		if got := shade(tc.in); got != tc.want {
			t.Errorf("shade(%v) = %s, want %s", show(tc.in), got, tc.want)
		}
	}
}

func show(p *float64) string {
	if p == nil {
		return "nil"
	}
	return num(p, 2)
}

// junitBack renders doc as JUnit and parses it back.
func junitBack(t *testing.T, doc Doc) JUnitSuites {
	t.Helper()
	var b bytes.Buffer
	if err := WriteJUnit(&b, doc); err != nil {
		t.Fatal(err)
	}
	var s JUnitSuites
	if err := xml.Unmarshal(b.Bytes(), &s); err != nil {
		t.Fatalf("junit does not parse back: %v", err)
	}
	return s
}

func checkTotals(t *testing.T, s JUnitSuites) {
	t.Helper()
	var tests, failures, errs int
	for _, suite := range s.Suites {
		var st, sf, se int
		for _, c := range suite.Cases {
			st++
			if c.Failure != nil {
				sf++
			}
			if c.Error != nil {
				se++
			}
			if c.Failure != nil && c.Error != nil {
				t.Errorf("%s: both a failure and an error", c.Name)
			}
		}
		if st != suite.Tests || sf != suite.Failures || se != suite.Errors {
			t.Errorf("suite %s says %d/%d/%d, holds %d/%d/%d", suite.Name, suite.Tests, suite.Failures, suite.Errors, st, sf, se)
		}
		tests, failures, errs = tests+st, failures+sf, errs+se
	}
	if tests != s.Tests || failures != s.Failures || errs != s.Errors {
		t.Errorf("testsuites says %d/%d/%d, holds %d/%d/%d", s.Tests, s.Failures, s.Errors, tests, failures, errs)
	}
}

func TestJUnitToolcallCounts(t *testing.T) {
	doc := load(t, "testdata/toolcall_small.json").held()
	r := doc.Toolcall
	// A provider error and a missing response are errors, not failures.
	r.Rows[0].ProviderError, r.Rows[0].FinalSuccess = true, false
	r.Rows[5].Missing, r.Rows[5].FinalSuccess = true, false
	r.Rows[6].Repeat = 2
	s := junitBack(t, doc)
	checkTotals(t, s)
	var wantFail, wantErr int
	for _, row := range r.Rows {
		switch {
		case row.Missing || row.ProviderError:
			wantErr++
		case !row.FinalSuccess:
			wantFail++
		}
	}
	// one test case a gate, a failed gate a failure
	for _, g := range r.Gates {
		if !g.Passed {
			wantFail++
		}
	}
	if s.Tests != len(r.Rows)+len(r.Gates) || s.Failures != wantFail || s.Errors != wantErr {
		t.Errorf("junit %d tests, %d failures, %d errors; report has %d rows and %d gates, %d failing, %d errors",
			s.Tests, s.Failures, s.Errors, len(r.Rows), len(r.Gates), wantFail, wantErr)
	}
	if len(r.Gates) == 0 || len(s.Suites) != len(r.Arms)+1 {
		t.Fatalf("%d suites for %d arms and %d gates", len(s.Suites), len(r.Arms), len(r.Gates))
	}
	gates := s.Suites[len(s.Suites)-1]
	if gates.Name != "toolcall/gates" || len(gates.Cases) != len(r.Gates) || gates.Cases[0].Name != r.Gates[0].Gate {
		t.Errorf("gates suite %+v", gates)
	}
	for i, c := range gates.Cases {
		if failed := c.Failure != nil && c.Failure.Type == JUnitGate; failed == r.Gates[i].Passed {
			t.Errorf("gate %s passed %v, test case %+v", r.Gates[i].Gate, r.Gates[i].Passed, c)
		}
	}
	s.Suites = s.Suites[:len(s.Suites)-1]
	names := map[string]bool{}
	for _, suite := range s.Suites {
		for _, c := range suite.Cases {
			if c.ClassName != suite.Name || !strings.HasPrefix(c.ClassName, "toolcall/") {
				t.Errorf("testcase %s has classname %s in suite %s", c.Name, c.ClassName, suite.Name)
			}
			names[c.Name] = true
		}
	}
	if !names[r.Rows[6].CaseID+"#r2"] {
		t.Errorf("repeat 2 of %s is not named with #r2", r.Rows[6].CaseID)
	}
	for _, suite := range s.Suites {
		for _, c := range suite.Cases {
			if c.Failure != nil && (c.Failure.Type != JUnitWrongAnswer || c.Failure.Message == "") {
				t.Errorf("%s: failure %+v", c.Name, *c.Failure)
			}
		}
	}
}

func TestJUnitCogLangCounts(t *testing.T) {
	doc := load(t, "testdata/coglang_failures.json")
	s := junitBack(t, doc)
	checkTotals(t, s)
	if s.Failures != doc.CogLang.FailureCaseCount || s.Errors != 0 {
		t.Errorf("junit %d failures, %d errors; result has %d failing cases", s.Failures, s.Errors, doc.CogLang.FailureCaseCount)
	}
	if len(s.Suites) != len(doc.CogLang.Maturity.EvaluatedLevels) {
		t.Errorf("%d suites for %d evaluated levels", len(s.Suites), len(doc.CogLang.Maturity.EvaluatedLevels))
	}
}

func interopDir(t testing.TB) string {
	t.Helper()
	return fixturetest.Interop(t, "coglang")
}

func TestInteropCogLang(t *testing.T) {
	dir := interopDir(t)
	for _, tc := range []struct {
		file                string
		tests, failures, ok int
	}{
		{"reference_answers_result.json", 50, 0, 1},
		{"mixed_responses_result_failures_only.json", 5, 5, 0},
	} {
		t.Run(tc.file, func(t *testing.T) {
			doc := load(t, filepath.Join(dir, tc.file))
			s := junitBack(t, doc)
			checkTotals(t, s)
			if s.Tests != tc.tests || s.Failures != tc.failures {
				t.Errorf("junit %d tests, %d failures; want %d, %d", s.Tests, s.Failures, tc.tests, tc.failures)
			}
			for _, w := range writers {
				var b bytes.Buffer
				if err := w.write(&b, doc); err != nil {
					t.Fatalf("%s: %v", w.ext, err)
				}
				if w.ext == "html" {
					checkWellFormed(t, b.Bytes())
					checkOffline(t, b.String())
				}
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	base, err := os.ReadFile("testdata/toolcall_small.json")
	if err != nil {
		t.Fatal(err)
	}
	src := string(base)
	for _, tc := range []struct {
		name, data, want string
	}{
		{"not json", "{", "report.json:"},
		{"no version", `{"suite": "toolcall"}`, "no schema_version"},
		{"heschema report", `{"config": {"repeats": 3}, "cases": 480, "completedRuns": 4320, "complete": true, "arms": {}, "effects": {}}`, "report.json:1:1: expected an fbeval report (fbeval-report/v1 or coglang-generation-eval-result/v0.1), found HESchema's report (config, arms, effects): convert the run log beside it with fbeval-batch from-heschema DIR and score what it writes; fbeval score --format json then writes a report"},
		{"unknown version", `{"schema_version": "fbeval-report/v9"}`, `report.json:1:20: expected an fbeval report, found fbeval-report/v9: another version of the format than this fbeval reads (fbeval-report/v1): read it with the tool of its version, or make it again with this fbeval and its runners`},
		{"string for a count", strings.Replace(src, `"runs": 4`, `"runs": "4"`, 1), "runs"},
		{"fraction for a count", strings.Replace(src, `"expected_rows": 12`, `"expected_rows": 12.5`, 1), "expected_rows"},
		{"duplicate key", strings.Replace(src, `"complete": true,`, `"complete": true, "complete": false,`, 1), "duplicate"},
		{"wrong suite", strings.Replace(src, `"suite": "toolcall",`, `"suite": "coglang",`, 1), `suite "coglang"`},
		{"row of an unknown arm", strings.Replace(src, `"arm": "no_schema"`, `"arm": "rich_schema"`, 1), `arm "rich_schema"`},
		{"arms not an object", strings.Replace(src, `"arms": {`, `"arms": [], "x": {`, 1), `"arms" must be an object, not a JSON list`},
		{"coglang without summary", `{"schema_version": "coglang-generation-eval-result/v0.1"}`, "no summary"},
		// as Notepad or PowerShell saves a file it edited
		{"byte order mark", "\ufeff" + src, "report.json:1:1: expected an fbeval report: invalid JSON: a UTF-8 byte order mark, as Notepad and PowerShell's UTF8 encoding save one: save the file as UTF-8 without it"},
		{"trailing comma", strings.Replace(src, `"complete": true,`, `"complete": true,}`, 1), "invalid JSON: a comma before the closing '}', which JSON does not allow: remove it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load("report.json", []byte(tc.data))
			if err == nil {
				t.Fatalf("no error, want one containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q, want one line containing %q", err, tc.want)
			}
			if !regexp.MustCompile(`^report\.json:[0-9]+:[0-9]+: `).MatchString(err.Error()) {
				t.Errorf("error %q is not located at a line and column", err)
			}
		})
	}
}

func TestLoadToleratesNewKeys(t *testing.T) {
	base, err := os.ReadFile("testdata/toolcall_small.json")
	if err != nil {
		t.Fatal(err)
	}
	data := strings.Replace(string(base), `"complete": true,`, `"complete": true, "future_block": {"deep": [1, {"x": null}]},`, 1)
	doc, err := Load("r.json", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if got := doc.Toolcall.Arms.Keys(); strings.Join(got, ",") != "no_schema,minimal_schema,input_schema" {
		t.Errorf("arm order %v, want the document's", got)
	}
}

func FuzzLoad(f *testing.F) {
	for _, ex := range examples {
		data, err := os.ReadFile(filepath.Join("testdata", ex+".json"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"schema_version": "fbeval-report/v1", "suite": "toolcall", "arms": {"a": {}}, "rows": [{"case_id": "x", "arm": "a", "repeat": -3}]}`))
	f.Add([]byte(`{"schema_version": "coglang-generation-eval-result/v0.1", "summary": {}, "maturity": {"evaluated_levels": ["L1"]}, "level_summary": {"L1": {}}}`))
	// CogLang results: cut inside its cases, a bad case deep inside
	cog, err := os.ReadFile("testdata/coglang_failures.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(cog[:bytes.LastIndex(cog, []byte(`"parse_ok"`))])
	last := bytes.LastIndex(cog, []byte(`"validate_ok": `))
	f.Add(append(append(slices.Clip(cog[:last]), `"validate_ok": "x"`...), cog[bytes.IndexByte(cog[last:], ',')+last:]...))
	f.Add([]byte(`{"schema_version": "coglang-generation-eval-result/v0.1", "summary": {}, "maturity": {}, "failure_cases": [{"case_id": "a"}, {"level": 1}], "cases": [{}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := Load("fuzz.json", data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
			return
		}
		for _, w := range writers {
			if err := w.write(io.Discard, doc); err != nil {
				t.Errorf("%s: %v", w.ext, err)
			}
		}
		// Opened with its JUnit counts kept, it writes the JUnit XML it
		// writes without.
		kept, err := Open("fuzz.json", bytes.NewReader(data), OpenOptions{JUnitCounts: true})
		if err != nil {
			t.Fatalf("opened without its JUnit counts, not with them: %v", err)
		}
		var counted, read bytes.Buffer
		if err := WriteJUnit(&counted, kept); err != nil {
			t.Fatal(err)
		}
		if err := WriteJUnit(&read, doc); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(counted.Bytes(), read.Bytes()) {
			t.Errorf("JUnit with the counts kept\n%s\nwithout\n%s", clip(counted.String(), 2000), clip(read.String(), 2000))
		}
		// Read with tight bounds, the report renders as read whole, or is
		// refused in one line.
		tight, err := Open("fuzz.json", bytes.NewReader(data), OpenOptions{MaxHeadBytes: int64(len(data)) / 2, MaxRowBytes: 200})
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
			return
		}
		var a, b bytes.Buffer
		if err := WriteJSON(&a, tight); err != nil {
			t.Fatal(err)
		}
		if err := WriteJSON(&b, doc.held()); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Error("a report read with tight bounds writes other JSON")
		}
	})
}

func BenchmarkWriteHTML(b *testing.B) {
	doc := load(b, "testdata/toolcall_small.json")
	b.ReportAllocs()
	for b.Loop() {
		if err := WriteHTML(io.Discard, doc); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLoad(b *testing.B) {
	data, err := os.ReadFile("testdata/toolcall_small.json")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Load("r.json", data); err != nil {
			b.Fatal(err)
		}
	}
}

func TestNumberFormats(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, tc := range []struct{ got, want string }{
		{pct(nil), "n/a"},
		{pct(f(75)), "75.0%"},
		{pct(f(33.333333333333336)), "33.3%"},
		{points(f(25)), "+25.0 pp"},
		{points(f(-12.34)), "-12.3 pp"},
		{points(f(math.Copysign(0, -1))), "0.0 pp"},
		{num(f(-0.00001), 1), "0.0"},
		{interval(&[2]float64{4.6, 69.93}), "[4.6, 69.9]"},
		{interval(nil), "n/a"},
		{usd(f(0.00028365)), "$0.000284"},
		{ms(f(1182.5)), "1182 ms"},
		{pvalue(f(0.625)), "0.625"},
		{pvalue(f(1.23456e-7)), "1.23e-07"},
		{rate(0.9444444444444444), "94.4%"},
		{caseName("c1", 1), "c1"},
		{caseName("c1", 3), "c1#r3"},
		{clip("abcdef", 3), "abc…"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestEffectAxisFitsIntervals(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		uplift, lo, hi float64
		bound, step    float64
	}{
		{-0.95, -7.5, 5.95, 10, 5},
		{1.3, -1.2, 1.8, 2, 1},
		{12, 3, 21, 30, 15},
		{50, -50, 100, 100, 50},
		{0, 0, 0, 2, 1},
	} {
		r := &ToolcallReport{Effects: Ordered[Effect]{{Key: "input_schema_vs_no_schema", Value: Effect{AbsoluteUplift: f(tc.uplift), CI95: &[2]float64{tc.lo, tc.hi}}}}}
		ax, step := effectAxis(r)
		if ax.hi != tc.bound || ax.lo != -tc.bound || step != tc.step {
			t.Errorf("interval [%v, %v]: axis ±%v step %v, want ±%v step %v", tc.lo, tc.hi, ax.hi, step, tc.bound, tc.step)
		}
		// The interval must span a visible share of the plot.
		if w := ax.pos(tc.hi) - ax.pos(tc.lo); tc.hi > tc.lo && w < 10 {
			t.Errorf("interval [%v, %v] spans only %.1f%% of the plot", tc.lo, tc.hi, w)
		}
	}
}

func TestVerdictWords(t *testing.T) {
	for label, want := range map[string]string{"improvement": "helps", "harm": "harms", "inconclusive": "inconclusive", "": "inconclusive"} {
		if got := verdict(label); got != want {
			t.Errorf("verdict(%q) = %q, want %q", label, got, want)
		}
	}
}

// TestMarkdownStaysSmall renders a report with many long failing rows and
// warnings: the Markdown must stay well under GitHub's 1 MiB step-summary limit
// and say how much it left out.
func TestMarkdownStaysSmall(t *testing.T) {
	doc := load(t, "testdata/toolcall_small.json")
	r := *doc.Toolcall
	long := strings.Repeat("x|<b>", 4000)
	r.Rows, r.RowSource, r.Warnings = nil, nil, nil
	for i := range 20000 {
		r.Rows = append(r.Rows, Row{CaseID: fmt.Sprintf("case-%05d", i), Arm: r.Arms[0].Key, Repeat: 1, Codes: []string{"JSON_INVALID"}, FinalCodes: []string{"JSON_INVALID"}, Output: &long})
	}
	for range 5000 {
		r.Warnings = append(r.Warnings, long)
	}
	var b bytes.Buffer
	if err := WriteMarkdown(&b, Doc{Kind: KindToolcall, Toolcall: &r}); err != nil {
		t.Fatal(err)
	}
	if b.Len() > 256<<10 {
		t.Errorf("markdown is %d bytes; want well under 1 MiB", b.Len())
	}
	for _, want := range []string{"and 19950 more", "and 4950 more warnings"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("markdown does not say %q", want)
		}
	}
}

// The HTML page of a CogLang result with many failing cases lists the first
// HTMLFailureLimit of them (and of the blocked level's) and counts the rest; a
// blocking case is linked only when its row is on the page. The page is the
// same from the held result and from one read as a stream.
func TestCogLangHTMLCapsFailures(t *testing.T) {
	doc := withFailingCases(t, 2*HTMLFailureLimit)
	all := len(doc.CogLang.FailureCases)
	var held bytes.Buffer
	if err := WriteHTML(&held, doc); err != nil {
		t.Fatal(err)
	}
	page := held.String()
	for _, want := range []string{
		fmt.Sprintf("Failing cases (%d)", all),
		fmt.Sprintf("The first %d are listed here; %d more are in the JSON result.", HTMLFailureLimit, all-HTMLFailureLimit),
		"<code>FB-L1-X020</code>", // in the blocking list, past the table: not linked
		" more</p>",               // the blocking list's count of the rest
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if n := strings.Count(page, `<tr id="case-`); n != HTMLFailureLimit {
		t.Errorf("%d failing cases in the table, want %d", n, HTMLFailureLimit)
	}
	if strings.Contains(page, `href="#case-FB-L1-X020"`) || !strings.Contains(page, `href="#case-FB-L1-X000"`) {
		t.Error("a blocking case whose row is not on the page is linked")
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, savedAndOpened(t, doc)); err != nil {
		t.Fatal(err)
	}
	if b.String() != page {
		t.Error("the page of the result read as a stream differs from the held one")
	}
}

// The table of a CogLang result with many failing cases lists the first
// maxTableFailures of them and says how many there are, as the toolcall table
// does; it is the same from the held result and from one read as a stream.
func TestCogLangTableCapsFailures(t *testing.T) {
	doc := withFailingCases(t, 2*maxTableFailures)
	c := doc.CogLang
	all := len(c.FailureCases)
	var held bytes.Buffer
	if err := WriteTable(&held, doc); err != nil {
		t.Fatal(err)
	}
	table := held.String()
	want := fmt.Sprintf("failing cases: the first %d of %d; every failing case is in --format json and --format text\n", maxTableFailures, all)
	if !strings.Contains(table, want) {
		t.Errorf("the table lacks %q", want)
	}
	listed := 0
	for _, f := range c.FailureCases {
		if strings.Contains(table, "| "+f.CaseID+" ") {
			listed++
		}
	}
	if listed != maxTableFailures || !strings.Contains(table, "| "+c.FailureCases[maxTableFailures-1].CaseID+" ") {
		t.Errorf("the table lists %d failing cases, want the first %d", listed, maxTableFailures)
	}
	var b bytes.Buffer
	if err := WriteTable(&b, savedAndOpened(t, doc)); err != nil {
		t.Fatal(err)
	}
	if b.String() != table {
		t.Error("the table of the result read as a stream differs from the held one")
	}
}

// Markdown lists a saved result's first failing cases joined with the last
// case of each id, reading only the ids of the rest; a case whose id is not its
// first member, or is escaped, is found as well.
func TestCogLangMarkdownJoinsSavedCases(t *testing.T) {
	doc := withFailingCases(t, 3)
	c := doc.CogLang
	first := c.FailureCases[0].CaseID
	out := "Later[1]"
	later := c.Cases[slices.IndexFunc(c.Cases, func(cs CogLangCase) bool { return cs.CaseID == first })]
	later.Output = &out
	c.Cases = append(c.Cases, later) // the last case of an id is the one joined
	quoted := `FB-L1-"q"`
	out2 := "Quoted[2]"
	c.Cases = append(c.Cases, CogLangCase{CaseID: quoted, Level: "L1", Prompt: "p", Output: &out2, HallucinatedHeads: []string{}, FailureCategories: []string{"top_level_head_mismatch"}})
	c.FailureCases = append(c.FailureCases, FailureCase{CaseID: quoted, Level: "L1", FailureCategories: []string{"top_level_head_mismatch"}, HallucinatedHeads: []string{}})
	c.FailureCaseCount = len(c.FailureCases)
	var held bytes.Buffer
	if err := WriteMarkdown(&held, doc); err != nil {
		t.Fatal(err)
	}
	// brackets escaped, as Markdown would read a link in them
	for _, s := range []string{`Later\[1\]`, `Quoted\[2\]`, "FB-L1-X002"} {
		if !strings.Contains(held.String(), s) {
			t.Fatalf("the held result's Markdown lacks %s", s)
		}
	}
	var saved bytes.Buffer
	if err := WriteJSON(&saved, doc); err != nil {
		t.Fatal(err)
	}
	// a newer writer's member before case_id
	text := saved.String()
	at := strings.LastIndex(text, `"case_id": "FB-L1-X002"`) // in cases, after failure_cases
	if at < 0 {
		t.Fatal("the saved result has no case FB-L1-X002 to move its id in")
	}
	text = text[:at] + `"extra": {"case_id": "no", "a": ["}"]}, ` + text[at:]
	opened, err := Open("saved.json", strings.NewReader(text), OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteMarkdown(&b, opened); err != nil {
		t.Fatal(err)
	}
	if b.String() != held.String() {
		t.Errorf("the Markdown of the saved result differs from the held one's:\n%s\nwant:\n%s", b.String(), held.String())
	}
}

// withFailingCases is the live CogLang result, held, with n more failing L1
// cases (FB-L1-X000 on) after its own.
func withFailingCases(t *testing.T, n int) Doc {
	doc := load(t, "testdata/live_coglang.json").held()
	c := doc.CogLang
	for i := range n {
		id := fmt.Sprintf("FB-L1-X%03d", i)
		out := "Get[2, 2]"
		c.Cases = append(c.Cases, CogLangCase{CaseID: id, Level: "L1", Prompt: "p", Output: &out, HallucinatedHeads: []string{}, FailureCategories: []string{"top_level_head_mismatch"}})
		c.FailureCases = append(c.FailureCases, FailureCase{CaseID: id, Level: "L1", FailureCategories: []string{"top_level_head_mismatch"}, HallucinatedHeads: []string{}})
	}
	return doc
}

// savedAndOpened is doc written as JSON and opened again, its cases read as a
// stream.
func savedAndOpened(t *testing.T, doc Doc) Doc {
	var saved bytes.Buffer
	if err := WriteJSON(&saved, doc); err != nil {
		t.Fatal(err)
	}
	streamed, err := Open("big.json", bytes.NewReader(saved.Bytes()), OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return streamed
}

// TestMarkdownBounded: every list in Markdown is cut at MarkdownListLimit, so a
// run of thousands of response files or a CogLang file given twice still fits
// $GITHUB_STEP_SUMMARY (1 MiB a step); what is cut is counted and said.
func TestMarkdownBounded(t *testing.T) {
	render := func(doc Doc) string {
		var b bytes.Buffer
		if err := WriteMarkdown(&b, doc); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	tc := load(t, "testdata/toolcall_small.json")
	base := len(render(tc))
	for i := range 10080 {
		tc.Toolcall.Inputs = append(tc.Toolcall.Inputs, Input{Role: "responses", Path: fmt.Sprintf("shards/s_%05d.jsonl", i), SHA256: strings.Repeat("ab", 32)})
	}
	shards := 0
	for _, in := range tc.Toolcall.Inputs {
		if in.Role == "responses" {
			shards++
		}
	}
	md := render(tc)
	if want := fmt.Sprintf("… and %d more response files; the JSON report lists every one with its sha256.", shards-MarkdownListLimit); !strings.Contains(md, want) ||
		strings.Count(md, "| responses |") != MarkdownListLimit || len(md)-base > 16<<10 {
		t.Errorf("toolcall, %d response files: %d bytes more than with one, want the first %d and %q", shards, len(md)-base, MarkdownListLimit, want)
	}

	cg := load(t, "testdata/coglang_failures.json")
	base = len(render(cg))
	rf := cg.CogLang.ResponseFile
	for i := range 200 {
		rf.Files = append(rf.Files, ResponseFileInfo{Path: fmt.Sprintf("shards/s_%03d.jsonl", i), SHA256: strings.Repeat("cd", 32), Shape: "jsonl", Records: 500})
	}
	for i := range 100000 {
		rf.DuplicateCaseIDs = append(rf.DuplicateCaseIDs, fmt.Sprintf("FB-L1-001-%07d", i))
		rf.Warnings = append(rf.Warnings, fmt.Sprintf("shards/s_%03d.jsonl: UTF-8 byte order mark skipped", i))
	}
	md = render(cg)
	for _, want := range []string{
		fmt.Sprintf("… and %d more response files; the JSON result lists every one with its sha256.", len(rf.Files)-MarkdownListLimit),
		fmt.Sprintf("%s and %d more in the JSON result", rf.DuplicateCaseIDs[MarkdownListLimit-1], len(rf.DuplicateCaseIDs)-MarkdownListLimit),
		fmt.Sprintf("- … and %d more warnings; the JSON result holds them all.", len(rf.Warnings)-MarkdownListLimit),
	} {
		if !strings.Contains(md, want) {
			t.Errorf("CogLang: Markdown lacks %q", want)
		}
	}
	if len(md)-base > 32<<10 {
		t.Errorf("CogLang, %d files and %d duplicate ids: %d bytes more than the fixture's", len(rf.Files), len(rf.DuplicateCaseIDs), len(md)-base)
	}
}

// TestResponseFileWrittenBeforeFiles: a CogLang result written before its
// response files were listed (path, sha256 and shape of its one file) renders
// that file, in Markdown and in HTML.
func TestResponseFileWrittenBeforeFiles(t *testing.T) {
	doc := load(t, "testdata/coglang_failures.json")
	rf := doc.CogLang.ResponseFile
	rf.Path, rf.SHA256, rf.Shape, rf.Files = "old.jsonl", strings.Repeat("ef", 32), "jsonl", nil
	var md, page bytes.Buffer
	if err := WriteMarkdown(&md, doc); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(&page, doc); err != nil {
		t.Fatal(err)
	}
	if want := "| <code>old.jsonl</code> | jsonl | 9 | <code>" + rf.SHA256 + "</code> |"; !strings.Contains(md.String(), want) {
		t.Errorf("Markdown lacks %q", want)
	}
	if want := `<tr><td><code>old.jsonl</code></td><td>jsonl</td><td class="n">9</td><td><code class="hash">` + rf.SHA256 + `</code></td></tr>`; !strings.Contains(page.String(), want) {
		t.Errorf("HTML lacks %q", want)
	}
}

// TestMarkdownFailingListSaysWhereTheRestIs: past the 50 failing cases it
// lists, Markdown named the HTML report as listing every one; a CogLang page
// lists 50 too (a toolcall page's table does, and its sample browser holds
// every row).
func TestMarkdownFailingListSaysWhereTheRestIs(t *testing.T) {
	cg := load(t, "testdata/coglang_failures.json").held()
	c := cg.CogLang
	first := c.FailureCases[0]
	for i := range MarkdownListLimit + 3 {
		f := first
		f.CaseID = fmt.Sprintf("L1-%03d", i)
		c.FailureCases = append(c.FailureCases, f)
	}
	c.FailureCaseCount = len(c.FailureCases)
	var b bytes.Buffer
	if err := WriteMarkdown(&b, cg); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("… and %d more; every one is in the JSON result and --format text.", len(c.FailureCases)-MarkdownListLimit)
	if md := b.String(); !strings.Contains(md, want) || strings.Contains(md, "HTML report lists") {
		t.Errorf("CogLang: Markdown lacks %q", want)
	}
}

// TestHTMLControlCharacters: control characters from a report (a model's
// name, a warning, a file name) reach the page written as the other human
// formats write them (\x1b, \r), never raw: html/template escapes markup, not
// an ESC, BEL or CR, which the page carried as they were.
func TestHTMLControlCharacters(t *testing.T) {
	const evil = "M\x1b[31m\a\rX\u0085"
	tc := load(t, "testdata/toolcall_small.json")
	tc.Toolcall.Warnings = append(tc.Toolcall.Warnings, "warned "+evil)
	tc.Toolcall.Study.Description = evil
	cg := load(t, "testdata/coglang_failures.json")
	cg.CogLang.ResponseFile.Warnings = append(cg.CogLang.ResponseFile.Warnings, evil)
	for name, doc := range map[string]Doc{"toolcall": tc, "coglang": cg} {
		var b bytes.Buffer
		if err := WriteHTML(&b, doc); err != nil {
			t.Fatal(err)
		}
		page := b.String()
		if strings.ContainsAny(page, "\x1b\a\r\u0085") {
			t.Errorf("%s: a raw control character reached the page", name)
		}
		if !strings.Contains(page, `M\x1b[31m\x07\rX\u0085`) {
			t.Errorf("%s: the escapes are not on the page", name)
		}
	}
}
