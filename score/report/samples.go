package report

import (
	"bytes"
	_ "embed"
	"html/template"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

//go:embed samples.js
var samplesJS string

// samples is the sample browser's data: every request of a toolcall report, with
// repeated strings (arms, domains, categories, codes, pointers, messages) written
// once and referred to by index, so a report of 100,000 requests stays compact.
type samples struct {
	Arms       []string `json:"arms"`
	Domains    []string `json:"domains"`
	Categories []string `json:"categories"`
	Codes      []string `json:"codes"`
	// Strings holds outputs, error paths and messages: a study's repeats often
	// give the same output many times.
	Strings []string `json:"strings"`
	// Cases: [case id, domain, category, prompt, expected answer as JSON text].
	Cases [][5]any `json:"cases"`
	// Rows: [case, arm, repeat, flags, attempts]; flags: 1 first pass, 2 final,
	// 4 provider error, 8 no response. An attempt: [number, output (a string
	// index, -1 for none), errors], an error: [code, path, message].
	Rows [][5]any `json:"rows"`
}

// interner numbers strings in the order they are first seen.
type interner struct {
	list []string
	idx  map[string]int
}

func (in *interner) id(s string) int {
	if in.idx == nil {
		in.idx = map[string]int{}
	}
	if i, ok := in.idx[s]; ok {
		return i
	}
	in.idx[s] = len(in.list)
	in.list = append(in.list, s)
	return len(in.list) - 1
}

func (in *interner) all() []string {
	if in.list == nil {
		return []string{}
	}
	return in.list
}

// sampleData gathers every row of r for the sample browser. A report written
// before rows carried their attempts gives each row its last attempt: the
// output of a failing row and its final codes.
func sampleData(r *ToolcallReport) samples {
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
	out.Arms, out.Domains, out.Categories, out.Codes, out.Strings = arms.all(), domains.all(), categories.all(), codes.all(), strs.all()
	return out
}

// samplesBlock writes the sample data as a JSON script block and the browser's
// script. The JSON escapes <, > and & so no text in it can end the block or be
// read as markup; the script is wrapped so the page stays well-formed XML.
func samplesBlock(r *ToolcallReport) (template.HTML, error) {
	data, err := json.Marshal(sampleData(r), jsontext.EscapeForHTML(true), jsontext.EscapeForJS(true))
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	b.WriteString(`<script type="application/json" id="fbeval-samples">`)
	b.Write(data)
	b.WriteString("</script>\n<script>/*<![CDATA[*/\n")
	b.WriteString(samplesJS)
	b.WriteString("/*]]>*/</script>\n")
	return template.HTML(b.String()), nil
}
