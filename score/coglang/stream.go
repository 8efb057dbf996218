package coglang

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"unsafe"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/score"
	"github.com/go-json-experiment/json/jsontext"
)

// Scored is one response record decoded and scored, everything but the
// expected-head check (which the store makes per case).
type Scored struct {
	ID int32 // the place of the case id in the store's ids; -1 when the fixture lacks it
	// slot is the case at ID, found with it while its entry is in cache, and
	// shared reports that the fixture has other cases with the same id: add then
	// reads the ids again
	slot   int32
	shared bool
	CaseID string // the case id
	Output string
	// ProviderError marks a provider error record; ErrorCode is its code.
	ProviderError bool
	ErrorCode     string
	// recipe is the sum its run names, when hasRecipe (recordFields.recipe):
	// records with an output are checked against their case's
	recipe    uint32
	hasRecipe bool
	// thinking: the output holds a reasoning model's thinking (contract.HoldsThinking);
	// quoted: it is one JSON string (contract.StringText), the answer encoded twice;
	// wrapped: it is an API's message around the answer (contract.WrappedAnswer);
	// listed: a JSON list of answers (contract.ListedAnswer);
	// blank: it is empty or white space
	thinking, quoted, wrapped, listed, blank bool
	// finish says why the answer ended (contract.FinishReason of its finish_reason)
	finish int
	// model is the record's "model" member as written, read while its batch
	// is (caseStore.add)
	model []byte
	// runner and settings are its run member's, read as model is
	runner, settings []byte
	outcome
	key contract.ID // the case id's, until Judge looks it up
}

// RecordScorer decodes and scores raw response records, reusing its buffers. One
// per goroutine.
type RecordScorer struct {
	st      *caseStore
	cs      *caseScorer
	fields  recordFields
	answers bool // Options.AnswersFile: records are read by readAnswer
}

func (st *caseStore) newScorer(opts Options) *RecordScorer {
	return &RecordScorer{st: st, cs: newCaseScorer(ParseOptions{Strict: opts.Strict, MaxDepth: opts.MaxDepth, MaxBytes: opts.MaxBytes}), answers: opts.AnswersFile}
}

// Score decodes raw as DecodeResponse does and scores its output into dst. A
// record for a case id the fixture lacks is decoded but not scored. The error
// is DecodeResponse's.
func (s *RecordScorer) Score(raw []byte, dst *Scored) error {
	if err := s.Read(raw, dst); err != nil {
		return err
	}
	s.st.place(dst)
	s.verdict(dst)
	return nil
}

// Read decodes raw as DecodeResponse does into dst, all but its place in the
// store and its verdict: Judge gives those. The error is DecodeResponse's.
// dst's case id and output may share raw's bytes: they are valid while raw is
// (a batch's records are, until it is applied).
func (s *RecordScorer) Read(raw []byte, dst *Scored) error {
	if len(raw) > pyIntMaxDigits {
		// only a record this long can hold one
		if n := longInt(raw); n > 0 {
			return fmt.Errorf("an integer of %d digits, more than the %d Python's json reads (the reference scorer stops on it with a ValueError): write it as a string", n, pyIntMaxDigits)
		}
	}
	f := &s.fields
	if !scanRecord(raw, f) {
		if err := decodeFields(raw, f); err != nil {
			if s.answers && errors.Is(err, errNotObject) {
				return errors.New("an answer must be a JSON object")
			}
			return err
		}
	}
	f.borrow = true
	id, err := f.caseIDText()
	if err != nil {
		if s.answers && len(f.caseID) == 0 {
			return errors.New("an answer needs case_id")
		}
		return err
	}
	dst.CaseID, dst.key = id, contract.IDOf(id)
	dst.ProviderError, dst.ErrorCode = false, ""
	dst.model = f.model
	recipe, runner, settings := f.runMembers()
	dst.runner, dst.settings = runner, settings
	dst.recipe, dst.hasRecipe, dst.thinking, dst.quoted, dst.wrapped, dst.listed, dst.blank, dst.finish = 0, false, false, false, false, false, false, 0
	var out string
	var v jsontext.Value // the output's JSON value
	if s.answers {
		if out, v, err = s.readAnswer(); err != nil {
			return err
		}
	} else {
		if err := f.checkVersion(); err != nil {
			return err
		}
		if code, ok := f.providerError(); ok {
			dst.ProviderError, dst.ErrorCode = true, code
			dst.Output = ""
			return nil
		}
		if out, err = f.outputText(); err != nil {
			return fmt.Errorf("%w%s", err, contract.NoAnswerNote(raw))
		}
		v = f.outputValue()
	}
	dst.Output = out
	dst.recipe, dst.hasRecipe = recipeSum(recipe)
	text := unsafe.Slice(unsafe.StringData(out), len(out)) // read, not kept
	dst.thinking = contract.HoldsThinking(text)
	if v := f.finish; len(v) > 2 && v[0] == '"' {
		dst.finish = contract.FinishReason(v[1 : len(v)-1]) // no reason has an escape
	}
	if len(out) == 0 || out[0] == '"' || out[0] <= ' ' || out[0] == 'n' {
		_, dst.quoted = contract.StringText(text)
		dst.blank = contract.BlankText(text)
	}
	if v.Kind() == '{' || v.Kind() == '[' {
		// a value the reference takes as Python's str() of it
		dst.wrapped = contract.WrappedAnswer(v) != ""
		dst.listed = v.Kind() == '[' && !dst.wrapped && contract.ListedAnswer(v)
	}
	return nil
}

// readAnswer reads the output of an answer of an answers file, as the
// reference's --answers-file reads it: its output member alone, which it must
// have, as Python's str() of it (a string as is, null as None); no
// schema_version is checked, and text, completion and error are not read. v is
// the output's JSON value.
func (s *RecordScorer) readAnswer() (out string, v jsontext.Value, err error) {
	f := &s.fields
	v = f.outputs[0]
	switch {
	case len(v) == 0 && (len(f.outputs[1]) > 0 || len(f.outputs[2]) > 0 || len(f.err) > 0):
		return "", nil, errors.New("an answer needs output: an answers file is read for each answer's output alone, as the reference reads it (text, completion and error are not read); score response records with --responses")
	case len(v) == 0:
		return "", nil, errors.New(`an answer needs output (the reference stops on one without it, a KeyError): give each answer its output, {"case_id": ..., "output": ...}`)
	case v.Kind() == '"':
		return f.unquote(v), v, nil
	}
	b, err := appendPyStr(nil, v)
	if err != nil {
		return "", nil, err
	}
	return string(b), v, nil
}

// Judge finds the case of every record of recs, which Read decoded, and scores
// the output of each one the fixture has; a provider error record and a record
// for a case id the fixture lacks get no verdict. The ids are all looked up
// before any output is scored: at a million cases each lookup waits on memory
// no cache holds, and lookups made one after another wait together, where each
// made between two records' parses would wait alone.
func (s *RecordScorer) Judge(recs []Scored) {
	for i := range recs {
		s.st.place(&recs[i])
	}
	for i := range recs {
		s.verdict(&recs[i])
	}
}

// verdict scores a record whose case was looked up.
func (s *RecordScorer) verdict(r *Scored) {
	r.outcome = outcome{}
	if r.ID >= 0 && !r.ProviderError {
		r.outcome = s.cs.judge(r.Output)
	}
}

// tally gathers scored records in input order into the store; the last record
// per case id wins.
type tally struct {
	st      *caseStore
	unknown map[string]int // the first MaxUnknownListed unknown ids, with their records
	// unlisted counts records whose unknown id is not in unknown
	unlisted int
	read     int
	errs     int
}

// MaxUnknownListed bounds the unknown case ids a result lists: a file of millions of
// distinct ids must not hold them all. Records are still counted exactly.
const MaxUnknownListed = 1000

// add counts the next record. It reports whether the record's case id came
// before, whether the fixture lacks it, and whether the record answers another
// prompt than its case's (caseStore.otherRecipe).
func (t *tally) add(s *Scored) (duplicate, unknown, other bool, err error) {
	t.read++
	if s.ProviderError {
		t.errs++
	}
	if s.ID < 0 {
		k, listed := t.unknown[s.CaseID]
		if !listed && len(t.unknown) >= MaxUnknownListed {
			t.unlisted++
			return false, true, false, nil
		}
		// a copy: the id may share the batch's bytes, and a map stores the
		// key it is last given
		t.unknown[strings.Clone(s.CaseID)] = k + 1
		return k > 0, true, false, nil
	}
	duplicate, other, err = t.st.add(s)
	return duplicate, false, other, err
}

// result returns the scored fixture from the last record of every case id, as
// Score does for the same records.
func (t *tally) result(opts Options) (*Result, error) {
	res := &Result{AnswerSource: opts.AnswerSource, FixturePath: opts.FixturePath, Strict: opts.Strict, RecordsRead: t.read, ProviderErrorRecords: t.errs, ProviderErrorCodes: t.st.providerCodes(), UnknownNotListed: t.unlisted, store: t.st}
	t.st.workers = score.Workers(opts.Workers)
	t.st.summarize(res)
	names, err := t.st.names()
	if err != nil {
		return nil, err
	}
	res.DuplicateCaseIDs, res.errorCases = names.dups, names.errs
	res.answered, res.blank, res.firstBlank = names.answered, names.blank, names.firstBlank
	for id, k := range t.unknown {
		res.UnknownCaseIDs = append(res.UnknownCaseIDs, id)
		if k > 1 {
			res.DuplicateCaseIDs = append(res.DuplicateCaseIDs, id)
		}
	}
	sort.Strings(res.DuplicateCaseIDs)
	sort.Strings(res.UnknownCaseIDs)
	return res, nil
}

// pyIntMaxDigits is the most digits Python's int() reads from text (its
// sys.get_int_max_str_digits(), since Python 3.11, 3.10.7 and 3.9.14), and so
// json.loads of a JSON integer.
const pyIntMaxDigits = 4300

// longInt returns the digits of the first JSON integer of raw (a number with
// no fraction or exponent, outside strings) longer than pyIntMaxDigits, 0
// for none.
func longInt(raw []byte) int {
	digits := func(k int) int {
		for k < len(raw) && raw[k] >= '0' && raw[k] <= '9' {
			k++
		}
		return k
	}
	inString := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '-' || c >= '0' && c <= '9':
			// a number: its integer part, then a fraction or an exponent
			start := i
			if c == '-' {
				start++
			}
			end := digits(start)
			k := end
			if k < len(raw) && raw[k] == '.' {
				k = digits(k + 1)
			}
			if k < len(raw) && (raw[k] == 'e' || raw[k] == 'E') {
				k++
				if k < len(raw) && (raw[k] == '+' || raw[k] == '-') {
					k++
				}
				k = digits(k)
			}
			if k == end && end-start > pyIntMaxDigits {
				return end - start
			}
			i = max(k, i+1) - 1
		}
	}
	return 0
}
