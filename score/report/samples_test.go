package report

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// marshalledSamples is the sample browser's block as it was built before it was
// written while the rows are walked: every row gathered into boxed values and
// marshalled by jsontext. It is the oracle of sampleRows and writeTo.
func marshalledSamples(t testing.TB, r *ToolcallReport) string {
	type samples struct {
		Arms       []string `json:"arms"`
		Domains    []string `json:"domains"`
		Categories []string `json:"categories"`
		Codes      []string `json:"codes"`
		Strings    []string `json:"strings"`
		Cases      [][5]any `json:"cases"`
		Rows       [][5]any `json:"rows"`
	}
	all := func(in *interner) []string {
		if in.list == nil {
			return []string{}
		}
		return in.list
	}
	var arms, domains, categories, codes, strs, caseIDs interner
	for _, a := range r.Arms {
		arms.id(a.Key)
	}
	info := map[string]*CaseInfo{}
	for i := range r.Cases {
		info[r.Cases[i].CaseID] = &r.Cases[i]
	}
	out := samples{Cases: [][5]any{}, Rows: [][5]any{}}
	missing := false
	for row := range r.rows() {
		missing = missing || row.Missing
		ci, known := caseIDs.idx[row.CaseID]
		if !known {
			ci = caseIDs.id(row.CaseID)
			prompt, expected := "", ""
			if c := info[row.CaseID]; c != nil {
				prompt, expected = c.Prompt, string(c.Expected)
			}
			out.Cases = append(out.Cases, [5]any{row.CaseID, domains.id(row.Domain), categories.id(row.Category), prompt, expected})
		}
		flags := 0
		for bit, on := range []bool{row.FirstPassSuccess, row.FinalSuccess, row.ProviderError, row.Missing} {
			if on {
				flags |= 1 << bit
			}
		}
		attempts := [][3]any{}
		results := row.AttemptResults
		if results == nil && !row.Missing {
			last := AttemptResult{Attempt: max(row.Attempts, 1), Output: row.Output}
			for _, c := range row.FinalCodes {
				last.Errors = append(last.Errors, AttemptError{Code: c})
			}
			results = []AttemptResult{last}
		}
		for _, a := range results {
			errs := [][3]int{}
			for _, e := range a.Errors {
				errs = append(errs, [3]int{codes.id(e.Code), strs.id(e.Path), strs.id(e.Message)})
			}
			output := -1
			if a.Output != nil {
				output = strs.id(*a.Output)
			}
			attempts = append(attempts, [3]any{a.Attempt, output, errs})
		}
		out.Rows = append(out.Rows, [5]any{ci, arms.id(row.Arm), row.Repeat, flags, attempts})
	}
	if missing {
		codes.id("MISSING_RESPONSE")
	}
	out.Arms, out.Domains, out.Categories, out.Codes, out.Strings = all(&arms), all(&domains), all(&categories), all(&codes), all(&strs)
	data, err := json.Marshal(out, jsontext.EscapeForHTML(true), jsontext.EscapeForJS(true))
	if err != nil {
		t.Fatal(err)
	}
	return `<script type="application/json" id="fbeval-samples">` + string(data) +
		"</script>\n<script>/*<![CDATA[*/\n" + samplesJS + "/*]]>*/</script>\n"
}

func writtenSamples(t testing.TB, r *ToolcallReport) string {
	var b bytes.Buffer
	if err := sampleRows(r, func(*Row) {}).writeTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// randomReport is a toolcall report of n rows over few cases, with outputs,
// paths and messages that need escaping for a script element, rows with no
// attempts listed (older reports), missing and failing rows, arms the report
// does not list and cases it knows nothing of.
func randomReport(seed uint64, n int) *ToolcallReport {
	rng := rand.New(rand.NewPCG(seed, 1))
	texts := []string{"", "plain", `{"a":"b"}`, "</script><script>alert(1)</script>", "R&D > 2", "line\u2028sep\u2029", "tab\t\"q\" \\ \x01", "ünïcödé 😀", "<!--", "]]>"}
	text := func() string { return texts[rng.IntN(len(texts))] + strings.Repeat("x", rng.IntN(3)) }
	r := &ToolcallReport{Arms: Ordered[Metrics]{{Key: "no_schema"}, {Key: "input<schema>"}}}
	for c := range 5 {
		r.Cases = append(r.Cases, CaseInfo{CaseID: "case-" + string(rune('a'+c)), Prompt: text(), Expected: jsontext.Value(`{"x":"` + "<&>" + `"}`)})
	}
	for i := range n {
		row := Row{CaseID: "case-" + string(rune('a'+rng.IntN(7))), Domain: text(), Category: text(),
			Arm: []string{"no_schema", "input<schema>", "other&arm"}[rng.IntN(3)], Repeat: rng.IntN(100),
			FirstPassSuccess: rng.IntN(2) == 0, FinalSuccess: rng.IntN(2) == 0, ProviderError: rng.IntN(9) == 0,
			Missing: rng.IntN(13) == 0, Attempts: rng.IntN(4)}
		if rng.IntN(3) == 0 {
			out := text()
			row.Output = &out
		}
		switch k := rng.IntN(4); {
		case k == 0: // an older report: the final codes only
			for range rng.IntN(3) {
				row.FinalCodes = append(row.FinalCodes, "CODE_"+text())
			}
		default:
			row.AttemptResults = []AttemptResult{}
			for a := range rng.IntN(4) {
				res := AttemptResult{Attempt: a + 1}
				if rng.IntN(5) > 0 {
					out := text()
					res.Output = &out
				}
				errs := rng.IntN(4)
				if i%1000 == 7 {
					errs = 200 // a row longer than the rest of a page
				}
				for range errs {
					res.Errors = append(res.Errors, AttemptError{Code: "CODE_" + text(), Path: "/" + text(), Message: text()})
				}
				row.AttemptResults = append(row.AttemptResults, res)
			}
		}
		r.Rows = append(r.Rows, row)
	}
	return r
}

// The sample data is written byte for byte as it was marshalled, for the saved
// reports of the tests, held and read as a stream, and for random reports that
// fill many pages.
func TestSamplesAsMarshalled(t *testing.T) {
	reports := map[string]*ToolcallReport{}
	for _, f := range []string{"toolcall_small", "toolcall_large", "live_toolcall"} {
		r := load(t, "testdata/"+f+".json").held().Toolcall
		reports[f] = r
		streamed := *r
		streamed.Rows, streamed.RowSource = nil, sliceSeq(r.Rows)
		reports[f+"_streamed"] = &streamed
	}
	reports["empty"] = &ToolcallReport{}
	for _, n := range []int{1, 40, 60000} {
		reports["random_"+strconv.Itoa(n)] = randomReport(uint64(n), n)
	}
	for name, r := range reports {
		t.Run(name, func(t *testing.T) {
			got, want := writtenSamples(t, r), marshalledSamples(t, r)
			if got != want {
				i := 0
				for i < min(len(got), len(want)) && got[i] == want[i] {
					i++
				}
				t.Fatalf("sample data differs at byte %d of %d:\ngot  %.120q\nwant %.120q", i, len(want), got[i:], want[i:])
			}
		})
	}
}

type failingWriter struct{ after int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.after <= 0 {
		return 0, errors.New("disk full")
	}
	w.after--
	return len(p), nil
}

// A writer's error is returned wherever in the block it happens.
func TestSamplesWriteError(t *testing.T) {
	r := randomReport(3, 20000)
	for after := range 8 {
		if err := sampleRows(r, func(*Row) {}).writeTo(&failingWriter{after: after}); err == nil {
			t.Errorf("a write that failed after %d writes was not reported", after)
		}
	}
}
