package coglang

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/fbeval/fbeval/fixtures"
	"github.com/fbeval/fbeval/fixtures/fixturetest"
)

func interopPath(t testing.TB, name string) string {
	t.Helper()
	return fixturetest.Interop(t, "coglang", name)
}

func loadInteropFixture(t testing.TB, name string) *fixtures.CogLangFixture {
	t.Helper()
	fx, err := fixtures.LoadCogLangFixture(interopPath(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return fx
}

// loadJSONL decodes every line of a JSONL response file with DecodeResponse.
func loadJSONL(t testing.TB, path string) []Response {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Response
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		r, err := DecodeResponse(sc.Bytes())
		if err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		r.File, r.Line = path, line
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// orderedValue is a JSON value whose objects keep their key order.
type orderedValue struct {
	keys []string
	obj  map[string]*orderedValue
	list []*orderedValue
	atom string // canonical text of a literal, string or number
	kind byte
}

func decodeOrdered(t testing.TB, data []byte) *orderedValue {
	t.Helper()
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	v, err := readOrdered(dec)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func readOrdered(dec *jsontext.Decoder) (*orderedValue, error) {
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, err
	}
	v := &orderedValue{kind: byte(tok.Kind())}
	switch tok.Kind() {
	case '{':
		v.obj = map[string]*orderedValue{}
		for dec.PeekKind() != '}' {
			name, err := dec.ReadToken()
			if err != nil {
				return nil, err
			}
			key := name.String()
			child, err := readOrdered(dec)
			if err != nil {
				return nil, err
			}
			v.keys = append(v.keys, key)
			v.obj[key] = child
		}
		_, err = dec.ReadToken()
	case '[':
		for dec.PeekKind() != ']' {
			child, err := readOrdered(dec)
			if err != nil {
				return nil, err
			}
			v.list = append(v.list, child)
		}
		_, err = dec.ReadToken()
	case '"':
		b, _ := json.Marshal(tok.String())
		v.atom = string(b)
	default:
		// Numbers are compared as their text: 1.0 and 1 differ, as in Python.
		v.atom = tok.String()
	}
	return v, err
}

// compareOrdered reports differences between want and got at path, ignoring the
// top-level keys in skip.
func compareOrdered(t *testing.T, path string, want, got *orderedValue, skip map[string]bool) {
	t.Helper()
	if want.kind != got.kind {
		t.Errorf("%s: kind %c, want %c", path, got.kind, want.kind)
		return
	}
	switch want.kind {
	case '{':
		var wk, gk []string
		for _, k := range want.keys {
			if !skip[k] {
				wk = append(wk, k)
			}
		}
		for _, k := range got.keys {
			if !skip[k] {
				gk = append(gk, k)
			}
		}
		if !reflect.DeepEqual(wk, gk) {
			t.Errorf("%s: keys %q, want %q", path, gk, wk)
		}
		for _, k := range wk {
			if g, ok := got.obj[k]; ok {
				compareOrdered(t, path+"."+k, want.obj[k], g, nil)
			}
		}
	case '[':
		if len(want.list) != len(got.list) {
			t.Errorf("%s: %d items, want %d", path, len(got.list), len(want.list))
			return
		}
		for i := range want.list {
			compareOrdered(t, fmt.Sprintf("%s[%d]", path, i), want.list[i], got.list[i], nil)
		}
	default:
		if want.atom != got.atom {
			t.Errorf("%s: %s, want %s", path, got.atom, want.atom)
		}
	}
}

// fbevalKeys are the reference keys fbeval writes differently on purpose and the
// keys it adds.
var fbevalKeys = map[string]bool{
	"fixture_path": true, "tool": true, "answer_source": true,
	"scoring_profile": true, "preflight_summary": true, "response_file": true,
}

func TestInteropReferenceAnswers(t *testing.T) {
	fx := loadInteropFixture(t, "generation_eval_minimal_v0_1.json")
	want, err := os.ReadFile(interopPath(t, "reference_answers_result.json"))
	if err != nil {
		t.Fatal(err)
	}
	res := Score(fx, nil, Options{FixturePath: "x"})
	var buf bytes.Buffer
	if err := res.WriteJSON(&buf, ModeFull); err != nil {
		t.Fatal(err)
	}
	compareOrdered(t, "$", decodeOrdered(t, want), decodeOrdered(t, buf.Bytes()), fbevalKeys)
	if res.AnswerSource != "fixture_reference" || !res.OK() {
		t.Errorf("answer_source %q ok %v", res.AnswerSource, res.OK())
	}
}

func TestInteropMixedFailuresOnly(t *testing.T) {
	fx := loadInteropFixture(t, "generation_eval_minimal_v0_1.json")
	responses := loadJSONL(t, interopPath(t, "mixed_responses.jsonl"))
	want, err := os.ReadFile(interopPath(t, "mixed_responses_result_failures_only.json"))
	if err != nil {
		t.Fatal(err)
	}
	res := Score(fx, responses, Options{AnswerSource: "mixed_responses.jsonl"})
	var buf bytes.Buffer
	if err := res.WriteJSON(&buf, ModeFailuresOnly); err != nil {
		t.Fatal(err)
	}
	compareOrdered(t, "$", decodeOrdered(t, want), decodeOrdered(t, buf.Bytes()), fbevalKeys)
	if res.OK() {
		t.Error("mixed responses scored ok")
	}
	// Every byte the reference wrote for the shared keys matches, including float
	// text such as 0.9444444444444444.
	for _, frag := range []string{`"parse_ok_rate": 0.9444444444444444`, `"expected_top_level_head_ok_rate": 0.9`, `"parse_ok_rate": 1.0`} {
		if !bytes.Contains(buf.Bytes(), []byte(frag)) {
			t.Errorf("output lacks %s", frag)
		}
	}
	if got := res.PreflightSummary(); got[5].Value != 1 {
		t.Errorf("preflight none count %v, want 1 (one missing output)", got[5].Value)
	}
}

func TestInteropThreeCaseSmoke(t *testing.T) {
	fx := loadInteropFixture(t, "generation_eval_three_case_v0_1.json")
	responses := loadJSONL(t, interopPath(t, "mock_responses.jsonl"))
	res := Score(fx, responses, Options{AnswerSource: "mock_responses.jsonl"})
	if !res.OK() || res.Summary.CaseCount != 3 || res.FailureCaseCount != 0 {
		t.Fatalf("three-case smoke: ok %v, %d cases, %d failing", res.OK(), res.Summary.CaseCount, res.FailureCaseCount)
	}
	if res.RecordsRead != 3 || res.DuplicateCaseIDs != nil || res.UnknownCaseIDs != nil {
		t.Errorf("records %d dup %v unknown %v", res.RecordsRead, res.DuplicateCaseIDs, res.UnknownCaseIDs)
	}
}
