package coglang

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/score/report"
)

// Mode selects which cases the JSON result carries.
type Mode int

// JSON result modes.
const (
	ModeFull         Mode = iota
	ModeSummaryOnly       // --summary-only: no cases
	ModeFailuresOnly      // --failures-only: only failing cases
)

// Tool is the tool name written in results.
const Tool = "fbeval"

// Scoring profile names written as scoring_profile.
const (
	ProfileReference = "reference"
	ProfileStrict    = "strict"
)

// Profile returns the scoring profile name.
func (r *Result) Profile() string {
	if r.Strict {
		return ProfileStrict
	}
	return ProfileReference
}

func rate(count, total int) float64 {
	if total == 0 {
		return 0.0
	}
	return float64(count) / float64(total)
}

func (c Counts) members() contract.Object {
	return contract.Object{
		{Key: "case_count", Value: c.CaseCount},
		{Key: "missing_output_count", Value: c.Missing},
		{Key: "parse_ok_count", Value: c.ParseOK},
		{Key: "parse_ok_rate", Value: rate(c.ParseOK, c.CaseCount)},
		{Key: "canonicalize_ok_count", Value: c.ParseOK},
		{Key: "canonicalize_ok_rate", Value: rate(c.ParseOK, c.CaseCount)},
		{Key: "validate_ok_count", Value: c.ValidateOK},
		{Key: "validate_ok_rate", Value: rate(c.ValidateOK, c.CaseCount)},
		{Key: "expected_top_level_head_ok_count", Value: c.HeadOK},
		{Key: "expected_top_level_head_ok_rate", Value: rate(c.HeadOK, c.CaseCount)},
		{Key: "hallucinated_operator_count", Value: c.Hallucinated},
		{Key: "ok", Value: c.OK()},
	}
}

// failureCounts returns the non-zero category counts with sorted keys.
func (r *Result) failureCounts() contract.Object {
	obj := contract.Object{}
	for _, i := range []int{4, 0, 1, 5, 3, 2} { // the category names in sorted order
		if n := r.FailureCounts[i]; n > 0 {
			obj = append(obj, contract.Member{Key: failureNames[i], Value: n})
		}
	}
	return obj
}

func nullable(s string, set bool) any {
	if !set {
		return nil
	}
	return s
}

func strs(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

func (r *Result) maturityObject() contract.Object {
	m := &r.Maturity
	scope := "evaluated_fixture_levels_only"
	if m.EvaluationComplete {
		scope = "defined_levels_complete"
	}
	return contract.Object{
		{Key: "defined_levels", Value: strs(m.DefinedLevels)},
		{Key: "evaluated_levels", Value: strs(m.EvaluatedLevels)},
		{Key: "unevaluated_levels", Value: strs(m.UnevaluatedLevels)},
		{Key: "passed_levels", Value: strs(m.PassedLevels)},
		{Key: "contiguous_passed_levels", Value: strs(m.ContiguousPassedLevels)},
		{Key: "highest_contiguous_level", Value: m.HighestContiguousLevel},
		{Key: "highest_contiguous_evaluated_level", Value: m.HighestContiguousLevel},
		{Key: "next_unevaluated_level", Value: nullable(m.NextUnevaluatedLevel, m.HasNext)},
		{Key: "blocked_level", Value: nullable(m.BlockedLevel, m.Blocked)},
		{Key: "evaluation_complete", Value: m.EvaluationComplete},
		{Key: "maturity_claim_scope", Value: scope},
	}
}

func (c *CaseResult) object() contract.Object {
	var output, canonical, parseErr, decision any
	if c.HasOutput {
		output = c.Output
	}
	if c.ParseOK {
		canonical = c.Canonical
	} else {
		parseErr = c.ParseError
	}
	if c.Decision != DecisionNone {
		decision = c.Decision.String()
	}
	return contract.Object{
		{Key: "case_id", Value: c.CaseID},
		{Key: "level", Value: c.Level},
		{Key: "prompt", Value: c.Prompt},
		{Key: "output", Value: output},
		{Key: "parse_ok", Value: c.ParseOK},
		{Key: "canonicalize_ok", Value: c.ParseOK},
		{Key: "validate_ok", Value: c.ValidateOK},
		{Key: "expected_top_level_head_ok", Value: c.HeadOK},
		{Key: "hallucinated_heads", Value: strs(c.Hallucinated)},
		{Key: "failure_categories", Value: c.Failures.Categories()},
		{Key: "preflight_decision", Value: decision},
		{Key: "canonical", Value: canonical},
		{Key: "parse_error", Value: parseErr},
	}
}

// PreflightSummary returns the preflight_summary block: the number of cases with
// each decision, the five decisions in sorted order, then "none" for the cases
// that have no decision (missing outputs, whose preflight_decision is null).
func (r *Result) PreflightSummary() contract.Object {
	obj := make(contract.Object, 0, len(Decisions)+1)
	for _, d := range Decisions {
		obj = append(obj, contract.Member{Key: d.String(), Value: r.Preflight[d]})
	}
	return append(obj, contract.Member{Key: "none", Value: r.Preflight[DecisionNone]})
}

// Object returns the result document: the reference's keys in its order, then
// fbeval's additions (scoring_profile, preflight_summary, response_file when set).
func (r *Result) Object(mode Mode) contract.Object {
	summary := append(r.Summary.members(), contract.Member{Key: "failure_category_counts", Value: r.failureCounts()})
	levels := make(contract.Object, len(r.Levels))
	for i, l := range r.Levels {
		levels[i] = contract.Member{Key: l.Level, Value: l.members()}
	}
	failures := make([]contract.Object, 0, r.FailureCaseCount)
	r.eachFailure(func(c *CaseResult) { failures = append(failures, c.failureObject()) })
	obj := contract.Object{
		{Key: "schema_version", Value: contract.CogLangResult},
		{Key: "tool", Value: Tool},
		{Key: "fixture_schema_version", Value: contract.CogLangFixture},
		{Key: "answer_source", Value: r.AnswerSource},
		{Key: "ok", Value: r.OK()},
		{Key: "case_count", Value: r.Summary.CaseCount},
		{Key: "summary", Value: summary},
		{Key: "level_summary", Value: levels},
		{Key: "maturity", Value: r.maturityObject()},
		{Key: "failure_case_count", Value: r.FailureCaseCount},
		{Key: "failure_cases", Value: failures},
	}
	if mode != ModeSummaryOnly {
		cases := make([]contract.Object, 0, len(r.Cases))
		r.eachCase(mode, func(c *CaseResult) { cases = append(cases, c.object()) })
		obj = append(obj, contract.Member{Key: "cases", Value: cases})
	}
	obj = append(obj,
		contract.Member{Key: "fixture_path", Value: r.FixturePath},
		contract.Member{Key: "scoring_profile", Value: r.Profile()},
		contract.Member{Key: "preflight_summary", Value: r.PreflightSummary()},
	)
	if r.ResponseFile != nil {
		obj = append(obj, contract.Member{Key: "response_file", Value: r.ResponseFile})
	}
	return obj
}

// eachFailure calls fn with every failing case, in fixture order.
func (r *Result) eachFailure(fn func(*CaseResult)) {
	for i := range r.Cases {
		if r.Cases[i].Failures != 0 {
			fn(&r.Cases[i])
		}
	}
}

// eachCase calls fn with every case the mode lists, in fixture order.
func (r *Result) eachCase(mode Mode, fn func(*CaseResult)) {
	if mode == ModeSummaryOnly {
		return
	}
	var failed map[string]bool
	if mode == ModeFailuresOnly {
		failed = map[string]bool{}
		for i := range r.Cases {
			if r.Cases[i].Failures != 0 {
				failed[r.Cases[i].CaseID] = true
			}
		}
	}
	for i := range r.Cases {
		// As in the reference, failures-only keeps every case whose id failed.
		if failed != nil && !failed[r.Cases[i].CaseID] {
			continue
		}
		fn(&r.Cases[i])
	}
}

func (c *CaseResult) failureObject() contract.Object {
	var parseErr any
	if !c.ParseOK {
		parseErr = c.ParseError
	}
	return contract.Object{
		{Key: "case_id", Value: c.CaseID},
		{Key: "level", Value: c.Level},
		{Key: "failure_categories", Value: c.Failures.Categories()},
		{Key: "hallucinated_heads", Value: strs(c.Hallucinated)},
		{Key: "parse_error", Value: parseErr},
	}
}

// WriteJSON writes the result document as Python's json.dumps(indent=2) would,
// with a trailing newline. The two case lists are written one case at a time
// into the holes their empty lists leave in the rest of the document, so the
// document is never held whole.
func (r *Result) WriteJSON(w io.Writer, mode Mode) error {
	lists := Result{Cases: r.Cases}
	head := *r
	head.Cases, head.FailureCaseCount = nil, r.FailureCaseCount
	data, err := contract.Marshal(head.Object(mode), contract.PythonIndent)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	var buf []byte
	// list writes the elements fn yields where the member's empty list stands;
	// only a top-level member sits one indent deep after a newline, and strings
	// hold no raw newline, so the hole is found exactly.
	list := func(key string, each func(func(*CaseResult)), elem func(*CaseResult) contract.Object) {
		hole := []byte("\n  \"" + key + "\": []")
		i := bytes.Index(data, hole)
		if i < 0 || err != nil {
			return
		}
		bw.Write(data[:i+len(hole)-2])
		n := 0
		each(func(c *CaseResult) {
			if err != nil {
				return
			}
			if n == 0 {
				bw.WriteByte('[')
			} else {
				bw.WriteByte(',')
			}
			n++
			bw.WriteString("\n    ")
			if buf, err = contract.AppendJSON(buf[:0], elem(c), contract.PythonIndent, 2); err == nil {
				bw.Write(buf)
			}
		})
		if n == 0 {
			bw.WriteString("[]")
		} else {
			bw.WriteString("\n  ]")
		}
		data = data[i+len(hole):]
	}
	list("failure_cases", lists.eachFailure, (*CaseResult).failureObject)
	list("cases", func(fn func(*CaseResult)) { lists.eachCase(mode, fn) }, (*CaseResult).object)
	if err != nil {
		return err
	}
	bw.Write(data)
	bw.WriteByte('\n')
	return bw.Flush()
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// WriteText writes the reference's text format: one "key: value" line each, the
// failing cases (left out in ModeSummaryOnly, where the reference still lists
// them), then one line per level.
func (r *Result) WriteText(w io.Writer, mode Mode) error {
	bw := bufio.NewWriter(w)
	m := &r.Maturity
	n := r.Summary.CaseCount
	scope := "evaluated_fixture_levels_only"
	if m.EvaluationComplete {
		scope = "defined_levels_complete"
	}
	unevaluated := "none"
	if len(m.UnevaluatedLevels) > 0 {
		unevaluated = strings.Join(m.UnevaluatedLevels, ", ")
	}
	fmt.Fprintf(bw, "schema_version: %s\n", contract.CogLangResult)
	fmt.Fprintf(bw, "tool: %s\n", Tool)
	fmt.Fprintf(bw, "ok: %t\n", r.OK())
	fmt.Fprintf(bw, "answer_source: %s\n", r.AnswerSource)
	fmt.Fprintf(bw, "case_count: %d\n", n)
	fmt.Fprintf(bw, "failure_case_count: %d\n", r.FailureCaseCount)
	fmt.Fprintf(bw, "maturity.highest_contiguous_level: %s\n", m.HighestContiguousLevel)
	fmt.Fprintf(bw, "maturity.highest_contiguous_evaluated_level: %s\n", m.HighestContiguousLevel)
	fmt.Fprintf(bw, "maturity.unevaluated_levels: %s\n", unevaluated)
	fmt.Fprintf(bw, "maturity.next_unevaluated_level: %s\n", orNone(m.NextUnevaluatedLevel))
	fmt.Fprintf(bw, "maturity.claim_scope: %s\n", scope)
	fmt.Fprintf(bw, "maturity.blocked_level: %s\n", orNone(m.BlockedLevel))
	fmt.Fprintf(bw, "missing_output_count: %d\n", r.Summary.Missing)
	fmt.Fprintf(bw, "parse_ok: %d/%d\n", r.Summary.ParseOK, n)
	fmt.Fprintf(bw, "canonicalize_ok: %d/%d\n", r.Summary.ParseOK, n)
	fmt.Fprintf(bw, "validate_ok: %d/%d\n", r.Summary.ValidateOK, n)
	fmt.Fprintf(bw, "expected_top_level_head_ok: %d/%d\n", r.Summary.HeadOK, n)
	fmt.Fprintf(bw, "hallucinated_operator_count: %d\n", r.Summary.Hallucinated)
	counts := r.failureCounts()
	items := make([]string, len(counts))
	for i, c := range counts {
		items[i] = c.Key + "=" + strconv.Itoa(c.Value.(int))
	}
	fmt.Fprintf(bw, "failure_category_counts: %s\n", orNone(strings.Join(items, ", ")))
	for i := range r.Cases {
		c := &r.Cases[i]
		if c.Failures != 0 && mode != ModeSummaryOnly {
			fmt.Fprintf(bw, "failure %s level=%s categories=%s\n", c.CaseID, c.Level, strings.Join(c.Failures.Categories(), ", "))
		}
	}
	for _, l := range r.Levels {
		fmt.Fprintf(bw, "%s: validate_ok %d/%d, head_ok %d/%d, hallucinated %d\n",
			l.Level, l.ValidateOK, l.CaseCount, l.HeadOK, l.CaseCount, l.Hallucinated)
	}
	return bw.Flush()
}

// WriteTable writes a table for people: one row per level and a total, then the
// failing cases with their categories and detail.
func (r *Result) WriteTable(w io.Writer) error { return r.WriteTableWidth(w, 0) }

// WriteTableWidth is WriteTable with each table fitted to width columns (0: any),
// as report.FitTable fits them.
func (r *Result) WriteTableWidth(w io.Writer, width int) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "CogLang generation eval: %s, profile %s, %d cases, ok %t\n",
		r.AnswerSource, r.Profile(), r.Summary.CaseCount, r.OK())
	row := func(name string, c Counts) []string {
		return []string{name, strconv.Itoa(c.CaseCount), strconv.Itoa(c.Missing),
			strconv.Itoa(c.ParseOK), strconv.Itoa(c.ValidateOK), strconv.Itoa(c.HeadOK),
			strconv.Itoa(c.Hallucinated), strconv.FormatBool(c.OK())}
	}
	var rows [][]string
	for _, l := range r.Levels {
		rows = append(rows, row(l.Level, l.Counts))
	}
	rows = append(rows, row("all", r.Summary))
	header := []string{"level", "cases", "missing", "parse", "validate", "head ok", "hallucinated", "ok"}
	if err := report.FitTable(&b, width, "", header, rows); err != nil {
		return err
	}
	if r.FailureCaseCount > 0 {
		rows = rows[:0]
		for i := range r.Cases {
			c := &r.Cases[i]
			if c.Failures == 0 {
				continue
			}
			detail := c.ParseError
			if c.ParseOK {
				detail = c.Canonical
				if len(c.Hallucinated) > 0 {
					detail = "unknown heads: " + strings.Join(c.Hallucinated, ", ")
				}
			}
			rows = append(rows, []string{c.CaseID, c.Level, strings.Join(c.Failures.Categories(), ", "), shorten(detail, 60)})
		}
		title := fmt.Sprintf("\n%d failing cases", r.FailureCaseCount)
		if err := report.FitTable(&b, width, title, []string{"case", "level", "categories", "detail"}, rows); err != nil {
			return err
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// shorten cuts s to at most n runes, marking the cut.
func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	runes := []rune(s)
	if len(runes) <= n {
		return s
	}
	return string(runes[:n-1]) + "…"
}
