package score

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/export"
	tc "github.com/fbeval/fbeval/score/toolcall"
)

// Options tune scoring without changing results.
type Options struct {
	MaxLineBytes int // longest response line read (0: the contract default)
}

// attempt is what one response said for one attempt of a row.
type attempt struct {
	present   bool
	provider  *contract.ProviderError
	result    tc.Result
	output    string
	inTokens  *int64
	outTokens *int64
	latency   *float64
}

// Row is one (case, arm, repeat) of a study with all its attempts.
type Row struct {
	Case     *contract.Case
	Prepared *tc.Case
	Arm      string
	Repeat   int
	attempts []attempt // index attempt-1
}

// latest returns the last attempt that has a response, and its number (0 if none).
func (r *Row) latest() (*attempt, int) {
	for i := len(r.attempts) - 1; i >= 0; i-- {
		if r.attempts[i].present {
			return &r.attempts[i], i + 1
		}
	}
	return nil, 0
}

func (r *Row) first() *attempt { return &r.attempts[0] }

// firstSuccess is the first attempt's success: a missing response or a provider
// error is a failure.
func (r *Row) firstSuccess() bool {
	a := r.first()
	return a.present && a.provider == nil && a.result.Success
}

// finalSuccess is the success of the latest attempt with a response.
func (r *Row) finalSuccess() bool {
	a, _ := r.latest()
	return a != nil && a.provider == nil && a.result.Success
}

// repairs is the number of repair attempts with a response.
func (r *Row) repairs() int {
	n := 0
	for _, a := range r.attempts[1:] {
		if a.present {
			n++
		}
	}
	return n
}

// ToolcallRun holds every row of a study after its responses were joined.
type ToolcallRun struct {
	Plan   *export.ToolcallPlan
	Rows   []*Row
	Inputs []InputStats
	judges map[string]*tc.Judge
	byID   map[string]slot
	byCase map[string]int // case id -> row, where a case has exactly one row
}

type slot struct {
	row     int
	attempt int // 1-based
}

// NewToolcallRun compiles each domain's judge once and lays out the rows of a plan.
func NewToolcallRun(plan *export.ToolcallPlan) (*ToolcallRun, error) {
	run := &ToolcallRun{Plan: plan, judges: map[string]*tc.Judge{}, byID: map[string]slot{}, byCase: map[string]int{}}
	for d, tool := range plan.Tools {
		j, err := tc.NewJudge(tool, plan.Candidate[d])
		if err != nil {
			return nil, &contract.InputError{Msg: fmt.Sprintf("domain %s: %v", d, err)}
		}
		run.judges[d] = j
	}
	s := plan.Study
	perCase := map[string]int{}
	for i := range plan.Cases {
		c := &plan.Cases[i]
		pc, err := tc.PrepareCase(*c)
		if err != nil {
			return nil, &contract.InputError{File: s.Dataset, Msg: err.Error()}
		}
		for r := 1; r <= s.Repeats; r++ {
			for _, arm := range s.Arms {
				row := &Row{Case: c, Prepared: pc, Arm: arm, Repeat: r, attempts: make([]attempt, s.Repairs+1)}
				idx := len(run.Rows)
				run.Rows = append(run.Rows, row)
				for a := 1; a <= s.Repairs+1; a++ {
					run.byID[export.RequestID(c.ID, arm, r, a)] = slot{idx, a}
				}
				run.byCase[c.ID] = idx
				perCase[c.ID]++
			}
		}
	}
	for id, n := range perCase {
		if n != 1 {
			delete(run.byCase, id)
		}
	}
	return run, nil
}

// Judge returns the judge of a domain.
func (run *ToolcallRun) Judge(domain string) *tc.Judge { return run.judges[domain] }

// lookup finds the row and attempt a response answers.
func (run *ToolcallRun) lookup(resp *contract.Response) (slot, bool) {
	if resp.RequestID != "" {
		s, ok := run.byID[resp.RequestID]
		return s, ok
	}
	if i, ok := run.byCase[resp.CaseID]; ok && run.Plan.Study.Repairs == 0 {
		return slot{i, 1}, true
	}
	return slot{}, false
}

// Read joins one response file to the rows: each record is decoded strictly and
// judged; a later record for the same request replaces an earlier one (and is
// counted); records for unknown requests are counted; lines that cannot be read
// are rejected with their reason. Only an I/O error or a broken whole-file
// document stops the reading.
func (run *ToolcallRun) Read(src Source, opts Options) (*InputStats, error) {
	hr := newHashingReader(src.R)
	rd := contract.NewReader(src.Name, hr, contract.ReadOptions{
		ListKeys:     []string{"responses"},
		SingleRecord: isSingleResponse,
		MaxLineBytes: opts.MaxLineBytes,
	})
	st := &InputStats{Path: src.Name}
	seen := make(map[slot]bool)
	for rd.Scan() {
		rec := rd.Record()
		st.Records++
		if rec.Err != nil {
			st.Rejected = append(st.Rejected, Rejection{Line: rec.Line, Reason: rec.Err.Error()})
			continue
		}
		resp, err := contract.DecodeResponse(rec)
		if err != nil {
			st.Rejected = append(st.Rejected, Rejection{Line: rec.Line, Reason: err.Error()})
			continue
		}
		st.Accepted++
		sl, ok := run.lookup(&resp)
		if !ok {
			st.Unknown++
			continue
		}
		row := run.Rows[sl.row]
		a := &row.attempts[sl.attempt-1]
		if a.present {
			st.Duplicates++
		}
		seen[sl] = true
		*a = attempt{present: true, provider: resp.Error, output: resp.Output,
			inTokens: resp.InputTokens, outTokens: resp.OutputTokens, latency: resp.LatencyMS}
		if resp.Error == nil {
			a.result = run.judges[row.Case.Domain].Score(resp.Output, row.Prepared)
		}
	}
	if err := rd.Err(); err != nil {
		return nil, err
	}
	st.Shape = rd.Shape().String()
	st.Lines = rd.Lines()
	st.Warnings = rd.Warnings()
	st.SHA256 = hr.finish()
	run.Inputs = append(run.Inputs, *st)
	return st, nil
}

// isSingleResponse tells a whole-file object that is one response record from a
// batch object.
func isSingleResponse(names []string) bool {
	id := slices.Contains(names, "request_id") || slices.Contains(names, "case_id")
	out := slices.Contains(names, "output") || slices.Contains(names, "text") ||
		slices.Contains(names, "completion") || slices.Contains(names, "error")
	return id && out
}

// Repair returns the next-attempt request of every row whose latest attempt failed
// with public feedback, up to the study's repairs: the previous conversation, the
// previous output as the assistant's turn, and one user message listing the
// failures. Rows without feedback (a wrong answer the model cannot be told about, a
// provider error, no response) get no repair.
func (run *ToolcallRun) Repair(includeRef bool) ([]contract.Request, error) {
	var out []contract.Request
	for _, row := range run.Rows {
		a, n := row.latest()
		if a == nil || a.provider != nil || a.result.Success || n > run.Plan.Study.Repairs {
			continue
		}
		feedback := a.result.PublicFeedback(row.Prepared)
		if len(feedback) == 0 {
			continue
		}
		first, err := run.Plan.Request(row.Case, row.Arm, row.Repeat, includeRef)
		if err != nil {
			return nil, err
		}
		// rebuild the conversation: every earlier attempt's output and feedback
		msgs := first.Messages
		for k := 0; k < n; k++ {
			prev := &row.attempts[k]
			if !prev.present || prev.provider != nil {
				return nil, fmt.Errorf("%s: attempt %d has no usable response, so attempt %d cannot be built", first.RequestID, k+1, n+1)
			}
			fb := prev.result.PublicFeedback(row.Prepared)
			msgs = append(msgs,
				contract.Message{Role: "assistant", Content: prev.output},
				contract.Message{Role: "user", Content: strings.TrimSpace(tc.FeedbackText(fb)) + "\nAnswer again with one corrected JSON object."})
		}
		req := first
		req.Attempt = n + 1
		req.RequestID = export.RequestID(row.Case.ID, row.Arm, row.Repeat, n+1)
		req.Messages = msgs
		out = append(out, req)
	}
	return out, nil
}
