package coglang_test

import (
	"bufio"
	"bytes"
	"reflect"
	"testing"

	"github.com/fbeval/fbeval/fixtures"
	"github.com/fbeval/fbeval/fixtures/synth"
	"github.com/fbeval/fbeval/score/coglang"
)

// TestTallyMatchesScore: scoring every record as it arrives and keeping the last
// per case gives what Score gives for the same records, in both profiles, with
// duplicate, unknown and repeated fixture ids.
func TestTallyMatchesScore(t *testing.T) {
	fx := fixtures.DefaultCogLangFixture()
	// a fixture that repeats one id and lacks some of the ids answered
	fx.Cases = append(fx.Cases[:40], fx.Cases[3])
	var b bytes.Buffer
	if err := synth.CogLangResponses(&b, fixtures.DefaultCogLangFixture(), 700, 5); err != nil {
		t.Fatal(err)
	}
	b.WriteString(`{"case_id": 12, "output": "Equal[1, 1]"}` + "\n" + `{"case_id": 12, "output": "Equal[1, 2]"}` + "\n")
	for _, strict := range []bool{false, true} {
		opts := coglang.Options{Strict: strict, AnswerSource: "t"}
		ix := coglang.NewIndex(fx)
		sc, tally := ix.NewScorer(opts), ix.NewTally(opts)
		var responses []coglang.Response
		sca := bufio.NewScanner(bytes.NewReader(b.Bytes()))
		dups := 0
		for sca.Scan() {
			r, err := coglang.DecodeResponse(sca.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			responses = append(responses, r)
			var s coglang.Scored
			if err := sc.Score(sca.Bytes(), &s); err != nil {
				t.Fatal(err)
			}
			if d, _ := tally.Add(&s); d {
				dups++
			}
		}
		want := coglang.Score(fx, responses, opts)
		got := tally.Result()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("strict=%v: the tally differs from Score", strict)
		}
		if len(got.UnknownCaseIDs) != 24 || len(got.DuplicateCaseIDs) != 64 || dups != 702-64 {
			t.Errorf("strict=%v: %d unknown, %d duplicate ids, %d duplicate records", strict, len(got.UnknownCaseIDs), len(got.DuplicateCaseIDs), dups)
		}
		var gj, wj bytes.Buffer
		got.WriteJSON(&gj, coglang.ModeFull)
		want.WriteJSON(&wj, coglang.ModeFull)
		if !bytes.Equal(gj.Bytes(), wj.Bytes()) {
			t.Errorf("strict=%v: the JSON differs", strict)
		}
	}
}

func TestScorerErrors(t *testing.T) {
	sc := coglang.NewIndex(fixtures.DefaultCogLangFixture()).NewScorer(coglang.Options{})
	for _, tc := range []string{`{"output": "x"}`, `{"case_id": "a"}`, `{"case_id": "a", "output": "x", "schema_version": "v9"}`, `{`} {
		_, want := coglang.DecodeResponse([]byte(tc))
		var s coglang.Scored
		got := sc.Score([]byte(tc), &s)
		if got == nil || want == nil || got.Error() != want.Error() {
			t.Errorf("%s: scorer says %v, DecodeResponse says %v", tc, got, want)
		}
	}
}
