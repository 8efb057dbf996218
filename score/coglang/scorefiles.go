package coglang

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/contract/pipeline"
	"github.com/fbeval/fbeval/fixtures"
	"github.com/fbeval/fbeval/score"
)

// ScoreFiles reads CogLang response files as ReadResponses does and scores every
// record as it arrives against the fixture src: each one is decoded strictly,
// parsed, written in canonical form, validated and given its preflight decision,
// on copts.Workers goroutines, and the results are taken in input order so that
// the last record per case id wins. The result is the one ReadResponses followed
// by Score gives (RecordsRead and ResponseFile included), whatever the number of
// workers. The fixture is read once and each case keeps a small slot, so memory
// stays flat in the number of cases and records; the cases are read back as
// the result is written (see Result.Close and Result.Err). The first bad record
// (in input order) ends the scoring with its *contract.InputError.
func ScoreFiles(src fixtures.CogLangSource, sources []score.Source, opts score.Options, copts Options) (*Result, *ResponseFiles, error) {
	fx, err := IndexFixture(src)
	if err != nil {
		return nil, nil, err
	}
	return fx.ScoreFiles(sources, opts, copts)
}

// Indexed is a fixture read once and held as a small slot per case, ready to
// score response files (the first half of ScoreFiles, for a caller that opens
// the response files only once the fixture is known to be good).
type Indexed struct{ st *caseStore }

// IndexFixture reads the fixture src once, keeping a small slot per case.
func IndexFixture(src fixtures.CogLangSource) (*Indexed, error) {
	st, err := newCaseStore(src, false, ParseOptions{})
	if err != nil {
		return nil, err
	}
	return &Indexed{st: st}, nil
}

// Close removes the temporary files of a fixture that is not scored after all.
func (x *Indexed) Close() { x.st.close() }

// ScoreFiles scores the response files against the indexed fixture, as the
// package's ScoreFiles does; the result owns the fixture's temporary files
// (close the result, or the Indexed on an error). Call it once.
func (x *Indexed) ScoreFiles(sources []score.Source, opts score.Options, copts Options) (*Result, *ResponseFiles, error) {
	st := x.st
	t := &tally{st: st, unknown: map[string]int{}}
	out := &ResponseFiles{Duplicates: map[string]bool{}, Unknown: map[string]bool{}}
	if err := scoreSources(t, sources, opts, copts, out); err != nil {
		st.close()
		return nil, nil, err
	}
	// every case and detail written out before any is read back: a full
	// TMPDIR ends the score here, before a byte of its result
	if err := st.flush(); err != nil {
		st.close()
		return nil, nil, err
	}
	out.filesRead()
	res, err := t.result(copts)
	if err != nil {
		st.close()
		return nil, nil, err
	}
	unknown := 0
	for _, f := range out.Files {
		unknown += f.Unknown
	}
	if out.Accepted > 0 && unknown == out.Accepted && len(res.UnknownCaseIDs) > 0 {
		st.close()
		f := out.Files[slices.IndexFunc(out.Files, func(f score.InputStats) bool { return f.Unknown > 0 })]
		id := res.UnknownCaseIDs[0]
		advice := "score them with the fixture (--fixture) or study they were exported for"
		if st.hasChanged(id) {
			// a runner or a script that changed the ids it was given
			advice = fmt.Sprintf("%q is a case id of the fixture but for its white space or letter case: write each request's case_id back as the request file has it", id)
		}
		return nil, nil, &contract.InputError{Kind: contract.ErrWrongFile, File: f.Path, Line: f.UnknownAt[0], Col: f.UnknownAt[1], Msg: fmt.Sprintf(
			"none of its %s answers a case of the fixture (%s; unknown ids include %s): %s",
			contract.Plural(unknown, "record", "records"), contract.Plural(st.slots.n, "case", "cases"), id, advice)}
	}
	for _, id := range res.UnknownCaseIDs {
		if st.hasChanged(id) {
			if out.Changed++; out.Changed == 1 {
				out.FirstChanged = id
			}
		}
	}
	for _, id := range res.DuplicateCaseIDs {
		out.Duplicates[id] = true
	}
	for _, id := range res.UnknownCaseIDs {
		out.Unknown[id] = true
	}
	if err := out.checkRecipes(st, copts.AllowOtherRecipe); err != nil {
		st.close()
		return nil, nil, err
	}
	if out.Thinking > 0 {
		out.Warnings = append(out.Warnings, score.ThinkingWarning(out.Thinking, "a failure (the thinking read as part of the expression: parse_error or a wrong head)"))
	}
	if out.Cut > 0 {
		out.Warnings = append(out.Warnings, score.CutWarning(out.Cut))
	}
	if out.Filtered > 0 {
		out.Warnings = append(out.Warnings, score.FilteredWarning(out.Filtered, out.FirstFiltered))
	}
	if res.blank > 0 {
		// of the records that scored a case: a blank one a later record
		// replaced scores nothing
		out.Warnings = append(out.Warnings, score.BlankWarning(res.blank, res.answered, res.firstBlank))
	}
	if out.Quoted > 0 {
		out.Warnings = append(out.Warnings, contract.Plural(out.Quoted, "answer is", "answers are")+" in quotes, one JSON string (the answer encoded twice, as a runner that encodes the text it writes as the output makes it: json.dumps of the model's text) and "+
			contract.Pick(out.Quoted, "scores", "score")+" as the reference scores a quoted string: a runner of your own writes the model's text as the output string, encoded once")
	}
	if out.Wrapped > 0 {
		out.Warnings = append(out.Warnings, contract.Plural(out.Wrapped, "answer is an API's message", "answers are an API's message")+" around the model's text, not the text, and "+
			contract.Pick(out.Wrapped, "scores", "score")+" as the reference scores Python's str() of it: a runner of your own writes the model's text as the output (choices[0].message.content; a Messages reply's text blocks joined)")
	}
	if out.Listed > 0 {
		out.Warnings = append(out.Warnings, contract.Plural(out.Listed, "answer is a JSON list", "answers are a JSON list")+" holding the answer, not the answer (a list of texts, as [c.message.content for c in resp.choices] keeps them), and "+
			contract.Pick(out.Listed, "scores", "score")+" as the reference scores Python's str() of it: a runner of your own writes the answer itself as the output (choices[0].message.content)")
	}
	out.Models = st.models.list()
	out.Warnings = append(out.Warnings, st.models.warnings()...)
	out.UnknownNotListed = res.UnknownNotListed
	if n := res.UnknownNotListed; n > 0 {
		out.Warnings = append(out.Warnings, fmt.Sprintf("%d records name case ids the fixture does not have and unknown_case_ids leaves out (it lists the first %d)", n, MaxUnknownListed))
	}
	out.Responses = []Response{}
	out.ProviderErrors = res.ProviderErrorRecords
	out.ErrorCases = res.errorCases
	res.ResponseFile = out.Block()
	return res, out, nil
}

// ScoreReferences scores every case of the fixture src against its own reference
// expression (answer_source "fixture_reference" unless copts names one), as
// Score(fx, nil, copts) does, reading the fixture once and keeping a small slot
// per case. The caller closes the result.
func ScoreReferences(src fixtures.CogLangSource, copts Options) (*Result, error) {
	st, err := newCaseStore(src, true, ParseOptions{Strict: copts.Strict, MaxDepth: copts.MaxDepth, MaxBytes: copts.MaxBytes})
	if err != nil {
		return nil, err
	}
	if err := st.flush(); err != nil {
		st.close()
		return nil, err
	}
	if copts.AnswerSource == "" {
		copts.AnswerSource = "fixture_reference"
	}
	res := &Result{AnswerSource: copts.AnswerSource, FixturePath: copts.FixturePath, Strict: copts.Strict, store: st}
	st.workers = score.Workers(copts.Workers)
	st.summarize(res)
	return res, nil
}

// sourceFile reads one source and reports each record (or the error that ends it).
type sourceFile struct {
	opts score.Options
	// answers: an --answers-file, whose object's schema_version the reference
	// never reads and the README says is not checked (but by --strict)
	answers bool
	src     score.Source
	hr      *score.HashingReader
	pt      *pyText // what rd reads
	rd      *contract.Reader
	st      score.InputStats
	close   func() // closes what the source opened
}

func openSourceFile(src score.Source, opts score.Options, answers bool) (*sourceFile, error) {
	r, closeFile, err := src.Reader()
	if err != nil {
		return nil, err
	}
	hr := score.NewHashingReader(r)
	ro := contract.ReadOptions{
		ListKeys:       []string{"responses", "answers"},
		OtherListKeys:  []string{"requests"}, // to say what the file is
		SingleRecord:   isSingleRecord,
		MaxLineBytes:   opts.MaxLineBytes,
		RecordsChecked: true, // the record scorer refuses a record that is no JSON
		// lone surrogate escapes are read, as the reference's Python reads them
		LoneSurrogates: true,
		CutHint:        score.CutHint,
		WrongFileHint:  score.WrongFileHint,
		TextHint:       score.TextHint,
	}
	if answers {
		// the reference's --answers-file: a list, or an object's "answers";
		// an object is never one answer (JSON lines are read too, where the
		// reference cannot read them)
		ro.ListKeys, ro.SingleRecord, ro.ObjectHint = []string{"answers"}, nil, answersObjectHint
	}
	pt := newPyTextFile(src.Name, hr)
	return &sourceFile{opts: opts, answers: answers, src: src, hr: hr, pt: pt, close: closeFile, st: score.InputStats{Path: src.Name}, rd: contract.NewReader(src.Name, pt, ro)}, nil
}

// answersObjectHint says what to do with an object given as an answers file
// that holds no "answers" (the reference scores no answer from it: every case
// missing).
func answersObjectHint(names []string) string {
	switch {
	case slices.Contains(names, "responses"):
		return "this is a batch of response records: score it with --responses"
	case slices.Contains(names, "case_id"):
		return "an answers file is a list of answers, even of one ([{\"case_id\": ..., \"output\": ...}])"
	}
	return "an answers file is a list of {\"case_id\", \"output\"} objects, or an object holding that list in \"answers\""
}

// finish checks the batch header and fills in the file's stats once its records
// are read.
func (f *sourceFile) finish() error {
	if err := f.rd.Err(); err != nil {
		return err
	}
	warnings, err := f.rd.Warnings(), error(nil)
	if !f.answers || f.opts.StrictBatch {
		if warnings, err = checkBatchVersion(f.rd, f.src.Name, f.opts); err != nil {
			return err
		}
	}
	f.st.Shape, f.st.Lines, f.st.Warnings = f.rd.Shape().String(), f.rd.Lines(), warnings
	f.st.SHA256 = f.hr.Finish()
	f.release()
	return nil
}

// release lets go of what reading the file held (its reader's buffer, the
// read-ahead chunks), keeping its stats: a thousand shards of a batch engine
// hold no more at once than one.
func (f *sourceFile) release() {
	if f.pt != nil {
		f.pt.release()
	}
	if f.hr != nil {
		f.hr.Close()
	}
	if f.close != nil {
		f.close()
	}
	f.hr, f.pt, f.rd, f.close = nil, nil, nil, nil
}

// checkRecipes refuses records that answer another prompt than the fixture's
// for their case: their run names a recipe (fbeval's runners write the sum of
// the request's text) that is not their case's here, so they were exported from
// another fixture, or another version of this one, and scoring them against
// this one would score answers to questions that were not asked. Only records
// that score their case count: a later record for the case replaces one. With
// allow (--allow-other-recipe) they are scored, and a warning says how many.
func (out *ResponseFiles) checkRecipes(st *caseStore, allow bool) error {
	i := slices.IndexFunc(out.Files, func(f score.InputStats) bool { return f.OtherRecipe > 0 })
	if i < 0 {
		return nil
	}
	other, scored := st.otherRecipes()
	if other == 0 {
		return nil
	}
	in := &out.Files[i]
	if allow {
		out.Warnings = append(out.Warnings, fmt.Sprintf("%s another prompt than this fixture's (the first: case %s, in %s): scored against this one (--allow-other-recipe)",
			contract.Plural(other, "case was answered for", "cases were answered for"), in.OtherRecipeCase, in.Path))
		return nil
	}
	return &contract.InputError{Kind: contract.ErrWrongFile, File: in.Path, Line: in.OtherRecipeAt[0], Col: in.OtherRecipeAt[1], Msg: fmt.Sprintf(
		"the record for case %s answers another prompt than this fixture's (its recipe %s is the sum of the text it was asked; in all, %d of the %d cases scored): score them with the fixture they were exported from (--fixture), or give --allow-other-recipe to score them against this one",
		in.OtherRecipeCase, in.OtherRecipeName, other, scored)}
}

func (out *ResponseFiles) addFile(st *score.InputStats) {
	out.Read += st.Records
	out.Accepted += st.Accepted
	if st.Records == 0 {
		st.Warnings = append(st.Warnings, score.NoRecords(st.Path))
	}
	out.fileWarnings.Add(st.Warnings...)
	out.Files = append(out.Files, *st)
}

func count(st *score.InputStats, dup, unknown bool, line, col int) {
	st.Records++
	st.Accepted++
	if dup {
		st.Duplicates++
	}
	if unknown {
		if st.Unknown == 0 {
			st.UnknownAt = [2]int{line, col}
		}
		st.Unknown++
	}
}

// scoreSources reads the sources on the calling goroutine and scores their
// records through the ordered worker pipeline: batches are scored on
// copts.Workers goroutines and added to the tally in input order. The first bad
// record, in input order, is the error.
func scoreSources(tally *tally, sources []score.Source, opts score.Options, copts Options, out *ResponseFiles) error {
	stats := make([]score.InputStats, len(sources)) // what the tally counted, by file
	var failed error                                // the first bad record, set by apply
	p := pipeline.New(score.Workers(copts.Workers), func() func(*pipeline.Batch[Scored]) {
		sc := tally.st.newScorer(copts)
		return func(b *pipeline.Batch[Scored]) {
			for i := range b.Out {
				err := b.Errs[i]
				if err == nil {
					if err = sc.Read(b.Record(i), &b.Out[i]); err != nil {
						err = recordError(&contract.Record{File: sources[b.File].Name, Line: b.Lines[i], Col: b.Cols[i], Raw: b.Record(i)}, err)
					}
				}
				if err != nil {
					b.Err, b.Out = err, b.Out[:i] // the records after it are not added
					break
				}
			}
			sc.Judge(b.Out)
		}
	}, func(b *pipeline.Batch[Scored]) bool {
		st := &stats[b.File]
		for i := range b.Out {
			dup, unknown, other, err := tally.add(&b.Out[i])
			if err != nil {
				failed = err
				return false
			}
			count(st, dup, unknown, b.Lines[i], b.Cols[i])
			if b.Out[i].thinking {
				out.Thinking++
			}
			if b.Out[i].quoted {
				out.Quoted++
			}
			if b.Out[i].wrapped {
				out.Wrapped++
			}
			if b.Out[i].listed {
				out.Listed++
			}
			switch b.Out[i].finish {
			case contract.FinishCut:
				out.Cut++
			case contract.FinishFiltered:
				if id := b.Out[i].CaseID; out.Filtered == 0 || id < out.FirstFiltered {
					out.FirstFiltered = strings.Clone(id) // it may share the batch's bytes
				}
				out.Filtered++
			}
			if r := &b.Out[i]; other {
				if st.OtherRecipe == 0 {
					st.OtherRecipeName, st.OtherRecipeAt = contract.CogLangRecipe(r.recipe), [2]int{b.Lines[i], b.Cols[i]}
					st.OtherRecipeCase = strings.Clone(r.CaseID) // it may share the batch's bytes
				}
				st.OtherRecipe++
			}
		}
		failed = b.Err
		return failed == nil
	})
	// end stops the reading with err, which stands after every record added:
	// a bad record before it is the error.
	end := func(err error) error {
		p.Close()
		if failed != nil {
			return failed
		}
		return err
	}
	files := make([]*sourceFile, len(sources))
	for fi, src := range sources {
		f, err := openSourceFile(src, opts, copts.AnswersFile)
		if err != nil {
			return end(err)
		}
		defer f.release() // on an early return; finish releases it
		files[fi] = f
		first := true
		read := 0
		for f.rd.Scan() {
			read++
			rec := f.rd.Record()
			if first && rec.Err == nil {
				if err := score.SniffRecord(rec, contract.SuiteCogLang); err != nil {
					return end(err)
				}
				first = false
			}
			if !p.Add(fi, rec) {
				return end(nil)
			}
		}
		p.Flush()
		if err := f.finish(); err != nil {
			return end(err)
		}
		if copts.AnswersFile && read == 0 && f.st.Shape == contract.ShapeJSONL.String() {
			// nothing in it, or white space: the reference's json.load
			// stops on it (an empty list, [], answers nothing, as there)
			return end(&contract.InputError{Kind: contract.ErrShape, File: src.Name, Msg: "holds nothing: an answers file is a JSON list of {\"case_id\", \"output\"} objects, [] for none (the reference scorer stops on an empty file)"})
		}
	}
	if err := end(nil); err != nil {
		return err
	}
	for fi, f := range files {
		counted := &stats[fi]
		f.st.Records, f.st.Accepted = counted.Records, counted.Accepted
		f.st.Duplicates, f.st.Unknown, f.st.UnknownAt = counted.Duplicates, counted.Unknown, counted.UnknownAt
		f.st.OtherRecipe, f.st.OtherRecipeName, f.st.OtherRecipeCase, f.st.OtherRecipeAt = counted.OtherRecipe, counted.OtherRecipeName, counted.OtherRecipeCase, counted.OtherRecipeAt
		out.addFile(&f.st)
	}
	return nil
}
