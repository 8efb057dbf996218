package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// located is a message at a position of standard input: "fbeval: -:LINE[:COL]: ".
var located = regexp.MustCompile(`^fbeval: -:\d+(:\d+)?: `)

// unlocated are whole-file problems that have no single position: they name the
// file only.
var unlocated = []string{
	"fbeval: -: cannot read: ",
}

func checkExit2Line(t *testing.T, line string) {
	t.Helper()
	if located.MatchString(line) {
		return
	}
	for _, p := range unlocated {
		if strings.HasPrefix(line, p) {
			return
		}
	}
	t.Fatalf("exit 2 without file:line: %q", line)
}

func fuzzSeeds(f *testing.F, seeds []string) {
	for _, s := range seeds {
		f.Add(s)
	}
}

func FuzzScoreCogLang(f *testing.F) {
	fuzzSeeds(f, []string{
		`{"case_id":"FB-L1-001","output":"Equal[2, 2]"}` + "\n",
		`[{"case_id":"FB-L1-001","output":"Equal[2, 2]"},{"case_id":"FB-L1-002","text":"Foo["}]`,
		`{"schema_version":"coglang-generation-eval-response-batch/v0.1","responses":[{"case_id":7,"output":null,"text":1.5}]}`,
		`{"answers":[{"case_id":"FB-L2-001","completion":["a",{"b":true}]}]}`,
		"\ufeff{\"case_id\":\"FB-L1-001\",\"output\":\"Equal[2, 2]\"}\r\n{\"case_id\":\"FB-L1-001\",\"output\":\"x\"}\r\n",
		"{\"case_id\":\"FB-L1-001\",\"outp",
		"{\"case_id\":\"FB-L1-001\",\"output\":\"Equal[Equal[Equal[1, 2], 3], \\\"\xff\\\"]\"}\n",
		`42`, ``, "\x00", `{"responses":3}`, `[[[[[`,
	})
	f.Fuzz(func(t *testing.T, in string) {
		code, stdout, stderr := runMain(t, strings.NewReader(in), "score", "coglang", "--responses", "-", "--summary-only")
		lines := stderrLines(t, stderr)
		switch code {
		case 0, 1:
			var res struct {
				OK *bool `json:"ok"`
			}
			if err := json.Unmarshal([]byte(stdout), &res); err != nil || res.OK == nil {
				t.Fatalf("exit %d without a JSON result: %v", code, err)
			}
			if *res.OK != (code == 0) {
				t.Fatalf("exit %d but ok is %v", code, *res.OK)
			}
		case 2:
			if len(lines) != 1 {
				t.Fatalf("exit 2 with %d stderr lines, want 1: %q", len(lines), lines)
			}
			checkExit2Line(t, lines[0])
			if stdout != "" {
				t.Fatalf("exit 2 wrote a result")
			}
		default:
			t.Fatalf("exit %d", code)
		}
	})
}

func FuzzScoreToolcall(f *testing.F) {
	fuzzSeeds(f, []string{
		`{"request_id":"hotels-000.input_schema.r1.a1","output":"{\"action\":\"refuse\",\"arguments\":{},\"missingFields\":[],\"reason\":\"\",\"tool\":null}"}` + "\n",
		`{"responses":[{"case_id":"hotels-030","output":{"action":"ask_clarification"}},{"request_id":"x","error":{"code":"e","message":"m"}}]}`,
		`[{"request_id":"hotels-070.input_schema.r1.a1","text":"{}","latency_ms":1e999}]`,
		"{\"request_id\":\"hotels-000.input_schema.r1.a1\",\"output\":\"\\u0000\"}\n\x00\n{\"request_id\":7}\n",
		`{"request_id":"hotels-000.input_schema.r1.a1","output":"{\"action\":\"call_tool\",\"tool\":\"search_hotels\",\"arguments\":{\"guests\":1e400}}"}`,
		`{"request_id":"hotels-000.input_schema.r1.a1","output":"[[[[[[[[[[[[[[[[[[[[[[[["}`,
		"{\"request_id\":\"a\",\"output\":\"x\"",
		`42`, ``, `{"responses":{}}`,
	})
	f.Fuzz(func(t *testing.T, in string) {
		code, stdout, stderr := runMain(t, strings.NewReader(in), append(smallToolcall, "--responses", "-")...)
		lines := stderrLines(t, stderr)
		switch code {
		case 0, 1:
			inputs := toolcallInputs(t, stdout)
			if len(inputs) != 1 {
				t.Fatalf("report has %d response inputs", len(inputs))
			}
			st := inputs[0]
			if st.Records != st.Accepted+len(st.Rejected) {
				t.Fatalf("records %d != accepted %d + rejected %d", st.Records, st.Accepted, len(st.Rejected))
			}
			n := 0
			for _, l := range lines {
				if strings.HasSuffix(l, " (line rejected)") {
					n++
					if !located.MatchString(l) {
						t.Fatalf("rejected line without file:line: %q", l)
					}
				}
			}
			if n != len(st.Rejected) {
				t.Fatalf("stderr names %d rejected lines, the report %d", n, len(st.Rejected))
			}
		case 2:
			if len(lines) != 1 {
				t.Fatalf("exit 2 with %d stderr lines, want 1: %q", len(lines), lines)
			}
			checkExit2Line(t, lines[0])
		default:
			t.Fatalf("exit %d", code)
		}
	})
}
