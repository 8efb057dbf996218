package coglang

import (
	"io"

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

// summary returns the counts as the model's summary block (FailureCategoryCounts
// is the caller's to add).
func (c Counts) summary() report.CogLangSummary {
	return report.CogLangSummary{
		CaseCount:                   c.CaseCount,
		MissingOutputCount:          c.Missing,
		ParseOKCount:                c.ParseOK,
		ParseOKRate:                 rate(c.ParseOK, c.CaseCount),
		CanonicalizeOKCount:         c.ParseOK,
		CanonicalizeOKRate:          rate(c.ParseOK, c.CaseCount),
		ValidateOKCount:             c.ValidateOK,
		ValidateOKRate:              rate(c.ValidateOK, c.CaseCount),
		ExpectedTopLevelHeadOKCount: c.HeadOK,
		ExpectedTopLevelHeadOKRate:  rate(c.HeadOK, c.CaseCount),
		HallucinatedOperatorCount:   c.Hallucinated,
		OK:                          c.OK(),
	}
}

// failureCounts returns the non-zero category counts with sorted keys.
func (r *Result) failureCounts() report.Ordered[int] {
	out := report.Ordered[int]{}
	for _, i := range []int{4, 0, 1, 5, 3, 2} { // the category names in sorted order
		if n := r.FailureCounts[i]; n > 0 {
			out = append(out, report.Entry[int]{Key: failureNames[i], Value: n})
		}
	}
	return out
}

func nullable(s string, set bool) *string {
	if !set {
		return nil
	}
	return &s
}

func strs(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

func (r *Result) maturity() *report.Maturity {
	m := &r.Maturity
	scope := "evaluated_fixture_levels_only"
	if m.EvaluationComplete {
		scope = "defined_levels_complete"
	}
	return &report.Maturity{
		DefinedLevels:                   strs(m.DefinedLevels),
		EvaluatedLevels:                 strs(m.EvaluatedLevels),
		UnevaluatedLevels:               strs(m.UnevaluatedLevels),
		PassedLevels:                    strs(m.PassedLevels),
		ContiguousPassedLevels:          strs(m.ContiguousPassedLevels),
		HighestContiguousLevel:          m.HighestContiguousLevel,
		HighestContiguousEvaluatedLevel: m.HighestContiguousLevel,
		NextUnevaluatedLevel:            nullable(m.NextUnevaluatedLevel, m.HasNext),
		BlockedLevel:                    nullable(m.BlockedLevel, m.Blocked),
		EvaluationComplete:              m.EvaluationComplete,
		MaturityClaimScope:              scope,
	}
}

// report returns one case as the model writes it.
func (c *CaseResult) report() report.CogLangCase {
	out := report.CogLangCase{
		CaseID:                 c.CaseID,
		Level:                  c.Level,
		Prompt:                 c.Prompt,
		ParseOK:                c.ParseOK,
		CanonicalizeOK:         c.ParseOK,
		ValidateOK:             c.ValidateOK,
		ExpectedTopLevelHeadOK: c.HeadOK,
		HallucinatedHeads:      strs(c.Hallucinated),
		FailureCategories:      c.Failures.Categories(),
	}
	if c.HasOutput {
		out.Output = &c.Output
	}
	if c.ParseOK {
		out.Canonical = &c.Canonical
	} else {
		out.ParseError = &c.ParseError
	}
	if c.Decision != DecisionNone {
		out.PreflightDecision = c.Decision.name()
	}
	return out
}

// PreflightSummary returns the preflight_summary block: the number of cases with
// each decision, the five decisions in sorted order, then "none" for the cases
// that have no decision (missing outputs, whose preflight_decision is null).
func (r *Result) PreflightSummary() report.Ordered[int] {
	out := make(report.Ordered[int], 0, len(Decisions)+1)
	for _, d := range Decisions {
		out = append(out, report.Entry[int]{Key: d.String(), Value: r.Preflight[d]})
	}
	return append(out, report.Entry[int]{Key: "none", Value: r.Preflight[DecisionNone]})
}

// Report returns the result document in the report model: the reference's keys in
// its order, then fbeval's additions (scoring_profile, preflight_summary,
// response_file when set). mode decides which cases it carries. The case lists
// are sources that build each case as it is written, so the result is never held
// twice.
func (r *Result) Report(mode Mode) *report.CogLangResult {
	summary := r.Summary.summary()
	summary.FailureCategoryCounts = r.failureCounts()
	levels := make(report.Ordered[report.CogLangSummary], len(r.Levels))
	for i, l := range r.Levels {
		levels[i] = report.Entry[report.CogLangSummary]{Key: l.Level, Value: l.summary()}
	}
	out := &report.CogLangResult{
		SchemaVersion:        contract.CogLangResult,
		Tool:                 Tool,
		FixtureSchemaVersion: contract.CogLangFixture,
		AnswerSource:         r.AnswerSource,
		OK:                   r.OK(),
		CaseCount:            r.Summary.CaseCount,
		Summary:              &summary,
		LevelSummary:         levels,
		Maturity:             r.maturity(),
		FailureCaseCount:     r.FailureCaseCount,
		FailureSource: func(yield func(*report.FailureCase) bool) {
			var f report.FailureCase
			r.eachFailure(func(c *CaseResult) bool {
				f = c.failure()
				return yield(&f)
			})
		},
		FixturePath:      r.FixturePath,
		ScoringProfile:   r.Profile(),
		PreflightSummary: r.PreflightSummary(),
		ResponseFile:     r.ResponseFile,
	}
	if mode != ModeSummaryOnly {
		out.CaseSource = func(yield func(*report.CogLangCase) bool) {
			var rc report.CogLangCase
			r.eachCase(mode, func(c *CaseResult) bool {
				rc = c.report()
				return yield(&rc)
			})
		}
	}
	if r.store != nil && mode != ModeSummaryOnly {
		out.BriefCaseSource = func(yield func(*report.CogLangCase) bool) {
			var rc report.CogLangCase
			r.store.eachBrief(mode, func(id []byte, level string, failures Failure) bool {
				rc = report.CogLangCase{CaseID: string(id), Level: level, FailureCategories: failures.Categories()}
				return yield(&rc)
			})
		}
	}
	if r.store != nil && r.store.err == nil {
		// the JSON result is written from ranges built on several goroutines
		out.FailureRanges = listRanges(r.store.list(ModeFull, true), (*CaseResult).failure)
		if mode != ModeSummaryOnly {
			out.CaseRanges = listRanges(r.store.list(mode, false), (*CaseResult).report)
		}
	}
	return out
}

// failure is the case as a failure case of the result.
func (c *CaseResult) failure() report.FailureCase {
	f := report.FailureCase{CaseID: c.CaseID, Level: c.Level, FailureCategories: c.Failures.Categories(), HallucinatedHeads: strs(c.Hallucinated)}
	if !c.ParseOK {
		f.ParseError = &c.ParseError
	}
	return f
}

// eachFailure calls fn with every failing case, in fixture order, until fn
// returns false.
func (r *Result) eachFailure(fn func(*CaseResult) bool) {
	if r.store != nil {
		r.store.each(ModeFull, true, fn)
		return
	}
	for i := range r.Cases {
		if r.Cases[i].Failures != 0 && !fn(&r.Cases[i]) {
			return
		}
	}
}

// eachCase calls fn with every case the mode lists, in fixture order, until fn
// returns false.
func (r *Result) eachCase(mode Mode, fn func(*CaseResult) bool) {
	if mode == ModeSummaryOnly {
		return
	}
	if r.store != nil {
		r.store.each(mode, false, fn)
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
		if !fn(&r.Cases[i]) {
			return
		}
	}
}

// Doc returns the result as a report document, for any renderer.
func (r *Result) Doc(mode Mode) report.Doc {
	return report.Doc{Kind: report.KindCogLang, CogLang: r.Report(mode)}
}

// WriteJSON writes the result document as Python's json.dumps(indent=2) would,
// with a trailing newline.
func (r *Result) WriteJSON(w io.Writer, mode Mode) error {
	return report.WriteJSON(w, r.Doc(mode))
}
