package toolcall_test

import (
	"encoding/json"
	"fmt"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/score/toolcall"
)

func Example() {
	tool := contract.Tool{
		Domain: "search",
		Name:   "search_web",
		ReferenceSchema: json.RawMessage(`{
			"type": "object",
			"properties": {
				"query": {"type": "string", "minLength": 1},
				"maxResults": {"type": "integer", "minimum": 1, "maximum": 10}
			},
			"required": ["query", "maxResults"],
			"additionalProperties": false
		}`),
	}
	j, err := toolcall.NewJudge(tool, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := toolcall.PrepareCase(contract.Case{
		ID:       "search-001",
		Context:  json.RawMessage(`{}`),
		Expected: json.RawMessage(`{"action":"call_tool","tool":"search_web","arguments":{"query":"monsoon","maxResults":5},"missingFields":[],"reason":""}`),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	r := j.Score(`{"action":"call_tool","tool":"search_web","arguments":{"query":"monsoon","maxResults":50},"missingFields":[],"reason":""}`, c)
	fmt.Println("success:", r.Success)
	for _, e := range r.Errors {
		fmt.Println(e.Code, e.Path)
	}
	fmt.Print(toolcall.FeedbackText(r.PublicFeedback(c)))
	// Output:
	// success: false
	// SCHEMA_INVALID /arguments/maxResults
	// CANDIDATE_SCHEMA_INVALID /arguments
	// STATE_MISMATCH /arguments/maxResults
	// GROUND_TRUTH_MISMATCH /arguments
	// The previous output was rejected:
	// - SCHEMA_INVALID at /arguments/maxResults (maximum): maximum: got 50, want 10
}
