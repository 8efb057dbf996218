package report

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fbeval/fbeval/contract"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// WriteTable writes doc as plain-text tables for a terminal or a CI log: ASCII
// borders only, so any log viewer shows them, and headers exactly as written.
func WriteTable(w io.Writer, doc Doc) error { return WriteTableWidth(w, doc, 0) }

// WriteTableWidth writes the tables of WriteTable, each fitted to width columns
// (0: no limit): a table too wide loses its rightmost, least important columns
// until it fits, and a line under it names them.
func WriteTableWidth(w io.Writer, doc Doc, width int) error {
	b := &tableBuf{width: width}
	var err error
	switch doc.Kind {
	case KindToolcall:
		err = tableToolcall(b, doc.Name, doc.Toolcall)
	case KindCogLang:
		err = tableCogLang(b, doc.Name, doc.CogLang)
	default:
		return errNoKind
	}
	if err != nil {
		return fmt.Errorf("table: %w", err)
	}
	_, err = w.Write(b.Bytes())
	return err
}

// tableBuf holds rendered tables and the width they must fit (0: any).
type tableBuf struct {
	bytes.Buffer
	width int
}

// textTable renders one titled table into b, fitted to b.width, and a blank line.
func textTable(b *tableBuf, title string, header []string, rows [][]string) error {
	if err := FitTable(&b.Buffer, b.width, title, header, rows); err != nil {
		return err
	}
	b.WriteByte('\n')
	return nil
}

// FitTable renders one table (under its title, when there is one) into b in the
// one table style, fitted to width columns (0: any): a table too wide loses its
// rightmost, least important columns until it fits, and a line under it names
// them. Every text table of both suites and of comparisons goes through it.
func FitTable(b *bytes.Buffer, width int, title string, header []string, rows [][]string) error {
	if title != "" {
		b.WriteString(title + "\n")
	}
	var dropped []string
	for {
		var one bytes.Buffer
		if err := renderTable(&one, header, rows); err != nil {
			return err
		}
		if width <= 0 || widest(one.String()) <= width || len(header) <= 2 {
			b.Write(one.Bytes())
			break
		}
		last := len(header) - 1
		dropped = append([]string{header[last]}, dropped...)
		header = header[:last]
		for i := range rows {
			if len(rows[i]) > last {
				rows[i] = rows[i][:last]
			}
		}
	}
	if len(dropped) > 0 {
		fmt.Fprintf(b, "(left out to fit %d columns: %s; --format json has every field)\n", width, strings.Join(dropped, ", "))
	}
	return nil
}

// widest is the width of the longest line of s, in characters.
func widest(s string) int {
	n := 0
	for _, line := range strings.Split(s, "\n") {
		n = max(n, utf8.RuneCountInString(line))
	}
	return n
}

// NewTextTable returns a table writing to w in the one table style of every
// fbeval text table (both suites, reports and comparisons): ASCII lines, headers
// as written and left-aligned, cells never wrapped or trimmed.
func NewTextTable(w io.Writer) *tablewriter.Table {
	return tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithTrimSpace(tw.Off),
	)
}

// renderTable renders a table in the one table style of fbeval's text output.
// Every cell is one line of printable text (cell) before the columns are
// sized: a label with a line break split the table, and an escape sequence
// written out after the sizing widened its row past the others.
func renderTable(b *bytes.Buffer, header []string, rows [][]string) error {
	t := NewTextTable(b)
	t.Header(cells(header))
	lines := make([][]string, len(rows))
	for i, r := range rows {
		lines[i] = cells(r)
	}
	if err := t.Bulk(lines); err != nil {
		return err
	}
	return t.Render()
}

// cells returns row's cells each as one line of printable text: line breaks and
// tabs a space (plain), other control and bidirectional characters escaped
// (contract.Printable).
func cells(row []string) []string {
	out := make([]string, len(row))
	for i, c := range row {
		out[i] = contract.Printable(plain(c))
	}
	return out
}

// plain flattens text for one table cell.
func plain(s string) string {
	if !strings.ContainsAny(s, "\n\r\t") {
		return s // bytes that are not UTF-8 (a lone surrogate) kept, for their escape
	}
	var b strings.Builder
	for i, r := range s {
		if r == '\n' || r == '\r' || r == '\t' {
			b.WriteByte(' ')
		} else {
			b.WriteString(runeAt(s, i))
		}
	}
	return b.String()
}

// runeAt is the character of s at byte i as s holds it: a byte that is not
// UTF-8 (of a lone surrogate, \ud800 in JSON) is itself, not U+FFFD, so
// that the writer after (contract.Printable) writes its escape, as every
// other format does.
func runeAt(s string, i int) string {
	_, n := utf8.DecodeRuneInString(s[i:])
	return s[i : i+n]
}

// maxTableFailures bounds the failing cases a table lists: a table is for reading.
const maxTableFailures = 50

func tableToolcall(b *tableBuf, name string, r *ToolcallReport) error {
	models := ""
	if m := ModelsPhrase(r.Models(), ": "); m != "" {
		models = ", " + plain(m)
	}
	fmt.Fprintf(b, "toolcall report: %s\ncomplete: %s, expected rows: %d, dataset: %s, seed: %d, repeats: %d, repairs: %d, decoding: %s%s\n%s\n\n",
		plain(r.title()), yesNo(r.Complete), r.ExpectedRows, plain(r.Study.Dataset), r.Study.Seed, r.Study.Repeats, r.Study.Repairs,
		plain(r.Study.Decoding), models, strings.ToLower(r.gateLine()))
	var rows [][]string
	for _, a := range r.Arms {
		m := a.Value
		rows = append(rows, []string{plain(a.Key), strconv.Itoa(m.Runs), pct(m.FirstPassSuccess), interval(m.FirstPassWilson95),
			pct(m.FinalSuccess), pct(m.SemanticAccuracy), pct(m.CallSchemaValidity), pct(m.SemanticPrecision), pct(m.RetryRate),
			strconv.Itoa(m.ProviderErrors), strconv.Itoa(m.MissingResponses), usd(m.CostPerSuccessUSD), ms(m.LatencyP50Ms), ms(m.LatencyP95Ms)})
	}
	if err := textTable(b, "arms", []string{"arm", "runs", "first pass", "wilson 95%", "final", "semantic", "call validity", "SPV", "retry",
		"provider errors", "missing", "cost/success", "p50", "p95"}, rows); err != nil {
		return err
	}
	if len(r.Effects) > 0 {
		rows = rows[:0]
		for _, e := range r.Effects {
			v := e.Value
			rows = append(rows, []string{plain(e.Key), pct(v.BaselineSuccess), pct(v.TreatmentSuccess), points(v.AbsoluteUplift),
				interval(v.CI95), pvalue(v.McNemarP), fmt.Sprintf("%d/%d", v.DiscordantWins, v.DiscordantLosses), plain(v.Label)})
		}
		if err := textTable(b, "paired effects (first pass, clustered bootstrap 95%)",
			[]string{"comparison", "baseline", "treatment", "uplift", "95% CI", "McNemar p", "wins/losses", "effect"}, rows); err != nil {
			return err
		}
	}
	for _, sub := range []struct {
		title string
		set   Ordered[Ordered[Metrics]]
	}{{"first pass by domain", r.Subsets.Domain}, {"first pass by category", r.Subsets.Category}} {
		if len(sub.set) == 0 {
			continue
		}
		header := []string{strings.TrimPrefix(sub.title, "first pass by ")}
		for _, a := range r.Arms {
			header = append(header, plain(a.Key))
		}
		rows = rows[:0]
		for _, e := range sub.set {
			row := []string{plain(e.Key)}
			for _, a := range r.Arms {
				m, _ := e.Value.Get(a.Key)
				row = append(row, fmt.Sprintf("%s of %d", pct(m.FirstPassSuccess), m.Runs))
			}
			rows = append(rows, row)
		}
		if err := textTable(b, sub.title, header, rows); err != nil {
			return err
		}
	}
	if len(r.Gates) > 0 {
		rows = rows[:0]
		for _, g := range r.Gates {
			rows = append(rows, []string{plain(g.Gate), g.ActualText(), strings.Trim(passFail(g.Passed), "*")})
		}
		if err := textTable(b, "gates", []string{"gate", "actual", "result"}, rows); err != nil {
			return err
		}
	}
	fmt.Fprintf(b, "classification: %s\ncustom fitness: %s\n", plain(list(r.Classification)), num(r.CustomFitness, 1))
	if p := r.Probes; p != nil {
		fmt.Fprintf(b, "probes: %d valid, %d invalid, invalid rejected %s, valid falsely rejected %s\n",
			p.ValidProbeCount, p.InvalidProbeCount, pct(p.InvalidRejectionPercent), pct(p.FalseRejectionPercent))
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(b, "warning: %s\n", plain(w))
	}
	b.WriteByte('\n')
	if fails, total := r.failingRows(maxTableFailures); total > 0 {
		title := fmt.Sprintf("failing cases (%d, by final success)", total)
		if total > maxTableFailures {
			title = fmt.Sprintf("failing cases (by final success): the first %d of %d; every row is in --format json and --cases-out", maxTableFailures, total)
		}
		rows = rows[:0]
		for _, f := range fails {
			rows = append(rows, []string{plain(caseName(f.CaseID, f.Repeat)), plain(f.Arm), rowStatus(f),
				plain(strings.Join(f.Codes, ", ")), plain(strings.Join(f.FinalCodes, ", "))})
		}
		if err := textTable(b, title, []string{"case", "arm", "status", "first codes", "final codes"}, rows); err != nil {
			return err
		}
	}
	return nil
}

func tableCogLang(b *tableBuf, name string, c *CogLangResult) error {
	m := c.Maturity
	fmt.Fprintf(b, "coglang result: %s\nok: %s, cases: %d, failing: %d\nhighest contiguous level: %s, blocked level: %s, next unevaluated level: %s, claim scope: %s\n",
		plain(c.title()), yesNo(c.OK), c.CaseCount, c.FailureCaseCount, plain(m.HighestContiguousLevel),
		plain(strOr(m.BlockedLevel, "none")), plain(strOr(m.NextUnevaluatedLevel, "none")), plain(m.MaturityClaimScope))
	if c.ScoringProfile != "" {
		fmt.Fprintf(b, "scoring profile: %s\n", plain(c.ScoringProfile))
	}
	if m := ModelsPhrase(c.models(), ": "); m != "" {
		fmt.Fprintf(b, "%s\n", plain(m))
	}
	b.WriteByte('\n')
	s := c.Summary
	rows := [][]string{tableCogRow("all", "ok: "+yesNo(s.OK), s)}
	for _, l := range c.ladder() {
		if l.Summary == nil {
			rows = append(rows, []string{plain(l.Level), l.Status, "", "", "", "", "", "", ""})
			continue
		}
		rows = append(rows, tableCogRow(l.Level, l.Status, l.Summary))
	}
	if err := textTable(b, "levels", []string{"level", "status", "cases", "missing", "parse ok", "canonical ok", "valid", "head ok", "hallucinated"}, rows); err != nil {
		return err
	}
	if len(s.FailureCategoryCounts) > 0 {
		rows = rows[:0]
		for _, e := range s.FailureCategoryCounts {
			rows = append(rows, []string{plain(e.Key), strconv.Itoa(e.Value)})
		}
		if err := textTable(b, "failure categories", []string{"category", "cases"}, rows); err != nil {
			return err
		}
	}
	if len(c.PreflightSummary) > 0 {
		rows = rows[:0]
		for _, e := range c.PreflightSummary {
			rows = append(rows, []string{plain(e.Key), strconv.Itoa(e.Value)})
		}
		if err := textTable(b, "preflight decisions", []string{"decision", "cases"}, rows); err != nil {
			return err
		}
	}
	return tableCogFailures(b, c)
}

// tableCogFailures writes the table of the first maxTableFailures failing
// cases, when there are any, and says how many there are when it lists fewer.
func tableCogFailures(b *tableBuf, c *CogLangResult) error {
	var rows [][]string
	total := 0
	for f := range c.failureCases() {
		total++
		if len(rows) < maxTableFailures {
			rows = append(rows, []string{plain(f.CaseID), plain(f.Level), plain(strings.Join(f.FailureCategories, ", ")),
				plain(clip(strings.Join(f.HallucinatedHeads, ", "), maxCellRunes)), plain(clip(strOr(f.ParseError, ""), maxCellRunes))})
		}
	}
	if total == 0 {
		return nil
	}
	title := fmt.Sprintf("failing cases (%d)", total)
	if total > maxTableFailures {
		title = fmt.Sprintf("failing cases: the first %d of %d; every failing case is in --format json and --format text", maxTableFailures, total)
	}
	return textTable(b, title, []string{"case", "level", "categories", "hallucinated heads", "parse error"}, rows)
}

func tableCogRow(level, status string, s *CogLangSummary) []string {
	return []string{plain(level), status, strconv.Itoa(s.CaseCount), strconv.Itoa(s.MissingOutputCount),
		ratio(s.ParseOKCount, s.CaseCount), ratio(s.CanonicalizeOKCount, s.CaseCount), ratio(s.ValidateOKCount, s.CaseCount),
		ratio(s.ExpectedTopLevelHeadOKCount, s.CaseCount), strconv.Itoa(s.HallucinatedOperatorCount)}
}
