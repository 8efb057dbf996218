package compare

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/fixtures/fixturetest"
	"github.com/fbeval/fbeval/score/report"
	"github.com/fbeval/fbeval/score/stats"
)

func loadReport(t testing.TB, name string) *report.ToolcallReport {
	t.Helper()
	path := filepath.Join("..", "report", "testdata", name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := report.Load(name, data)
	if err != nil {
		t.Fatal(err)
	}
	// The tests change rows, so the report holds them; streamed, its source
	// yields them as they are when it is read.
	r := doc.Toolcall
	for row := range r.RowSource {
		r.Rows = append(r.Rows, *row)
	}
	r.RowSource, r.BriefRowSource = nil, nil
	if streamed {
		r.RowSource = func(yield func(*report.Row) bool) {
			for i := range r.Rows {
				row := r.Rows[i]
				if !yield(&row) {
					return
				}
			}
		}
	}
	return r
}

// streamed makes loadReport give reports whose rows come from a source, as
// report.Open gives them.
var streamed bool

// TestStreamed runs the tests on reports whose rows come from a source: rows in
// the same order are compared side by side, others joined by key, with the
// same results.
func TestStreamed(t *testing.T) {
	streamed = true
	defer func() { streamed = false }()
	t.Run("figures", TestCompareFigures)
	t.Run("refuses", TestCompareRefuses)
	t.Run("golden", TestGolden)
}

func pair(t testing.TB) (*report.ToolcallReport, *report.ToolcallReport) {
	return loadReport(t, "toolcall_small.json"), loadReport(t, "toolcall_large.json")
}

var opts = Options{LabelA: "small", LabelB: "large", PathA: "toolcall_small.json", PathB: "toolcall_large.json"}

func near(p *float64, want float64) bool { return p != nil && math.Abs(*p-want) < 1e-9 }

func TestCompareFigures(t *testing.T) {
	a, b := pair(t)
	res, err := Compare(a, b, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Arms) != 3 {
		t.Fatalf("%d arms, want 3", len(res.Arms))
	}
	for _, tc := range []struct {
		arm                     string
		fpsA, fpsB, gap, ms, st float64
		sensitive               bool
		onlyA, onlyB            int
	}{
		// no_schema: small right on 1 of 4, large on 3 of 4, the same one right in both.
		{"no_schema", 25, 75, 50, 50, 50, true, 0, 2},
		{"minimal_schema", 75, 100, 25, 75, 75, true, 0, 1},
		{"input_schema", 75, 100, 25, 75, 75, true, 0, 1},
	} {
		var arm *Arm
		for i := range res.Arms {
			if res.Arms[i].Arm == tc.arm {
				arm = &res.Arms[i]
			}
		}
		if arm == nil {
			t.Fatalf("no arm %s", tc.arm)
		}
		if !near(arm.FPSA, tc.fpsA) || !near(arm.FPSB, tc.fpsB) || !near(arm.Gap, tc.gap) || !near(arm.MS, tc.ms) ||
			!near(arm.Stability, tc.st) || arm.Sensitive != tc.sensitive || arm.OnlyA != tc.onlyA || arm.OnlyB != tc.onlyB {
			t.Errorf("%s: got fps %s/%s gap %s ms %s stability %s sensitive %v only %d/%d", tc.arm, num(arm.FPSA), num(arm.FPSB),
				num(arm.Gap), num(arm.MS), num(arm.Stability), arm.Sensitive, arm.OnlyA, arm.OnlyB)
		}
	}
	// Custom fitness: 0.45 FPS + 0.20 SPV + 0.15 IRR + 0.10 (100 - retry) + 0.10 MS,
	// with the input arm's MS of 75 on both sides.
	if want := 0.45*75 + 0.20*100 + 0.15*100 + 0.10*100 + 0.10*75; !near(res.FitnessA, want) {
		t.Errorf("fitness a %s, want %v", num(res.FitnessA), want)
	}
	if want := 0.45*100 + 0.20*100 + 0.15*100 + 0.10*100 + 0.10*75; !near(res.FitnessB, want) {
		t.Errorf("fitness b %s, want %v", num(res.FitnessB), want)
	}
	var flips []Flip
	for f := range res.EachFlip() {
		flips = append(flips, *f)
	}
	if len(flips) != 4 || res.flipCount() != 4 {
		t.Errorf("%d flips (count %d), want 4", len(flips), res.flipCount())
	}
	if streamed != (res.FlipSource != nil) {
		t.Errorf("streamed %v, but flips from a source: %v", streamed, res.FlipSource != nil)
	}
	for _, f := range flips {
		if f.A == f.B {
			t.Errorf("flip %s/%s has the same outcome", f.Arm, f.CaseID)
		}
		if f.CaseID == "payments-injection-003" && f.Arm == "input_schema" && strings.Join(f.CodesA, ",") != "WRONG_ACTION,GROUND_TRUTH_MISMATCH,WRONG_TOOL" {
			t.Errorf("flip codes %v", f.CodesA)
		}
	}
}

func TestCompareRefuses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(a, b *report.ToolcallReport)
		want   []string
	}{
		{"every study difference is listed", func(a, b *report.ToolcallReport) {
			b.Study.Seed = 8
			b.Study.Repeats = 2
			b.Study.Dataset = "cases.jsonl"
			for i := range b.Inputs {
				if b.Inputs[i].Role == "dataset" {
					b.Inputs[i].SHA256 = "another"
				}
			}
			b.Study.Schemas = map[string]string{"no_schema": "none", "minimal_schema": "minimal", "input_schema": "rich"}
			b.Study.Decoding = "native_schema"
			t := 0.7
			b.Study.Temperature = &t
			b.Study.MaxTokens = nil
			b.Study.Repairs = 0
		}, []string{"seed differs (7 vs 8)", "repeats differs (1 vs 2)", `dataset differs ("builtin:toolcall-quick" vs "cases.jsonl")`,
			`schema of input_schema differs ("reference" vs "rich")`, "decoding differs", "temperature differs (0 vs 0.7)",
			"max_tokens differs (1024 vs null)", "repairs differs (1 vs 0)"}},
		{"incomplete", func(a, b *report.ToolcallReport) { a.Complete = false }, []string{"small: report is not complete"}},
		{"unmeasured", func(a, b *report.ToolcallReport) { b.Unmeasured = true }, []string{"large: every answer is empty, an API's message around the model's text, encoded twice, in quotes or in a list, or every record a provider error, so its figures measure the runner"}},
		{"provider errors", func(a, b *report.ToolcallReport) {
			m := b.Arms[0].Value
			m.ProviderErrors = 2
			b.Arms[0].Value = m
		}, []string{"large: 2 provider errors; ask the requests left without an answer again (a runner's -o resumes its file, asking only those) and score again"}},
		{"missing row flag", func(a, b *report.ToolcallReport) { a.Rows[3].Missing = true }, []string{"small: 1 missing response; ask the requests left without an answer again"}},
		{"dataset contents", func(a, b *report.ToolcallReport) { b.Inputs[0].SHA256 = "00" }, []string{"dataset input sha256 differs"}},
		{"schema files swapped between arms", func(a, b *report.ToolcallReport) {
			a.Study.Schemas = map[string]string{"minimal_schema": "m.json", "input_schema": "i.json"}
			b.Study.Schemas = map[string]string{"minimal_schema": "i.json", "input_schema": "m.json"}
			for _, r := range []*report.ToolcallReport{a, b} {
				r.Inputs = append(r.Inputs, report.Input{Role: "schema", Path: "m.json", SHA256: "aa"}, report.Input{Role: "schema", Path: "i.json", SHA256: "bb"})
			}
		}, []string{`schema of minimal_schema differs ("m.json" vs "i.json": sha256 aa vs bb)`, `schema of input_schema differs ("i.json" vs "m.json": sha256 bb vs aa)`}},
		{"rows differ", func(a, b *report.ToolcallReport) { b.Rows = b.Rows[1:] }, []string{"1 row only in small (first: no_schema/flights-complete-001#r1)"}},
		{"duplicate row", func(a, b *report.ToolcallReport) { b.Rows[1] = b.Rows[0] }, []string{"large: row no_schema/flights-complete-001#r1 appears twice"}},
		{"duplicate row in both", func(a, b *report.ToolcallReport) { a.Rows[1], b.Rows[1] = a.Rows[0], b.Rows[0] },
			[]string{"small: row no_schema/flights-complete-001#r1 appears twice", "large: row no_schema/flights-complete-001#r1 appears twice"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := pair(t)
			tc.change(a, b)
			_, err := Compare(a, b, opts)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
		})
	}
	if _, err := Compare(nil, nil, opts); err == nil {
		t.Error("nil reports compared")
	}
}

// TestCompareFilesByContents: a dataset, schema file or template read from
// another path with the same contents is the same study (compare refused the
// same dataset copied beside the study: "dataset differs"), and so is a
// built-in dataset and the same read from a file.
func TestCompareFilesByContents(t *testing.T) {
	a, b := pair(t)
	a.Study.Dataset, b.Study.Dataset = "/data/cases.jsonl", "cases.jsonl"
	a.Study.Schemas = map[string]string{"minimal_schema": "minimal", "input_schema": "/s/cand.json"}
	b.Study.Schemas = map[string]string{"minimal_schema": "minimal", "input_schema": "cand.json"}
	a.Study.PromptTemplate, b.Study.PromptTemplate = "/t/p.tmpl", "p.tmpl"
	a.Inputs = append(a.Inputs, report.Input{Role: "schema", Path: "/s/cand.json", SHA256: "cc"}, report.Input{Role: "template", Path: "/t/p.tmpl", SHA256: "dd"})
	b.Inputs = append(b.Inputs, report.Input{Role: "schema", Path: "cand.json", SHA256: "cc"}, report.Input{Role: "template", Path: "p.tmpl", SHA256: "dd"})
	if _, err := Compare(a, b, opts); err != nil {
		t.Fatal(err)
	}
	// a built-in dataset on one side and the same dataset read from a file
	// (fbeval fixtures build wrote it) on the other: the same study
	a.Study.Dataset = "builtin:toolcall-quick"
	di := slices.IndexFunc(b.Inputs, func(in report.Input) bool { return in.Role == "dataset" })
	if _, err := Compare(a, b, opts); err != nil {
		t.Fatal(err)
	}
	was := b.Inputs[di].SHA256
	b.Inputs[di].SHA256 = "ab"
	if _, err := Compare(a, b, opts); err == nil || !strings.Contains(err.Error(), `dataset differs ("builtin:toolcall-quick" vs "cases.jsonl")`) || !strings.Contains(err.Error(), "dataset input sha256 differs") {
		t.Errorf("another dataset than the built-in: %v", err)
	}
	b.Inputs[di].SHA256 = was
	a.Study.Dataset = "/data/cases.jsonl"
	b.Inputs[len(b.Inputs)-2].SHA256 = "ee"
	if _, err := Compare(a, b, opts); err == nil || !strings.Contains(err.Error(), `schema of input_schema differs ("/s/cand.json" vs "cand.json": sha256 cc vs ee)`) {
		t.Errorf("another schema at another path: %v", err)
	}
}

func TestGolden(t *testing.T) {
	a, b := pair(t)
	res, err := Compare(a, b, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []struct {
		ext   string
		write func(io.Writer, *Result) error
	}{{"json", WriteJSON}, {"table.txt", WriteTable}, {"md", WriteMarkdown}, {"html", WriteHTML}} {
		t.Run(w.ext, func(t *testing.T) {
			var got bytes.Buffer
			if err := w.write(&got, res); err != nil {
				t.Fatal(err)
			}
			fixturetest.Golden(t, filepath.Join("testdata", "small_vs_large."+w.ext+".golden"), got.Bytes())
		})
	}
}

func TestHTMLWellFormedAndOffline(t *testing.T) {
	a, b := pair(t)
	res, err := Compare(a, b, opts)
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if err := WriteHTML(&page, res); err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(page.Bytes()))
	for {
		_, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("page is not well formed: %v", err)
		}
	}
	// The one script is the flips filter, inline, with no source to fetch.
	s := strings.Replace(strings.ToLower(page.String()), "<script>/*<![cdata[*/", "", 1)
	for _, bad := range []string{"http://", "https://", "//", "<script", " src=", "url("} {
		if strings.Contains(s, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	for _, f := range res.Flips {
		if !strings.Contains(page.String(), f.CaseID) {
			t.Errorf("page lacks flip %s", f.CaseID)
		}
	}
	for _, w := range []string{"75.0%", "100.0%", num(res.FitnessA), num(res.FitnessB)} {
		if !strings.Contains(page.String(), w) {
			t.Errorf("page lacks %q", w)
		}
	}
}

func BenchmarkCompare(b *testing.B) {
	ra, rb := pair(b)
	for b.Loop() {
		if _, err := Compare(ra, rb, opts); err != nil {
			b.Fatal(err)
		}
	}
}

func TestDefaultLabels(t *testing.T) {
	a, b := pair(t)
	for _, r := range []*report.ToolcallReport{a, b} {
		for i := range r.Arms {
			r.Arms[i].Value.Models = nil
		}
	}
	res, err := Compare(a, b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Without models in the reports, each side is named by its responses file.
	if res.A.Label != "responses-small.jsonl" || res.B.Label != "responses-large.jsonl" {
		t.Errorf("labels %q, %q; want the responses files", res.A.Label, res.B.Label)
	}
	for i := range a.Arms {
		a.Arms[i].Value.Models = []string{"tiny-1b"}
	}
	for i := range b.Arms {
		b.Arms[i].Value.Models = []string{"big-70b"}
	}
	if res, err = Compare(a, b, Options{}); err != nil {
		t.Fatal(err)
	}
	if res.A.Label != "tiny-1b" || res.B.Label != "big-70b" {
		t.Errorf("labels %q, %q; want the models", res.A.Label, res.B.Label)
	}
	if res, err = Compare(a, a, Options{}); err != nil {
		t.Fatal(err)
	}
	if res.A.Label == res.B.Label {
		t.Errorf("two sides share the label %q", res.A.Label)
	}
}

// TestFilesLabel: past three response files (a batch engine's shards), a side
// is named by their folder, or the first file and how many more: a label
// heads every sentence and column of a comparison.
func TestFilesLabel(t *testing.T) {
	shards := make([]string, 10080)
	for i := range shards {
		shards[i] = filepath.Join("shards", fmt.Sprintf("s_%05d.jsonl", i))
	}
	mixed := []string{"a/x.jsonl", "a/y.jsonl", "b/x.jsonl", "b/y.jsonl"}
	here := []string{"x.jsonl", "y.jsonl", "z.jsonl", "w.jsonl"}
	for _, tt := range []struct {
		files []string
		want  string
	}{
		{nil, "A"},
		{[]string{"out.jsonl"}, "out.jsonl"},
		{[]string{"a.jsonl", "b.jsonl", "c.jsonl"}, "a.jsonl+b.jsonl+c.jsonl"},
		{shards, "shards (10080 files)"},
		{mixed, "a/x.jsonl+3 more files"},
		{here, "x.jsonl+3 more files"},
	} {
		if got := filesLabel(tt.files, "A"); got != tt.want {
			t.Errorf("%d files: %q, want %q", len(tt.files), got, tt.want)
		}
	}
}

// TestPairedWinner checks the per-arm paired test against score/stats on the
// same pairs: B's first pass as the treatment, A's as the baseline.
func TestPairedWinner(t *testing.T) {
	a, b := pair(t)
	res, err := Compare(a, b, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, arm := range res.Arms {
		e := arm.Paired
		if e.PairedRuns != arm.Rows {
			t.Errorf("%s: %d pairs, want %d rows", arm.Arm, e.PairedRuns, arm.Rows)
		}
		if e.DiscordantWins != arm.OnlyB || e.DiscordantLosses != arm.OnlyA {
			t.Errorf("%s: wins/losses %d/%d, want %d/%d", arm.Arm, e.DiscordantWins, e.DiscordantLosses, arm.OnlyB, arm.OnlyA)
		}
		want := map[string]string{"improvement": "large", "harm": "small"}[e.Label]
		if arm.Winner != want {
			t.Errorf("%s: winner %q with effect %q, want %q", arm.Arm, arm.Winner, e.Label, want)
		}
		// the side, whatever the labels say (they may be alike)
		if side := map[string]string{"improvement": "b", "harm": "a"}[e.Label]; arm.WinnerSide != side {
			t.Errorf("%s: winner side %q with effect %q, want %q", arm.Arm, arm.WinnerSide, e.Label, side)
		}
	}
}

// TestMarkdownCapsFlips: a comparison with many flips stays well under GitHub's
// 1 MiB step-summary limit and says how many flips it left out.
func TestMarkdownCapsFlips(t *testing.T) {
	a, b := pair(t)
	res, err := Compare(a, b, opts)
	if err != nil {
		t.Fatal(err)
	}
	f := res.Flips[0]
	f.CodesA = []string{strings.Repeat("LONG_CODE_", 50)}
	res.Flips = nil
	for range 100000 {
		res.Flips = append(res.Flips, f)
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, res); err != nil {
		t.Fatal(err)
	}
	if md.Len() > 128<<10 {
		t.Errorf("markdown is %d bytes; want well under 1 MiB", md.Len())
	}
	if !strings.Contains(md.String(), "and 99950 more flips") {
		t.Error("markdown does not say how many flips it left out")
	}
}

// TestLockstep: the rows of a and b are paired in order whatever the number of
// rows around b's read-ahead batches, lockstep says whether both have as many,
// and f stopping stops it.
func TestLockstep(t *testing.T) {
	source := func(n int) *report.ToolcallReport {
		return &report.ToolcallReport{RowSource: func(yield func(*report.Row) bool) {
			var row report.Row // reused, as a stream's row is
			for i := range n {
				row = report.Row{CaseID: strconv.Itoa(i), Repeat: i}
				if !yield(&row) {
					return
				}
			}
		}}
	}
	for _, n := range []int{0, 1, lockstepBatch - 1, lockstepBatch, lockstepBatch + 1, 2*lockstepBatch + 7} {
		for _, m := range []int{n - 1, n, n + 1} {
			if m < 0 {
				continue
			}
			seen := 0
			same := lockstep(source(n), source(m), func(ra, rb *report.Row) bool {
				if ra.CaseID != rb.CaseID || rb.Repeat != seen {
					t.Fatalf("%d and %d rows: pair %d is %q and %q", n, m, seen, ra.CaseID, rb.CaseID)
				}
				seen++
				return true
			})
			if same != (n == m) || seen != min(n, m) {
				t.Errorf("%d and %d rows: lockstep %v after %d pairs", n, m, same, seen)
			}
		}
		if n > 2 {
			seen := 0
			if lockstep(source(n), source(n), func(ra, rb *report.Row) bool { seen++; return seen < 3 }) || seen != 3 {
				t.Errorf("%d rows: stopped at pair 3, lockstep went on to %d", n, seen)
			}
		}
	}
}

// TestHTMLListsFirstFlipsOfEachArm: the page lists the first HTMLFlipLimit
// flips of each arm and says how many there are; the JSON lists them all.
func TestHTMLListsFirstFlipsOfEachArm(t *testing.T) {
	a, b := pair(t)
	res, err := Compare(a, b, opts)
	if err != nil {
		t.Fatal(err)
	}
	res.Flips, res.FlipSource = nil, nil
	for _, arm := range res.Arms {
		for i := range HTMLFlipLimit + 7 {
			res.Flips = append(res.Flips, Flip{Arm: arm.Arm, CaseID: fmt.Sprintf("c-%04d", i), Repeat: 1, B: true})
		}
	}
	var page, doc bytes.Buffer
	if err := WriteHTML(&page, res); err != nil {
		t.Fatal(err)
	}
	total := len(res.Arms) * (HTMLFlipLimit + 7)
	if n := strings.Count(page.String(), "<tr data-arm="); n != len(res.Arms)*HTMLFlipLimit {
		t.Errorf("the page lists %d flips, want %d", n, len(res.Arms)*HTMLFlipLimit)
	}
	if want := fmt.Sprintf("the first %d of each arm, %d of %d; <code>--format json</code> lists every one", HTMLFlipLimit, len(res.Arms)*HTMLFlipLimit, total); !strings.Contains(page.String(), want) {
		t.Errorf("the page does not say %q", want)
	}
	if err := WriteJSON(&doc, res); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(doc.String(), `"case_id": "c-`); n != total {
		t.Errorf("the JSON lists %d flips, want %d", n, total)
	}
}

// TestHTMLFirstFlipsStreamed: from reports whose rows come from a source, the
// page's flips come from one reading of the rows, the first HTMLFlipLimit of
// each arm, the same as those the flip source yields first.
func TestHTMLFirstFlipsStreamed(t *testing.T) {
	a, b := pair(t)
	arms := a.Arms.Keys()
	const perArm = HTMLFlipLimit + 7
	rows := func(flipped bool) func(yield func(*report.Row) bool) {
		return func(yield func(*report.Row) bool) {
			var row report.Row
			for i := range perArm * len(arms) {
				row = report.Row{CaseID: fmt.Sprintf("c-%04d", i/len(arms)), Arm: arms[i%len(arms)], Repeat: 1, Codes: []string{},
					FirstPassSuccess: (i%3 == 0) != flipped}
				if !yield(&row) {
					return
				}
			}
		}
	}
	a.Rows, a.RowSource, a.BriefRowSource = nil, rows(false), nil
	b.Rows, b.RowSource, b.BriefRowSource = nil, rows(true), nil
	res, err := Compare(a, b, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.FlipSource == nil || res.firstFlips == nil {
		t.Fatal("the comparison does not read its flips from the rows")
	}
	var want []Flip
	count := map[string]int{}
	for f := range res.EachFlip() {
		if count[f.Arm] < HTMLFlipLimit {
			count[f.Arm]++
			want = append(want, *f)
		}
	}
	got := res.firstFlipsOfEachArm(HTMLFlipLimit)
	if len(got) != len(arms)*HTMLFlipLimit || !reflect.DeepEqual(got, want) {
		t.Fatalf("%d first flips, want the %d the source yields first", len(got), len(want))
	}
	var page bytes.Buffer
	if err := WriteHTML(&page, res); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(page.String(), "<tr data-arm="); n != len(arms)*HTMLFlipLimit {
		t.Errorf("the page lists %d flips, want %d", n, len(arms)*HTMLFlipLimit)
	}
}

// TestFlipSourceArmByArm: from reports whose rows come from a source, the flip
// source yields every flip arm by arm, in row order, each with its rows' case,
// repeat, domain, category and codes (codes that look alike kept apart), and
// stops where its reader stops.
func TestFlipSourceArmByArm(t *testing.T) {
	a, b := pair(t)
	arms := a.Arms.Keys()
	codeSets := [][]string{nil, {}, {"WRONG_ACTION"}, {"A\x00", "B"}, {"A", "\x00B"}, {"JSON_INVALID", "WRONG_ACTION"}}
	const n = 600
	rows := func(side int) func(yield func(*report.Row) bool) {
		return func(yield func(*report.Row) bool) {
			var row report.Row
			for i := range n {
				row = report.Row{CaseID: fmt.Sprintf("c-%03d", i/len(arms)/4), Arm: arms[i%len(arms)], Repeat: i/len(arms)%4 + 1,
					Domain: fmt.Sprintf("d%d", i%5), Category: fmt.Sprintf("k%d", i%7),
					FirstPassSuccess: (i*7+side*i*i)%3 == 0, Codes: codeSets[(i+side*3)%len(codeSets)]}
				if !yield(&row) {
					return
				}
			}
		}
	}
	var want []Flip
	for _, arm := range arms {
		ra, rb := rows(0), rows(1)
		var as, bs []report.Row
		for r := range ra {
			as = append(as, *r)
		}
		for r := range rb {
			bs = append(bs, *r)
		}
		for i := range as {
			if as[i].Arm == arm && as[i].FirstPassSuccess != bs[i].FirstPassSuccess {
				want = append(want, flipOf(&as[i], &bs[i]))
			}
		}
	}
	a.Rows, a.RowSource, a.BriefRowSource = nil, rows(0), nil
	b.Rows, b.RowSource, b.BriefRowSource = nil, rows(1), nil
	res, err := Compare(a, b, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.FlipSource == nil {
		t.Fatal("the comparison does not read its flips from the rows")
	}
	same := func(x, y Flip) bool {
		return x.Arm == y.Arm && x.CaseID == y.CaseID && x.Repeat == y.Repeat && x.Domain == y.Domain && x.Category == y.Category &&
			x.A == y.A && x.B == y.B && slices.Equal(x.CodesA, y.CodesA) && slices.Equal(x.CodesB, y.CodesB)
	}
	var got []Flip
	for f := range res.EachFlip() {
		got = append(got, *f)
	}
	if len(got) != len(want) || res.FlipCount != len(want) {
		t.Fatalf("%d flips (count %d), want %d", len(got), res.FlipCount, len(want))
	}
	for i := range want {
		if !same(got[i], want[i]) {
			t.Fatalf("flip %d is %+v, want %+v", i, got[i], want[i])
		}
	}
	for _, stop := range []int{1, len(want) / 3, len(want) - 1} {
		k := 0
		for f := range res.EachFlip() {
			if !same(*f, want[k]) {
				t.Fatalf("stopping after %d: flip %d is %+v, want %+v", stop, k, *f, want[k])
			}
			if k++; k == stop {
				break
			}
		}
		if k != stop {
			t.Errorf("stopping after %d: read %d", stop, k)
		}
	}
}

// TestMarkdownInGFM: the Markdown comparison renders in GitHub's renderer to
// tables whose every row has its header's cells, with labels and warnings that
// would break them shown as their text.
func TestMarkdownInGFM(t *testing.T) {
	hostile := fixturetest.Hostile
	a, b := pair(t)
	a.Warnings, b.Warnings = hostile, hostile
	o := opts
	o.LabelA, o.LabelB = "small|*8b*", "large_`70b`"
	res, err := Compare(a, b, o)
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, res); err != nil {
		t.Fatal(err)
	}
	page := fixturetest.RenderGFM(t, md.Bytes())
	fixturetest.CheckGFMTables(t, "comparison", page)
	text := fixturetest.GFMText(page)
	for _, h := range append([]string{o.LabelA, o.LabelB}, hostile...) {
		if w := strings.Join(strings.Fields(h), " "); !strings.Contains(text, w) {
			t.Errorf("%q is not shown", w)
		}
	}
}

// TestStudyName: a study file without a name is said to have none ("study: ,"
// was written).
func TestStudyName(t *testing.T) {
	a, b := pair(t)
	a.Study.Name, b.Study.Name = "", ""
	res, err := Compare(a, b, opts)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := WriteTable(&out, res); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "\nstudy: (no name), dataset: ") {
		t.Errorf("%.200s", out.String())
	}
}

// TestWinnerLinePooled: where the table's gap (pooled over rows) reads
// otherwise than the paired mean over clusters, the arm's line gives both (a
// reader saw -1.6 pp in the table and +0.5 pp in the line above it); where
// they read alike, once.
func TestWinnerLinePooled(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	r := &Result{A: Side{Label: "a"}, B: Side{Label: "b"}}
	for _, tc := range []struct {
		gap, uplift float64
		want        string
	}{
		{-1.6, 0.5, "b minus a +0.5 pp (paired, mean over clusters; pooled over rows, the table's gap, -1.6 pp)"},
		{0.82, 0.79, "b minus a +0.8 pp (paired, mean over clusters), 95% CI"},
	} {
		a := Arm{Arm: "input_schema", Gap: f(tc.gap), Paired: stats.Effect{AbsoluteUplift: f(tc.uplift), PairedRuns: 10}}
		if got := winnerLine(r, a); !strings.Contains(got, tc.want) {
			t.Errorf("gap %v, uplift %v: %q, want %q in it", tc.gap, tc.uplift, got, tc.want)
		}
	}
}

// TestNumbersAsReports: a comparison writes its figures as reports do: a tiny
// negative gap (B lost one row of 2400) is "0.0 pp", where it read "-0.0 pp".
func TestNumbersAsReports(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, tt := range []struct{ got, want string }{
		{gap(f(-1.0 / 24)), "0.0 pp"},
		{gap(f(1.0 / 24)), "0.0 pp"},
		{gap(f(0.06)), "+0.1 pp"},
		{gap(f(-0.06)), "-0.1 pp"},
		{gap(nil), "n/a"},
		{num(f(-0.01)), "0.0"},
		{pct(f(-0.01)), "0.0%"},
		{pct(f(math.NaN())), "n/a"},
		{interval(&[2]float64{-0.04, 1.26}), "[0.0, 1.3]"},
	} {
		if tt.got != tt.want {
			t.Errorf("%q, want %q", tt.got, tt.want)
		}
	}
}
