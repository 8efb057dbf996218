package report

import (
	"fmt"
	"iter"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/fbeval/fbeval/contract"
)

// rows yields the report's rows, from RowSource when it is set. A source may
// reuse the row it yields: keep a copy.
func (r *ToolcallReport) rows() iter.Seq[*Row] {
	if r.RowSource != nil {
		return r.RowSource
	}
	return sliceSeq(r.Rows)
}

// failingRows returns the first limit rows that did not finally succeed
// (provider errors and missing responses included), arm by arm in report order,
// then in row order, and how many there are in all. It reads the rows once,
// without their attempt results, and holds no more than limit rows of each arm.
func (r *ToolcallReport) failingRows(limit int) (first []Row, total int) {
	f := r.newFailing(limit)
	for row := range r.EachBriefRow() {
		f.add(row)
	}
	return f.rows()
}

// failing gathers what failingRows returns from rows given one at a time, for a
// writer that reads the rows for more than that.
type failing struct {
	arms  []string
	byArm [][]Row
	limit int
	total int
}

func (r *ToolcallReport) newFailing(limit int) *failing {
	arms := r.Arms.Keys()
	return &failing{arms: arms, byArm: make([][]Row, len(arms)), limit: limit}
}

func (f *failing) add(row *Row) {
	if row.FinalSuccess {
		return
	}
	i := slices.Index(f.arms, row.Arm)
	if i < 0 {
		return
	}
	f.total++
	if len(f.byArm[i]) < f.limit {
		k := *row
		k.AttemptResults = nil // no list of failing rows shows them
		f.byArm[i] = append(f.byArm[i], k)
	}
}

func (f *failing) rows() (first []Row, total int) {
	for _, rows := range f.byArm {
		first = append(first, rows[:min(len(rows), f.limit-len(first))]...)
	}
	return first, f.total
}

// errorCodes returns every code counted in any arm, sorted.
func (r *ToolcallReport) errorCodes() []string {
	seen := map[string]bool{}
	for _, a := range r.Arms {
		for _, e := range a.Value.ErrorCounts {
			seen[e.Key] = true
		}
	}
	codes := make([]string, 0, len(seen))
	for c := range seen {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	return codes
}

// gatesPassed counts the gates that held.
func (r *ToolcallReport) gatesPassed() int {
	n := 0
	for _, g := range r.Gates {
		if g.Passed {
			n++
		}
	}
	return n
}

// gateLine summarises the gates in one phrase.
func (r *ToolcallReport) gateLine() string {
	if len(r.Gates) == 0 {
		return "Gates: none set"
	}
	return "Gates: " + strconv.Itoa(r.gatesPassed()) + "/" + strconv.Itoa(len(r.Gates)) + " passed"
}

// Models lists the models a report's answers name, each once, in arm order
// (the per-arm models): the models a run measured.
func (r *ToolcallReport) Models() []string {
	var models []string
	seen := map[string]bool{} // a set: a run of a model a record scores thousands
	for _, a := range r.Arms {
		for _, m := range a.Value.Models {
			if m != "" && !seen[m] {
				seen[m] = true
				models = append(models, m)
			}
		}
	}
	return models
}

// models lists the models whose records the result scored, as its response
// file block names them.
func (c *CogLangResult) models() []string {
	if c.ResponseFile == nil {
		return nil
	}
	return c.ResponseFile.Models
}

// ModelsPhrase names the models for a person, the word and the names apart
// by sep: "model m", "models a, b and c", past three "models a, b and 5
// more"; "" when the answers name none.
func ModelsPhrase(models []string, sep string) string {
	switch n := len(models); {
	case n == 0:
		return ""
	case n == 1:
		return "model" + sep + models[0]
	case n <= 3:
		return "models" + sep + contract.JoinWords(models)
	default:
		return fmt.Sprintf("models%s%s, %s and %d more", sep, models[0], models[1], n-2)
	}
}

// title names the report for headings. It comes from the study, never from a
// file name, so a live score and a saved report render the same bytes.
func (r *ToolcallReport) title() string {
	if r.Study.Name != "" {
		return r.Study.Name
	}
	if r.Study.Dataset != "" {
		return r.Study.Dataset
	}
	return "unnamed study"
}

// levelRow is one rung of the CogLang maturity ladder.
type levelRow struct {
	Level   string
	Status  string // passed, blocked, failed, unevaluated
	Summary *CogLangSummary
	Failing int
}

// ladder lists every defined or evaluated level in the result's order, with its
// status: passed, blocked (the first failing level), failed (a later failing
// level) or unevaluated.
func (c *CogLangResult) ladder() []levelRow {
	m := c.Maturity
	levels := slices.Clone(m.DefinedLevels)
	for _, l := range m.EvaluatedLevels {
		if !slices.Contains(levels, l) {
			levels = append(levels, l)
		}
	}
	failing := map[string]int{}
	for f := range c.failureCases() {
		failing[f.Level]++
	}
	rows := make([]levelRow, 0, len(levels))
	for _, l := range levels {
		row := levelRow{Level: l, Failing: failing[l]}
		if s, ok := c.LevelSummary.Get(l); ok {
			row.Summary = &s
		}
		switch {
		case !slices.Contains(m.EvaluatedLevels, l) && row.Summary == nil:
			row.Status = "unevaluated"
		case slices.Contains(m.PassedLevels, l):
			row.Status = "passed"
		case m.BlockedLevel != nil && *m.BlockedLevel == l:
			row.Status = "blocked"
		default:
			row.Status = "failed"
		}
		rows = append(rows, row)
	}
	return rows
}

// failure joins a failure case with its scored case, when the result lists it.
type failure struct {
	FailureCase
	Case   *CogLangCase
	Listed bool // in the page's table of failing cases
}

// failures returns the failing cases in the result's order.
func (c *CogLangResult) failures() []failure {
	byID := map[string]*CogLangCase{}
	for i := range c.Cases {
		byID[c.Cases[i].CaseID] = &c.Cases[i]
	}
	out := make([]failure, len(c.FailureCases))
	for i, f := range c.FailureCases {
		out[i] = failure{FailureCase: f, Case: byID[f.CaseID]}
	}
	return out
}

// cases yields the result's cases, from CaseSource when it is set. A source
// may reuse the case it yields: keep a copy.
func (c *CogLangResult) cases() iter.Seq[*CogLangCase] {
	if c.CaseSource != nil {
		return c.CaseSource
	}
	return sliceSeq(c.Cases)
}

// casesWanting yields the result's cases as cases does, but from a saved
// result's source only those whose ids want accepts are whole: the others
// have only their CaseID (see casesOf).
func (c *CogLangResult) casesWanting(want func(id []byte) bool) iter.Seq[*CogLangCase] {
	if c.casesOf != nil && c.CaseSource != nil {
		return c.casesOf(want)
	}
	return c.cases()
}

// briefCases yields the result's cases as cases does, from BriefCaseSource
// when it is set beside CaseSource: each with its CaseID, Level and
// FailureCategories, the rest zero or not.
func (c *CogLangResult) briefCases() iter.Seq[*CogLangCase] {
	if c.BriefCaseSource != nil && c.CaseSource != nil {
		return c.BriefCaseSource
	}
	return c.cases()
}

// failureCases yields the result's failure cases, from FailureSource when it
// is set. A source may reuse the failure case it yields: keep a copy.
func (c *CogLangResult) failureCases() iter.Seq[*FailureCase] {
	if c.FailureSource != nil {
		return c.FailureSource
	}
	return sliceSeq(c.FailureCases)
}

// firstFailures returns the first limit failing cases in the result's order,
// each joined with its scored case when the result lists it, and how many
// there are in all, as failures does, holding no more than limit of each.
func (c *CogLangResult) firstFailures(limit int) (first []failure, total int) {
	want := map[string]*CogLangCase{}
	for f := range c.failureCases() {
		total++
		if len(first) < limit {
			first = append(first, failure{FailureCase: *f})
			want[f.CaseID] = nil
		}
	}
	for cs := range c.casesWanting(func(id []byte) bool { _, ok := want[string(id)]; return ok }) {
		if _, ok := want[cs.CaseID]; ok {
			k := *cs
			want[cs.CaseID] = &k // the last case of an id, as failures joins them
		}
	}
	for i := range first {
		first[i].Case = want[first[i].CaseID]
	}
	return first, total
}

// walkJoined calls fn with each case id junitCogLang lists, in order, with its
// level, its scored case and its failure case when the result lists them: every
// scored case when the result lists all (full), each failure case otherwise.
// It walks the two lists in step, so it reports false, having called fn for
// some ids, when the failure cases do not stand in the order of the scored
// cases. fn must not keep the cases: the sources reuse them. need, when it is
// not nil (and not full), says which failure cases fn needs the scored case of
// whole: of the other scored cases a saved result's source may read only the
// ids.
func (c *CogLangResult) walkJoined(full bool, need func(f *FailureCase) bool, fn func(id, level string, cs *CogLangCase, f *FailureCase)) bool {
	if full {
		return c.walkFull(c.cases(), fn)
	}
	var cur *FailureCase // the failure case whose scored case is looked for
	cases := c.cases()
	if need != nil {
		cases = c.casesWanting(func(id []byte) bool { return string(id) == cur.CaseID && need(cur) })
	}
	next, stop := iter.Pull(cases)
	defer stop()
	var cs *CogLangCase
	more, listed, first := false, false, true
	for f := range c.failureCases() {
		// each scored case is read once the failure case it may join is
		// known, so the source can tell whether to read it whole
		cur = f
		if first {
			first = false
			cs, more = next()
			listed = more
		} else if listed {
			cs, more = next() // the one after the case joined last
		}
		if !listed {
			fn(f.CaseID, f.Level, nil, f)
			continue
		}
		for more && cs.CaseID != f.CaseID {
			cs, more = next()
		}
		if !more {
			return false
		}
		fn(f.CaseID, f.Level, cs, f)
	}
	return true
}

// walkBrief walks the cases as walkJoined does, for a reader of the scored
// cases' ids, levels and failure categories alone: they come from briefCases
// when every case is listed, and only their ids are read otherwise.
func (c *CogLangResult) walkBrief(full bool, fn func(id, level string, cs *CogLangCase, f *FailureCase)) bool {
	if full {
		return c.walkFull(c.briefCases(), fn)
	}
	if c.casesOf == nil && c.BriefCaseSource != nil && c.CaseSource != nil {
		// no source of ids alone: the brief cases stand in for the cases
		b := *c
		b.CaseSource = c.BriefCaseSource
		c = &b
	}
	return c.walkJoined(false, func(*FailureCase) bool { return false }, fn)
}

// walkFull is walkJoined over a result that lists every case, cases yielding
// them.
func (c *CogLangResult) walkFull(cases iter.Seq[*CogLangCase], fn func(id, level string, cs *CogLangCase, f *FailureCase)) bool {
	next, stop := iter.Pull(c.failureCases())
	defer stop()
	f, more := next()
	for cs := range cases {
		if more && f.CaseID == cs.CaseID {
			fn(cs.CaseID, cs.Level, cs, f)
			f, more = next()
			continue
		}
		fn(cs.CaseID, cs.Level, cs, nil)
	}
	return !more
}

// title names the result for headings, from the result itself (never from the
// name of the file it was read from).
func (c *CogLangResult) title() string {
	if c.AnswerSource != "" {
		return c.answerSource()
	}
	return "CogLang result"
}

// answerSource is answer_source for a person to read: the response files
// named as the summary line names them (past three, the first two and how
// many more), where the JSON holds every name.
func (c *CogLangResult) answerSource() string {
	if rf := c.ResponseFile; rf != nil && len(rf.Files) > 3 {
		paths := make([]string, len(rf.Files))
		for i, f := range rf.Files {
			paths[i] = f.Path
		}
		if strings.Join(paths, ", ") == c.AnswerSource {
			return contract.FileList(paths)
		}
	}
	return c.AnswerSource
}
