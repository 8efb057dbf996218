package coglang

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/fixtures"
	"github.com/fbeval/fbeval/score"
)

// scoreAnswers scores one answers file against the first three cases of the
// default fixture at the given workers, and returns the result's JSON.
func scoreAnswers(t *testing.T, file string, workers int) ([]byte, error) {
	t.Helper()
	fx := fixtures.DefaultCogLangFixture()
	fx.Cases = fx.Cases[:3]
	res, _, err := ScoreFiles(sourceOf(t, fx), []score.Source{{Name: "answers.json", R: strings.NewReader(file)}}, score.Options{},
		Options{AnswerSource: "answers.json", AnswersFile: true, Workers: workers})
	if err != nil {
		return nil, err
	}
	defer res.Close()
	return render(t, res), nil
}

// TestAnswersFile: an answers file is read as the CogLang reference scorer's
// --answers-file reads one (coglang 1.1.6, checked by hand on these values): a
// list or an object's "answers"; each answer's output alone, as Python's str()
// of it, null as None; no schema_version checked; text, completion and error
// not read; the last answer for a case wins. The same bytes at any workers.
func TestAnswersFile(t *testing.T) {
	ids := []string{"FB-L1-001", "FB-L1-002", "FB-L1-003"}
	for _, tt := range []struct {
		name, file string
		want       []any // each case's output; nil: missing
	}{
		{"object", `{"answers": [{"case_id": "FB-L1-001", "output": "Equal[2, 2]"}], "note": 1}`, []any{"Equal[2, 2]", nil, nil}},
		{"list, values as Python's str()", `[{"case_id": "FB-L1-001", "output": null}, {"case_id": "FB-L1-002", "output": [1, true, null, {"b": 1.0}]}, {"case_id": "FB-L1-003", "output": 1e400}]`,
			[]any{"None", "[1, True, None, {'b': 1.0}]", "inf"}},
		{"no version checked, text and error not read", `[{"case_id": "FB-L1-001", "output": "X[]", "schema_version": "v9", "text": "Equal[2, 2]", "error": {"code": "x"}}]`, []any{"X[]", nil, nil}},
		{"the last wins, unknown ids ignored", `[{"case_id": "FB-L1-002", "output": "A[]"}, {"case_id": "nope", "output": "B[]"}, {"case_id": "FB-L1-002", "output": "C[]"}]`, []any{nil, "C[]", nil}},
		{"JSON lines, which the reference cannot read", "{\"case_id\": \"FB-L1-003\", \"output\": \"Equal[2, 2]\"}\n{\"case_id\": \"FB-L1-001\", \"output\": 7}\n", []any{"7", nil, "Equal[2, 2]"}},
		{"a response batch's answers", `{"responses": [], "answers": [{"case_id": "FB-L1-001", "output": "Equal[2, 2]"}]}`, []any{"Equal[2, 2]", nil, nil}},
		{"the object's version not checked, not warned of", `{"schema_version": "whatever/v9", "answers": [{"case_id": "FB-L1-001", "output": "Equal[2, 2]"}]}`, []any{"Equal[2, 2]", nil, nil}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var first []byte
			for _, w := range []int{1, 2, 4} {
				got, err := scoreAnswers(t, tt.file, w)
				if err != nil {
					t.Fatal(err)
				}
				if first == nil {
					first = got
				} else if !bytes.Equal(got, first) {
					t.Errorf("workers %d: other bytes than at 1", w)
				}
			}
			var res struct {
				Cases []struct {
					CaseID string `json:"case_id"`
					Output any    `json:"output"`
				} `json:"cases"`
			}
			if err := json.Unmarshal(first, &res); err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(first, []byte("schema_version is")) {
				t.Errorf("a version warning: %s", first)
			}
			for i, c := range res.Cases {
				if c.CaseID != ids[i] || c.Output != tt.want[i] {
					t.Errorf("case %d: %s %#v, want %s %#v", i, c.CaseID, c.Output, ids[i], tt.want[i])
				}
			}
		})
	}
}

// TestAnswersFileSameAsResponses: answers whose outputs are strings score the
// same bytes as the same records read as responses.
func TestAnswersFileSameAsResponses(t *testing.T) {
	fx := fixtures.DefaultCogLangFixture()
	fx.Cases = fx.Cases[:3]
	file := `[{"case_id": "FB-L1-001", "output": "Equal[2, 2]"}, {"case_id": "FB-L1-002", "output": "Equal[\"red\""}, {"case_id": "FB-L1-003", "output": "Foo[1]"}]`
	var out [2][]byte
	for i, answers := range []bool{false, true} {
		res, _, err := ScoreFiles(sourceOf(t, fx), []score.Source{{Name: "a.json", R: strings.NewReader(file)}}, score.Options{}, Options{AnswerSource: "a.json", AnswersFile: answers})
		if err != nil {
			t.Fatal(err)
		}
		out[i] = render(t, res)
		res.Close()
	}
	if !bytes.Equal(out[0], out[1]) {
		t.Errorf("answers file and responses differ:\n%s\n%s", out[0], out[1])
	}
}

// TestAnswersFileErrors: where the reference stops on a TypeError or a
// KeyError, or scores every case missing from an object without "answers",
// the error is one line at the answer's line and column, saying what to do.
func TestAnswersFileErrors(t *testing.T) {
	for _, tt := range []struct{ file, want string }{
		{`{"answers": "x"}`, `answers.json:1:13: "answers" must be a JSON list of records`},
		{`[1]`, `answers.json:1:2: an answer must be a JSON object`},
		{`[{"output": "X[]"}]`, `answers.json:1:2: an answer needs case_id`},
		{`[{"case_id": "FB-L1-001"}]`, `answers.json:1:2: an answer needs output (the reference stops on one without it, a KeyError): give each answer its output, {"case_id": ..., "output": ...}`},
		{`[{"case_id": "FB-L1-001", "text": "X[]"}]`, `answers.json:1:2: an answer needs output: an answers file is read for each answer's output alone, as the reference reads it (text, completion and error are not read); score response records with --responses`},
		{`{"responses": [{"case_id": "FB-L1-001", "output": "X[]"}]}`, `answers.json:1:1: a JSON object must hold the records in "answers": this is a batch of response records: score it with --responses`},
		{`{"case_id": "FB-L1-001", "output": "X[]"}`, `answers.json:1:1: a JSON object must hold the records in "answers": an answers file is a list of answers, even of one ([{"case_id": ..., "output": ...}])`},
		{`{}`, `answers.json:1:1: a JSON object must hold the records in "answers": an answers file is a list of {"case_id", "output"} objects, or an object holding that list in "answers"`},
	} {
		_, err := scoreAnswers(t, tt.file, 2)
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s:\n got %v\nwant %s", tt.file, err, tt.want)
		}
	}
}
