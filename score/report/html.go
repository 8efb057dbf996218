package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/fbeval/fbeval/contract"
)

//go:embed style.css
var styleCSS string

//go:embed report.html.tmpl
var reportTmpl string

// HTMLStyle returns the stylesheet every fbeval HTML page inlines, so other pages
// (comparisons) look the same without fetching anything.
func HTMLStyle() string { return styleCSS }

// pageTemplate is parsed on first use, so that commands writing no page do not
// pay for it.
var pageTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{
		"pct":          pct,
		"num":          num,
		"points":       points,
		"interval":     interval,
		"usd":          usd,
		"ms":           ms,
		"count":        count,
		"pvalue":       pvalue,
		"rate":         rate,
		"ratio":        ratio,
		"list":         list,
		"modelsPhrase": ModelsPhrase,
		"join":         strings.Join,
		"strOr":        strOr,
		"shade":        shade,
		"caseName":     caseName,
		"status":       rowStatus,
		"yesNo":        yesNo,
		"css":          func(s string) template.CSS { return template.CSS(s) },
		"wilson":       wilsonCell,
		"verdict":      verdict,
		"cmpName":      comparisonName,
		"minus":        func(a, b int) int { return a - b },
		"verdictClass": func(label string) string {
			return map[string]string{"improvement": "pass", "harm": "fail"}[label]
		},
	}).Parse(reportTmpl))
})

// WriteHTML writes doc as one self-contained HTML page: inline CSS, charts drawn
// in HTML, a toolcall report's sample browser as its one inline script, and no
// external references; readable on a phone and printable. Every text from the
// report is escaped by html/template, and in the sample data for a script element.
func WriteHTML(w io.Writer, doc Doc) error {
	if doc.Kind != KindToolcall && doc.Kind != KindCogLang {
		doc = doc.held() // rows and cases are read as the page is built
	}
	var b bytes.Buffer
	var err error
	switch doc.Kind {
	case KindToolcall:
		return writeToolcallHTML(w, doc.Toolcall)
	case KindCogLang:
		err = pageTemplate().ExecuteTemplate(&b, "coglang", coglangView(doc))
	default:
		return errNoKind
	}
	if err != nil {
		return fmt.Errorf("html: %w", err)
	}
	_, err = w.Write(PrintableHTML(b.Bytes()))
	return err
}

// PrintableHTML returns a page (or part of one: whole characters) with every
// control character but the newline and tab written as the escape the other
// human formats write (\x1b, \r, \u0085: contract.Printable): html/template
// escapes markup, not an ESC or a CR from a model's output or a file's name,
// which then reached the page raw. The pages' embedded data is JSON, whose
// escapes hold none.
func PrintableHTML(page []byte) []byte {
	s := string(page)
	if p := contract.Printable(s); p != s {
		return []byte(p)
	}
	return page
}

// writeToolcallHTML writes a toolcall report's page: the sample data is
// written as the rows are read, the page around it from the template, and the
// data where the template put its mark.
func writeToolcallHTML(w io.Writer, r *ToolcallReport) error {
	// one reading of the rows for the samples and the failing rows
	fails := r.newFailing(HTMLFailureLimit)
	samples := sampleRows(r, fails.add)
	p := toolcallView(r)
	p.Failing, p.FailingAll = fails.rows()
	p.Requests = samples.requests
	p.Samples = samplesMark
	var b bytes.Buffer
	if err := pageTemplate().ExecuteTemplate(&b, "toolcall", p); err != nil {
		return fmt.Errorf("html: %w", err)
	}
	head, tail, ok := bytes.Cut(b.Bytes(), []byte(samplesMark))
	if !ok {
		return fmt.Errorf("html: the page has no place for the sample browser")
	}
	if _, err := w.Write(PrintableHTML(head)); err != nil {
		return err
	}
	if err := samples.writeTo(w); err != nil { // JSON: its escapes hold no control character
		return err
	}
	_, err := w.Write(PrintableHTML(tail))
	return err
}

// shade returns the CSS class that colours a 0-100 figure, in tenths, so the
// colours come from the inline stylesheet and print as they show.
func shade(p *float64) string {
	if p == nil || math.IsNaN(*p) {
		return "sna"
	}
	v := math.Round(math.Max(0, math.Min(100, *p)) / 10)
	return "s" + strconv.Itoa(int(v))
}

// A chart is drawn in HTML and CSS, not SVG: its text is page text, so it keeps
// its size on a phone instead of shrinking with a scaled drawing. Positions are
// percentages of the plot's width.

// chart is a chart of horizontal rows sharing one axis.
type chart struct {
	Title  string
	Unit   string // the axis unit, written under the axis
	Ticks  []tick
	Rows   []chartRow
	Legend []legendItem
}

// tick is one labelled grid line.
type tick struct {
	Pos   template.CSS // left: N%
	Label string
	Zero  bool
}

// chartRow is one labelled row: bars, an interval, markers, and its value in words.
type chartRow struct {
	Label   string
	Anchor  string // a page fragment the label links to, or ""
	Bars    []chartMark
	Whisker *chartMark
	Points  []chartMark
	Value   string
	Note    string // a second, smaller line under the value
}

// chartMark is a bar, interval or point: its class, position and hover text.
type chartMark struct {
	Class string
	Style template.CSS
	Title string
}

// legendItem explains one colour or mark of a chart.
type legendItem struct{ Class, Text string }

// axis maps values in [lo, hi] to percentages of the plot width.
type axis struct{ lo, hi float64 }

func (a axis) pos(v float64) float64 {
	v = math.Max(a.lo, math.Min(a.hi, v))
	return 100 * (v - a.lo) / (a.hi - a.lo)
}

func (a axis) left(v float64) template.CSS {
	return template.CSS("left:" + f2(a.pos(v)) + "%")
}

// span is a mark from x to y (in either order).
func (a axis) span(x, y float64) template.CSS {
	l, r := a.pos(math.Min(x, y)), a.pos(math.Max(x, y))
	return template.CSS("left:" + f2(l) + "%;width:" + f2(r-l) + "%")
}

func (a axis) ticks(step float64, label func(float64) string) []tick {
	var out []tick
	for v := a.lo; v <= a.hi+1e-9; v += step {
		out = append(out, tick{Pos: a.left(v), Label: label(v), Zero: math.Abs(v) < 1e-9 && a.lo < 0})
	}
	return out
}

// f2 formats a position.
func f2(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

func pctTick(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) + "%" }

func ppTick(v float64) string {
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if v > 0 {
		s = "+" + s
	}
	return s
}

// rateAxis is the 0-100% axis of every rate chart.
var rateAxis = axis{0, 100}

// armChart draws first-pass success per arm as bars with their Wilson intervals,
// and final success after repairs as a marker.
func armChart(r *ToolcallReport) chart {
	c := chart{Title: "First-pass success by arm (%), with Wilson 95% intervals", Unit: "first-pass success, % of runs",
		Ticks:  rateAxis.ticks(25, pctTick),
		Legend: []legendItem{{"bar", "first-pass success"}, {"wh", "Wilson 95% interval"}}}
	repairs := false
	for _, a := range r.Arms {
		m := a.Value
		row := chartRow{Label: a.Key, Value: pct(m.FirstPassSuccess) + " " + interval(m.FirstPassWilson95)}
		if m.FirstPassSuccess != nil {
			row.Bars = []chartMark{{Class: "bar", Style: rateAxis.span(0, *m.FirstPassSuccess), Title: a.Key + " first pass " + pct(m.FirstPassSuccess)}}
		}
		if iv := m.FirstPassWilson95; iv != nil {
			row.Whisker = &chartMark{Class: "wh", Style: rateAxis.span(iv[0], iv[1]), Title: "Wilson 95% " + interval(iv)}
		}
		if m.FinalSuccess != nil && (m.FirstPassSuccess == nil || *m.FinalSuccess != *m.FirstPassSuccess || r.Study.Repairs > 0) {
			repairs = true
			row.Points = []chartMark{{Class: "pt fin", Style: rateAxis.left(*m.FinalSuccess), Title: a.Key + " final " + pct(m.FinalSuccess)}}
			row.Note = "final " + pct(m.FinalSuccess)
		}
		c.Rows = append(c.Rows, row)
	}
	if repairs {
		c.Legend = append(c.Legend, legendItem{"pt fin", "final success after repairs"})
	}
	return c
}

// effectAxis fits the forest plot to its intervals: symmetric around zero, on
// a round bound, so an interval of a few points is as wide as it deserves.
func effectAxis(r *ToolcallReport) (axis, float64) {
	var rows []ForestRow
	for _, e := range r.Effects {
		rows = append(rows, ForestRow{Uplift: e.Value.AbsoluteUplift, CI95: e.Value.CI95})
	}
	return fitAxis(rows)
}

func fitAxis(rows []ForestRow) (axis, float64) {
	m := 0.0
	for _, v := range rows {
		if v.Uplift != nil {
			m = math.Max(m, math.Abs(*v.Uplift))
		}
		if v.CI95 != nil {
			m = math.Max(m, math.Max(math.Abs(v.CI95[0]), math.Abs(v.CI95[1])))
		}
	}
	for _, b := range []float64{2, 4, 6, 10, 20, 30, 40, 60, 80, 100} {
		if m*1.05 <= b {
			return axis{-b, b}, b / 2
		}
	}
	return axis{-100, 100}, 50
}

// verdict names an effect label in plain words, as docs/statistics.md defines it.
func verdict(label string) string {
	switch label {
	case "improvement":
		return "helps"
	case "harm":
		return "harms"
	}
	return "inconclusive"
}

// forestChart draws every paired effect: the uplift as a point coloured by its
// verdict, its bootstrap interval as a line, and the zero line.
func forestChart(r *ToolcallReport) chart {
	ax, step := effectAxis(r)
	c := chart{Title: "Paired effects: uplift in first-pass success (pp), clustered bootstrap 95% intervals",
		Unit: "uplift of the first arm over the second, percentage points (pp)", Ticks: ax.ticks(step, ppTick),
		Legend: []legendItem{{"pt imp", "helps (interval above 0)"}, {"pt harm", "harms (interval below 0)"}, {"pt inc", "inconclusive (interval contains 0)"}, {"wh", "95% interval"}}}
	for _, e := range r.Effects {
		v := e.Value
		row := chartRow{Label: comparisonName(e.Key), Anchor: "effect-" + e.Key,
			Value: points(v.AbsoluteUplift) + " " + interval(v.CI95), Note: verdict(v.Label)}
		if iv := v.CI95; iv != nil {
			row.Whisker = &chartMark{Class: "wh", Style: ax.span(iv[0], iv[1]), Title: "95% interval " + interval(iv) + " pp"}
		}
		if v.AbsoluteUplift != nil {
			class := "pt inc"
			switch v.Label {
			case "improvement":
				class = "pt imp"
			case "harm":
				class = "pt harm"
			}
			row.Points = []chartMark{{Class: class, Style: ax.left(*v.AbsoluteUplift),
				Title: comparisonName(e.Key) + " " + points(v.AbsoluteUplift) + " " + interval(v.CI95) + " " + verdict(v.Label)}}
		}
		c.Rows = append(c.Rows, row)
	}
	return c
}

// comparisonName writes an effect key for people: "input_schema vs no_schema".
func comparisonName(key string) string { return strings.ReplaceAll(key, "_vs_", " vs ") }

// levelChart draws, per evaluated CogLang level, the parse, validation and head
// rates as three thin bars.
func levelChart(c *CogLangResult) chart {
	ch := chart{Title: "Per-level rates (%): parse ok, valid, expected top-level head", Unit: "% of the level's cases",
		Ticks:  rateAxis.ticks(25, pctTick),
		Legend: []legendItem{{"bar", "parse ok"}, {"bar2", "valid"}, {"bar3", "expected head"}}}
	for _, l := range c.ladder() {
		s := l.Summary
		if s == nil {
			continue
		}
		row := chartRow{Label: l.Level + " (" + strconv.Itoa(s.CaseCount) + " cases)", Anchor: "level-" + l.Level,
			Value: rate(s.ParseOKRate) + " / " + rate(s.ValidateOKRate) + " / " + rate(s.ExpectedTopLevelHeadOKRate), Note: l.Status}
		for j, part := range []struct {
			name  string
			rate  float64
			class string
		}{{"parse ok", s.ParseOKRate, "bar"}, {"valid", s.ValidateOKRate, "bar2"}, {"head ok", s.ExpectedTopLevelHeadOKRate, "bar3"}} {
			row.Bars = append(row.Bars, chartMark{Class: part.class + " b" + strconv.Itoa(j), Style: rateAxis.span(0, 100*part.rate),
				Title: l.Level + " " + part.name + " " + rate(part.rate)})
		}
		ch.Rows = append(ch.Rows, row)
	}
	return ch
}

// subsetTable is a domain x arm or category x arm table of first-pass success.
type subsetTable struct {
	Title string
	What  string
	Arms  []string
	Rows  []subsetRow
}

type subsetRow struct {
	Name  string
	Cells []*Metrics
}

type codeRow struct {
	Code   string
	Counts []int
}

type toolcallPage struct {
	Title       string
	Style       template.CSS
	R           *ToolcallReport
	Findings    []finding
	ArmChart    chart
	Forest      chart
	Subsets     []subsetTable
	Arms        []string
	Codes       []codeRow
	Failing     []Row // the first HTMLFailureLimit failing rows
	FailingAll  int   // how many rows failed
	GatesPassed int
	Samples     template.HTML // where the sample browser's data and script go
	Requests    int           // how many requests the rows answer
}

// HTMLFailureLimit caps the failing rows written as a table; the sample browser
// holds every row.
const HTMLFailureLimit = 50

// finding is one comparison's answer, in words, for the top of the page.
type finding struct {
	Key, Name, Verdict, Class string
	Treatment, Baseline       string
	E                         Effect
}

func findings(r *ToolcallReport) []finding {
	var out []finding
	for _, e := range r.Effects {
		treat, base, _ := strings.Cut(e.Key, "_vs_")
		f := finding{Key: e.Key, Name: comparisonName(e.Key), Verdict: verdict(e.Value.Label), Treatment: treat, Baseline: base, E: e.Value}
		f.Class = map[string]string{"helps": "imp", "harms": "harm"}[f.Verdict]
		if f.Class == "" {
			f.Class = "inc"
		}
		out = append(out, f)
	}
	return out
}

func toolcallView(r *ToolcallReport) toolcallPage {
	p := toolcallPage{Title: r.title(), Style: template.CSS(styleCSS), R: r, Findings: findings(r), ArmChart: armChart(r), Forest: forestChart(r),
		Arms: r.Arms.Keys(), GatesPassed: r.gatesPassed()}
	for _, sub := range []struct {
		title, what string
		set         Ordered[Ordered[Metrics]]
	}{{"First-pass success by domain", "domain", r.Subsets.Domain}, {"First-pass success by category", "category", r.Subsets.Category}} {
		if len(sub.set) == 0 {
			continue
		}
		t := subsetTable{Title: sub.title, What: sub.what, Arms: p.Arms}
		for _, s := range sub.set {
			row := subsetRow{Name: s.Key}
			for _, arm := range p.Arms {
				if m, ok := s.Value.Get(arm); ok {
					row.Cells = append(row.Cells, &m)
				} else {
					row.Cells = append(row.Cells, nil)
				}
			}
			t.Rows = append(t.Rows, row)
		}
		p.Subsets = append(p.Subsets, t)
	}
	for _, code := range r.errorCodes() {
		row := codeRow{Code: code}
		for _, a := range r.Arms {
			n, _ := a.Value.ErrorCounts.Get(code)
			row.Counts = append(row.Counts, n)
		}
		p.Codes = append(p.Codes, row)
	}
	return p
}

type coglangPage struct {
	Title    string
	Style    template.CSS
	R        *CogLangResult
	Chart    chart
	Ladder   []levelRow
	Failures []failure // the first HTMLFailureLimit failing cases
	// FailingAll counts the failing cases, BlockingAll those of the blocked level
	FailingAll, BlockingAll int
	Blocking                []failure // the first HTMLFailureLimit failing cases of the blocked level
}

// coglangView gathers the page of a CogLang result: its failing cases are read
// once, in step with the scored cases they join, and the first HTMLFailureLimit
// of them (and of the blocked level's) are kept, with a count of the rest. A
// result whose two lists do not stand in the same order is read whole instead.
func coglangView(doc Doc) coglangPage {
	c := doc.CogLang
	p := coglangPage{Title: c.title(), Style: template.CSS(styleCSS), R: c, Chart: levelChart(c), Ladder: c.ladder()}
	blocked := ""
	if c.Maturity != nil && c.Maturity.BlockedLevel != nil {
		blocked = *c.Maturity.BlockedLevel
	}
	// listed and blocking say where the next failing case goes: the page's
	// table, the blocked level's list; kept, whether it is either
	listed := func() bool { return len(p.Failures) < HTMLFailureLimit }
	blocking := func(f *FailureCase) bool { return blocked != "" && f.Level == blocked }
	kept := func(f *FailureCase) bool {
		return listed() || blocking(f) && len(p.Blocking) < HTMLFailureLimit
	}
	add := func(f failure) {
		p.FailingAll++
		f.Listed = listed()
		if f.Listed {
			p.Failures = append(p.Failures, f)
		}
		if blocking(&f.FailureCase) {
			p.BlockingAll++
			if len(p.Blocking) < HTMLFailureLimit {
				p.Blocking = append(p.Blocking, f)
			}
		}
	}
	// the sources make each case anew, so a shallow copy keeps it; the
	// scored case of a failing case not kept is read by its id alone
	ok := c.walkJoined(false, kept, func(_, _ string, cs *CogLangCase, f *FailureCase) {
		var copied *CogLangCase
		if cs != nil && kept(f) {
			k := *cs
			copied = &k
		}
		add(failure{FailureCase: *f, Case: copied})
	})
	if !ok {
		p.Failures, p.Blocking, p.FailingAll, p.BlockingAll = nil, nil, 0, 0
		for _, f := range doc.held().CogLang.failures() {
			add(f)
		}
	}
	return p
}

// wilsonCell writes a subset cell's interval, or nothing when it has none.
func wilsonCell(m *Metrics) string {
	if m == nil || m.FirstPassWilson95 == nil {
		return ""
	}
	return interval(m.FirstPassWilson95)
}

// ForestRow is one row of a forest plot: a paired uplift in points, its 95%
// interval and its effect label (improvement, harm, inconclusive).
type ForestRow struct {
	Label  string
	Uplift *float64
	CI95   *[2]float64
	Effect string
}

// ForestHTML draws a forest plot as the report pages do, for other pages
// (comparisons) that show paired effects; above and below say what a whole
// interval on either side of zero means. The axis is fitted to the intervals, the
// zero line, each point coloured by its effect and labelled with its value.
func ForestHTML(title, unit, above, below string, rows []ForestRow) (template.HTML, error) {
	ax, step := fitAxis(rows)
	c := chart{Title: title, Unit: unit, Ticks: ax.ticks(step, ppTick),
		Legend: []legendItem{{"pt imp", above + " (interval above 0)"}, {"pt harm", below + " (interval below 0)"}, {"pt inc", "no clear difference (interval contains 0)"}, {"wh", "95% interval"}}}
	for _, v := range rows {
		row := chartRow{Label: v.Label, Value: points(v.Uplift) + " " + interval(v.CI95)}
		if iv := v.CI95; iv != nil {
			row.Whisker = &chartMark{Class: "wh", Style: ax.span(iv[0], iv[1]), Title: "95% interval " + interval(iv) + " pp"}
		}
		if v.Uplift != nil {
			class := map[string]string{"improvement": "pt imp", "harm": "pt harm"}[v.Effect]
			if class == "" {
				class = "pt inc"
			}
			row.Points = []chartMark{{Class: class, Style: ax.left(*v.Uplift), Title: v.Label + " " + points(v.Uplift) + " " + interval(v.CI95)}}
		}
		c.Rows = append(c.Rows, row)
	}
	var b bytes.Buffer
	if err := pageTemplate().ExecuteTemplate(&b, "chart", c); err != nil {
		return "", err
	}
	return template.HTML(b.String()), nil
}
