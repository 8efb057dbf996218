package study

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/export"
	"github.com/fbeval/fbeval/score"
	tc "github.com/fbeval/fbeval/score/toolcall"
)

// attempt is what one response said for one attempt of a row.
type attempt struct {
	present  bool
	provider *contract.ProviderError
	// pending: result is not judged yet (the output was not clean); settle
	// judges it in full once the file is read, if it is still the row's attempt
	pending   bool
	result    tc.Result
	output    string
	inTokens  *int64
	outTokens *int64
	latency   *float64
	model     string // as the record gives it (interned per worker)
}

// usage holds an attempt's token counts and latency, which it points to.
type usage struct {
	in, out int64
	latency float64
}

// caseRow is one (case, arm, repeat) of a study with all its attempts.
type caseRow struct {
	Case     *contract.Case
	Prepared *tc.Case
	Arm      string
	Repeat   int
	attempts []attempt // index attempt-1
	judge    *tc.Judge // the judge of the case's domain
}

// latest returns the last attempt that has a response, and its number (0 if none).
func (r *caseRow) latest() (*attempt, int) {
	for i := len(r.attempts) - 1; i >= 0; i-- {
		if r.attempts[i].present {
			return &r.attempts[i], i + 1
		}
	}
	return nil, 0
}

func (r *caseRow) first() *attempt { return &r.attempts[0] }

// firstSuccess is the first attempt's success: a missing response or a provider
// error is a failure.
func (r *caseRow) firstSuccess() bool {
	a := r.first()
	return a.present && a.provider == nil && a.result.Success
}

// finalSuccess is the success of the latest attempt with a response.
func (r *caseRow) finalSuccess() bool {
	a, _ := r.latest()
	return a != nil && a.provider == nil && a.result.Success
}

// providerError reports whether any attempt of the row ended in a provider error
// (a runner does not repair after one, so it is the last).
func (r *caseRow) providerError() bool {
	for i := range r.attempts {
		if r.attempts[i].present && r.attempts[i].provider != nil {
			return true
		}
	}
	return false
}

// latency is the row's time over all its attempts, as HESchema times a row; ok is
// false when an attempt's latency is unknown or the row has a provider error.
func (r *caseRow) latency() (ms float64, ok bool) {
	n := 0
	for i := range r.attempts {
		a := &r.attempts[i]
		if !a.present {
			continue
		}
		if a.provider != nil || a.latency == nil {
			return 0, false
		}
		ms += *a.latency
		n++
	}
	if math.IsInf(ms, 0) {
		ms = math.MaxFloat64 // latencies are finite and never negative: only the sum can overflow
	}
	return ms, n > 0
}

// repairs is the number of repair attempts with a response.
func (r *caseRow) repairs() int {
	n := 0
	for _, a := range r.attempts[1:] {
		if a.present {
			n++
		}
	}
	return n
}

// Run holds every row of a study after its responses were joined.
type Run struct {
	Plan   *export.ToolcallPlan
	rows   []*caseRow
	Inputs []score.InputStats
	judges map[string]*tc.Judge
	// caseIndex is each case's place in the plan; rows and request ids follow
	// from it (slotOf)
	caseIndex map[string]int
}

type slot struct {
	row     int
	attempt int // 1-based
}

// New compiles each domain's judge once and lays out the rows of a plan: case
// by case, each case's repeats, each repeat's arms, so a row's place follows
// from its request id without a table of every id.
func New(plan *export.ToolcallPlan) (*Run, error) {
	run := &Run{Plan: plan, judges: map[string]*tc.Judge{}, caseIndex: make(map[string]int, len(plan.Cases))}
	for d, tool := range plan.Tools {
		j, err := tc.NewJudge(tool, plan.Candidate[d])
		if err != nil {
			return nil, &contract.InputError{Msg: fmt.Sprintf("domain %s: %v", d, err)}
		}
		run.judges[d] = j
	}
	s := plan.Study
	perCase := s.Repeats * len(s.Arms)
	rows := make([]caseRow, len(plan.Cases)*perCase)
	attempts := make([]attempt, len(rows)*(s.Repairs+1))
	run.rows = make([]*caseRow, 0, len(rows))
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
		for r := 1; r <= s.Repeats; r++ {
			for _, arm := range s.Arms {
				row := &rows[len(run.rows)]
				at := attempts[len(run.rows)*(s.Repairs+1):][: s.Repairs+1 : s.Repairs+1]
				*row = caseRow{Case: c, Prepared: pc, Arm: arm, Repeat: r, attempts: at, judge: j}
				run.rows = append(run.rows, row)
			}
		}
	}
	return run, nil
}

// slotOf finds the row and attempt a request id names. Ids are
// CASE.ARM.rREPEAT.aATTEMPT (export.RequestID) with numbers written without
// leading zeros, so an id names a slot exactly when it splits into a case of the
// plan, one of its arms and numbers in range.
func (run *Run) slotOf(id []byte) (slot, bool) {
	s := run.Plan.Study
	i := bytes.LastIndex(id, []byte(".a"))
	if i < 0 {
		return slot{}, false
	}
	att, ok := idNumber(id[i+2:])
	if !ok || att > s.Repairs+1 {
		return slot{}, false
	}
	id = id[:i]
	if i = bytes.LastIndex(id, []byte(".r")); i < 0 {
		return slot{}, false
	}
	rep, ok := idNumber(id[i+2:])
	if !ok || rep > s.Repeats {
		return slot{}, false
	}
	id = id[:i]
	for ai, arm := range s.Arms {
		n := len(id) - len(arm) - 1
		if n < 0 || id[n] != '.' || string(id[n+1:]) != arm {
			continue
		}
		ci, ok := run.caseIndex[string(id[:n])]
		if !ok {
			return slot{}, false
		}
		return slot{(ci*s.Repeats+rep-1)*len(s.Arms) + ai, att}, true
	}
	return slot{}, false
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
func (run *Run) RowCount() int { return len(run.rows) }

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
// number of workers. Memory stays flat however many records the file holds: a
// row keeps one result per attempt, and the output text only where it failed (or
// where the study has repair rounds, which quote it).
//
// Most records are judged by Judge.Quick, which only tells a clean output from
// the rest. A record that is not clean keeps its output and is judged in full
// (errors, messages) once the file is read, if no later record replaced it: in
// files that answer the same requests many times over, most failures never need
// their messages. The results are the ones Judge.Score gives (tested).
func (run *Run) Read(src score.Source, opts score.Options) (*score.InputStats, error) {
	hr := score.NewHashingReader(src.R)
	rd := contract.NewReader(src.Name, hr, contract.ReadOptions{
		ListKeys:      []string{"responses"},
		OtherListKeys: []string{"requests"}, // to say what the file is
		SingleRecord:  isSingleResponse,
		MaxLineBytes:  opts.MaxLineBytes,
	})
	st := &score.InputStats{Path: src.Name}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	p := score.NewPipeline(workers, func() func(*score.Batch[outcome]) {
		w := &worker{run: run, name: st.Path}
		return w.judge
	}, func(b *score.Batch[outcome]) bool {
		for i := range b.Out {
			run.apply(&b.Out[i], st)
		}
		return true
	})
	var err error
	first := true
	for rd.Scan() {
		rec := rd.Record()
		if first {
			if err = score.SniffRecord(rec, contract.SuiteToolcall); err != nil {
				break
			}
			first = false
		}
		p.Add(0, rec)
	}
	p.Close()
	// what was read stays in the rows even when the reading failed: judge it
	run.settle(workers)
	if err != nil {
		return nil, err
	}
	if err := rd.Err(); err != nil {
		return nil, err
	}
	if err := score.CheckBatchVersion(rd, src.Name, contract.ResponseBatchV1); err != nil {
		return nil, err
	}
	if st.Records > 0 && st.Accepted == 0 {
		// nothing in the file is a record: a wrong file, not a run with bad lines
		return nil, &exitErr{msg: fmt.Sprintf("%s; no record of the file could be read (%s): give a JSONL file, a JSON list or a batch object of response records",
			st.Rejected[0].Reason, score.Plural(st.Records, "record rejected", "records rejected"))}
	}
	st.Shape = rd.Shape().String()
	st.Lines = rd.Lines()
	st.Warnings = rd.Warnings()
	st.SHA256 = hr.Finish()
	run.Inputs = append(run.Inputs, *st)
	return st, nil
}

// CheckJoined returns an error when the response files held records but not one
// of them answers a request of the study: they were written for another study,
// or the study was given other flags than the export, and a report would only
// count every row missing.
func (run *Run) CheckJoined() error {
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
	if scored > 0 || unknown == 0 {
		return nil
	}
	return &contract.InputError{Kind: contract.ErrWrongFile, File: first.Path, Line: first.UnknownAt[0], Col: first.UnknownAt[1], Msg: fmt.Sprintf("none of its %s answers a request of this study (%s): %s",
		score.Plural(unknown, "record", "records"), score.Plural(len(run.rows)*(run.Plan.Study.Repairs+1), "request", "requests"), run.whyUnknown(first.FirstUnknown))}
}

// whyUnknown says why a request id is not one of the study's.
func (run *Run) whyUnknown(id string) string {
	s := run.Plan.Study
	m := requestIDParts.FindStringSubmatch(id)
	if m == nil {
		return fmt.Sprintf("the first id, %q, is not a toolcall request id (CASE.ARM.rREPEAT.aATTEMPT); these are not responses to a toolcall study", id)
	}
	caseID, arm := m[1], m[2]
	repeat, _ := strconv.Atoi(m[3])
	att, _ := strconv.Atoi(m[4])
	known := false
	for i := range run.Plan.Cases {
		if run.Plan.Cases[i].ID == caseID {
			known = true
			break
		}
	}
	switch {
	case !slices.Contains(s.Arms, arm):
		return fmt.Sprintf("the first, %s, is for arm %s, which the study does not have (arms: %s): score with the study and --arms the requests were exported with", id, arm, strings.Join(s.Arms, ", "))
	case !known:
		return fmt.Sprintf("the first, %s, is for case %s, which this study's dataset and filter leave out: score with the study, --domain, --category, --limit and --dataset the requests were exported with", id, caseID)
	case repeat > s.Repeats:
		return fmt.Sprintf("the first, %s, is repeat %d and the study has %d: give the same --repeats as the export", id, repeat, s.Repeats)
	case att > s.Repairs+1:
		return fmt.Sprintf("the first, %s, is attempt %d and the study has %d repair rounds: give the same --repairs as the export", id, att, s.Repairs)
	}
	return fmt.Sprintf("the first is %s: score with the study and flags the requests were exported with", id)
}

var requestIDParts = regexp.MustCompile(`^(.+)\.([a-z_]+)\.r([0-9]+)\.a([0-9]+)$`)

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
	kind   uint8
	line   int
	col    int
	reason string
	id     string // the id of an unknown record
	slot   slot
	att    attempt
}

// worker decodes and judges records; one per goroutine of the pipeline.
type worker struct {
	run    *Run
	name   string
	sc     tc.RecordScanner
	fields tc.RecordFields
	models map[string]string // interned model names: a file names few
}

// model returns b as a string, allocating once per distinct name.
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
func (w *worker) judge(b *score.Batch[outcome]) {
	for i := range b.Out {
		w.record(b.Record(i), b.Lines[i], b.Cols[i], b.Errs[i], &b.Out[i])
	}
}

// record decodes and judges one record. Plain records take the scanner's path,
// which copies nothing but a failed output; the rest go through
// contract.DecodeResponse, which gives the verdict and the message.
func (w *worker) record(raw []byte, line, col int, rerr error, o *outcome) {
	*o = outcome{line: line}
	if rerr != nil {
		o.kind, o.reason = outRejected, rerr.Error()
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
		row := run.rows[sl.row]
		o.kind, o.slot = outScored, sl
		a := &o.att
		a.present = true
		a.model = w.model(f.Model)
		run.judgeQuick(row, f.Output, "", a)
		if f.HasInput || f.HasOutputTok || f.HasLatency {
			// one allocation for the three numbers runners write on every record
			u := &usage{f.InputTokens, f.OutputTokens, f.LatencyMS}
			if f.HasInput {
				a.inTokens = &u.in
			}
			if f.HasOutputTok {
				a.outTokens = &u.out
			}
			if f.HasLatency {
				a.latency = &u.latency
			}
		}
		return
	}
	rec := &contract.Record{File: w.name, Line: line, Col: col, Raw: raw}
	resp, err := contract.DecodeResponse(rec)
	if err != nil {
		o.kind, o.reason = outRejected, err.Error()
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
	row := run.rows[sl.row]
	o.kind, o.slot = outScored, sl
	o.att = attempt{present: true, provider: resp.Error, model: w.model([]byte(resp.Model)),
		inTokens: resp.InputTokens, outTokens: resp.OutputTokens, latency: resp.LatencyMS}
	if resp.Error != nil {
		o.att.output = resp.Output
		return
	}
	run.judgeQuick(row, []byte(resp.Output), resp.Output, &o.att)
}

// judgeQuick gives a its result when the output is clean, and otherwise keeps the
// output and marks a pending: most such records are replaced by a later one for
// the same request, so the errors and their messages are made (by settle) only
// for the one that stays. text is output as a string, or "" to copy it.
func (run *Run) judgeQuick(row *caseRow, output []byte, text string, a *attempt) {
	r, ok := row.judge.Quick(output, row.Prepared)
	if ok {
		a.result = r
	} else {
		a.pending = true
	}
	if !ok || run.keepOutput(&a.result) {
		if text == "" {
			text = string(output)
		}
		a.output = text
	}
}

// settle judges in full the attempts whose records were not clean, now that no
// later record can replace them, on up to workers goroutines.
func (run *Run) settle(workers int) {
	type item struct {
		row *caseRow
		a   *attempt
	}
	var todo []item
	for _, row := range run.rows {
		for i := range row.attempts {
			if a := &row.attempts[i]; a.pending {
				todo = append(todo, item{row, a})
			}
		}
	}
	judge := func(it item) {
		it.a.result = it.row.judge.Score(it.a.output, it.row.Prepared)
		it.a.pending = false
		if !run.keepOutput(&it.a.result) {
			it.a.output = ""
		}
	}
	workers = min(workers, len(todo)/64+1)
	if workers <= 1 {
		for _, it := range todo {
			judge(it)
		}
		return
	}
	var wg sync.WaitGroup
	per := (len(todo) + workers - 1) / workers
	for part := range slices.Chunk(todo, per) {
		wg.Go(func() {
			for _, it := range part {
				judge(it)
			}
		})
	}
	wg.Wait()
}

// keepOutput says whether an attempt's output text is kept: reports quote the
// output of a failed row, and repair turns quote every earlier output.
func (run *Run) keepOutput(r *tc.Result) bool {
	return !r.Success || run.Plan.Study.Repairs > 0
}

// apply adds one record's outcome to the rows and the file's counts.
func (run *Run) apply(o *outcome, st *score.InputStats) {
	st.Records++
	switch o.kind {
	case outRejected:
		st.Reject(score.Rejection{Line: o.line, Reason: o.reason})
		return
	case outUnknown:
		st.Accepted++
		if st.Unknown == 0 {
			st.FirstUnknown, st.UnknownAt = o.id, [2]int{o.line, o.col}
		}
		st.Unknown++
		return
	}
	st.Accepted++
	a := &run.rows[o.slot.row].attempts[o.slot.attempt-1]
	if a.present {
		st.Duplicates++
	}
	*a = o.att
}

// isSingleResponse tells a whole-file object that is one response record from a
// batch object.
func isSingleResponse(names []string) bool {
	id := slices.Contains(names, "request_id") || slices.Contains(names, "case_id")
	out := slices.Contains(names, "output") || slices.Contains(names, "text") ||
		slices.Contains(names, "completion") || slices.Contains(names, "error")
	// a request is one record too, so that it is named as one
	req := slices.Contains(names, "messages") || slices.Contains(names, "prompt")
	return id && (out || req)
}

// Repairs returns what export needs to build the next attempt of every row whose
// latest attempt failed with public feedback, up to the study's repairs: every
// earlier attempt's output and the public feedback on it, as text a model may be
// shown (export.ToolcallPlan.RepairRequests builds the requests). Rows without
// feedback (a wrong answer the model cannot be told about, a provider error, no
// response) get no repair.
func (run *Run) Repairs() ([]export.Repair, error) {
	var out []export.Repair
	for _, row := range run.rows {
		a, n := row.latest()
		if a == nil || a.provider != nil || a.result.Success || n > run.Plan.Study.Repairs {
			continue
		}
		if len(a.result.PublicFeedback(row.Prepared)) == 0 {
			continue
		}
		turns := make([]export.RepairTurn, n)
		for k := range turns {
			prev := &row.attempts[k]
			if !prev.present || prev.provider != nil {
				return nil, fmt.Errorf("%s: attempt %d has no usable response, so attempt %d cannot be built",
					export.RequestID(row.Case.ID, row.Arm, row.Repeat, 1), k+1, n+1)
			}
			turns[k] = export.RepairTurn{Output: prev.output, Feedback: tc.FeedbackText(prev.result.PublicFeedback(row.Prepared))}
		}
		out = append(out, export.Repair{Case: row.Case, Arm: row.Arm, Repeat: row.Repeat, Turns: turns})
	}
	return out, nil
}
