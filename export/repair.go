package export

import (
	"strings"

	"github.com/fbeval/fbeval/contract"
)

// Repair is what scoring hands export for one row (case, arm, repeat) whose latest
// attempt failed with public feedback: every attempt so far, oldest first.
type Repair struct {
	Case   *contract.Case
	Arm    string
	Repeat int
	Turns  []RepairTurn
}

// RepairTurn is one earlier attempt: the model's output and the public feedback on
// it, as text a model may be shown (one line per error; see score/toolcall's
// FeedbackText).
type RepairTurn struct {
	Output   string
	Feedback string
}

// repairPrompt ends every feedback turn.
const repairPrompt = "\nAnswer again with one corrected JSON object."

// RepairRequests builds the next attempt's request of every repair, in order: the
// first attempt's conversation, then, for each earlier attempt, its output as the
// assistant's turn and one user message listing its failures.
func (p *ToolcallPlan) RepairRequests(repairs []Repair, includeRef bool) ([]contract.Request, error) {
	out := make([]contract.Request, 0, len(repairs))
	for i := range repairs {
		req, err := p.RepairRequest(&repairs[i], includeRef)
		if err != nil {
			return nil, err
		}
		out = append(out, req)
	}
	return out, nil
}

// RepairRequest is the request of one repair (RepairRequests).
func (p *ToolcallPlan) RepairRequest(r *Repair, includeRef bool) (contract.Request, error) {
	req, err := p.Request(r.Case, r.Arm, r.Repeat, includeRef)
	if err != nil {
		return contract.Request{}, err
	}
	for _, t := range r.Turns {
		req.Messages = append(req.Messages,
			contract.Message{Role: "assistant", Content: t.Output},
			contract.Message{Role: "user", Content: strings.TrimSpace(t.Feedback) + repairPrompt})
	}
	req.Attempt = len(r.Turns) + 1
	req.RequestID = RequestID(r.Case.ID, r.Arm, r.Repeat, req.Attempt)
	return req, nil
}
