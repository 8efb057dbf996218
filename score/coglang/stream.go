package coglang

import (
	"sort"

	"github.com/fbeval/fbeval/fixtures"
)

// Index numbers the distinct case ids of a fixture, for scoring records as they
// arrive. It is read-only once built, so goroutines may share it.
//
// Scoring a stream of raw records, one goroutine:
//
//	ix := coglang.NewIndex(fx)
//	sc, t := ix.NewScorer(opts), ix.NewTally(opts)
//	var s coglang.Scored
//	for _, raw := range records {
//		if err := sc.Score(raw, &s); err != nil {
//			return err
//		}
//		t.Add(&s)
//	}
//	res := t.Result()
//
// Scorers may run on many goroutines as long as the Tally sees the records in
// input order: the last record per case id wins.
type Index struct {
	fx    *fixtures.CogLangFixture
	ids   map[string]int32
	idOf  []int32 // by case: the number of its id
	first []int32 // by number: the first case with that id
	// more holds the further cases of an id a fixture repeats (rare)
	more map[int32][]int32
}

// NewIndex indexes the case ids of fx.
func NewIndex(fx *fixtures.CogLangFixture) *Index {
	n := len(fx.Cases)
	ix := &Index{fx: fx, ids: make(map[string]int32, n), idOf: make([]int32, n), first: make([]int32, 0, n)}
	for i := range fx.Cases {
		id := fx.Cases[i].CaseID
		k, ok := ix.ids[id]
		if !ok {
			k = int32(len(ix.first))
			ix.ids[id] = k
			ix.first = append(ix.first, int32(i))
		} else {
			if ix.more == nil {
				ix.more = map[int32][]int32{}
			}
			ix.more[k] = append(ix.more[k], int32(i))
		}
		ix.idOf[i] = k
	}
	return ix
}

// Scored is one response record decoded and scored, everything but the
// expected-head check (which Tally.Result makes per case).
type Scored struct {
	ID     int32  // the case id's number in the Index; -1 when the fixture lacks it
	CaseID string // the case id, set only when ID is -1
	Output string
	// ProviderError marks a provider error record; ErrorCode is its code.
	ProviderError bool
	ErrorCode     string
	outcome
}

// RecordScorer decodes and scores raw response records, reusing its buffers. One
// per goroutine.
type RecordScorer struct {
	ix     *Index
	cs     *caseScorer
	fields recordFields
}

// NewScorer returns a scorer of records for the indexed fixture.
func (ix *Index) NewScorer(opts Options) *RecordScorer {
	return &RecordScorer{ix: ix, cs: newCaseScorer(ParseOptions{Strict: opts.Strict, MaxDepth: opts.MaxDepth, MaxBytes: opts.MaxBytes})}
}

// Score decodes raw as DecodeResponse does and scores its output into dst. A
// record for a case id the fixture lacks is decoded but not scored. The error
// is DecodeResponse's.
func (s *RecordScorer) Score(raw []byte, dst *Scored) error {
	f := &s.fields
	if !scanRecord(raw, f) {
		if err := decodeFields(raw, f); err != nil {
			return err
		}
	}
	dst.ID, dst.CaseID = -1, ""
	if id, ok := f.plainCaseID(); ok {
		if n, known := s.ix.ids[string(id)]; known {
			dst.ID = n
		}
	}
	if dst.ID < 0 {
		id, err := f.caseIDText()
		if err != nil {
			return err
		}
		if n, known := s.ix.ids[id]; known {
			dst.ID = n
		} else {
			dst.CaseID = id
		}
	}
	if err := f.checkVersion(); err != nil {
		return err
	}
	dst.ProviderError, dst.ErrorCode = false, ""
	if code, ok := f.providerError(); ok {
		dst.ProviderError, dst.ErrorCode = true, code
		dst.Output, dst.outcome = "", outcome{}
		return nil
	}
	out, err := f.outputText()
	if err != nil {
		return err
	}
	dst.Output = out
	if dst.ID < 0 {
		dst.outcome = outcome{}
		return nil
	}
	dst.outcome = s.cs.judge(out)
	return nil
}

// Tally gathers scored records in input order; the last record per case id wins.
type Tally struct {
	ix   *Index
	opts Options
	// cases holds each case's result from the last record of its id so far
	cases   []CaseResult
	seen    []bool
	dup     []bool
	unknown map[string]int // the first MaxUnknownListed unknown ids, with their records
	// unlisted counts records whose unknown id is not in unknown
	unlisted int
	read     int
	errs     int
}

// MaxUnknownListed bounds the unknown case ids a result lists: a file of millions of
// distinct ids must not hold them all. Records are still counted exactly.
const MaxUnknownListed = 1000

// NewTally returns an empty tally for the indexed fixture.
func (ix *Index) NewTally(opts Options) *Tally {
	n := len(ix.first)
	return &Tally{ix: ix, opts: opts, cases: make([]CaseResult, len(ix.idOf)), seen: make([]bool, n), dup: make([]bool, n), unknown: map[string]int{}}
}

// Add counts the next record. It reports whether the record's case id came
// before, and whether the fixture lacks it.
func (t *Tally) Add(s *Scored) (duplicate, unknown bool) {
	t.read++
	if s.ProviderError {
		t.errs++
	}
	if s.ID < 0 {
		k, listed := t.unknown[s.CaseID]
		if !listed && len(t.unknown) >= MaxUnknownListed {
			t.unlisted++
			return false, true
		}
		t.unknown[s.CaseID] = k + 1
		return k > 0, true
	}
	duplicate = t.seen[s.ID]
	t.seen[s.ID] = true
	t.dup[s.ID] = t.dup[s.ID] || duplicate
	t.fill(t.ix.first[s.ID], s)
	for _, i := range t.ix.more[s.ID] {
		t.fill(i, s)
	}
	return duplicate, false
}

// fill writes case i's result from the record s, replacing an earlier one.
func (t *Tally) fill(i int32, s *Scored) {
	r, c := &t.cases[i], &t.ix.fx.Cases[i]
	*r = CaseResult{}
	if s.ProviderError {
		fillProviderError(r, c, s.ErrorCode)
		return
	}
	s.outcome.fill(r, c, s.Output)
}

// Result returns the scored fixture from the last record of every case id, as
// Score does for the same records. The tally is spent: call Result once.
func (t *Tally) Result() *Result {
	fx := t.ix.fx
	res := &Result{AnswerSource: t.opts.AnswerSource, FixturePath: t.opts.FixturePath, Strict: t.opts.Strict, RecordsRead: t.read, ProviderErrorRecords: t.errs, UnknownNotListed: t.unlisted}
	res.Cases = t.cases
	for i, n := range t.ix.idOf {
		if !t.seen[n] {
			r, c := &res.Cases[i], &fx.Cases[i]
			r.CaseID, r.Level, r.Prompt = c.CaseID, c.Level, c.Prompt
			r.Failures = FailMissingOutput
			r.ParseError = "missing output"
		}
	}
	for n, d := range t.dup {
		if d {
			res.DuplicateCaseIDs = append(res.DuplicateCaseIDs, t.ix.fx.Cases[t.ix.first[n]].CaseID)
		}
	}
	for id, k := range t.unknown {
		res.UnknownCaseIDs = append(res.UnknownCaseIDs, id)
		if k > 1 {
			res.DuplicateCaseIDs = append(res.DuplicateCaseIDs, id)
		}
	}
	sort.Strings(res.DuplicateCaseIDs)
	sort.Strings(res.UnknownCaseIDs)
	res.summarize(fx.DefinedLevels)
	return res
}
