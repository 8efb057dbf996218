package study

import (
	"math"

	"github.com/fbeval/fbeval/contract"
)

// att is what scoring keeps in memory of one attempt of a row: a fixed slot of
// flags, the numbers the aggregates sum, the first codes of its errors and
// where its detail (output, messages) is in the spool. A row's case, arm and
// repeat follow from its place (New lays rows out case by case, repeat by
// repeat, arm by arm), and its attempts are adjacent.
type att struct {
	flags  uint32
	ncodes uint32 // error codes in Run.codes from codes
	src    uint32 // index in Run.sources: the model and run that answered
	codes  uint32
	detLen uint32 // the detail entry's length, where flags has fDetail
	pcode  uint8  // a provider error's code, in Run.pcodes (the struct's padding)
	det    int64  // the detail entry's offset in the spool
	in     int64
	out    int64
	lat    float64
}

const (
	fPresent      = 1 << iota // a record answered the attempt
	fProvider                 // it is a provider error
	fSuccess                  // judged a success (not set for a provider error)
	fSemantic                 // semantically right
	fCandValid                // valid against the candidate schema
	fCall                     // the output's action is call_tool
	fPending                  // not clean: judged in full once no later record can replace it
	fDetail                   // has a detail entry in the spool
	fIn                       // input token count known
	fOut                      // output token count known
	fLat                      // latency known
	fStaged                   // det is an offset into its band's buffer (stage.go), not yet the spool's
	fOtherRecipe              // its record's run names another recipe than the study's
	fBlank                    // the output is empty or white space (answerFlags)
	fCutShort                 // the model stopped at its token limit (answerFlags)
	fThinking                 // the output holds a reasoning model's <think> block (answerFlags)
	fToolCallForm             // the output failed and is a tool call in another form than the envelope (contract.ToolCallForm)
	fEncodedTwice             // the output failed and is a JSON string holding JSON (contract.EncodedTwice)
	fWrapped                  // the output failed and is an API's message around the answer (contract.WrappedAnswer)
	fFiltered                 // a safety filter stopped or withheld the answer, or the model refused on safety grounds (answerFlags)
	fQuoted                   // the output failed and is one JSON string, whatever its text (contract.Quoted)
	fListed                   // the output failed and is a JSON list of answers (contract.ListedAnswer)
)

func (a *att) has(f uint32) bool { return a.flags&f != 0 }

// count is 1 when a has flag f, else 0.
func (a *att) count(f uint32) int {
	if a.has(f) {
		return 1
	}
	return 0
}

// ok is a response that is not a provider error.
func (a *att) ok() bool { return a.flags&(fPresent|fProvider) == fPresent }

// success is a judged success: a missing response or a provider error is a failure.
func (a *att) success() bool { return a.flags&(fPresent|fProvider|fSuccess) == fPresent|fSuccess }

// row is the attempts of one row, index attempt-1.
type row []att

// latest returns the last attempt that has a response, and its number (0 if none).
func (r row) latest() (*att, int) {
	for i := len(r) - 1; i >= 0; i-- {
		if r[i].has(fPresent) {
			return &r[i], i + 1
		}
	}
	return nil, 0
}

func (r row) firstSuccess() bool { return r[0].success() }

func (r row) finalSuccess() bool {
	a, _ := r.latest()
	return a != nil && a.success()
}

// providerError reports whether any attempt of the row ended in a provider error
// (a runner does not repair after one, so it is the last).
func (r row) providerError() bool {
	for i := range r {
		if r[i].flags&(fPresent|fProvider) == fPresent|fProvider {
			return true
		}
	}
	return false
}

// latency is the row's time over all its attempts, as HESchema times a row; ok is
// false when an attempt's latency is unknown or the row has a provider error.
func (r row) latency() (ms float64, ok bool) {
	n := 0
	for i := range r {
		a := &r[i]
		if !a.has(fPresent) {
			continue
		}
		if a.has(fProvider) || !a.has(fLat) {
			return 0, false
		}
		ms += a.lat
		n++
	}
	if math.IsInf(ms, 0) {
		ms = math.MaxFloat64 // latencies are finite and never negative: only the sum can overflow
	}
	return ms, n > 0
}

// repairs is the number of repair attempts with a response.
func (r row) repairs() int {
	n := 0
	for i := 1; i < len(r); i++ {
		if r[i].has(fPresent) {
			n++
		}
	}
	return n
}

// place is where a row sits in the study.
type place struct {
	ci     int // the case's index in the plan
	arm    string
	repeat int
}

// placeOf returns the place of row i.
func (run *Run) placeOf(i int) place {
	s := run.Plan.Study
	arms := len(s.Arms)
	per := s.Repeats * arms
	return place{ci: i / per, arm: s.Arms[i%arms], repeat: i%per/arms + 1}
}

// rowAt returns the attempts of row i.
func (run *Run) rowAt(i int) row {
	n := run.Plan.Study.Repairs + 1
	return run.atts[i*n : (i+1)*n : (i+1)*n]
}

// caseOf returns the plan case of a place.
func (run *Run) caseOf(p place) *contract.Case { return &run.Plan.Cases[p.ci] }

// codeID interns an error code.
func (run *Run) codeID(code string) uint16 {
	if id, ok := run.codeIDs[code]; ok {
		return id
	}
	id := uint16(len(run.codeNames))
	run.codeNames = append(run.codeNames, code)
	run.codeIDs[code] = id
	return id
}

// codesOf returns the ids of the error codes a attempt's first-pass figures count.
func (run *Run) codesOf(a *att) []uint16 {
	return run.codes[a.codes : a.codes+a.ncodes]
}

// source is what a record says answered it: the model, and the runner and
// settings its run member names ("" where it names none).
type source struct{ model, runner, settings string }

// sourceID interns a source; the last one is remembered, as a file names few.
func (run *Run) sourceID(s source) uint32 {
	if run.lastSource.ok && run.lastSource.src == s {
		return run.lastSource.id
	}
	id, ok := run.sourceIDs[s]
	if !ok {
		id = uint32(len(run.sources))
		run.sources = append(run.sources, s)
		run.sourceIDs[s] = id
	}
	run.lastSource.src, run.lastSource.id, run.lastSource.ok = s, id, true
	return id
}
