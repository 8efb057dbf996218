package main

import (
	"encoding/json"
	"fmt"
	"slices"
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

// TestListingsCapped: a file of many bad lines or many unknown ids is counted
// exactly, but the report and stderr list only the first MaxListed, and say how
// many they leave out.
func TestListingsCapped(t *testing.T) {
	t.Run("toolcall rejected lines", func(t *testing.T) {
		var in strings.Builder
		for _, l := range goodToolcallLines(t) {
			in.WriteString(l + "\n")
		}
		for range 1500 {
			in.WriteString("junk\n")
		}
		code, stdout, stderr := runMain(t, strings.NewReader(in.String()), append(smallToolcall, "--responses", "-")...)
		if code != 0 {
			t.Fatalf("exit %d; stderr %.500s", code, stderr)
		}
		var rep struct {
			Inputs []struct {
				Role      string            `json:"role"`
				Records   int               `json:"records"`
				Accepted  int               `json:"accepted"`
				Rejected  []json.RawMessage `json:"rejected"`
				NotListed int               `json:"rejected_not_listed"`
			} `json:"inputs"`
		}
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatal(err)
		}
		in0 := rep.Inputs[len(rep.Inputs)-1]
		if in0.Records != 1507 || in0.Accepted != 7 || len(in0.Rejected) != 1000 || in0.NotListed != 500 {
			t.Errorf("records %d, accepted %d, listed %d, not listed %d", in0.Records, in0.Accepted, len(in0.Rejected), in0.NotListed)
		}
		// stderr names the first 20, not 1000 lines of one advice
		if n := strings.Count(stderr, "(line rejected)\n"); n != 20 {
			t.Errorf("stderr names %d lines", n)
		}
		for _, want := range []string{"fbeval: -: 1480 more rejected lines are not named here (a JSON report, --format json, lists the first 1000 in its inputs)\n", "fbeval: -: 1500 lines were rejected (the first 1000 are listed)\n"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("stderr lacks %q", want)
			}
		}
	})
	t.Run("coglang unknown ids", func(t *testing.T) {
		var in strings.Builder
		for i := range 1500 {
			fmt.Fprintf(&in, "{\"case_id\":\"X-%04d\",\"output\":\"Equal[1, 1]\"}\n", i)
		}
		in.WriteString("{\"case_id\":\"X-0001\",\"output\":\"Equal[1, 1]\"}\n")
		in.WriteString("{\"case_id\":\"FB-L1-001\",\"output\":\"Equal[2, 2]\"}\n")
		for _, w := range []string{"1", "2"} {
			code, stdout, stderr := runMain(t, strings.NewReader(in.String()), "score", "coglang", "--responses", "-", "--summary-only", "--workers", w)
			if code != 1 || !strings.HasPrefix(stderr, "fbeval: 500 records name case ids the fixture does not have and unknown_case_ids leaves out (it lists the first 1000)\n") {
				t.Fatalf("exit %d; stderr %.500s", code, stderr)
			}
			var res struct {
				RF struct {
					Read      int      `json:"records_read"`
					Unknown   []string `json:"unknown_case_ids"`
					Dup       []string `json:"duplicate_case_ids"`
					NotListed int      `json:"unknown_records_not_listed"`
					Warnings  []string `json:"warnings"`
				} `json:"response_file"`
			}
			if err := json.Unmarshal([]byte(stdout), &res); err != nil {
				t.Fatal(err)
			}
			rf := res.RF
			if rf.Read != 1502 || len(rf.Unknown) != 1000 || rf.NotListed != 500 || len(rf.Warnings) != 1 || !slices.Equal(rf.Dup, []string{"X-0001"}) {
				t.Errorf("workers %s: read %d, unknown listed %d, not listed %d, duplicates %v, warnings %q", w, rf.Read, len(rf.Unknown), rf.NotListed, rf.Dup, rf.Warnings)
			}
		}
	})
}

// TestNumbersExactOrRefused: token totals past int64 stop at its maximum with a
// warning (never wrap negative); negative latencies and token counts are rejected
// at their line and column, as fbeval validate rejects them.
func TestNumbersExactOrRefused(t *testing.T) {
	lines := goodToolcallLines(t)
	with := func(l, extra string) string { return strings.TrimSuffix(l, "}") + "," + extra + "}" }
	lines[0] = with(lines[0], `"input_token_count":9223372036854775807,"output_token_count":9223372036854775807`)
	lines[1] = with(lines[1], `"input_token_count":9223372036854775807,"output_token_count":1,"latency_ms":1.7e308`)
	lines[2] = with(lines[2], `"latency_ms":1.7e308,"input_token_count":5,"output_token_count":-1`)
	lines[3] = with(lines[3], `"latency_ms":-1.7e308`)
	in := strings.Join(lines, "\n") + "\n"
	code, stdout, stderr := runMain(t, strings.NewReader(in), append(smallToolcall, "--responses", "-", "--input-price", "1e300", "--output-price", "1e300")...)
	if code != 1 {
		t.Fatalf("exit %d (two rows lack a response); stderr %s", code, stderr)
	}
	for _, want := range []string{
		"fbeval: -:3:" + fmt.Sprint(len(lines[2])-2) + ": output_token_count must be a whole number from 0 to 9223372036854775807, got -1 (line rejected)\n",
		"fbeval: -:4:" + fmt.Sprint(len(lines[3])-8) + ": latency_ms must be a number at least 0, got -1.7e+308 (line rejected)\n",
		"a token total or the cost passed the largest value a report holds",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if !strings.Contains(stdout, `"input_tokens": 9223372036854775807,`) || strings.Contains(stdout, "Inf") || strings.Contains(stdout, "NaN") {
		t.Errorf("report:\n%.3000s", stdout)
	}
	// validate says the same of the same records
	code, vout, _ := runMain(t, strings.NewReader(lines[2]+"\n"+lines[3]+"\n"), "validate", "--schema", "fbeval-response", "-")
	if code != 1 || !strings.Contains(vout, "output_token_count") || !strings.Contains(vout, "latency_ms") {
		t.Errorf("validate: exit %d\n%s", code, vout)
	}
}
