package report

import (
	"math"
	"strconv"
	"strings"
)

// na is written for a figure that does not exist (a null in the report).
const na = "n/a"

// num formats a number with d decimals, or n/a.
func num(p *float64, d int) string {
	if p == nil || math.IsNaN(*p) || math.IsInf(*p, 0) {
		return na
	}
	v := *p
	if v == 0 {
		v = 0 // writes -0 as 0
	}
	s := strconv.FormatFloat(v, 'f', d, 64)
	// A tiny negative value rounds to "-0.0": show it as zero.
	if strings.Trim(s, "-0.") == "" {
		s = strings.TrimPrefix(s, "-")
	}
	return s
}

// pct formats a percentage with one decimal and a % sign, or n/a.
func pct(p *float64) string {
	if s := num(p, 1); s != na {
		return s + "%"
	}
	return na
}

// Num, Pct, Points and Interval are the number formats of a report (one
// decimal; a tiny negative written as zero, not "-0.0"; n/a for none), for the
// outputs read beside reports (compare's).
func Num(p *float64) string          { return num(p, 1) }
func Pct(p *float64) string          { return pct(p) }
func Points(p *float64) string       { return points(p) }
func Interval(iv *[2]float64) string { return interval(iv) }

// points formats a signed difference in percentage points.
func points(p *float64) string {
	if p == nil {
		return na
	}
	s := num(p, 1)
	if *p > 0 && s != "0.0" {
		s = "+" + s
	}
	return s + " pp"
}

// interval formats a [lo, hi] pair with one decimal, or n/a.
func interval(iv *[2]float64) string {
	if iv == nil {
		return na
	}
	return "[" + num(&iv[0], 1) + ", " + num(&iv[1], 1) + "]"
}

// usd formats a dollar amount with enough decimals for per-task costs.
func usd(p *float64) string {
	if p == nil {
		return na
	}
	return "$" + num(p, 6)
}

// ms formats a latency in whole milliseconds.
func ms(p *float64) string {
	if p == nil {
		return na
	}
	return num(p, 0) + " ms"
}

// count formats a token count.
func count(p *int64) string {
	if p == nil {
		return na
	}
	return strconv.FormatInt(*p, 10)
}

// pvalue formats a p-value with three significant digits.
func pvalue(p *float64) string {
	if p == nil {
		return na
	}
	return strconv.FormatFloat(*p, 'g', 3, 64)
}

// rate formats a 0-1 rate as a percentage with one decimal.
func rate(r float64) string {
	v := 100 * r
	return pct(&v)
}

// ratio formats n of m.
func ratio(n, m int) string {
	return strconv.Itoa(n) + "/" + strconv.Itoa(m)
}

// list joins a list, or writes none.
func list(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}

// strOr returns *p, or alt when p is nil.
func strOr(p *string, alt string) string {
	if p == nil {
		return alt
	}
	return *p
}

// clip shortens s to at most n runes, marking the cut, so a long model output
// does not swamp a table.
// maxCellRunes is the most of a model's text (an output, the heads it made
// up, a parse error quoting it) a table or Markdown cell shows: one answer of
// a megabyte made a table of tens of megabytes and a Markdown summary past
// GitHub's 1 MiB limit. The JSON result holds every byte.
const maxCellRunes = 160

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// caseName is the test and row name of a (case, repeat): the case id for repeat 1,
// with "#rN" appended for later repeats.
func caseName(caseID string, repeat int) string {
	if repeat <= 1 {
		return caseID
	}
	return caseID + "#r" + strconv.Itoa(repeat)
}
