package export

import (
	"reflect"
	"testing"

	"github.com/fbeval/fbeval/contract"
)

// A repair request is the first attempt's request with every earlier attempt's
// output and feedback appended, under the next attempt's id.
func TestRepairRequests(t *testing.T) {
	p := quickPlan(t, Overrides{})
	c := &p.Cases[0]
	first, err := p.Request(c, contract.ArmInputSchema, 1, true)
	if err != nil {
		t.Fatal(err)
	}
	turns := []RepairTurn{
		{Output: "```json\n{}\n```", Feedback: "The previous output was rejected:\n- JSON_INVALID: fenced\n"},
		{Output: "{}", Feedback: "The previous output was rejected:\n- SCHEMA_INVALID at /arguments (required): missing property 'city'\n"},
	}
	reqs, err := p.RepairRequests([]Repair{{Case: c, Arm: contract.ArmInputSchema, Repeat: 1, Turns: turns}}, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Attempt != 3 || r.RequestID != c.ID+".input_schema.r1.a3" {
		t.Errorf("attempt %d id %s, want attempt 3", r.Attempt, r.RequestID)
	}
	want := append(append([]contract.Message{}, first.Messages...),
		contract.Message{Role: "assistant", Content: turns[0].Output},
		contract.Message{Role: "user", Content: "The previous output was rejected:\n- JSON_INVALID: fenced\nAnswer again with one corrected JSON object."},
		contract.Message{Role: "assistant", Content: turns[1].Output},
		contract.Message{Role: "user", Content: "The previous output was rejected:\n- SCHEMA_INVALID at /arguments (required): missing property 'city'\nAnswer again with one corrected JSON object."},
	)
	if !reflect.DeepEqual(r.Messages, want) {
		t.Errorf("messages:\n%q\nwant\n%q", r.Messages, want)
	}
	// everything but the attempt, its id and the conversation is the first request's
	r.Attempt, r.RequestID, r.Messages = first.Attempt, first.RequestID, first.Messages
	if !reflect.DeepEqual(r, first) {
		t.Errorf("the repair request differs from the first attempt's beyond attempt, id and messages")
	}
	if reqs, err := p.RepairRequests(nil, false); err != nil || len(reqs) != 0 {
		t.Errorf("no repairs: %d requests, %v", len(reqs), err)
	}
}
