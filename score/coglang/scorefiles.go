package coglang

import (
	"fmt"
	"runtime"
	"slices"
	"strconv"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/fixtures"
	"github.com/fbeval/fbeval/score"
)

// recordBatch is a run of consecutive records of one file.
type recordBatch struct {
	file   int
	raw    []byte // the records' text, one after another
	ends   []int  // end of each record in raw
	lines  []int  // line and column of each record, for errors
	cols   []int
	scored []Scored
	failAt int   // first record that failed to decode (len(ends) if none)
	err    error // that record's error, or an error that ends the input after the batch
	done   chan struct{}
}

func (b *recordBatch) reset(file int) {
	b.file, b.raw, b.ends, b.lines, b.cols, b.err, b.failAt = file, b.raw[:0], b.ends[:0], b.lines[:0], b.cols[:0], nil, 0
}

func (b *recordBatch) add(rec *contract.Record) {
	b.raw = append(b.raw, rec.Raw...)
	b.ends = append(b.ends, len(b.raw))
	b.lines = append(b.lines, rec.Line)
	b.cols = append(b.cols, rec.Col)
}

// score decodes and scores the batch's records, stopping at the first that fails.
func (b *recordBatch) score(sc *RecordScorer, name string) {
	n := len(b.ends)
	if cap(b.scored) < n {
		b.scored = make([]Scored, n)
	}
	b.scored = b.scored[:n]
	b.failAt = n
	start := 0
	for i, end := range b.ends {
		if err := sc.Score(b.raw[start:end], &b.scored[i]); err != nil {
			b.failAt = i
			b.err = recordError(&contract.Record{File: name, Line: b.lines[i], Col: b.cols[i], Raw: b.raw[start:end]}, err)
			return
		}
		start = end
	}
}

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
	workers := copts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var err error
	if workers == 1 {
		err = scoreSerial(ix, tally, sources, opts, copts, out)
	} else {
		err = scoreParallel(ix, tally, sources, opts, copts, workers, out)
	}
	if err != nil {
		return nil, nil, err
	}
	res := tally.Result()
	unknown := 0
	for _, f := range out.Files {
		unknown += f.Unknown
	}
	if out.Accepted > 0 && unknown == out.Accepted && len(res.UnknownCaseIDs) > 0 {
		f := out.Files[slices.IndexFunc(out.Files, func(f score.InputStats) bool { return f.Unknown > 0 })]
		return nil, nil, &contract.InputError{File: f.Path, Line: f.UnknownAt[0], Col: f.UnknownAt[1], Msg: fmt.Sprintf(
			"none of its %s answers a case of the fixture (%s; unknown ids include %s): score them with the fixture (--fixture) or study they were exported for",
			plural(unknown, "record", "records"), plural(len(fx.Cases), "case", "cases"), res.UnknownCaseIDs[0])}
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

func scoreSerial(ix *Index, tally *Tally, sources []score.Source, opts score.Options, copts Options, out *ResponseFiles) error {
	sc := ix.NewScorer(copts)
	var s Scored
	for _, src := range sources {
		f := openSourceFile(src, opts)
		first := true
		for f.rd.Scan() {
			rec := f.rd.Record()
			if rec.Err != nil {
				return rec.Err
			}
			if first {
				if err := score.SniffRecord(rec, contract.SuiteCogLang); err != nil {
					return err
				}
				first = false
			}
			if err := sc.Score(rec.Raw, &s); err != nil {
				return recordError(rec, err)
			}
			dup, unknown := tally.Add(&s)
			count(&f.st, dup, unknown, rec.Line, rec.Col)
		}
		if err := f.finish(); err != nil {
			return err
		}
		out.addFile(&f.st)
	}
	return nil
}

// scoreParallel reads on the calling goroutine, scores batches on workers
// goroutines and merges them in input order on one more. The order channel holds
// the batches in input order; its capacity bounds the batches in flight.
func scoreParallel(ix *Index, tally *Tally, sources []score.Source, opts score.Options, copts Options, workers int, out *ResponseFiles) error {
	inFlight := 4 * workers
	jobs := make(chan *recordBatch, inFlight)
	order := make(chan *recordBatch, inFlight)
	free := make(chan *recordBatch, inFlight+1)
	stop := make(chan struct{})
	names := make([]string, len(sources))
	for i, s := range sources {
		names[i] = s.Name
	}
	for range workers {
		go func() {
			sc := ix.NewScorer(copts)
			for b := range jobs {
				b.score(sc, names[b.file])
				close(b.done)
			}
		}()
	}
	// The merger applies batches in input order; files[i] is sent once file i's
	// records are all read, after its last batch.
	files := make(chan *sourceFile, len(sources))
	merged := make(chan error, 1)
	go func() {
		var first error
		fileStats := make([]score.InputStats, len(sources))
		for b := range order {
			<-b.done
			if first == nil {
				st := &fileStats[b.file]
				for i := 0; i < b.failAt; i++ {
					dup, unknown := tally.Add(&b.scored[i])
					count(st, dup, unknown, int(b.lines[i]), int(b.cols[i]))
				}
				if b.err != nil {
					first = b.err
					close(stop)
				}
			}
			select {
			case free <- b:
			default:
			}
		}
		if first == nil {
			i := 0
			for f := range files {
				counted := &fileStats[i]
				f.st.Records, f.st.Accepted = counted.Records, counted.Accepted
				f.st.Duplicates, f.st.Unknown, f.st.UnknownAt = counted.Duplicates, counted.Unknown, counted.UnknownAt
				out.addFile(&f.st)
				i++
			}
		}
		merged <- first
	}()

	get := func(file int) *recordBatch {
		var b *recordBatch
		select {
		case b = <-free:
		default:
			b = &recordBatch{}
		}
		b.reset(file)
		b.done = make(chan struct{})
		return b
	}
	send := func(b *recordBatch) {
		order <- b
		jobs <- b
	}
	// fail sends an error that ends the input after everything read so far.
	fail := func(file int, err error) {
		b := get(file)
		b.err = err
		close(b.done)
		order <- b
	}
	stopped := func() bool {
		select {
		case <-stop:
			return true
		default:
			return false
		}
	}
read:
	for fi, src := range sources {
		f := openSourceFile(src, opts)
		b := get(fi)
		first := true
		for f.rd.Scan() {
			rec := f.rd.Record()
			if rec.Err != nil {
				send(b)
				fail(fi, rec.Err)
				break read
			}
			if first {
				if err := score.SniffRecord(rec, contract.SuiteCogLang); err != nil {
					send(b)
					fail(fi, err)
					break read
				}
				first = false
			}
			b.add(rec)
			if len(b.ends) >= score.BatchRecords || len(b.raw) >= score.BatchBytes {
				send(b)
				if stopped() {
					break read
				}
				b = get(fi)
			}
		}
		send(b)
		if err := f.finish(); err != nil {
			fail(fi, err)
			break
		}
		files <- f
	}
	close(jobs)
	close(order)
	close(files)
	return <-merged
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
