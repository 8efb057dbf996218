package report

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/fbeval/fbeval/contract"
)

// WriteText writes doc in fbeval score's text format. A CogLang result is
// written as the reference scorer writes its text: one "key: value" line each,
// the failing cases (not for a summary-only result, which lists no cases), then
// one line per level. A toolcall report's text is its tables (WriteTable).
func WriteText(w io.Writer, doc Doc) error { return WriteTextWidth(w, doc, 0) }

// WriteTextWidth is WriteText with a toolcall report's tables fitted to width
// columns (0: any).
func WriteTextWidth(w io.Writer, doc Doc, width int) error {
	switch doc.Kind {
	case KindToolcall:
		return WriteTableWidth(w, doc, width)
	case KindCogLang:
		return textCogLang(w, doc.CogLang)
	}
	return errNoKind
}

func textCogLang(w io.Writer, r *CogLangResult) error {
	bw := bufio.NewWriter(w)
	m, s := r.Maturity, r.Summary
	n := s.CaseCount
	unevaluated := "none"
	if len(m.UnevaluatedLevels) > 0 {
		unevaluated = line(strings.Join(m.UnevaluatedLevels, ", "))
	}
	fmt.Fprintf(bw, "schema_version: %s\n", r.SchemaVersion)
	fmt.Fprintf(bw, "tool: %s\n", r.Tool)
	fmt.Fprintf(bw, "ok: %t\n", r.OK)
	fmt.Fprintf(bw, "answer_source: %s\n", line(r.answerSource()))
	fmt.Fprintf(bw, "case_count: %d\n", n)
	fmt.Fprintf(bw, "failure_case_count: %d\n", r.FailureCaseCount)
	fmt.Fprintf(bw, "maturity.highest_contiguous_level: %s\n", line(m.HighestContiguousLevel))
	fmt.Fprintf(bw, "maturity.highest_contiguous_evaluated_level: %s\n", line(m.HighestContiguousEvaluatedLevel))
	fmt.Fprintf(bw, "maturity.unevaluated_levels: %s\n", unevaluated)
	fmt.Fprintf(bw, "maturity.next_unevaluated_level: %s\n", line(orNone(m.NextUnevaluatedLevel)))
	fmt.Fprintf(bw, "maturity.claim_scope: %s\n", m.MaturityClaimScope)
	fmt.Fprintf(bw, "maturity.blocked_level: %s\n", line(orNone(m.BlockedLevel)))
	fmt.Fprintf(bw, "missing_output_count: %d\n", s.MissingOutputCount)
	fmt.Fprintf(bw, "parse_ok: %d/%d\n", s.ParseOKCount, n)
	fmt.Fprintf(bw, "canonicalize_ok: %d/%d\n", s.CanonicalizeOKCount, n)
	fmt.Fprintf(bw, "validate_ok: %d/%d\n", s.ValidateOKCount, n)
	fmt.Fprintf(bw, "expected_top_level_head_ok: %d/%d\n", s.ExpectedTopLevelHeadOKCount, n)
	fmt.Fprintf(bw, "hallucinated_operator_count: %d\n", s.HallucinatedOperatorCount)
	items := make([]string, len(s.FailureCategoryCounts))
	for i, c := range s.FailureCategoryCounts {
		items[i] = c.Key + "=" + strconv.Itoa(c.Value)
	}
	fmt.Fprintf(bw, "failure_category_counts: %s\n", orNone(strPtr(strings.Join(items, ", "))))
	if r.Cases != nil || r.CaseSource != nil {
		for f := range r.failureCases() {
			fmt.Fprintf(bw, "failure %s level=%s categories=%s\n", line(f.CaseID), line(f.Level), strings.Join(f.FailureCategories, ", "))
		}
	}
	for _, l := range r.LevelSummary {
		c := l.Value
		fmt.Fprintf(bw, "%s: validate_ok %d/%d, head_ok %d/%d, hallucinated %d\n",
			line(l.Key), c.ValidateOKCount, c.CaseCount, c.ExpectedTopLevelHeadOKCount, c.CaseCount, c.HallucinatedOperatorCount)
	}
	return bw.Flush()
}

// line is a value from the files scored (a file name, a case id, a level)
// on one line: a line break in it is written \n, so that no name makes a
// line of its own ("ok: true") for a script that reads this format line by
// line; the other control characters are escaped too.
func line(s string) string { return contract.PrintableLine(s) }

// orNone writes a missing or empty value as "none", as the reference does.
func orNone(p *string) string {
	if p == nil || *p == "" {
		return "none"
	}
	return *p
}

func strPtr(s string) *string { return &s }
