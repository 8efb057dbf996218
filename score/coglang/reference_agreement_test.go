package coglang

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/fixtures"
	"github.com/fbeval/fbeval/score/report"
)

// TestReferenceAgreementGenerated: the CogLang reference scorer's per-case
// results on 504 generated outputs, eight sets of one per case of fbeval's
// own fixture, each its case's reference expression with up to eight
// characters or tokens inserted, dropped or replaced (brackets, braces,
// commas, colons, quotes, backslashes, white space, digits, signs, exponents,
// other heads, a line separator). testdata/reference_verdicts.jsonl holds
// what coglang 1.1.6's generation-eval gave each (parse, canonical text,
// validation, heads, failure categories, preflight decision, parse error);
// fbeval must give every one of them. The same comparison on 6,000 outputs
// of the reference's own 50-case fixture found no difference.
func TestReferenceAgreementGenerated(t *testing.T) {
	data, err := os.ReadFile("testdata/reference_verdicts.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	sets := map[int][]report.CogLangCase{} // without level and prompt, the fixture's
	for line := range strings.Lines(string(data)) {
		var v struct {
			Set int `json:"set"`
			report.CogLangCase
		}
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatal(err)
		}
		sets[v.Set] = append(sets[v.Set], v.CogLangCase)
	}
	fx := fixtures.DefaultCogLangFixture()
	n := 0
	for set, want := range sets {
		var responses []Response
		for _, c := range want {
			responses = append(responses, Response{CaseID: c.CaseID, Output: c.Output})
		}
		var got struct {
			Cases []report.CogLangCase `json:"cases"`
		}
		if err := json.Unmarshal(render(t, Score(fx, responses, Options{AnswerSource: "t"})), &got); err != nil {
			t.Fatal(err)
		}
		if len(got.Cases) != len(want) {
			t.Fatalf("set %d: %d cases, want %d", set, len(got.Cases), len(want))
		}
		for i := range want {
			got.Cases[i].Level, got.Cases[i].Prompt = "", ""
			if !reflect.DeepEqual(got.Cases[i], want[i]) {
				t.Errorf("set %d, %s %q:\n got %+v\nwant %+v", set, want[i].CaseID, *want[i].Output, got.Cases[i], want[i])
			}
			n++
		}
	}
	if n != 504 {
		t.Fatalf("%d cases compared", n)
	}
}
