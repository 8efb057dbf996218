package coglang

import (
	"math/bits"
	"runtime"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/fbeval/fbeval/fixtures"
	"github.com/fbeval/fbeval/score"
	"github.com/fbeval/fbeval/score/report"
)

// Response is one accepted response record: the case it answers and its output
// text. File and Line say where it came from, for reports.
type Response struct {
	CaseID string
	Output *string // set for every record DecodeResponse accepted but a provider error
	// ProviderError marks a provider error record (an error and no output);
	// ErrorCode is its code, when it has one.
	ProviderError bool
	ErrorCode     string
	// Model is the record's "model", when it names one as a string.
	Model string
	File  string
	Line  int
}

// Options configure Score.
type Options struct {
	// Strict scores with fbeval's strict profile (spec section 11); the default is
	// the reference profile.
	Strict bool
	// AnswerSource is written as answer_source; Score uses "fixture_reference"
	// when responses is nil and this is empty.
	AnswerSource string
	// FixturePath is written as fixture_path.
	FixturePath string
	// MaxDepth and MaxBytes bound each output's parse (see ParseOptions).
	MaxDepth int
	MaxBytes int
	// Workers is the number of goroutines that decode and score records in
	// ScoreFiles (0: score.Workers's default). Results do not depend on it.
	Workers int
	// AllowOtherRecipe: ScoreFiles scores records that answer another prompt
	// than the fixture's for their case, and warns, where it refuses them.
	AllowOtherRecipe bool
	// AnswersFile: ScoreFiles reads its sources as the reference's
	// --answers-file reads its file, not as response files (ReadOptions of
	// answersReading, RecordScorer.readAnswer).
	AnswersFile bool
}

// Failure is a set of failure categories of one case.
type Failure uint8

// Failure categories, in the order a case lists them.
const (
	FailMissingOutput Failure = 1 << iota
	FailParseError
	FailValidation
	FailHeadMismatch
	FailHallucinated
	// FailProviderError is fbeval's: the case's last record is a provider error
	// record. It stands alone, like missing_output, and the case counts as
	// missing in missing_output_count. A file without error records never has it.
	FailProviderError
)

var failureNames = [...]string{"missing_output", "parse_error", "validation_error", "top_level_head_mismatch", "hallucinated_operator", "provider_error"}

// failureLists holds the category list of every set, so cases share them.
var failureLists = func() [64][]string {
	var out [64][]string
	for m := 0; m < 64; m++ {
		list := []string{}
		for i, name := range failureNames {
			if m&(1<<i) != 0 {
				list = append(list, name)
			}
		}
		out[m] = list
	}
	return out
}()

// Categories returns the category names in the reference's order.
func (f Failure) Categories() []string { return failureLists[f&63] }

// CaseResult is the score of one case.
type CaseResult struct {
	CaseID, Level, Prompt string
	Output                string
	HasOutput             bool
	ParseOK               bool // also canonicalize_ok: both hold or fail together
	ValidateOK            bool
	HeadOK                bool
	Hallucinated          []string
	Failures              Failure
	Decision              Decision
	Canonical             string // set when ParseOK
	ParseError            string // "missing output", "provider error[: CODE]" or the ParseError text; empty when ParseOK
	ProviderError         bool   // the last record was a provider error record
	ErrorCode             string
}

// Counts are the counters of a summary.
type Counts struct {
	CaseCount, Missing, ParseOK, ValidateOK, HeadOK, Hallucinated int
}

// OK is the reference's ok: nothing missing, every count full, no hallucination.
func (c Counts) OK() bool {
	return c.Missing == 0 && c.ParseOK == c.CaseCount && c.ValidateOK == c.CaseCount &&
		c.HeadOK == c.CaseCount && c.Hallucinated == 0
}

func (c *Counts) add(r *CaseResult) {
	c.CaseCount++
	if !r.HasOutput {
		c.Missing++
	}
	if r.ParseOK {
		c.ParseOK++
	}
	if r.ValidateOK {
		c.ValidateOK++
	}
	if r.HeadOK {
		c.HeadOK++
	}
	if len(r.Hallucinated) > 0 {
		c.Hallucinated++
	}
}

// LevelSummary is the summary of one level.
type LevelSummary struct {
	Level string
	Counts
}

// Maturity is the maturity block of the result.
type Maturity struct {
	DefinedLevels, EvaluatedLevels, UnevaluatedLevels []string
	PassedLevels, ContiguousPassedLevels              []string
	HighestContiguousLevel                            string
	NextUnevaluatedLevel, BlockedLevel                string
	// HasNext and Blocked tell a level named "" (which the reference writes as "")
	// from none (null).
	HasNext, Blocked   bool
	EvaluationComplete bool
}

// Result is a scored fixture.
type Result struct {
	AnswerSource string
	FixturePath  string
	Strict       bool

	Cases            []CaseResult
	Summary          Counts
	FailureCounts    [len(failureNames)]int // indexed like failureNames
	Levels           []LevelSummary         // in the reference's order (sorted strings)
	Maturity         Maturity
	FailureCaseCount int
	Preflight        [Rejected + 1]int // indexed by Decision; DecisionNone counts missing outputs

	// What Score saw of the responses: records given, case ids given more than
	// once (the last record wins) and case ids the fixture does not have.
	RecordsRead          int
	ProviderErrorRecords int                 // provider error records among them
	ProviderErrorCodes   score.ProviderCodes // the codes of the errors that are cases' last records
	DuplicateCaseIDs     []string
	UnknownCaseIDs       []string
	// UnknownNotListed counts records whose unknown case id is left out of
	// UnknownCaseIDs, which stops at MaxUnknownListed ids.
	UnknownNotListed int

	// ResponseFile, when set by the caller, is written as the response_file block.
	ResponseFile *report.ResponseFile

	// store, when set, holds the cases in place of Cases (ScoreFiles,
	// ScoreReferences); errorCases are the ids whose last record is a provider
	// error record.
	store      *caseStore
	errorCases []string
	// answered counts the cases whose last record has an output; blank,
	// those whose output is empty or white space, firstBlank the first of
	// them in fixture order
	answered, blank int
	firstBlank      string
}

// Err returns the error that stopped a result from being read back while it was
// written (its temporary files unreadable, two case ids sharing a hash): the
// written cases are then incomplete. Check it after writing.
func (r *Result) Err() error {
	if r.store == nil {
		return nil
	}
	return r.store.err
}

// Close removes the temporary files of a result of ScoreFiles or
// ScoreReferences; it is not written after.
func (r *Result) Close() {
	if r.store != nil {
		r.store.close()
	}
}

// OK reports whether the result is ok (exit code 0).
func (r *Result) OK() bool { return r.Summary.OK() }

// ProviderErrorCases counts the cases whose last record is a provider error
// record: the model never answered them (a bad key, a quota, a server error).
func (r *Result) ProviderErrorCases() int {
	return r.FailureCounts[bits.TrailingZeros(uint(FailProviderError))]
}

// parallelMin is the case count from which scoring is spread over the CPUs.
const parallelMin = 8192

// Score scores the fixture's cases against responses. A nil responses slice scores
// the fixture's own reference expressions (answer_source "fixture_reference"); an
// empty one leaves every case missing. A later record for the same case id wins;
// records for unknown case ids are ignored (and counted).
func Score(fx *fixtures.CogLangFixture, responses []Response, opts Options) *Result {
	res := &Result{AnswerSource: opts.AnswerSource, FixturePath: opts.FixturePath, Strict: opts.Strict}
	outputs := make([]*string, len(fx.Cases))
	var errs []*Response // the provider error record that is a case's last, by case
	if responses == nil {
		if res.AnswerSource == "" {
			res.AnswerSource = "fixture_reference"
		}
		for i := range fx.Cases {
			outputs[i] = &fx.Cases[i].ReferenceExpr
		}
	} else {
		res.RecordsRead = len(responses)
		errs = make([]*Response, len(fx.Cases))
		byID := make(map[string][]int, len(fx.Cases))
		for i := range fx.Cases {
			id := fx.Cases[i].CaseID
			byID[id] = append(byID[id], i)
		}
		seen := make(map[string]bool, len(responses))
		dupSet := map[string]bool{}
		unknownSet := map[string]bool{}
		for i := range responses {
			r := &responses[i]
			if r.ProviderError {
				res.ProviderErrorRecords++
			}
			if seen[r.CaseID] {
				dupSet[r.CaseID] = true
			}
			seen[r.CaseID] = true
			idx, ok := byID[r.CaseID]
			if !ok {
				unknownSet[r.CaseID] = true
				continue
			}
			for _, j := range idx {
				outputs[j], errs[j] = r.Output, nil
				if r.ProviderError {
					outputs[j], errs[j] = nil, r
				}
			}
		}
		for _, r := range errs {
			if r != nil { // the provider errors that are cases' last records
				res.ProviderErrorCodes.Add(r.ErrorCode)
			}
		}
		res.DuplicateCaseIDs = sortedKeys(dupSet)
		res.UnknownCaseIDs = sortedKeys(unknownSet)
	}

	res.Cases = make([]CaseResult, len(fx.Cases))
	popts := ParseOptions{Strict: opts.Strict, MaxDepth: opts.MaxDepth, MaxBytes: opts.MaxBytes}
	scoreRange := func(lo, hi int) {
		s := newCaseScorer(popts)
		for i := lo; i < hi; i++ {
			if errs != nil && errs[i] != nil {
				fillProviderError(&res.Cases[i], &fx.Cases[i], errs[i].ErrorCode)
				continue
			}
			s.score(&res.Cases[i], &fx.Cases[i], outputs[i])
		}
	}
	if n := len(fx.Cases); n < parallelMin || runtime.GOMAXPROCS(0) == 1 {
		scoreRange(0, n)
	} else {
		workers := runtime.GOMAXPROCS(0)
		chunk := (n + workers - 1) / workers
		var wg sync.WaitGroup
		for lo := 0; lo < n; lo += chunk {
			hi := min(lo+chunk, n)
			wg.Add(1)
			go func() {
				defer wg.Done()
				scoreRange(lo, hi)
			}()
		}
		wg.Wait()
	}
	res.summarize(fx.DefinedLevels)
	return res
}

func sortedKeys(m map[string]bool) []string {
	if len(m) == 0 {
		return nil
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// caseScorer holds the reusable buffers of one scoring goroutine.
type caseScorer struct {
	parser  Parser
	checker Checker
	buf     []byte
}

func newCaseScorer(opts ParseOptions) *caseScorer {
	return &caseScorer{parser: Parser{Options: opts}, checker: Checker{Strict: opts.Strict}}
}

func (s *caseScorer) score(r *CaseResult, c *fixtures.CogLangCase, output *string) {
	if output == nil {
		r.CaseID, r.Level, r.Prompt = c.CaseID, c.Level, c.Prompt
		r.Failures = FailMissingOutput
		r.ParseError = "missing output"
		return
	}
	o := s.judge(*output)
	o.fill(r, c, *output)
}

// fillProviderError writes the result of a case whose last record is a provider
// error record: no output, like a missing one, with its own category and detail.
func fillProviderError(r *CaseResult, c *fixtures.CogLangCase, code string) {
	r.CaseID, r.Level, r.Prompt = c.CaseID, c.Level, c.Prompt
	r.Failures = FailProviderError
	r.ProviderError, r.ErrorCode = true, code
	r.ParseError = "provider error"
	if code != "" {
		r.ParseError += ": " + code
	}
}

// outcome is the score of one output short of the expected-head check, the only
// part that depends on the case.
type outcome struct {
	parseOK  bool // also canonicalize_ok
	valid    bool
	decision Decision
	text     string // canonical text, or that of the ParseError expression
	head     string // top-level head when parseOK
	halluc   []string
}

// judge parses output once and runs the checks on the tree.
func (s *caseScorer) judge(output string) outcome {
	e := s.parser.Parse(output)
	s.buf = e.AppendCanonical(s.buf[:0])
	// A top-level ParseError head counts as a parse failure, as in the reference.
	if e.Err != nil || e.Head() == "ParseError" {
		return outcome{decision: Rejected, text: string(s.buf)}
	}
	a := s.checker.Check(e)
	text := output // an output already in canonical form, as most are, is its own text
	if string(s.buf) != output {
		text = string(s.buf)
	}
	return outcome{parseOK: true, valid: a.Valid, decision: a.Decision, text: text, head: e.Head(), halluc: a.Hallucinated}
}

// fill writes the case result of output, judged as o, for case c.
func (o *outcome) fill(r *CaseResult, c *fixtures.CogLangCase, output string) {
	r.CaseID, r.Level, r.Prompt = c.CaseID, c.Level, c.Prompt
	r.Output, r.HasOutput = output, true
	if !o.parseOK {
		r.Failures = FailParseError
		r.Decision = Rejected
		r.ParseError = o.text
		return
	}
	r.ParseOK = true
	r.Canonical = o.text
	r.ValidateOK = o.valid
	r.Hallucinated = o.halluc
	r.Decision = o.decision
	for _, h := range c.ExpectedTopLevelHeads {
		if h == o.head {
			r.HeadOK = true
			break
		}
	}
	if !r.ValidateOK {
		r.Failures |= FailValidation
	}
	if !r.HeadOK {
		r.Failures |= FailHeadMismatch
	}
	if len(r.Hallucinated) > 0 {
		r.Failures |= FailHallucinated
	}
}

func (res *Result) summarize(definedLevels []string) {
	byLevel := map[string]*Counts{}
	for i := range res.Cases {
		r := &res.Cases[i]
		res.Summary.add(r)
		lc := byLevel[r.Level]
		if lc == nil {
			lc = &Counts{}
			byLevel[r.Level] = lc
		}
		lc.add(r)
		for j := range failureNames {
			if r.Failures&(1<<j) != 0 {
				res.FailureCounts[j]++
			}
		}
		if r.Failures != 0 {
			res.FailureCaseCount++
		}
		res.Preflight[r.Decision]++
	}
	names := make([]string, 0, len(byLevel))
	for l := range byLevel {
		names = append(names, l)
	}
	sort.Strings(names)
	res.Levels = make([]LevelSummary, len(names))
	for i, l := range names {
		res.Levels[i] = LevelSummary{Level: l, Counts: *byLevel[l]}
	}
	res.Maturity = maturity(res.Levels, definedLevels)
}

func maturity(levels []LevelSummary, definedLevels []string) Maturity {
	var m Maturity
	ok := map[string]bool{}
	for _, l := range levels {
		m.EvaluatedLevels = append(m.EvaluatedLevels, l.Level)
		ok[l.Level] = l.OK()
	}
	sortLevels(m.EvaluatedLevels)
	set := map[string]bool{}
	base := definedLevels
	if len(base) == 0 {
		base = m.EvaluatedLevels
	}
	for _, l := range base {
		set[l] = true
	}
	for _, l := range m.EvaluatedLevels {
		set[l] = true
	}
	for l := range set {
		m.DefinedLevels = append(m.DefinedLevels, l)
	}
	sortLevels(m.DefinedLevels)
	for _, l := range m.DefinedLevels {
		if _, evaluated := ok[l]; !evaluated {
			m.UnevaluatedLevels = append(m.UnevaluatedLevels, l)
		}
	}
	for _, l := range m.EvaluatedLevels {
		if ok[l] {
			m.PassedLevels = append(m.PassedLevels, l)
		}
	}
	for _, l := range m.EvaluatedLevels {
		if !ok[l] {
			m.BlockedLevel, m.Blocked = l, true
			break
		}
		m.ContiguousPassedLevels = append(m.ContiguousPassedLevels, l)
	}
	m.HighestContiguousLevel = "L0"
	if n := len(m.ContiguousPassedLevels); n > 0 {
		m.HighestContiguousLevel = m.ContiguousPassedLevels[n-1]
	}
	if len(m.UnevaluatedLevels) > 0 {
		m.NextUnevaluatedLevel, m.HasNext = m.UnevaluatedLevels[0], true
	}
	m.EvaluationComplete = len(m.UnevaluatedLevels) == 0
	return m
}

// sortLevels sorts levels by the reference's key: "L" followed by decimal digits
// sorts by that number, anything else as if its number were 10000 (after L9999,
// before L10001); ties by text.
func sortLevels(levels []string) {
	sort.Slice(levels, func(i, j int) bool {
		a, b := levelNumber(levels[i]), levelNumber(levels[j])
		if len(a) != len(b) {
			return len(a) < len(b)
		}
		if a != b {
			return a < b
		}
		return levels[i] < levels[j]
	})
}

// levelNumber returns the level's number in plain ASCII decimal without leading
// zeros, so that comparing (length, text) compares numbers of any size.
func levelNumber(level string) string {
	if len(level) < 2 || level[0] != 'L' {
		return "10000"
	}
	var b strings.Builder
	for _, r := range level[1:] {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		case r >= utf8.RuneSelf && unicode.Is(unicode.Nd, r):
			b.WriteByte(byte('0' + digitValue(r)))
		default:
			return "10000"
		}
	}
	s := strings.TrimLeft(b.String(), "0")
	if s == "" {
		s = "0"
	}
	return s
}

// FixtureWarnings are what reading the fixture found to say of it beyond its
// cases: a byte order mark skipped, a case id given twice.
func (r *Result) FixtureWarnings() []string {
	if r.store == nil {
		return nil
	}
	return r.store.warnings
}
