package coglang

import (
	"fmt"
	"slices"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/fixtures"
	"github.com/fbeval/fbeval/score"
)

// ScoreFiles reads CogLang response files as ReadResponses does and scores every
// record as it arrives: each one is decoded strictly, parsed, written in
// canonical form, validated and given its preflight decision, on copts.Workers
// goroutines, and the results are merged in input order so that the last record
// per case id wins. The result is the one ReadResponses followed by Score
// gives (RecordsRead and ResponseFile included), whatever the number of workers;
// memory stays flat however many records the files hold. The first bad record
// (in input order) ends the scoring with its *contract.InputError.
func ScoreFiles(fx *fixtures.CogLangFixture, sources []score.Source, opts score.Options, copts Options) (*Result, *ResponseFiles, error) {
	ix := NewIndex(fx)
	tally := ix.NewTally(copts)
	out := &ResponseFiles{Duplicates: map[string]bool{}, Unknown: map[string]bool{}}
	if err := scoreSources(ix, tally, sources, opts, copts, out); err != nil {
		return nil, nil, err
	}
	res := tally.Result()
	unknown := 0
	for _, f := range out.Files {
		unknown += f.Unknown
	}
	if out.Accepted > 0 && unknown == out.Accepted && len(res.UnknownCaseIDs) > 0 {
		f := out.Files[slices.IndexFunc(out.Files, func(f score.InputStats) bool { return f.Unknown > 0 })]
		return nil, nil, &contract.InputError{Kind: contract.ErrWrongFile, File: f.Path, Line: f.UnknownAt[0], Col: f.UnknownAt[1], Msg: fmt.Sprintf(
			"none of its %s answers a case of the fixture (%s; unknown ids include %s): score them with the fixture (--fixture) or study they were exported for",
			score.Plural(unknown, "record", "records"), score.Plural(len(fx.Cases), "case", "cases"), res.UnknownCaseIDs[0])}
	}
	for _, id := range res.DuplicateCaseIDs {
		out.Duplicates[id] = true
	}
	for _, id := range res.UnknownCaseIDs {
		out.Unknown[id] = true
	}
	out.UnknownNotListed = res.UnknownNotListed
	if n := res.UnknownNotListed; n > 0 {
		out.Warnings = append(out.Warnings, fmt.Sprintf("%d records name case ids the fixture does not have and unknown_case_ids leaves out (it lists the first %d)", n, MaxUnknownListed))
	}
	out.Responses = []Response{}
	out.ProviderErrors = res.ProviderErrorRecords
	seen := map[string]bool{}
	for i := range res.Cases {
		if c := &res.Cases[i]; c.ProviderError && !seen[c.CaseID] {
			seen[c.CaseID] = true
			out.ErrorCases = append(out.ErrorCases, c.CaseID)
		}
	}
	slices.Sort(out.ErrorCases)
	res.ResponseFile = out.Block()
	return res, out, nil
}

// sourceFile reads one source and reports each record (or the error that ends it).
type sourceFile struct {
	opts score.Options
	src  score.Source
	hr   *score.HashingReader
	rd   *contract.Reader
	st   score.InputStats
}

func openSourceFile(src score.Source, opts score.Options) *sourceFile {
	hr := score.NewHashingReader(src.R)
	return &sourceFile{opts: opts, src: src, hr: hr, st: score.InputStats{Path: src.Name}, rd: contract.NewReader(src.Name, newPyText(hr), contract.ReadOptions{
		ListKeys:      []string{"responses", "answers"},
		OtherListKeys: []string{"requests"}, // to say what the file is
		SingleRecord:  isSingleRecord,
		MaxLineBytes:  opts.MaxLineBytes,
		// lone surrogate escapes are read, as the reference's Python reads them
		LoneSurrogates: true,
	})}
}

// finish checks the batch header and fills in the file's stats once its records
// are read.
func (f *sourceFile) finish() error {
	if err := f.rd.Err(); err != nil {
		return err
	}
	if err := checkBatchVersion(f.rd, f.src.Name, f.opts); err != nil {
		return err
	}
	f.st.Shape, f.st.Lines, f.st.Warnings = f.rd.Shape().String(), f.rd.Lines(), f.rd.Warnings()
	f.st.SHA256 = f.hr.Finish()
	return nil
}

func (out *ResponseFiles) addFile(st *score.InputStats) {
	out.Read += st.Records
	out.Accepted += st.Accepted
	out.Warnings = append(out.Warnings, st.Warnings...)
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
func scoreSources(ix *Index, tally *Tally, sources []score.Source, opts score.Options, copts Options, out *ResponseFiles) error {
	stats := make([]score.InputStats, len(sources)) // what the tally counted, by file
	var failed error                                // the first bad record, set by apply
	p := score.NewPipeline(copts.Workers, func() func(*score.Batch[Scored]) {
		sc := ix.NewScorer(copts)
		return func(b *score.Batch[Scored]) {
			for i := range b.Out {
				err := b.Errs[i]
				if err == nil {
					if err = sc.Score(b.Record(i), &b.Out[i]); err != nil {
						err = recordError(&contract.Record{File: sources[b.File].Name, Line: b.Lines[i], Col: b.Cols[i], Raw: b.Record(i)}, err)
					}
				}
				if err != nil {
					b.Err, b.Out = err, b.Out[:i] // the records after it are not added
					return
				}
			}
		}
	}, func(b *score.Batch[Scored]) bool {
		st := &stats[b.File]
		for i := range b.Out {
			dup, unknown := tally.Add(&b.Out[i])
			count(st, dup, unknown, b.Lines[i], b.Cols[i])
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
		f := openSourceFile(src, opts)
		files[fi] = f
		first := true
		for f.rd.Scan() {
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
	}
	if err := end(nil); err != nil {
		return err
	}
	for fi, f := range files {
		counted := &stats[fi]
		f.st.Records, f.st.Accepted = counted.Records, counted.Accepted
		f.st.Duplicates, f.st.Unknown, f.st.UnknownAt = counted.Duplicates, counted.Unknown, counted.UnknownAt
		out.addFile(&f.st)
	}
	return nil
}
