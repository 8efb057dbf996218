package coglang

import (
	"strings"
	"testing"
)

var decodeCases = []struct {
	name, in       string
	caseID, output string
	errContains    string
}{
	{"string output", `{"case_id": "a", "output": "Equal[1, 1]"}`, "a", "Equal[1, 1]", ""},
	{"with version", `{"schema_version": "coglang-generation-eval-response/v0.1", "case_id": "a", "output": "X"}`, "a", "X", ""},
	{"fbeval version", `{"schema_version": "fbeval-response/v1", "case_id": "a", "output": "X"}`, "a", "X", ""},
	{"null version", `{"schema_version": null, "case_id": "a", "output": "X"}`, "a", "X", ""},
	{"wrong version", `{"schema_version": "v2", "case_id": "a", "output": "X"}`, "", "", "unsupported schema_version"},
	{"numeric version", `{"schema_version": 1, "case_id": "a", "output": "X"}`, "", "", "unsupported schema_version"},
	{"int case id", `{"case_id": 7, "output": "X"}`, "7", "X", ""},
	{"float case id", `{"case_id": 7.0, "output": "X"}`, "7.0", "X", ""},
	{"exp case id", `{"case_id": 1E2, "output": "X"}`, "100.0", "X", ""},
	{"negative zero case id", `{"case_id": -0, "output": "X"}`, "0", "X", ""},
	{"big case id", `{"case_id": 123456789012345678901234567890, "output": "X"}`, "123456789012345678901234567890", "X", ""},
	{"overflow case id", `{"case_id": 1e400, "output": "X"}`, "inf", "X", ""},
	{"bool case id", `{"case_id": true, "output": "X"}`, "True", "X", ""},
	{"null case id", `{"case_id": null, "output": "X"}`, "None", "X", ""},
	{"list case id", `{"case_id": [1, "a", null, 2.50], "output": "X"}`, "[1, 'a', None, 2.5]", "X", ""},
	{"object case id", `{"case_id": {"k": false}, "output": "X"}`, "{'k': False}", "X", ""},
	{"no case id", `{"output": "X"}`, "", "", "needs case_id"},
	{"converted without requests", `{"schema_version": "fbeval-response/v1", "request_id": "FB-L1-001", "output": "X"}`, "", "", "convert the results again with --requests REQUESTS"},
	{"text field", `{"case_id": "a", "text": "T"}`, "a", "T", ""},
	{"completion field", `{"case_id": "a", "completion": "C"}`, "a", "C", ""},
	{"first non-null wins", `{"case_id": "a", "output": null, "text": null, "completion": "C"}`, "a", "C", ""},
	{"output before text", `{"case_id": "a", "text": "T", "output": "O"}`, "a", "O", ""},
	{"no output", `{"case_id": "a"}`, "", "", "needs one of output"},
	{"all null", `{"case_id": "a", "output": null, "text": null}`, "", "", "needs one of output"},
	{"int output", `{"case_id": "a", "output": 42}`, "a", "42", ""},
	{"true output", `{"case_id": "a", "output": true}`, "a", "True", ""},
	{"false output", `{"case_id": "a", "output": false}`, "a", "False", ""},
	{"float output", `{"case_id": "a", "output": 1.5}`, "a", "1.5", ""},
	{"float exp output", `{"case_id": "a", "output": 1e16}`, "a", "1e+16", ""},
	{"float small output", `{"case_id": "a", "output": 0.00001}`, "a", "1e-05", ""},
	{"overflow output", `{"case_id": "a", "output": -1e400}`, "a", "-inf", ""},
	{"list output", `{"case_id": "a", "output": [1, "a", null, true, 2.0]}`, "a", `[1, 'a', None, True, 2.0]`, ""},
	{"dict output", `{"case_id": "a", "output": {"a": 1, "b": [true, null]}}`, "a", `{'a': 1, 'b': [True, None]}`, ""},
	{"empty containers", `{"case_id": "a", "output": [{}, []]}`, "a", `[{}, []]`, ""},
	{"repr quotes", `{"case_id": "a", "output": ["it's", "say \"hi\"", "both ' \""]}`, "a", `["it's", 'say "hi"', 'both \' "']`, ""},
	{"repr escapes", `{"case_id": "a", "output": ["a\nb", "\u0001", "\u00a0", "é"]}`, "a", `['a\nb', '\x01', '\xa0', 'é']`, ""},
	{"dict duplicate keys", `{"case_id": "a", "output": {"a": 1, "b": 2, "a": 3}}`, "a", `{'a': 3, 'b': 2}`, ""},
	{"record duplicate keys last wins", `{"case_id": "a", "output": "x", "output": "y"}`, "a", "y", ""},
	{"extra fields", `{"case_id": "a", "output": "x", "model": "m", "latency_ms": 3}`, "a", "x", ""},
	{"not an object", `["a"]`, "", "", "must be a JSON object"},
	{"invalid JSON", `{"case_id": "a", "output": }`, "", "", "invalid JSON"},
	{"truncated", `{"case_id": "a"`, "", "", "invalid JSON"},
	{"two values", `{"case_id": "a", "output": "x"} {}`, "", "", "another record follows the first on this line"},
	{"text after", `{"case_id": "a", "output": "x"} x`, "", "", "text after the record"},
}

func TestDecodeResponse(t *testing.T) {
	for _, tc := range decodeCases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := DecodeResponse([]byte(tc.in))
			if tc.errContains != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errContains) {
					t.Fatalf("err %v, want one containing %q", err, tc.errContains)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.CaseID != tc.caseID || r.Output == nil || *r.Output != tc.output {
				got := "<nil>"
				if r.Output != nil {
					got = *r.Output
				}
				t.Errorf("got case %q output %s, want case %q output %s", r.CaseID, got, tc.caseID, tc.output)
			}
		})
	}
}

func TestDecodeResponseDeepValue(t *testing.T) {
	deep := `{"case_id": "a", "output": ` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `}`
	if _, err := DecodeResponse([]byte(deep)); err == nil {
		t.Fatal("a 5000-deep output value was accepted")
	}
}
