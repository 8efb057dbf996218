package study

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/contract/pipeline"
	"github.com/fbeval/fbeval/export"
	"github.com/fbeval/fbeval/score"
	"github.com/fbeval/fbeval/score/report"
	tc "github.com/fbeval/fbeval/score/toolcall"
)

// Run holds a study's rows after its responses were joined: a fixed slot per
// attempt (att) in memory, and the details of the attempts that need them
// (failed outputs, messages) in a spool file, read back as rows are written.
// Close removes the spool.
type Run struct {
	Plan   *export.ToolcallPlan
	Inputs []score.InputStats
	judges map[string]*tc.Judge
	// caseIndex is each case's place in the plan; rows and request ids follow
	// from it (slotOf)
	caseIndex map[string]int
	prepared  []*tc.Case // per plan case
	// goldWarning says that a case's gold answer fails its own contract
	// (GoldError), "" when none does
	goldWarning string
	caseJudge   []*tc.Judge // per plan case: its domain's judge
	rows        int
	atts        []att // row by row, attempt by attempt (rowAt)

	codes      []uint16 // error codes of judged attempts (att.codes), as ids
	codeNames  []string
	codeIDs    map[string]uint16
	sources    []source // the models and runs records name; 0 is none
	sourceIDs  map[source]uint32
	lastSource struct {
		src source
		id  uint32
		ok  bool
	}

	spool   spool
	stage   stage // details on their way to the spool
	workers int
	beside  *report.CaseResultParts // see CaseResultsBeside
	// settled: no attempt is pending, and the details are in row order in the
	// spool from settledAt
	settled   bool
	settledAt int64
	err       error // the first error reading details back while rows were built
	// beyond counts the unknown records that are this study's cases and arms
	// at a repeat or an attempt past the study's (CheckJoined)
	beyond beyondRecords
	// pcodes numbers the codes of provider error records (att.pcode)
	pcodes score.ProviderCodeIDs
	// undue counts the repair attempts a record answered that no earlier
	// attempt of its row called for (dropUndue)
	undue undueRepairs
}

// undueRepairs are the attempts dropUndue left out: how many, the first's
// request id and why it was not due.
type undueRepairs struct {
	n          int
	first, why string
}

// beyondRecords are the unknown records whose ids name a repeat past the
// study's repeats, or (within them) an attempt past its repair rounds: the
// requests were exported with more --repeats or --repairs than scoring was
// given. Each kind keeps its count, its largest number and its first record.
type beyondRecords struct {
	repeats, attempts     int
	maxRepeat, maxAttempt int
	firstRepeat           recordAt
	firstAttempt          recordAt
}

// recordAt is where a record is: its file, line and column.
type recordAt struct {
	file      string
	line, col int
}

type slot struct {
	row     int
	attempt int // 1-based
}

// New compiles each domain's judge once and lays out the rows of a plan: case
// by case, each case's repeats, each repeat's arms, so a row's place follows
// from its request id without a table of every id.
func New(plan *export.ToolcallPlan) (*Run, error) {
	run := &Run{Plan: plan, judges: map[string]*tc.Judge{}, caseIndex: make(map[string]int, len(plan.Cases)),
		codeIDs: map[string]uint16{}, sources: []source{{}}, sourceIDs: map[source]uint32{{}: 0}, settled: true}
	for d, tool := range plan.Tools {
		j, err := tc.NewJudge(tool, plan.Candidate[d])
		if err != nil {
			return nil, &contract.InputError{Msg: fmt.Sprintf("domain %s: %v", d, err)}
		}
		run.judges[d] = j
	}
	s := plan.Study
	run.prepared = make([]*tc.Case, len(plan.Cases))
	run.caseJudge = make([]*tc.Judge, len(plan.Cases))
	for i := range plan.Cases {
		c := &plan.Cases[i]
		pc, err := tc.PrepareCase(*c)
		if err != nil {
			return nil, &contract.InputError{File: s.Dataset, Msg: err.Error()}
		}
		j := run.judges[c.Domain]
		if j == nil {
			return nil, &contract.InputError{File: s.Dataset, Msg: fmt.Sprintf("case %q: no tool for domain %q", c.ID, c.Domain)}
		}
		run.caseIndex[c.ID] = i
		run.prepared[i], run.caseJudge[i] = pc, j
	}
	if err := GoldError(plan.Study.Dataset, plan.Cases); err != nil {
		// export refuses such a dataset; responses to one are scored, said
		run.goldWarning = err.Error()
	}
	run.rows = len(plan.Cases) * s.Repeats * len(s.Arms)
	run.atts = make([]att, run.rows*(s.Repairs+1))
	run.stage = newStage(run.rows)
	// the codes that are not the judge's
	run.codeID(codeMissing)
	run.codeID(codeProvider)
	return run, nil
}

// Close removes the run's temporary file. Rows cannot be built after it.
func (run *Run) Close() error {
	run.spool.close()
	return nil
}

// slotOf finds the row and attempt a request id names. Ids are
// CASE.ARM.rREPEAT.aATTEMPT (export.RequestID) with numbers written without
// leading zeros, so an id names a slot exactly when it splits into a case of the
// plan, one of its arms and numbers in range.
func (run *Run) slotOf(id []byte) (slot, bool) {
	s := run.Plan.Study
	ci, ai, rep, att, ok := run.idParts(id)
	if !ok || rep > s.Repeats || att > s.Repairs+1 {
		return slot{}, false
	}
	return slot{(ci*s.Repeats+rep-1)*len(s.Arms) + ai, att}, true
}

// idParts reads a request id as one of this study's cases and arms: the case's
// place in the plan, the arm's in the study, and the repeat and attempt numbers
// whatever the study's repeats and repair rounds (slotOf checks those).
func (run *Run) idParts(id []byte) (ci, ai, rep, att int, ok bool) {
	i := bytes.LastIndex(id, []byte(".a"))
	if i < 0 {
		return 0, 0, 0, 0, false
	}
	if att, ok = idNumber(id[i+2:]); !ok {
		return 0, 0, 0, 0, false
	}
	id = id[:i]
	if i = bytes.LastIndex(id, []byte(".r")); i < 0 {
		return 0, 0, 0, 0, false
	}
	if rep, ok = idNumber(id[i+2:]); !ok {
		return 0, 0, 0, 0, false
	}
	id = id[:i]
	for ai, arm := range run.Plan.Study.Arms {
		n := len(id) - len(arm) - 1
		if n < 0 || id[n] != '.' || string(id[n+1:]) != arm {
			continue
		}
		ci, ok := run.caseIndex[string(id[:n])]
		return ci, ai, rep, att, ok
	}
	return 0, 0, 0, 0, false
}

// idNumber reads a repeat or attempt number of a request id: 1 or more, in
// decimal without a sign or leading zeros, as strconv.Itoa writes it.
func idNumber(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 9 || b[0] == '0' {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// caseSlot finds the row a response naming only its case answers: where the
// study has one row per case and no repair rounds.
func (run *Run) caseSlot(caseID []byte) (slot, bool) {
	s := run.Plan.Study
	if s.Repeats != 1 || len(s.Arms) != 1 || s.Repairs != 0 {
		return slot{}, false
	}
	ci, ok := run.caseIndex[string(caseID)]
	return slot{ci, 1}, ok
}

// RowCount is the number of rows: (case, arm, repeat) triples of the study.
func (run *Run) RowCount() int { return run.rows }

// Judge returns the judge of a domain.
func (run *Run) Judge(domain string) *tc.Judge { return run.judges[domain] }

// lookup finds the row and attempt a response answers.
func (run *Run) lookup(resp *contract.Response) (slot, bool) {
	if resp.RequestID != "" {
		return run.slotOf([]byte(resp.RequestID))
	}
	return run.caseSlot([]byte(resp.CaseID))
}

// Read joins one response file to the rows: each record is decoded strictly and
// judged; a later record for the same request replaces an earlier one (and is
// counted); records for unknown requests are counted; lines that cannot be read
// are rejected with their reason. Only an I/O error or a broken whole-file
// document stops the reading (what was read before it is kept).
//
// Records are decoded and judged in batches on opts.Workers goroutines and their
// results applied in input order, so the rows and counts are the same whatever the
// number of workers. Memory stays flat however many records the file holds: an
// attempt keeps a fixed slot (flags, tokens, latency, model), and the text rows
// quote (an output that was not clean, a provider error, every output where the
// study has repair rounds) goes to a temporary file.
//
// Most records are judged by Judge.Quick, which only tells a clean output from
// the rest. A record that is not clean is judged in full (errors, messages) once
// every file is read (when the report or repairs are built), if no later record
// replaced it: in files that answer the same requests many times over, most
// failures never need their messages. The results are the ones Judge.Score
// gives (tested).
func (run *Run) Read(src score.Source, opts score.Options) (*score.InputStats, error) {
	if err := run.ReadAll([]score.Source{src}, opts); err != nil {
		return nil, err
	}
	return &run.Inputs[len(run.Inputs)-1], nil
}

// ReadAll reads response files in order, as Read reads each, through one
// pipeline: a batch engine's thousands of shards do not each start its
// goroutines and fill its buffers anew. Its first error ends the reading, as
// Read's would have, file by file: a file none of whose records could be read
// is the error if it comes before the error that stopped the reading.
func (run *Run) ReadAll(srcs []score.Source, opts score.Options) error {
	stats := make([]score.InputStats, len(srcs)) // what apply counted, by file
	names := make([]string, len(srcs))
	for i, src := range srcs {
		stats[i].Path, names[i] = src.Name, src.Name
	}
	workers := score.Workers(opts.Workers)
	run.workers = workers
	p := pipeline.New(workers, func() func(*pipeline.Batch[outcome]) {
		w := &worker{run: run, names: names}
		return w.judge
	}, func(b *pipeline.Batch[outcome]) bool {
		st := &stats[b.File]
		for i := range b.Out {
			if !run.apply(&b.Out[i], st) {
				return false
			}
		}
		return true
	})
	read := make([]score.InputStats, 0, len(srcs)) // what each reader saw, of the files read through
	// end stops the reading with err (nil: every file was read): the files
	// read before are kept, and the first of them none of whose records could
	// be read is the error before err
	end := func(err error) error {
		p.Close()
		if run.spool.err != nil {
			return run.spool.err
		}
		for i := range read {
			st := &stats[i]
			if st.Records > 0 && st.Accepted == 0 {
				// nothing in the file is a record: a wrong file, not a run with bad lines
				advice := ": give a JSONL file, a JSON list or a batch object of response records"
				switch first := st.Rejected[0]; {
				case first.Advised:
					advice = "" // its reason says what to do
				case first.Member != "":
					// records, each with a member written otherwise (an
					// error column of "" where there was none)
					advice = ": write that member as docs/contract.md says (null, or left out, where a record has none)"
				}
				return &exitErr{msg: fmt.Sprintf("%s; no record of the file could be read (%s)%s",
					st.Rejected[0].Reason, contract.Plural(st.Records, "record rejected", "records rejected"), advice)}
			}
			in := read[i]
			st.Shape, st.Lines, st.Warnings, st.SHA256, st.WrittenFor = in.Shape, in.Lines, in.Warnings, in.SHA256, in.WrittenFor
			if st.Records == 0 {
				st.Warnings = append(st.Warnings, score.NoRecords(st.Path))
			}
			run.Inputs = append(run.Inputs, *st)
		}
		return err
	}
	for fi, src := range srcs {
		in, err := run.readFile(p, fi, src, opts)
		if err != nil {
			return end(err)
		}
		read = append(read, in)
		if p.Stopped() {
			break
		}
	}
	return end(nil)
}

// readFile adds the records of one response file to the pipeline, as file
// fi, and returns what its reader saw of it.
func (run *Run) readFile(p *pipeline.Pipeline[outcome], fi int, src score.Source, opts score.Options) (score.InputStats, error) {
	var in score.InputStats
	r, closeFile, err := src.Reader()
	if err != nil {
		return in, err
	}
	defer closeFile()
	hr := score.NewHashingReader(r)
	defer hr.Close()
	rd := contract.NewReader(src.Name, hr, contract.ReadOptions{
		ListKeys:       []string{"responses"},
		OtherListKeys:  []string{"requests"}, // to say what the file is
		SingleRecord:   isSingleResponse,
		MaxLineBytes:   opts.MaxLineBytes,
		RecordsChecked: true, // the record scanner refuses a record that is no JSON
		CutHint:        score.CutHint,
		WrongFileHint:  score.WrongFileHint,
		TextHint:       score.TextHint,
	})
	first := true
	for rd.Scan() {
		rec := rd.Record()
		if first {
			if err := score.SniffRecord(rec, contract.SuiteToolcall); err != nil {
				return in, err
			}
			if rec.Err == nil {
				in.WrittenFor = contract.RunStudy(rec.Raw)
			}
			first = false
		}
		if !p.Add(fi, rec) {
			break
		}
	}
	p.Flush() // no batch mixes two files
	if err := rd.Err(); err != nil {
		return in, err
	}
	if err := score.CheckBatchVersion(rd, src.Name, contract.ResponseBatchV1); err != nil {
		return in, err
	}
	in.Shape = rd.Shape().String()
	in.Lines = rd.Lines()
	in.Warnings = rd.Warnings()
	in.SHA256 = hr.Finish()
	return in, nil
}

// Given says which of the study's repeats and repair rounds were given as
// flags (--repeats, --repairs) rather than taken from the study, and whether
// records made from another recipe may be scored (--allow-other-recipe).
type Given struct{ Repeats, Repairs, OtherRecipe bool }

// sameRecipe reports whether got is recipe ("sha256:" and 16 hex digits)
// written in another form: its letters in upper case, without "sha256:", or
// with the digits past the 16 (the whole sum).
func sameRecipe(got, recipe string) bool {
	want := strings.TrimPrefix(recipe, "sha256:")
	g := strings.ToLower(got)
	g = strings.TrimPrefix(g, "sha256:")
	return got != recipe && len(g) >= len(want) && strings.HasPrefix(g, want)
}

// CheckJoined returns an error when the response files held records but not one
// of them answers a request of the study: they were written for another study,
// or the study was given other flags than the export, and a report would only
// count every row missing. It also refuses records of the study's cases and
// arms past its repeats or repair rounds when those were not given: the export
// had more, and the flag was forgotten; given, the records are left out on
// purpose and counted as unknown.
//
// Before all that, it refuses records that answer the study's requests but
// name another recipe than the study's (run.recipe, as fbeval's runners copy
// it from the request): the requests were made from another dataset, schema,
// prompt template, decoding, seed, max_tokens or temperature, and scoring them as this study's would
// report a run that never was. --allow-other-recipe scores them (the report
// says so).
func (run *Run) CheckJoined(given Given) error {
	if in := run.firstOtherRecipe(); in != nil && !given.OtherRecipe {
		if kept, scored := run.otherRecipes(); kept > 0 {
			way := " (another dataset, schema, prompt template, decoding, seed, max_tokens or temperature): score them with the study, flags and files they were exported with"
			if flag := run.Plan.RecipeFlag(in.OtherRecipeName); flag != "" {
				// the flag left out, found: with it the study's recipe is theirs
				way = "; with " + flag + " it makes theirs: score them with " + flag
			} else if ends := run.Plan.RecipeLineEnds(in.OtherRecipeName); ends != "" {
				// a file's line ends changed since the export (a checkout on
				// Windows): the cases read the same, the bytes do not
				way = ": " + ends
			}
			if sameRecipe(in.OtherRecipeName, run.Plan.Recipe()) {
				// the study's own, written another way by a runner of one's own
				return recordAt{in.Path, in.OtherRecipeAt[0], in.OtherRecipeAt[1]}.error(fmt.Sprintf(
					"run.recipe %q is this study's recipe written in another form (%d of the %d records scored): a runner copies the request's recipe byte for byte (%s)",
					in.OtherRecipeName, kept, scored, run.Plan.Recipe()))
			}
			return recordAt{in.Path, in.OtherRecipeAt[0], in.OtherRecipeAt[1]}.error(fmt.Sprintf(
				"the requests these records answer were made from recipe %s (%d of the %d records scored), and this study makes its requests from %s%s, or give --allow-other-recipe to score them as this study's",
				in.OtherRecipeName, kept, scored, run.Plan.Recipe(), way))
		}
	}
	scored, unknown := 0, 0
	var first *score.InputStats
	for i := range run.Inputs {
		in := &run.Inputs[i]
		scored += in.Accepted - in.Unknown
		unknown += in.Unknown
		if first == nil && in.Unknown > 0 {
			first = in
		}
	}
	if unknown == 0 {
		return nil
	}
	if scored == 0 {
		return &contract.InputError{Kind: contract.ErrWrongFile, File: first.Path, Line: first.UnknownAt[0], Col: first.UnknownAt[1], Msg: fmt.Sprintf("none of its %s answers a request of this study (%s): %s",
			contract.Plural(unknown, "record", "records"), contract.Plural(len(run.atts), "request", "requests"), run.whyUnknown(first.FirstUnknown))}
	}
	s, b := run.Plan.Study, &run.beyond
	switch {
	case b.repeats > 0 && !given.Repeats:
		return b.firstRepeat.error(fmt.Sprintf("%s %s of this study's cases and arms, and it has %s: give --repeats %d, as the requests were exported with, or --repeats %d to leave them out",
			contract.Plural(b.repeats, "record answers", "records answer"), numbers("repeat", "repeats", s.Repeats+1, b.maxRepeat),
			contract.Plural(s.Repeats, "repeat", "repeats"), b.maxRepeat, s.Repeats))
	case b.attempts > 0 && !given.Repairs:
		return b.firstAttempt.error(fmt.Sprintf("%s %s of this study's requests, and it has %s: give --repairs %d, as the requests were exported with, or --repairs %d to leave them out",
			contract.Plural(b.attempts, "record answers", "records answer"), numbers("attempt", "attempts", s.Repairs+2, b.maxAttempt),
			contract.Plural(s.Repairs, "repair round", "repair rounds"), b.maxAttempt-1, s.Repairs))
	}
	return nil
}

// firstOtherRecipe returns the first response file with a record of another
// recipe than the study's, or nil.
func (run *Run) firstOtherRecipe() *score.InputStats {
	for i := range run.Inputs {
		if run.Inputs[i].OtherRecipe > 0 {
			return &run.Inputs[i]
		}
	}
	return nil
}

// otherRecipes counts the records scored (the last for each attempt) and those
// of them whose run names another recipe: a record of another recipe that a
// later one replaced is not scored, and does not count.
func (run *Run) otherRecipes() (kept, scored int) {
	for i := range run.atts {
		if f := run.atts[i].flags; f&fPresent != 0 {
			scored++
			if f&fOtherRecipe != 0 {
				kept++
			}
		}
	}
	return kept, scored
}

// beyondWarnings says which of the unknown records answer repeats or repair
// rounds past the study's: scoring checked (CheckJoined) that --repeats or
// --repairs was given, so they are left out on purpose, and a report that
// leaves out nine tenths of a file says which and why, not only how many
// records answer no request.
func (run *Run) beyondWarnings() []string {
	s, b := run.Plan.Study, &run.beyond
	var ws []string
	if b.repeats > 0 {
		ws = append(ws, fmt.Sprintf("%s %s of this study's cases and arms, past its %s (--repeats %d): left out, counted among the unknown ids",
			contract.Plural(b.repeats, "record answers", "records answer"), numbers("repeat", "repeats", s.Repeats+1, b.maxRepeat),
			contract.Plural(s.Repeats, "repeat", "repeats"), s.Repeats))
	}
	if b.attempts > 0 {
		ws = append(ws, fmt.Sprintf("%s %s of this study's requests, past its %s (--repairs %d): left out, counted among the unknown ids",
			contract.Plural(b.attempts, "record answers", "records answer"), numbers("attempt", "attempts", s.Repairs+2, b.maxAttempt),
			contract.Plural(s.Repairs, "repair round", "repair rounds"), s.Repairs))
	}
	return ws
}

// numbers names the numbers from lo to hi: "repeat 2", "repeats 2 to 70".
func numbers(one, many string, lo, hi int) string {
	if lo == hi {
		return fmt.Sprintf("%s %d", one, lo)
	}
	return fmt.Sprintf("%s %d to %d", many, lo, hi)
}

// error is a wrong-file error at the record.
func (at recordAt) error(msg string) error {
	return &contract.InputError{Kind: contract.ErrWrongFile, File: at.file, Line: at.line, Col: at.col, Msg: msg}
}

// noteBeyond counts an unknown record whose id is one of the study's cases
// and arms at a repeat or an attempt past the study's.
func (run *Run) noteBeyond(o *outcome, file string) {
	_, _, rep, att, ok := run.idParts([]byte(o.id))
	if !ok {
		return
	}
	s, b := run.Plan.Study, &run.beyond
	at := recordAt{file, o.line, o.col}
	switch {
	case rep > s.Repeats:
		if b.repeats == 0 {
			b.firstRepeat = at
		}
		b.repeats++
		b.maxRepeat = max(b.maxRepeat, rep)
	case att > s.Repairs+1:
		if b.attempts == 0 {
			b.firstAttempt = at
		}
		b.attempts++
		b.maxAttempt = max(b.maxAttempt, att)
	}
}

// whyUnknown says why a request id is not one of the study's.
func (run *Run) whyUnknown(id string) string {
	why, kind, flags := run.unknownReason(id)
	switch kind {
	case unknownNotAnID:
		why += "; these are not responses to a toolcall study"
	case unknownSubset:
		// none is scored: no subset was meant
		why += ": score with " + flags + " the requests were exported with"
	}
	return why
}

// Kinds of unknown request ids (unknownReason).
const (
	unknownOther   = iota
	unknownNotAnID // no toolcall request id at all
	unknownBeyond  // a known case and arm's, past the study's repeats or repair rounds
	unknownSubset  // another arm's of the suite: the study scores a subset of the export's arms
)

// requestsPerCase is how many first-attempt requests the study makes of a
// case: one for each arm and repeat.
func (run *Run) requestsPerCase() int {
	return len(run.Plan.Study.Arms) * max(run.Plan.Study.Repeats, 1)
}

// unknownReason says why a request id is not one of the study's, and which
// kind of unknown id it is (beyondWarnings says of every record beyond). For
// an id of an arm the study leaves out (unknownSubset), why is the fact alone
// and flags the study and the flag that chooses arms: its callers say what to
// do, which differs where some records are scored (a subset of an export may
// be scored on purpose) and where none is.
func (run *Run) unknownReason(id string) (why string, kind int, flags string) {
	s := run.Plan.Study
	caseID, arm, rep, attempt, ok := contract.ToolcallRequestID(id)
	if !ok {
		if _, _, _, _, ok := contract.ToolcallRequestID(strings.ToLower(strings.TrimSpace(id))); ok {
			// a runner or a script that changed the ids it was given
			return fmt.Sprintf("the first id, %q, is a toolcall request id but for its white space or letter case: write each request's request_id back as the request file has it", id), unknownOther, ""
		}
		if slices.ContainsFunc(run.Plan.Cases, func(c contract.Case) bool { return c.ID == id }) {
			// a case_id alone, which names a request only where the case has one
			asks := "asks each case " + contract.Plural(run.requestsPerCase(), "time", "times")
			if r := run.Plan.Study.Repairs; r > 0 {
				// one request a case, but repair requests may follow it
				asks += fmt.Sprintf(" and up to %s more to repair an answer", contract.Plural(r, "time", "times"))
			}
			return fmt.Sprintf("the first, %q, is a case id, not a request id: a record that names only its case_id answers the case's one request, and this study %s; give each record the request_id of its request (CASE.ARM.rREPEAT.aATTEMPT), as the request file has it", id, asks), unknownOther, ""
		}
		return fmt.Sprintf("the first id, %q, is not a toolcall request id (CASE.ARM.rREPEAT.aATTEMPT)", id), unknownNotAnID, ""
	}
	repeat, _ := strconv.Atoi(rep)
	att, _ := strconv.Atoi(attempt)
	known := false
	for i := range run.Plan.Cases {
		if run.Plan.Cases[i].ID == caseID {
			known = true
			break
		}
	}
	switch {
	case !slices.Contains(s.Arms, arm) && slices.Contains(contract.Arms, arm):
		return fmt.Sprintf("the first, %s, is for arm %s, which the study does not have (arms: %s)", id, arm, strings.Join(s.Arms, ", ")), unknownSubset, "the study and --arms"
	case !slices.Contains(s.Arms, arm):
		return fmt.Sprintf("the first, %s, is for arm %s, which the study does not have (arms: %s): score with the study and --arms the requests were exported with", id, arm, strings.Join(s.Arms, ", ")), unknownOther, ""
	case !known:
		// (a case of the dataset a filter leaves out cannot be told from
		// one of another dataset's: the plan holds the cases kept)
		return fmt.Sprintf("the first, %s, is for case %s, which this study's dataset and filter leave out: score with the study, --domain, --category, --limit and --dataset the requests were exported with", id, caseID), unknownOther, ""
	case repeat > s.Repeats:
		return fmt.Sprintf("the first, %s, is repeat %d and the study has %d: give the same --repeats as the export", id, repeat, s.Repeats), unknownBeyond, ""
	case att > s.Repairs+1:
		return fmt.Sprintf("the first, %s, is attempt %d and the study has %d repair rounds: give the same --repairs as the export", id, att, s.Repairs), unknownBeyond, ""
	}
	return fmt.Sprintf("the first is %s: score with the study and flags the requests were exported with", id), unknownOther, ""
}

// exitErr is bad input (exit 2) whose message already carries its position.
type exitErr struct{ msg string }

func (e *exitErr) Error() string { return e.msg }
func (e *exitErr) ExitCode() int { return 2 }

// Outcomes of one record.
const (
	outRejected = iota
	outUnknown
	outScored
)

// outcome is what one record did: rejected with a reason, unknown, or the
// attempt it fills.
type outcome struct {
	kind uint8
	line int
	col  int
	err  error  // why a rejected record was
	id   string // the id of an unknown record, or the request of one that names another case
	// otherCase is the case_id of a record that names another case than its
	// request's
	otherCase string
	slot      slot
	att       att
	model     string
	runner    string // the runner its run names
	settings  string // and that runner's settings
	recipe    string // the recipe its run names, when it is not the study's
	enc       []byte // the attempt's detail entry, where att has fDetail (reused with its batch)
}

// worker decodes and judges records; one per goroutine of the pipeline.
type worker struct {
	run    *Run
	names  []string // of the files, by the batch's File
	sc     tc.RecordScanner
	fields tc.RecordFields
	models map[string]string // interned model names, runners and settings: a file names few
}

// model returns b as a string, allocating once per distinct name (of a model,
// a runner, its settings).
func (w *worker) model(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if m, ok := w.models[string(b)]; ok {
		return m
	}
	if w.models == nil {
		w.models = map[string]string{}
	}
	m := string(b)
	w.models[m] = m
	return m
}

// judge fills b.Out.
func (w *worker) judge(b *pipeline.Batch[outcome]) {
	name := w.names[b.File]
	for i := range b.Out {
		w.record(name, b.Record(i), b.Lines[i], b.Cols[i], b.Errs[i], &b.Out[i])
	}
}

// record decodes and judges one record. Plain records (provider errors
// among them) take the scanner's path, which copies nothing; the rest go
// through contract.DecodeResponse, which gives the verdict and the message.
func (w *worker) record(name string, raw []byte, line, col int, rerr error, o *outcome) {
	*o = outcome{line: line, enc: o.enc[:0]}
	if rerr != nil {
		o.kind, o.err = outRejected, rerr
		return
	}
	run := w.run
	f := &w.fields
	if w.sc.Scan(raw, f) {
		var sl slot
		var ok bool
		if f.RequestID != nil {
			sl, ok = run.slotOf(f.RequestID)
		} else {
			sl, ok = run.caseSlot(f.CaseID)
		}
		if !ok {
			o.kind, o.col = outUnknown, col
			if f.RequestID != nil {
				o.id = string(f.RequestID)
			} else {
				o.id = string(f.CaseID)
			}
			return
		}
		o.kind, o.slot = outScored, sl
		o.model = w.model(f.Model)
		o.runner, o.settings = w.model(f.RunRunner), w.model(f.RunSettings)
		if f.RequestID != nil && f.CaseID != nil {
			run.checkCase(o, f.RequestID, f.CaseID)
		}
		a := &o.att
		a.flags = fPresent
		if f.Recipe != nil && string(f.Recipe) != run.Plan.Recipe() {
			o.recipe, o.col = string(f.Recipe), col
			a.flags |= fOtherRecipe
		}
		if f.HasInput {
			a.flags, a.in = a.flags|fIn, f.InputTokens
		}
		if f.HasOutputTok {
			a.flags, a.out = a.flags|fOut, f.OutputTokens
		}
		if f.HasLatency {
			a.flags, a.lat = a.flags|fLat, f.LatencyMS
		}
		if f.HasError {
			a.flags |= fProvider | fDetail
			o.enc = appendProviderDetail(o.enc, f.Output, f.ErrorCode, f.ErrorMessage, nil)
			return
		}
		a.flags |= answerFlags(f.Output, f.FinishReason)
		run.judgeQuick(sl.row, f.Output, o)
		return
	}
	rec := &contract.Record{File: name, Line: line, Col: col, Raw: raw}
	resp, err := contract.DecodeResponse(rec)
	if err != nil {
		o.kind, o.err = outRejected, err
		return
	}
	sl, ok := run.lookup(&resp)
	if !ok {
		o.kind, o.col = outUnknown, col
		o.id = resp.RequestID
		if o.id == "" {
			o.id = resp.CaseID
		}
		return
	}
	o.kind, o.slot = outScored, sl
	o.model = w.model([]byte(resp.Model))
	o.runner, o.settings = w.model([]byte(resp.RunRunner)), w.model([]byte(resp.RunSettings))
	if resp.RequestID != "" && resp.CaseID != "" {
		run.checkCase(o, []byte(resp.RequestID), []byte(resp.CaseID))
	}
	a := &o.att
	a.flags = fPresent
	if resp.Recipe != "" && resp.Recipe != run.Plan.Recipe() {
		o.recipe, o.col = resp.Recipe, col
		a.flags |= fOtherRecipe
	}
	if resp.InputTokens != nil {
		a.flags, a.in = a.flags|fIn, *resp.InputTokens
	}
	if resp.OutputTokens != nil {
		a.flags, a.out = a.flags|fOut, *resp.OutputTokens
	}
	if resp.LatencyMS != nil {
		a.flags, a.lat = a.flags|fLat, *resp.LatencyMS
	}
	if resp.Error != nil {
		a.flags |= fProvider | fDetail
		o.enc = appendDetail(o.enc, []byte(resp.Output), resp.Error, nil)
		return
	}
	a.flags |= answerFlags([]byte(resp.Output), []byte(resp.FinishReason))
	run.judgeQuick(sl.row, []byte(resp.Output), o)
}

// checkCase notes in o a record whose case_id is not the case of the request
// its request_id names: a runner that mixed the two up, or files merged by
// hand. The request_id decides the row; the record is scored as the request's.
func (run *Run) checkCase(o *outcome, requestID, caseID []byte) {
	if want := run.caseOf(run.placeOf(o.slot.row)).ID; string(caseID) != want {
		o.id, o.otherCase = string(requestID), string(caseID)
	}
}

// answerFlags marks an answer whose output is blank (empty or white space: a
// runner that took no text from the model's answer, a reasoning model that
// spent its tokens before it answered), one that holds the model's thinking
// (contract.HoldsThinking), one the model stopped at its token limit and one
// a safety system stopped or withheld, or the model refused on safety grounds
// (contract.FinishReason).
func answerFlags(output, finishReason []byte) uint32 {
	var f uint32
	if contract.BlankText(output) {
		f |= fBlank
	} else if contract.HoldsThinking(output) {
		f |= fThinking
	}
	switch contract.FinishReason(finishReason) {
	case contract.FinishCut:
		f |= fCutShort
	case contract.FinishFiltered:
		f |= fFiltered
	}
	return f
}

// judgeQuick gives o's attempt its verdict when the output is clean, and
// otherwise marks it pending: most such records are replaced by a later one
// for the same request, so the errors and their messages are made (by settle)
// only for the one that stays. Either way the output is kept as its detail.
func (run *Run) judgeQuick(row int, output []byte, o *outcome) {
	ci := run.placeOf(row).ci
	r, ok := run.caseJudge[ci].Quick(output, run.prepared[ci])
	a := &o.att
	if ok {
		a.flags |= resultFlags(&r)
	} else {
		a.flags |= fPending
		switch {
		case contract.ToolCallForm(output) != "":
			a.flags |= fToolCallForm
		case contract.WrappedAnswer(output) != "":
			a.flags |= fWrapped
		case contract.EncodedTwice(output):
			a.flags |= fEncodedTwice
		case contract.ListedAnswer(output):
			a.flags |= fListed
		}
		if a.flags&fEncodedTwice != 0 || contract.Quoted(output) {
			a.flags |= fQuoted // encoded twice is in quotes, read once already
		}
	}
	// every output is kept: the report quotes each attempt's, passing ones
	// included (its attempt_results, the page's samples)
	a.flags |= fDetail
	o.enc = appendDetail(o.enc, output, nil, nil)
}

// resultFlags are the flags of a judge's verdict.
func resultFlags(r *tc.Result) uint32 {
	var f uint32
	if r.Success {
		f |= fSuccess
	}
	if r.SemanticallyRight {
		f |= fSemantic
	}
	if r.CandidateValid {
		f |= fCandValid
	}
	if r.Action == contract.ActionCallTool {
		f |= fCall
	}
	return f
}

// apply adds one record's outcome to the rows and the file's counts; it stops
// the reading when the detail cannot be written.
func (run *Run) apply(o *outcome, st *score.InputStats) bool {
	st.Records++
	switch o.kind {
	case outRejected:
		st.Reject(score.RejectionOf(o.line, o.err))
		return true
	case outUnknown:
		st.Accepted++
		if st.Unknown == 0 {
			st.FirstUnknown, st.UnknownAt = o.id, [2]int{o.line, o.col}
		}
		st.Unknown++
		run.noteBeyond(o, st.Path)
		return true
	}
	st.Accepted++
	if o.otherCase != "" {
		if st.OtherCase == 0 {
			st.OtherCaseNote = fmt.Sprintf("line %d: request %s is of case %s, the record names %s", o.line, o.id, run.caseOf(run.placeOf(o.slot.row)).ID, o.otherCase)
		}
		st.OtherCase++
	}
	if o.recipe != "" {
		if st.OtherRecipe == 0 {
			st.OtherRecipeName, st.OtherRecipeAt = o.recipe, [2]int{o.line, o.col}
		}
		st.OtherRecipe++
	}
	i := o.slot.row*(run.Plan.Study.Repairs+1) + o.slot.attempt - 1
	a := &run.atts[i]
	src := run.sourceID(source{o.model, o.runner, o.settings})
	if a.has(fPresent) {
		st.Duplicates++
		if before := run.sources[a.src].model; before != "" && o.model != "" && before != o.model {
			if st.OtherModel == 0 {
				st.OtherModelNote = fmt.Sprintf("line %d: %s's, after %s's", o.line, o.model, before)
			}
			st.OtherModel++
		}
		if o.att.has(fProvider) && a.ok() {
			// an answer stands over an error after it (two runs' files
			// joined): the runners take the request as answered and never
			// ask it again, as fbeval-batch keeps the answer
			st.ErrorsAfterAnswer++
			return true
		}
	}
	*a = o.att
	a.src = src
	if a.has(fProvider) {
		a.pcode = run.providerCode(o.enc)
	}
	if a.has(fDetail) {
		a.detLen = uint32(len(o.enc))
		if run.stageEntry(i, o.slot.row, o.enc) != nil {
			return false
		}
	}
	run.settled = false
	return true
}

// providerCode numbers the code of a provider error record, read from its
// detail.
func (run *Run) providerCode(enc []byte) uint8 {
	code := ""
	if d, err := decodeDetail(enc, true); err == nil && d.provider != nil {
		code = d.provider.Code
	}
	return run.pcodes.ID(code)
}

// repairDue reports whether a repair request is due for row r of plan case
// ci, and the attempt n its latest response is: that attempt failed with
// public feedback (Repairs) and the study allows attempt n+1. It reads the
// attempt's codes, not its detail, so RepairsDue reads nothing back.
func (run *Run) repairDue(r row, ci int) (n int, due bool) {
	a, n := r.latest()
	if a == nil || n > run.Plan.Study.Repairs {
		return n, false
	}
	due, _ = run.dueAfter(a, ci)
	return n, due
}

// dueAfter says whether a repair attempt follows a, an earlier attempt of a
// row of case ci: a answered, not a provider error, failed, with public
// feedback a repair shows the model. When not, why says why.
func (run *Run) dueAfter(a *att, ci int) (due bool, why string) {
	switch {
	case !a.has(fPresent):
		return false, "has no response"
	case a.has(fProvider):
		return false, "is a provider error"
	case a.has(fSuccess):
		return false, "succeeded"
	}
	pc := run.prepared[ci]
	if !slices.ContainsFunc(run.codesOf(a), func(id uint16) bool { return tc.PublicCode(run.codeNames[id], pc) }) {
		return false, "failed with no feedback a repair shows the model"
	}
	return true, ""
}

// dropUndue leaves out the repair attempts no earlier attempt of their row
// called for: a repair round's records scored with another run of the round
// before it (run again after its repairs were exported), or with its
// records missing. Such a record answers a conversation these attempts never
// had; scored, it took final success from a row whose first attempt had
// succeeded. Rows are walked attempt by attempt, so an attempt after a left
// out one is left out too.
func (run *Run) dropUndue() {
	per := run.Plan.Study.Repairs + 1
	if per == 1 {
		return
	}
	for i := range run.rows {
		r := run.rowAt(i)
		for k := 1; k < per; k++ {
			if !r[k].has(fPresent) {
				continue
			}
			if due, why := run.dueAfter(&r[k-1], run.placeOf(i).ci); !due {
				if run.undue.n == 0 {
					p := run.placeOf(i)
					run.undue.first = export.RequestID(run.Plan.Cases[p.ci].ID, p.arm, p.repeat, k+1)
					run.undue.why = fmt.Sprintf("its attempt %d %s", k, why)
				}
				run.undue.n++
				r[k] = att{}
			}
		}
	}
}

// RepairsDue counts the rows a repair request is due for, by the attempt the
// request would be (due[k] rows at attempt k+2), without building them: a
// score given fewer repair rounds than the study allows says how many rows
// were never retried.
func (run *Run) RepairsDue() (due []int, err error) {
	if err := run.settle(); err != nil {
		return nil, err
	}
	for i := range run.rows {
		if n, ok := run.repairDue(run.rowAt(i), run.placeOf(i).ci); ok {
			for len(due) < n {
				due = append(due, 0)
			}
			due[n-1]++
		}
	}
	return due, nil
}

// isSingleResponse tells a whole-file object that is one response record from a
// batch object: one that names its request or case and holds no list of
// records. A record without an answer (or a request) is one too, so that it is
// named as one is on a line of a longer file.
func isSingleResponse(names []string) bool {
	id := slices.Contains(names, "request_id") || slices.Contains(names, "case_id")
	return id && !slices.Contains(names, "responses") && !slices.Contains(names, "answers")
}

// HeldBytes is what the run holds for the whole study, whatever the records:
// its slots and, at most, the buffers its details are staged in.
func (run *Run) HeldBytes() int64 {
	return int64(len(run.atts))*int64(unsafe.Sizeof(att{})) + int64(len(run.stage.bufs))*int64(run.stage.size)
}

// Repairs returns what export needs to build the next attempt of every row whose
// latest attempt failed with public feedback, up to the study's repairs: every
// earlier attempt's output and the public feedback on it, as text a model may be
// shown (export.ToolcallPlan.RepairRequests builds the requests). Rows without
// feedback (a wrong answer the model cannot be told about, a provider error, no
// response) get no repair. EachRepair hands them over one at a time.
func (run *Run) Repairs() ([]export.Repair, error) {
	var out []export.Repair
	err := run.EachRepair(func(r *export.Repair) error {
		out = append(out, *r)
		return nil
	})
	return out, err
}

// EachRepair calls yield with the repair of every row that has one, in row
// order, one at a time: a repair round's requests are written as they are
// built, so memory does not grow with the study (all of them were held, about
// 2.4 KB a row). RepairsDue counts them first. The first error of yield ends it.
func (run *Run) EachRepair(yield func(*export.Repair) error) error {
	if err := run.settle(); err != nil {
		return err
	}
	var failed error
	for sr := range run.settledRows {
		r, dets, p, c := sr.r, sr.dets, sr.p, sr.c
		n, due := run.repairDue(r, p.ci)
		if !due {
			continue
		}
		pc := run.prepared[p.ci]
		turns := make([]export.RepairTurn, n)
		for k := range turns {
			if prev := &r[k]; !prev.has(fPresent) || prev.has(fProvider) {
				failed = fmt.Errorf("%s: attempt %d has no usable response, so attempt %d cannot be built",
					export.RequestID(c.ID, p.arm, p.repeat, 1), k+1, n+1)
				break
			}
			turns[k] = export.RepairTurn{Output: dets[k].output, Feedback: tc.FeedbackText(tc.Result{Errors: dets[k].errors}.PublicFeedback(pc))}
		}
		if failed == nil {
			failed = yield(&export.Repair{Case: c, Arm: p.arm, Repeat: p.repeat, Turns: turns})
		}
		if failed != nil {
			break
		}
	}
	if failed != nil {
		return failed
	}
	return run.err
}
