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
)

//go:embed style.css
var styleCSS string

//go:embed report.html.tmpl
var reportTmpl string

// HTMLStyle returns the stylesheet every fbeval HTML page inlines, so other pages
// (comparisons) look the same without fetching anything.
func HTMLStyle() string { return styleCSS }

var pageTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"pct":      pct,
	"num":      num,
	"points":   points,
	"interval": interval,
	"usd":      usd,
	"ms":       ms,
	"count":    count,
	"pvalue":   pvalue,
	"rate":     rate,
	"ratio":    ratio,
	"list":     list,
	"join":     strings.Join,
	"strOr":    strOr,
	"shade":    shade,
	"caseName": caseName,
	"status":   rowStatus,
	"yesNo":    yesNo,
	"css":      func(s string) template.CSS { return template.CSS(s) },
}).Parse(reportTmpl))

// WriteHTML writes doc as one self-contained HTML page: inline CSS and SVG charts,
// no scripts and no external references, readable on a phone and printable. Every
// text from the report is escaped by html/template.
func WriteHTML(w io.Writer, doc Doc) error {
	var b bytes.Buffer
	var err error
	switch doc.Kind {
	case KindToolcall:
		err = pageTemplate.ExecuteTemplate(&b, "toolcall", toolcallView(doc.Name, doc.Toolcall))
	case KindCogLang:
		err = pageTemplate.ExecuteTemplate(&b, "coglang", coglangView(doc.Name, doc.CogLang))
	default:
		return errNoKind
	}
	if err != nil {
		return fmt.Errorf("html: %w", err)
	}
	_, err = w.Write(b.Bytes())
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

// Chart geometry, in SVG user units; the viewBox scales it to the page.
const (
	chartWidth = 760.0
	labelWidth = 240.0
	plotLeft   = labelWidth + 10
	plotRight  = chartWidth - 90
	rowHeight  = 34.0
	chartTop   = 26.0
)

// f1 formats a coordinate.
func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// scale maps v in [lo, hi] to the plot's x range, clamped.
func scale(v, lo, hi float64) float64 {
	v = math.Max(lo, math.Min(hi, v))
	return plotLeft + (v-lo)/(hi-lo)*(plotRight-plotLeft)
}

// tick is one labelled vertical grid line.
type tick struct {
	X, Label string
	Zero     bool
}

func ticks(lo, hi, step float64, suffix string) []tick {
	var out []tick
	for v := lo; v <= hi+1e-9; v += step {
		out = append(out, tick{X: f1(scale(v, lo, hi)), Label: strconv.FormatFloat(v, 'f', -1, 64) + suffix, Zero: v == 0})
	}
	return out
}

// chart is an SVG chart of horizontal rows.
type chart struct {
	Title  string
	Width  string
	LabelX string
	Height string
	AxisY  string // y of the tick labels
	Bottom string // y where grid lines end
	Ticks  []tick
	Rows   []chartRow
}

// chartRow is one labelled row: bars, an interval whisker, markers and a value.
type chartRow struct {
	Label, LabelY string
	Bars          []chartBar
	Whisker       *whisker
	Point         *marker
	Final         *marker
	Value, ValueY string
	ValueX        string
}

type chartBar struct {
	X, Y, W, H, Class, Title string
}

type whisker struct {
	X1, X2, Y, CapTop, CapBottom string
}

type marker struct {
	X, Y, Class, Title string
}

func newChart(title string, n int, lo, hi, step float64, suffix string) chart {
	h := chartTop + float64(n)*rowHeight + 10
	return chart{Title: title, Width: f1(chartWidth), LabelX: f1(labelWidth), Height: f1(h), AxisY: f1(chartTop - 10), Bottom: f1(h - 6), Ticks: ticks(lo, hi, step, suffix)}
}

func rowY(i int) float64 { return chartTop + float64(i)*rowHeight }

// armChart draws first-pass success per arm as bars with Wilson whiskers and a
// marker at final success.
func armChart(r *ToolcallReport) chart {
	c := newChart("First-pass success by arm, with Wilson 95% intervals", len(r.Arms), 0, 100, 25, "%")
	for i, a := range r.Arms {
		m := a.Value
		y := rowY(i)
		mid := y + rowHeight/2
		row := chartRow{Label: a.Key, LabelY: f1(mid + 4), ValueX: f1(plotRight + 8), ValueY: f1(mid + 4),
			Value: pct(m.FirstPassSuccess)}
		if m.FirstPassSuccess != nil {
			row.Bars = []chartBar{{X: f1(plotLeft), Y: f1(mid - 8), W: f1(scale(*m.FirstPassSuccess, 0, 100) - plotLeft), H: "16", Class: "bar",
				Title: a.Key + " first pass " + pct(m.FirstPassSuccess)}}
		}
		if iv := m.FirstPassWilson95; iv != nil {
			row.Whisker = &whisker{X1: f1(scale(iv[0], 0, 100)), X2: f1(scale(iv[1], 0, 100)), Y: f1(mid), CapTop: f1(mid - 6), CapBottom: f1(mid + 6)}
		}
		if m.FinalSuccess != nil {
			row.Final = &marker{X: f1(scale(*m.FinalSuccess, 0, 100)), Y: f1(mid), Class: "fin", Title: a.Key + " final " + pct(m.FinalSuccess)}
		}
		c.Rows = append(c.Rows, row)
	}
	return c
}

// forestChart draws every paired effect: the uplift as a point, its bootstrap
// interval as a line, and the zero line.
func forestChart(r *ToolcallReport) chart {
	c := newChart("Paired effects: uplift in points with clustered bootstrap 95% intervals", len(r.Effects), -100, 100, 50, "")
	for i, e := range r.Effects {
		v := e.Value
		mid := rowY(i) + rowHeight/2
		row := chartRow{Label: strings.ReplaceAll(e.Key, "_vs_", " vs "), LabelY: f1(mid + 4), ValueX: f1(plotRight + 8), ValueY: f1(mid + 4), Value: points(v.AbsoluteUplift)}
		if iv := v.CI95; iv != nil {
			row.Whisker = &whisker{X1: f1(scale(iv[0], -100, 100)), X2: f1(scale(iv[1], -100, 100)), Y: f1(mid), CapTop: f1(mid - 6), CapBottom: f1(mid + 6)}
		}
		if v.AbsoluteUplift != nil {
			class := "pt"
			switch v.Label {
			case "improvement":
				class = "pt imp"
			case "harm":
				class = "pt harm"
			}
			row.Point = &marker{X: f1(scale(*v.AbsoluteUplift, -100, 100)), Y: f1(mid), Class: class,
				Title: e.Key + " " + points(v.AbsoluteUplift) + " " + interval(v.CI95) + " " + v.Label}
		}
		c.Rows = append(c.Rows, row)
	}
	return c
}

// levelChart draws, per evaluated CogLang level, the parse, validation and head
// rates as three thin bars.
func levelChart(c *CogLangResult) chart {
	var levels []levelRow
	for _, l := range c.ladder() {
		if l.Summary != nil {
			levels = append(levels, l)
		}
	}
	ch := newChart("Per-level rates: parse ok, valid, expected head", len(levels), 0, 100, 25, "%")
	for i, l := range levels {
		s := l.Summary
		y := rowY(i)
		mid := y + rowHeight/2
		row := chartRow{Label: l.Level + " (" + strconv.Itoa(s.CaseCount) + " cases)", LabelY: f1(mid + 4), ValueX: f1(plotRight + 8), ValueY: f1(mid + 4),
			Value: l.Status}
		for j, part := range []struct {
			name  string
			rate  float64
			class string
		}{{"parse ok", s.ParseOKRate, "bar"}, {"valid", s.ValidateOKRate, "bar2"}, {"head ok", s.ExpectedTopLevelHeadOKRate, "bar3"}} {
			row.Bars = append(row.Bars, chartBar{X: f1(plotLeft), Y: f1(y + 5 + float64(j)*8), W: f1(scale(100*part.rate, 0, 100) - plotLeft), H: "7",
				Class: part.class, Title: l.Level + " " + part.name + " " + rate(part.rate)})
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
	Title, Name string
	Style       template.CSS
	R           *ToolcallReport
	ArmChart    chart
	Forest      chart
	Subsets     []subsetTable
	Arms        []string
	Codes       []codeRow
	Failing     []Row
	GatesPassed int
}

func toolcallView(name string, r *ToolcallReport) toolcallPage {
	p := toolcallPage{Title: r.title(name), Name: name, Style: template.CSS(styleCSS), R: r, ArmChart: armChart(r), Forest: forestChart(r),
		Arms: r.Arms.Keys(), Failing: r.failingRows(), GatesPassed: r.gatesPassed()}
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
	Title, Name string
	Style       template.CSS
	R           *CogLangResult
	Chart       chart
	Ladder      []levelRow
	Failures    []failure
}

func coglangView(name string, c *CogLangResult) coglangPage {
	return coglangPage{Title: c.title(name), Name: name, Style: template.CSS(styleCSS), R: c, Chart: levelChart(c), Ladder: c.ladder(), Failures: c.failures()}
}
