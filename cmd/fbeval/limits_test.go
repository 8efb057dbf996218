package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestNestingLimits: outputs nested far past each parser's limit are scored as
// failures with a clear reason, without a crash or a stack overflow.
func TestNestingLimits(t *testing.T) {
	const deep = 100000
	t.Run("coglang expression parser", func(t *testing.T) {
		out := strings.Repeat("Equal[", deep) + strings.Repeat("]", deep)
		line, _ := json.Marshal(map[string]string{"case_id": "FB-L1-001", "output": out})
		code, stdout, stderr := runMain(t, strings.NewReader(string(line)+"\n"), "score", "coglang", "--responses", "-", "--failures-only")
		if code != 1 || len(stderrLines(t, stderr)) != 0 {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
		var res struct {
			Cases []struct {
				CaseID     string `json:"case_id"`
				ParseError string `json:"parse_error"`
			} `json:"failure_cases"`
		}
		if err := json.Unmarshal([]byte(stdout), &res); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, c := range res.Cases {
			if c.CaseID == "FB-L1-001" {
				found = true
				if !strings.HasPrefix(c.ParseError, `ParseError["nesting_too_deep", `) {
					t.Errorf("parse_error = %q", c.ParseError)
				}
			}
		}
		if !found {
			t.Errorf("FB-L1-001 is not among the failures:\n%.1000s", stdout)
		}
	})
	t.Run("toolcall strict JSON parser", func(t *testing.T) {
		for _, out := range []string{strings.Repeat("[", deep), strings.Repeat(`{"a":`, deep) + "1" + strings.Repeat("}", deep)} {
			line, _ := json.Marshal(map[string]string{"request_id": "hotels-000.input_schema.r1.a1", "output": out})
			code, stdout, stderr := runMain(t, strings.NewReader(string(line)+"\n"), append(smallToolcall, "--responses", "-", "--format", "jsonl")...)
			if code != 1 {
				t.Fatalf("exit %d, want 1 (six rows missing); stderr %q", code, stderr)
			}
			first, _, _ := strings.Cut(stdout, "\n")
			if !strings.Contains(first, `"codes":["JSON_INVALID"]`) || !strings.Contains(first, "nesting deeper than 10000 levels") {
				t.Errorf("case result:\n%.1000s", first)
			}
		}
	})
}
