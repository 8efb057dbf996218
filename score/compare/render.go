package compare

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/score/report"
)

// Object returns the comparison as ordered JSON (fbeval-compare/v1): schema_version,
// a, b, study, gap_definition, arms, custom_fitness_percent, flips.
func (r *Result) Object() contract.Object {
	side := func(s Side) contract.Object {
		return contract.Object{
			{Key: "label", Value: s.Label},
			{Key: "path", Value: s.Path},
			{Key: "study_name", Value: s.StudyName},
			{Key: "responses_sha256", Value: nonNil(s.ResponsesSHA256)},
		}
	}
	arms := contract.Object{}
	for _, a := range r.Arms {
		arms = append(arms, contract.Member{Key: a.Arm, Value: contract.Object{
			{Key: "a_first_pass_success_percent", Value: a.FPSA},
			{Key: "b_first_pass_success_percent", Value: a.FPSB},
			{Key: "gap_points", Value: a.Gap},
			{Key: "model_sensitivity", Value: a.MS},
			{Key: "model_sensitive", Value: a.Sensitive},
			{Key: "stability_percent", Value: a.Stability},
			{Key: "stable_rows", Value: a.StableRows},
			{Key: "rows", Value: a.Rows},
			{Key: "right_only_in_a", Value: a.OnlyA},
			{Key: "right_only_in_b", Value: a.OnlyB},
		}})
	}
	flips := make([]contract.Object, 0, len(r.Flips))
	for _, f := range r.Flips {
		flips = append(flips, contract.Object{
			{Key: "arm", Value: f.Arm},
			{Key: "case_id", Value: f.CaseID},
			{Key: "repeat", Value: f.Repeat},
			{Key: "domain", Value: f.Domain},
			{Key: "category", Value: f.Category},
			{Key: "a_first_pass_success", Value: f.A},
			{Key: "b_first_pass_success", Value: f.B},
			{Key: "a_codes", Value: nonNil(f.CodesA)},
			{Key: "b_codes", Value: nonNil(f.CodesB)},
		})
	}
	return contract.Object{
		{Key: "schema_version", Value: Version},
		{Key: "a", Value: side(r.A)},
		{Key: "b", Value: side(r.B)},
		{Key: "study", Value: r.Study.Object()},
		{Key: "gap_definition", Value: "b minus a first-pass success, points; model-sensitive when the absolute gap is at least 15"},
		{Key: "arms", Value: arms},
		{Key: "custom_fitness_percent", Value: contract.Object{{Key: "a", Value: r.FitnessA}, {Key: "b", Value: r.FitnessB}}},
		{Key: "flips", Value: flips},
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// WriteJSON writes the comparison as indented JSON with a final newline.
func WriteJSON(w io.Writer, r *Result) error {
	b, err := contract.Marshal(r.Object(), contract.PythonIndent)
	if err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func pct(p *float64) string {
	if p == nil || math.IsNaN(*p) {
		return "n/a"
	}
	return strconv.FormatFloat(*p, 'f', 1, 64) + "%"
}

func num(p *float64) string {
	if p == nil || math.IsNaN(*p) {
		return "n/a"
	}
	return strconv.FormatFloat(*p, 'f', 1, 64)
}

func gap(p *float64) string {
	if p == nil {
		return "n/a"
	}
	s := num(p)
	if *p > 0 && s != "0.0" {
		s = "+" + s
	}
	return s + " pp"
}

func outcome(ok bool) string {
	if ok {
		return "pass"
	}
	return "fail"
}

func yesNo(v bool) string {
	if v {
		return "yes"
	}
	return "no"
}

func flipName(f Flip) string {
	if f.Repeat <= 1 {
		return f.CaseID
	}
	return f.CaseID + "#r" + strconv.Itoa(f.Repeat)
}

func armRow(r *Result, a Arm) []string {
	return []string{a.Arm, pct(a.FPSA), pct(a.FPSB), gap(a.Gap), num(a.MS), yesNo(a.Sensitive), pct(a.Stability),
		strconv.Itoa(a.OnlyA), strconv.Itoa(a.OnlyB)}
}

func armHeader(r *Result) []string {
	return []string{"arm", "first pass " + r.A.Label, "first pass " + r.B.Label, "gap", "MS", "model-sensitive", "stability",
		"right only in " + r.A.Label, "right only in " + r.B.Label}
}

// WriteTable writes the comparison as ASCII tables.
func WriteTable(w io.Writer, r *Result) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "comparison: %s (%s) vs %s (%s)\nstudy: %s, dataset: %s, seed: %d, repeats: %d\n\n",
		r.A.Label, r.A.Path, r.B.Label, r.B.Path, r.Study.Name, r.Study.Dataset, r.Study.Seed, r.Study.Repeats)
	var rows [][]string
	for _, a := range r.Arms {
		rows = append(rows, armRow(r, a))
	}
	if err := table(&b, armHeader(r), rows); err != nil {
		return err
	}
	fmt.Fprintf(&b, "custom fitness: %s %s, %s %s\n\n", r.A.Label, num(r.FitnessA), r.B.Label, num(r.FitnessB))
	if len(r.Flips) > 0 {
		rows = rows[:0]
		for _, f := range r.Flips {
			rows = append(rows, []string{flipName(f), f.Arm, outcome(f.A), strings.Join(f.CodesA, ", "), outcome(f.B), strings.Join(f.CodesB, ", ")})
		}
		b.WriteString("flips (first pass)\n")
		if err := table(&b, []string{"case", "arm", r.A.Label, r.A.Label + " codes", r.B.Label, r.B.Label + " codes"}, rows); err != nil {
			return err
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

func table(b *bytes.Buffer, header []string, rows [][]string) error {
	t := tablewriter.NewTable(b,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
	)
	t.Header(header)
	if err := t.Bulk(rows); err != nil {
		return fmt.Errorf("table: %w", err)
	}
	if err := t.Render(); err != nil {
		return fmt.Errorf("table: %w", err)
	}
	b.WriteByte('\n')
	return nil
}

// md escapes text for a Markdown table cell.
func md(s string) string {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "|", "\\|", "\n", " ")
	return r.Replace(s)
}

// WriteMarkdown writes the comparison as GitHub-flavoured Markdown, flips folded
// in a <details> block.
func WriteMarkdown(w io.Writer, r *Result) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "## fbeval comparison: %s vs %s\n\n", md(r.A.Label), md(r.B.Label))
	fmt.Fprintf(&b, "Study %s · dataset <code>%s</code> · seed %d · repeats %d · gap = %s minus %s\n\n",
		md(r.Study.Name), md(r.Study.Dataset), r.Study.Seed, r.Study.Repeats, md(r.B.Label), md(r.A.Label))
	h := armHeader(r)
	b.WriteString("| " + strings.Join(mdAll(h), " | ") + " |\n|---|" + strings.Repeat("---:|", len(h)-1) + "\n")
	for _, a := range r.Arms {
		b.WriteString("| " + strings.Join(mdAll(armRow(r, a)), " | ") + " |\n")
	}
	fmt.Fprintf(&b, "\nCustom fitness: %s **%s** · %s **%s**\n\n", md(r.A.Label), num(r.FitnessA), md(r.B.Label), num(r.FitnessB))
	if len(r.Flips) > 0 {
		fmt.Fprintf(&b, "<details><summary>Flips (%d rows with a different first-pass outcome)</summary>\n\n", len(r.Flips))
		fmt.Fprintf(&b, "| case | arm | %s | %s codes | %s | %s codes |\n|---|---|---|---|---|---|\n", md(r.A.Label), md(r.A.Label), md(r.B.Label), md(r.B.Label))
		for _, f := range r.Flips {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", md(flipName(f)), md(f.Arm), outcome(f.A), md(strings.Join(f.CodesA, ", ")),
				outcome(f.B), md(strings.Join(f.CodesB, ", ")))
		}
		b.WriteString("\n</details>\n")
	}
	_, err := w.Write(b.Bytes())
	return err
}

func mdAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = md(x)
	}
	return out
}

var htmlPage = template.Must(template.New("compare").Funcs(template.FuncMap{
	"pct": pct, "num": num, "gap": gap, "outcome": outcome, "yesNo": yesNo, "flipName": flipName, "join": strings.Join,
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8"/>
<meta name="viewport" content="width=device-width, initial-scale=1"/>
<title>fbeval comparison: {{.R.A.Label}} vs {{.R.B.Label}}</title>
<style>
{{.Style}}
</style>
</head>
<body>
<h1>Comparison: {{.R.A.Label}} vs {{.R.B.Label}}</h1>
<p class="sub">{{.R.A.Label}}: {{.R.A.Path}} · {{.R.B.Label}}: {{.R.B.Path}} · study {{.R.Study.Name}} · dataset <code>{{.R.Study.Dataset}}</code> · seed {{.R.Study.Seed}} · repeats {{.R.Study.Repeats}}</p>
<div class="cards">
<div class="card"><div class="k">custom fitness, {{.R.A.Label}}</div><div class="v">{{num .R.FitnessA}}</div></div>
<div class="card"><div class="k">custom fitness, {{.R.B.Label}}</div><div class="v">{{num .R.FitnessB}}</div></div>
<div class="card"><div class="k">flipped rows</div><div class="v">{{len .R.Flips}}</div></div>
</div>
<h2>Arms side by side</h2>
<div class="scroll"><table>
<thead><tr><th>arm</th><th>first pass {{.R.A.Label}}</th><th>first pass {{.R.B.Label}}</th><th>gap ({{.R.B.Label}} minus {{.R.A.Label}})</th><th>MS</th><th>model-sensitive</th><th>stability</th><th>right only in {{.R.A.Label}}</th><th>right only in {{.R.B.Label}}</th></tr></thead>
<tbody>
{{range .R.Arms}}{{$a := printf "/arms/%s/" .Arm}}<tr><th>{{.Arm}}</th><td class="n" data-k="{{$a}}a_first_pass_success_percent" data-f="pct">{{pct .FPSA}}</td><td class="n" data-k="{{$a}}b_first_pass_success_percent" data-f="pct">{{pct .FPSB}}</td><td class="n" data-k="{{$a}}gap_points" data-f="pp">{{gap .Gap}}</td><td class="n">{{num .MS}}</td><td class="{{if .Sensitive}}fail{{end}}">{{yesNo .Sensitive}}</td><td class="n">{{pct .Stability}} <small>({{.StableRows}}/{{.Rows}})</small></td><td class="n">{{.OnlyA}}</td><td class="n">{{.OnlyB}}</td></tr>
{{end}}</tbody></table></div>
<p class="legend">Gap: {{.R.B.Label}} minus {{.R.A.Label}} first-pass success. MS = 100 - |gap|; model-sensitive when |gap| is 15 points or more. Stability: rows with the same first-pass outcome in both.</p>
{{if .R.Flips}}<h2>Flips</h2>
<div class="scroll"><table>
<thead><tr><th>case</th><th>arm</th><th>domain / category</th><th>{{.R.A.Label}}</th><th>{{.R.A.Label}} codes</th><th>{{.R.B.Label}}</th><th>{{.R.B.Label}} codes</th></tr></thead>
<tbody>
{{range .R.Flips}}<tr><td class="id"><code>{{flipName .}}</code></td><td>{{.Arm}}</td><td>{{.Domain}} / {{.Category}}</td><td class="{{outcome .A}}">{{outcome .A}}</td><td>{{join .CodesA ", "}}</td><td class="{{outcome .B}}">{{outcome .B}}</td><td>{{join .CodesB ", "}}</td></tr>
{{end}}</tbody></table></div>
{{end}}<footer>Rendered by fbeval. Self-contained: no scripts, no external resources.</footer>
</body>
</html>
`))

// WriteHTML writes the comparison as one self-contained HTML page.
func WriteHTML(w io.Writer, r *Result) error {
	var b bytes.Buffer
	if err := htmlPage.Execute(&b, struct {
		R     *Result
		Style template.CSS
	}{r, template.CSS(report.HTMLStyle())}); err != nil {
		return fmt.Errorf("html: %w", err)
	}
	_, err := w.Write(b.Bytes())
	return err
}
