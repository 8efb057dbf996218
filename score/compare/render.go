package compare

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/score/report"
)

// Report returns the comparison in the report model (fbeval-compare/v1).
func (r *Result) Report() *report.Comparison {
	side := func(s Side) report.ComparisonSide {
		return report.ComparisonSide{Label: s.Label, Path: s.Path, StudyName: s.StudyName, ResponsesSHA256: nonNil(s.ResponsesSHA256), Warnings: nonNil(s.Warnings)}
	}
	out := &report.Comparison{
		SchemaVersion: Version,
		A:             side(r.A),
		B:             side(r.B),
		Study:         r.Study,
		GapDefinition: "b minus a first-pass success, points; model-sensitive when the absolute gap is at least 15",
		Arms:          report.Ordered[report.ComparisonArm]{},
		CustomFitness: report.ComparisonFitness{A: r.FitnessA, B: r.FitnessB, Definition: FitnessDefinition},
		Flips:         []report.Flip{},
	}
	for _, a := range r.Arms {
		arm := report.ComparisonArm{FirstPassSuccessA: a.FPSA, FirstPassSuccessB: a.FPSB, Gap: a.Gap, ModelSensitivity: a.MS,
			ModelSensitive: a.Sensitive, Stability: a.Stability, StableRows: a.StableRows, Rows: a.Rows,
			RightOnlyInA: a.OnlyA, RightOnlyInB: a.OnlyB, PairedBvsA: a.Paired}
		if a.Winner != "" {
			arm.Winner, arm.WinnerSide = &a.Winner, &a.WinnerSide
		}
		out.Arms = append(out.Arms, report.Entry[report.ComparisonArm]{Key: a.Arm, Value: arm})
	}
	for f := range r.EachFlip() {
		out.Flips = append(out.Flips, reportFlip(f))
	}
	return out
}

func reportFlip(f *Flip) report.Flip {
	return report.Flip{Arm: f.Arm, CaseID: f.CaseID, Repeat: f.Repeat, Domain: f.Domain, Category: f.Category,
		FirstPassSuccessA: f.A, FirstPassSuccessB: f.B, CodesA: nonNil(f.CodesA), CodesB: nonNil(f.CodesB)}
}

// FitnessDefinition says what the custom fitness figure is, wherever it is shown.
const FitnessDefinition = "custom fitness = 0.45 FPS + 0.20 SPV + 0.15 IRR + 0.10 (100 - retry rate) + 0.10 MS of the input_schema arm, MS from this comparison (docs/statistics.md)"

// verdict says in words what the paired test found on one arm.
func verdict(r *Result, a Arm) string {
	e := a.Paired
	switch {
	case a.Winner != "":
		return a.Winner + " wins"
	case e.PairedRuns == 0:
		return "no shared rows"
	}
	return "no clear winner"
}

var interval = report.Interval

func pvalue(p *float64) string {
	if p == nil {
		return "n/a"
	}
	return strconv.FormatFloat(*p, 'g', 3, 64)
}

// winnerLine is one arm's answer in words. Where the table's gap (pooled over
// rows) reads otherwise than the paired mean over clusters (clusters of
// unequal size), the line gives it too: the two can differ in sign.
func winnerLine(r *Result, a Arm) string {
	e := a.Paired
	how := "paired, mean over clusters"
	if pooled := gap(a.Gap); a.Gap != nil && e.AbsoluteUplift != nil && pooled != gap(e.AbsoluteUplift) {
		how += "; pooled over rows, the table's gap, " + pooled
	}
	return fmt.Sprintf("%s: %s; %s minus %s %s (%s), 95%% CI %s pp, McNemar p %s, %s right only in %s, %d only in %s",
		a.Arm, verdict(r, a), r.B.Label, r.A.Label, gap(e.AbsoluteUplift), how, interval(e.CI95), pvalue(e.McNemarP),
		contract.Plural(e.DiscordantWins, "row", "rows"), r.B.Label, e.DiscordantLosses, r.A.Label)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Warned returns the sides whose reports carry warnings, A first.
func (r *Result) Warned() []Side {
	var out []Side
	for _, s := range []Side{r.A, r.B} {
		if len(s.Warnings) > 0 {
			out = append(out, s)
		}
	}
	return out
}

// WriteJSON writes the comparison as indented JSON with a final newline.
func WriteJSON(w io.Writer, r *Result) error {
	head := *r
	head.Flips, head.FlipSource = nil, nil
	flips := func(yield func(any) bool) {
		var rf report.Flip
		for f := range r.EachFlip() {
			rf = reportFlip(f)
			if !yield(&rf) {
				return
			}
		}
	}
	if err := report.WriteSplicedJSON(w, head.Report(), "flips", flips); err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	return nil
}

// the number formats of reports, so a comparison reads as the reports it
// compares (a tiny negative gap is "0.0 pp", not "-0.0 pp")
var (
	pct = report.Pct
	num = report.Num
	gap = report.Points
)

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

// StudyName is the compared study's name, or "(no name)" for a study file
// that gives none ("study: ," was written).
func (r *Result) StudyName() string {
	if r.Study.Name == "" {
		return "(no name)"
	}
	return r.Study.Name
}

// WriteTable writes the comparison as ASCII tables.
func WriteTable(w io.Writer, r *Result) error { return WriteTableWidth(w, r, 0) }

// WriteTableWidth is WriteTable with each table fitted to width columns (0: any),
// as report.FitTable fits them.
func WriteTableWidth(w io.Writer, r *Result, width int) error {
	var b bytes.Buffer
	// names, paths and warnings from files are one line each (a label with a
	// line break split the lines it is in)
	line := contract.PrintableLine
	fmt.Fprintf(&b, "comparison: %s (%s) vs %s (%s)\nstudy: %s, dataset: %s, seed: %d, repeats: %d\n\n",
		line(r.A.Label), line(r.A.Path), line(r.B.Label), line(r.B.Path), line(r.StudyName()), line(r.Study.Dataset), r.Study.Seed, r.Study.Repeats)
	for _, s := range r.Warned() {
		b.WriteString("warnings of " + line(s.Name()) + ":\n")
		for _, w := range s.Warnings {
			b.WriteString("- " + line(w) + "\n")
		}
		b.WriteByte('\n')
	}
	var rows [][]string
	for _, a := range r.Arms {
		rows = append(rows, armRow(r, a))
	}
	for _, a := range r.Arms {
		b.WriteString(line(winnerLine(r, a)) + "\n")
	}
	b.WriteByte('\n')
	if err := table(&b, width, "", armHeader(r), rows); err != nil {
		return err
	}
	fmt.Fprintf(&b, "custom fitness: %s %s, %s %s (%s)\n\n", line(r.A.Label), num(r.FitnessA), line(r.B.Label), num(r.FitnessB), FitnessDefinition)
	if r.flipCount() > 0 {
		rows = rows[:0]
		for f := range r.EachFlip() {
			if len(rows) == TableFlipLimit {
				break
			}
			rows = append(rows, []string{flipName(*f), f.Arm, outcome(f.A), strings.Join(f.CodesA, ", "), outcome(f.B), strings.Join(f.CodesB, ", ")})
		}
		title := "flips (first pass)"
		if r.flipCount() > TableFlipLimit {
			title = fmt.Sprintf("flips (first pass): the first %d of %d; --format json lists every one", TableFlipLimit, r.flipCount())
		}
		if err := table(&b, width, title, []string{"case", "arm", r.A.Label, r.A.Label + " codes", r.B.Label, r.B.Label + " codes"}, rows); err != nil {
			return err
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

func table(b *bytes.Buffer, width int, title string, header []string, rows [][]string) error {
	if err := report.FitTable(b, width, title, header, rows); err != nil {
		return fmt.Errorf("table: %w", err)
	}
	b.WriteByte('\n')
	return nil
}

// md escapes text for Markdown, in a table cell or a line, as reports do.
func md(s string) string { return report.MarkdownText(s) }

// MarkdownFlipLimit caps the flips listed in Markdown, so a comparison fits in a
// step summary or a pull-request comment.
const MarkdownFlipLimit = 50

// TableFlipLimit caps the flips listed in a table, which is for reading.
const TableFlipLimit = 50

// HTMLFlipLimit caps the flips of each arm the HTML page lists (filtered and
// paged in the page), so that the page, and what writing it holds, stay
// small whatever the number of rows; the JSON lists every flip.
const HTMLFlipLimit = 200

// WriteMarkdown writes the comparison as GitHub-flavoured Markdown, flips folded
// in a <details> block.
func WriteMarkdown(w io.Writer, r *Result) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "## fbeval comparison: %s vs %s\n\n", md(r.A.Label), md(r.B.Label))
	fmt.Fprintf(&b, "Study %s · dataset <code>%s</code> · seed %d · repeats %d · gap = %s minus %s\n\n",
		md(r.StudyName()), md(r.Study.Dataset), r.Study.Seed, r.Study.Repeats, md(r.B.Label), md(r.A.Label))
	fmt.Fprintf(&b, "Reports: %s <code>%s</code> · %s <code>%s</code>\n\n", md(r.A.Label), md(r.A.Path), md(r.B.Label), md(r.B.Path))
	for _, s := range r.Warned() {
		b.WriteString("**Warnings of " + md(s.Name()) + "**\n\n")
		for _, w := range s.Warnings {
			b.WriteString("- " + md(w) + "\n")
		}
		b.WriteByte('\n')
	}
	for _, a := range r.Arms {
		b.WriteString("- " + md(winnerLine(r, a)) + "\n")
	}
	b.WriteByte('\n')
	h := armHeader(r)
	b.WriteString("| " + strings.Join(mdAll(h), " | ") + " |\n|---|" + strings.Repeat("---:|", len(h)-1) + "\n")
	for _, a := range r.Arms {
		b.WriteString("| " + strings.Join(mdAll(armRow(r, a)), " | ") + " |\n")
	}
	fmt.Fprintf(&b, "\nCustom fitness: %s %s · %s %s (%s)\n\n", md(r.A.Label), num(r.FitnessA), md(r.B.Label), num(r.FitnessB), md(FitnessDefinition))
	if r.flipCount() > 0 {
		fmt.Fprintf(&b, "<details><summary>Flips (%s with a different first-pass outcome)</summary>\n\n", contract.Plural(r.flipCount(), "row", "rows"))
		fmt.Fprintf(&b, "| case | arm | %s | %s codes | %s | %s codes |\n|---|---|---|---|---|---|\n", md(r.A.Label), md(r.A.Label), md(r.B.Label), md(r.B.Label))
		i := 0
		for f := range r.EachFlip() {
			if i == MarkdownFlipLimit {
				break
			}
			i++
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", md(flipName(*f)), md(f.Arm), outcome(f.A), md(strings.Join(f.CodesA, ", ")),
				outcome(f.B), md(strings.Join(f.CodesB, ", ")))
		}
		if r.flipCount() > MarkdownFlipLimit {
			fmt.Fprintf(&b, "\n… and %s; the JSON comparison lists every one.\n", contract.Plural(r.flipCount()-MarkdownFlipLimit, "more flip", "more flips"))
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

// htmlPage is parsed on first use, so that commands writing no page do not pay
// for it.
var htmlPage = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("compare").Funcs(template.FuncMap{
		"pct": pct, "num": num, "gap": gap, "outcome": outcome, "yesNo": yesNo, "flipName": flipName, "join": strings.Join,
		"interval": interval, "pvalue": pvalue, "verdict": verdict,
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
<header>
<h1>Comparison: {{.R.A.Label}} vs {{.R.B.Label}}</h1>
<p class="sub">study {{.R.StudyName}} · dataset <code>{{.R.Study.Dataset}}</code> · seed {{.R.Study.Seed}} · repeats {{.R.Study.Repeats}} · A: {{.R.A.Label}} ({{.R.A.Path}}) · B: {{.R.B.Label}} ({{.R.B.Path}})</p>
</header>
<main>
{{range .R.Warned}}<h2>Warnings of {{.Name}}</h2>
<ul class="warnings">
{{range .Warnings}}<li>{{.}}</li>
{{end}}</ul>
{{end}}<section class="answer" id="answer">
<h2>Which model wins</h2>
<ul class="findings">
{{range .R.Arms}}{{$k := printf "/arms/%s/paired_b_vs_a/" .Arm}}<li><span class="verdict {{if .Winner}}imp{{else}}inc{{end}}">{{verdict $.R .}}</span> <strong>{{.Arm}}</strong>: first-pass success {{$.R.A.Label}} <span data-k="/arms/{{.Arm}}/a_first_pass_success_percent" data-f="pct">{{pct .FPSA}}</span>, {{$.R.B.Label}} <span data-k="/arms/{{.Arm}}/b_first_pass_success_percent" data-f="pct">{{pct .FPSB}}</span>; paired by row, mean over clusters (the pairing unit) <span data-k="{{$k}}baseline_success_percent" data-f="pct">{{pct .Paired.BaselineSuccess}}</span> → <span data-k="{{$k}}treatment_success_percent" data-f="pct">{{pct .Paired.TreatmentSuccess}}</span>, {{$.R.B.Label}} minus {{$.R.A.Label}} <strong data-k="{{$k}}absolute_uplift_points" data-f="pp">{{gap .Paired.AbsoluteUplift}}</strong> (95% interval <span data-k="{{$k}}ci95" data-f="iv">{{interval .Paired.CI95}}</span> pp, clustered bootstrap over <span data-k="{{$k}}independent_clusters">{{.Paired.IndependentClusters}}</span> clusters), McNemar p <span data-k="{{$k}}mcnemar_exact_p" data-f="p">{{pvalue .Paired.McNemarP}}</span>; <span data-k="{{$k}}discordant_wins">{{.Paired.DiscordantWins}}</span> rows right only in {{$.R.B.Label}}, <span data-k="{{$k}}discordant_losses">{{.Paired.DiscordantLosses}}</span> only in {{$.R.A.Label}}.</li>
{{end}}</ul>
{{.Chart}}
<p class="legend">The same paired test as within a study (docs/statistics.md), with B's first pass as the treatment and A's as the baseline on the rows both reports share: a model wins an arm when the whole 95% interval lies on its side of zero. McNemar p is n/a when clusters or repeats hold more than one pair. The paired uplift averages each cluster's rate, as within a study, so it can differ a little from the gap between the plain rates below.</p>
</section>
<h2>Arms side by side</h2>
<div class="scroll" tabindex="0"><table>
<thead><tr><th scope="col">arm</th><th scope="col">winner</th><th scope="col">first pass {{.R.A.Label}}</th><th scope="col">first pass {{.R.B.Label}}</th><th scope="col">gap ({{.R.B.Label}} minus {{.R.A.Label}})</th><th scope="col">MS</th><th scope="col">model-sensitive</th><th scope="col">stability</th><th scope="col">right only in {{.R.A.Label}}</th><th scope="col">right only in {{.R.B.Label}}</th></tr></thead>
<tbody>
{{range .R.Arms}}{{$a := printf "/arms/%s/" .Arm}}<tr><th scope="row">{{.Arm}}</th><td>{{with .Winner}}{{.}}{{else}}none{{end}}</td><td class="n" data-k="{{$a}}a_first_pass_success_percent" data-f="pct">{{pct .FPSA}}</td><td class="n" data-k="{{$a}}b_first_pass_success_percent" data-f="pct">{{pct .FPSB}}</td><td class="n" data-k="{{$a}}gap_points" data-f="pp">{{gap .Gap}}</td><td class="n">{{num .MS}}</td><td class="{{if .Sensitive}}fail{{end}}">{{yesNo .Sensitive}}</td><td class="n">{{pct .Stability}} <small>({{.StableRows}}/{{.Rows}})</small></td><td class="n" data-k="{{$a}}right_only_in_a">{{.OnlyA}}</td><td class="n" data-k="{{$a}}right_only_in_b">{{.OnlyB}}</td></tr>
{{end}}</tbody></table></div>
<p class="legend">Gap: {{.R.B.Label}} minus {{.R.A.Label}} first-pass success. MS = 100 - |gap|; model-sensitive when |gap| is 15 points or more. Stability: rows with the same first-pass outcome in both.</p>
<dl class="kv">
<dt>custom fitness, {{.R.A.Label}}</dt><dd>{{num .R.FitnessA}}</dd>
<dt>custom fitness, {{.R.B.Label}}</dt><dd>{{num .R.FitnessB}}</dd>
<dt>what it is</dt><dd>{{.Fitness}}; n/a when a term is unknown (for example without probes)</dd>
</dl>
{{if .R.Flips}}<h2 id="flips-h">Flips ({{.Flips}})</h2>
<p class="legend">Rows whose first-pass outcome differs between the two reports{{if gt .Flips (len .R.Flips)}}: the first {{.Limit}} of each arm, {{len .R.Flips}} of {{.Flips}}; <code>--format json</code> lists every one{{end}}.</p>
<form class="sb-filters" id="flip-filters" action="#" hidden="hidden">
<label>arm <select name="arm"><option value="">all</option>{{range .R.Arms}}<option>{{.Arm}}</option>{{end}}</select></label>
<label>right only in <select name="side"><option value="">either</option><option value="a">{{.R.A.Label}}</option><option value="b">{{.R.B.Label}}</option></select></label>
<label class="sb-q">search <input name="q" type="search" placeholder="case id, domain, category or code"/></label>
</form>
<p class="legend" id="flip-count"></p>
<div class="scroll" tabindex="0"><table id="flips">
<thead><tr><th scope="col">case</th><th scope="col">arm</th><th scope="col">domain / category</th><th scope="col">{{.R.A.Label}}</th><th scope="col">{{.R.A.Label}} codes</th><th scope="col">{{.R.B.Label}}</th><th scope="col">{{.R.B.Label}} codes</th></tr></thead>
<tbody>
{{range .R.Flips}}<tr data-arm="{{.Arm}}" data-side="{{if .A}}a{{else}}b{{end}}"><td class="id"><code>{{flipName .}}</code></td><td>{{.Arm}}</td><td>{{.Domain}} / {{.Category}}</td><td class="{{outcome .A}}">{{outcome .A}}</td><td>{{join .CodesA ", "}}</td><td class="{{outcome .B}}">{{outcome .B}}</td><td>{{join .CodesB ", "}}</td></tr>
{{end}}</tbody></table></div>
<div class="sb-pager" id="flip-pager" hidden="hidden"><button type="button" data-go="prev">previous</button> <span class="sb-page"></span> <button type="button" data-go="next">next</button></div>
{{.Script}}{{end}}</main>
<footer>Rendered by fbeval. Self-contained: one file, no external resources.</footer>
</body>
</html>
`))
})

// flipsJS filters and pages the flips table in place; without it every flip is
// listed.
const flipsJS = `(function () {
  'use strict';
  var form = document.getElementById('flip-filters');
  var rows = [].slice.call(document.querySelectorAll('#flips tbody tr'));
  var count = document.getElementById('flip-count');
  var pager = document.getElementById('flip-pager');
  var PAGE = 100, page = 0, shown = rows;
  function apply() {
    var arm = form.arm.value, side = form.side.value, q = form.q.value.trim().toLowerCase();
    shown = rows.filter(function (r) {
      return (!arm || r.dataset.arm === arm) && (!side || r.dataset.side === side) && (!q || r.textContent.toLowerCase().indexOf(q) >= 0);
    });
    page = 0;
    render();
  }
  function render() {
    rows.forEach(function (r) { r.hidden = true; });
    shown.slice(page * PAGE, (page + 1) * PAGE).forEach(function (r) { r.hidden = false; });
    var pages = Math.max(1, Math.ceil(shown.length / PAGE));
    count.textContent = shown.length + ' of ' + rows.length + ' flips';
    pager.querySelector('.sb-page').textContent = 'page ' + (page + 1) + ' of ' + pages;
    pager.querySelector('[data-go=prev]').disabled = page === 0;
    pager.querySelector('[data-go=next]').disabled = page + 1 >= pages;
  }
  form.addEventListener('change', apply);
  form.q.addEventListener('input', apply);
  pager.addEventListener('click', function (ev) {
    var go = ev.target.getAttribute('data-go');
    if (go === 'prev' && page > 0) page--;
    else if (go === 'next' && (page + 1) * PAGE < shown.length) page++;
    else return;
    render();
  });
  form.hidden = false;
  pager.hidden = false;
  render();
})();
`

// WriteHTML writes the comparison as one self-contained HTML page.
func WriteHTML(w io.Writer, r *Result) error {
	// the page lists the first HTMLFlipLimit flips of each arm
	total := r.flipCount()
	held := *r
	held.Flips, held.FlipSource = r.firstFlipsOfEachArm(HTMLFlipLimit), nil
	r = &held
	var b bytes.Buffer
	var rows []report.ForestRow
	for _, a := range r.Arms {
		rows = append(rows, report.ForestRow{Label: a.Arm, Uplift: a.Paired.AbsoluteUplift, CI95: a.Paired.CI95, Effect: a.Paired.Label})
	}
	chart, err := report.ForestHTML(r.B.Label+" minus "+r.A.Label+": first-pass success per arm (pp), clustered bootstrap 95% intervals",
		r.B.Label+" minus "+r.A.Label+", percentage points (pp)", r.B.Label+" wins", r.A.Label+" wins", rows)
	if err != nil {
		return fmt.Errorf("html: %w", err)
	}
	script := template.HTML("<script>/*<![CDATA[*/\n" + flipsJS + "/*]]>*/</script>\n")
	if err := htmlPage().Execute(&b, struct {
		R       *Result
		Style   template.CSS
		Chart   template.HTML
		Script  template.HTML
		Fitness string
		Flips   int // in all
		Limit   int
	}{r, template.CSS(report.HTMLStyle()), chart, script, FitnessDefinition, total, HTMLFlipLimit}); err != nil {
		return fmt.Errorf("html: %w", err)
	}
	_, err = w.Write(report.PrintableHTML(b.Bytes()))
	return err
}
