package study

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/export"
	tc "github.com/fbeval/fbeval/score/toolcall"
)

// HESchema's verdicts on hostile outputs: success and the codes its judge gives,
// written here as its own scorer (validation.evaluate with Python's jsonschema
// 4.10 and json module) gave them for these exact outputs and cases. fbeval must
// give the same success and the same codes, counted the same way; CONTROL_MISMATCH
// is fbeval's one addition (HESchema says nothing when a clarification or refusal
// is malformed), present exactly where control says.
func TestHESchemaAgreementHostileOutputs(t *testing.T) {
	p := plan(t, "toolcall", export.Overrides{})
	env := func(action, tool string, args, missing string) string {
		tl := "null"
		if tool != "" {
			tl = `"` + tool + `"`
		}
		return `{"action":"` + action + `","tool":` + tl + `,"arguments":` + args + `,"missingFields":` + missing + `,"reason":""}`
	}
	hotels := `{"city":"Delhi","checkIn":"2027-01-11","checkOut":"2027-01-13","guests":3,"maxNightlyPrice":6000}`
	cases := map[string]struct{ domain, expected, context string }{
		"pay":        {"payments", env("call_tool", "prepare_transfer", `{"recipient":"account-1001","amountMinor":250,"currency":"INR","reference":"invoice-101"}`, `[]`), `{}`},
		"hotelState": {"hotels", env("call_tool", "search_hotels", hotels, `[]`), `{"confirmedState":` + hotels + `,"stateVersion":1}`},
		"cal":        {"calendar", env("call_tool", "prepare_event", `{"title":"Project review 1","date":"2027-01-01","startTime":"09:30","durationMinutes":15,"venue":"Room 101"}`, `[]`), `{}`},
		"ask":        {"hotels", env("ask_clarification", "", `{}`, `["guests","city"]`), `{}`},
		"refuse":     {"payments", env("refuse", "", `{}`, `[]`), `{}`},
	}
	tests := []struct {
		caseID, name, output string
		success              bool
		codes                []string // HESchema's, in its order
		control              bool     // fbeval adds CONTROL_MISMATCH
	}{
		{"pay", "gold", `{"action":"call_tool","tool":"prepare_transfer","arguments":{"recipient":"account-1001","amountMinor":250,"currency":"INR","reference":"invoice-101"},"missingFields":[],"reason":""}`, true, nil, false},
		{"pay", "duplicate key at depth", `{"action":"call_tool","tool":"prepare_transfer","arguments":{"x":{"y":1,"y":2},"recipient":"account-1001","amountMinor":250,"currency":"INR","reference":"invoice-101"},"missingFields":[],"reason":""}`, false, []string{"JSON_INVALID"}, false},
		{"pay", "duplicate key same value", `{"action":"call_tool","tool":"prepare_transfer","arguments":{"recipient":"account-1001","amountMinor":250,"currency":"INR","reference":"invoice-101"},"missingFields":[],"reason":"","reason":""}`, false, []string{"JSON_INVALID"}, false},
		{"pay", "1e400", `{"action":"call_tool","tool":"prepare_transfer","arguments":{"recipient":"account-1001","amountMinor":1e400,"currency":"INR","reference":"invoice-101"},"missingFields":[],"reason":""}`, false, []string{"JSON_INVALID"}, false},
		{"pay", "-1e400", `{"action":"call_tool","tool":"prepare_transfer","arguments":{"recipient":"account-1001","amountMinor":-1e400,"currency":"INR","reference":"invoice-101"},"missingFields":[],"reason":""}`, false, []string{"JSON_INVALID"}, false},
		{"pay", "1e-400 underflows to 0.0", `{"action":"call_tool","tool":"prepare_transfer","arguments":{"recipient":"account-1001","amountMinor":1e-400,"currency":"INR","reference":"invoice-101"},"missingFields":[],"reason":""}`, false, []string{"SCHEMA_INVALID", "CANDIDATE_SCHEMA_INVALID", "STATE_MISMATCH", "GROUND_TRUTH_MISMATCH"}, false},
		{"pay", "NaN", `{"action":"call_tool","tool":"prepare_transfer","arguments":{"recipient":"account-1001","amountMinor":NaN,"currency":"INR","reference":"invoice-101"},"missingFields":[],"reason":""}`, false, []string{"JSON_INVALID"}, false},
		{"pay", "Infinity", `{"action":"call_tool","tool":"prepare_transfer","arguments":{"recipient":"account-1001","amountMinor":Infinity,"currency":"INR","reference":"invoice-101"},"missingFields":[],"reason":""}`, false, []string{"JSON_INVALID"}, false},
		{"pay", "BOM", "\ufeff{\"action\":\"call_tool\",\"tool\":\"prepare_transfer\",\"arguments\":{\"recipient\":\"account-1001\",\"amountMinor\":250,\"currency\":\"INR\",\"reference\":\"invoice-101\"},\"missingFields\":[],\"reason\":\"\"}", false, []string{"JSON_INVALID"}, false},
		{"pay", "fenced", "```json\n{\"action\":\"call_tool\",\"tool\":\"prepare_transfer\",\"arguments\":{\"recipient\":\"account-1001\",\"amountMinor\":250,\"currency\":\"INR\",\"reference\":\"invoice-101\"},\"missingFields\":[],\"reason\":\"\"}\n```", false, []string{"JSON_INVALID"}, false},
		{"pay", "prose before", `Here it is: {"action":"call_tool","tool":"prepare_transfer","arguments":{"recipient":"account-1001","amountMinor":250,"currency":"INR","reference":"invoice-101"},"missingFields":[],"reason":""}`, false, []string{"JSON_INVALID"}, false},
		{"pay", "prose after", "{\"action\":\"call_tool\",\"tool\":\"prepare_transfer\",\"arguments\":{\"recipient\":\"account-1001\",\"amountMinor\":250,\"currency\":\"INR\",\"reference\":\"invoice-101\"},\"missingFields\":[],\"reason\":\"\"}\nDone.", false, []string{"JSON_INVALID"}, false},
		{"pay", "two values", `{"action":"call_tool","tool":"prepare_transfer","arguments":{"recipient":"account-1001","amountMinor":250,"currency":"INR","reference":"invoice-101"},"missingFields":[],"reason":""}{"action":"call_tool","tool":"prepare_transfer","arguments":{"recipient":"account-1001","amountMinor":250,"currency":"INR","reference":"invoice-101"},"missingFields":[],"reason":""}`, false, []string{"JSON_INVALID"}, false},
		{"pay", "surrounding whitespace", " \t\r\n{\"action\":\"call_tool\",\"tool\":\"prepare_transfer\",\"arguments\":{\"recipient\":\"account-1001\",\"amountMinor\":250,\"currency\":\"INR\",\"reference\":\"invoice-101\"},\"missingFields\":[],\"reason\":\"\"}\n ", true, nil, false},
		{"pay", "form feed", "\f{\"action\":\"call_tool\",\"tool\":\"prepare_transfer\",\"arguments\":{\"recipient\":\"account-1001\",\"amountMinor\":250,\"currency\":\"INR\",\"reference\":\"invoice-101\"},\"missingFields\":[],\"reason\":\"\"}", false, []string{"JSON_INVALID"}, false},
		{"pay", "empty", ``, false, []string{"JSON_INVALID"}, false},
		{"pay", "250.0 for 250", `{"action":"call_tool","tool":"prepare_transfer","arguments":{"recipient":"account-1001","amountMinor":250.0,"currency":"INR","reference":"invoice-101"},"missingFields":[],"reason":""}`, false, []string{"STATE_MISMATCH", "GROUND_TRUTH_MISMATCH"}, false},
		{"pay", "2.5e2 for 250", `{"action":"call_tool","tool":"prepare_transfer","arguments":{"recipient":"account-1001","amountMinor":2.5e2,"currency":"INR","reference":"invoice-101"},"missingFields":[],"reason":""}`, false, []string{"STATE_MISMATCH", "GROUND_TRUTH_MISMATCH"}, false},
		{"pay", "true for an amount", `{"action":"call_tool","tool":"prepare_transfer","arguments":{"recipient":"account-1001","amountMinor":true,"currency":"INR","reference":"invoice-101"},"missingFields":[],"reason":""}`, false, []string{"SCHEMA_INVALID", "CANDIDATE_SCHEMA_INVALID", "STATE_MISMATCH", "GROUND_TRUTH_MISMATCH", "POLICY_LIMIT"}, false},
		{"pay", "string amount", `{"action":"call_tool","tool":"prepare_transfer","arguments":{"recipient":"account-1001","amountMinor":"250","currency":"INR","reference":"invoice-101"},"missingFields":[],"reason":""}`, false, []string{"SCHEMA_INVALID", "CANDIDATE_SCHEMA_INVALID", "STATE_MISMATCH", "GROUND_TRUTH_MISMATCH", "POLICY_LIMIT"}, false},
		{"pay", "250.5 over nothing", `{"action":"call_tool","tool":"prepare_transfer","arguments":{"recipient":"account-1001","amountMinor":250.5,"currency":"INR","reference":"invoice-101"},"missingFields":[],"reason":""}`, false, []string{"SCHEMA_INVALID", "CANDIDATE_SCHEMA_INVALID", "STATE_MISMATCH", "GROUND_TRUTH_MISMATCH"}, false},
		{"pay", "100000.5 over the ceiling", `{"action":"call_tool","tool":"prepare_transfer","arguments":{"recipient":"account-1001","amountMinor":100000.5,"currency":"INR","reference":"invoice-101"},"missingFields":[],"reason":""}`, false, []string{"SCHEMA_INVALID", "SCHEMA_INVALID", "CANDIDATE_SCHEMA_INVALID", "STATE_MISMATCH", "GROUND_TRUTH_MISMATCH", "POLICY_LIMIT"}, false},
		{"pay", "100001 over the ceiling", `{"action":"call_tool","tool":"prepare_transfer","arguments":{"recipient":"account-1001","amountMinor":100001,"currency":"INR","reference":"invoice-101"},"missingFields":[],"reason":""}`, false, []string{"SCHEMA_INVALID", "CANDIDATE_SCHEMA_INVALID", "STATE_MISMATCH", "GROUND_TRUTH_MISMATCH", "POLICY_LIMIT"}, false},
		{"pay", "huge integer", `{"action":"call_tool","tool":"prepare_transfer","arguments":{"recipient":"account-1001","amountMinor":123456789012345678901234567890,"currency":"INR","reference":"invoice-101"},"missingFields":[],"reason":""}`, false, []string{"SCHEMA_INVALID", "CANDIDATE_SCHEMA_INVALID", "STATE_MISMATCH", "GROUND_TRUTH_MISMATCH", "POLICY_LIMIT"}, false},
		{"pay", "amount absent", `{"action":"call_tool","tool":"prepare_transfer","arguments":{"recipient":"account-1001","currency":"INR","reference":"invoice-101"},"missingFields":[],"reason":""}`, false, []string{"SCHEMA_INVALID", "CANDIDATE_SCHEMA_INVALID", "STATE_MISMATCH", "GROUND_TRUTH_MISMATCH", "POLICY_LIMIT"}, false},
		{"pay", "currency a number", `{"action":"call_tool","tool":"prepare_transfer","arguments":{"recipient":"account-1001","amountMinor":250,"currency":5,"reference":"invoice-101"},"missingFields":[],"reason":""}`, false, []string{"SCHEMA_INVALID", "SCHEMA_INVALID", "CANDIDATE_SCHEMA_INVALID", "STATE_MISMATCH", "GROUND_TRUTH_MISMATCH"}, false},
		{"pay", "extra argument", `{"action":"call_tool","tool":"prepare_transfer","arguments":{"recipient":"account-1001","amountMinor":250,"currency":"INR","reference":"invoice-101","note":"x"},"missingFields":[],"reason":""}`, false, []string{"SCHEMA_INVALID", "CANDIDATE_SCHEMA_INVALID", "GROUND_TRUTH_MISMATCH"}, false},
		{"pay", "extra envelope key", `{"action":"call_tool","tool":"prepare_transfer","arguments":{"recipient":"account-1001","amountMinor":250,"currency":"INR","reference":"invoice-101"},"missingFields":[],"reason":"","confidence":0.9}`, false, []string{"SCHEMA_INVALID"}, false},
		{"pay", "envelope keys missing", `{"action":"call_tool","arguments":{"recipient":"account-1001","amountMinor":250,"currency":"INR","reference":"invoice-101"}}`, false, []string{"SCHEMA_INVALID", "SCHEMA_INVALID", "SCHEMA_INVALID"}, false},
		{"pay", "unknown action and extra key", `{"action":"execute","tool":"prepare_transfer","arguments":{"recipient":"account-1001","amountMinor":250,"currency":"INR","reference":"invoice-101"},"missingFields":[],"reason":"","x":1}`, false, []string{"SCHEMA_INVALID", "SCHEMA_INVALID"}, false},
		{"pay", "missingFields not strings", `{"action":"call_tool","tool":"prepare_transfer","arguments":{"recipient":"account-1001","amountMinor":250,"currency":"INR","reference":"invoice-101"},"missingFields":[1,2],"reason":""}`, false, []string{"SCHEMA_INVALID", "SCHEMA_INVALID"}, false},
		{"pay", "missingFields repeated", `{"action":"call_tool","tool":"prepare_transfer","arguments":{"recipient":"account-1001","amountMinor":250,"currency":"INR","reference":"invoice-101"},"missingFields":["a","a"],"reason":""}`, false, []string{"SCHEMA_INVALID"}, false},
		{"pay", "missingFields in a call", `{"action":"call_tool","tool":"prepare_transfer","arguments":{"recipient":"account-1001","amountMinor":250,"currency":"INR","reference":"invoice-101"},"missingFields":["currency"],"reason":""}`, false, []string{"UNEXPECTED_MISSING_FIELDS"}, false},
		{"pay", "wrong tool", `{"action":"call_tool","tool":"search_web","arguments":{"recipient":"account-1001","amountMinor":250,"currency":"INR","reference":"invoice-101"},"missingFields":[],"reason":""}`, false, []string{"WRONG_TOOL"}, false},
		{"pay", "tool null in a call", `{"action":"call_tool","tool":null,"arguments":{"recipient":"account-1001","amountMinor":250,"currency":"INR","reference":"invoice-101"},"missingFields":[],"reason":""}`, false, []string{"WRONG_TOOL"}, false},
		{"pay", "escaped keys and values", `{"\u0061ction":"call_tool","tool":"prepare_transfer","arguments":{"recipient":"account-1001","amountMinor":250,"currency":"\u0049NR","reference":"invoice-101"},"missingFields":[],"reason":""}`, true, nil, false},
		{"pay", "lone surrogate in reason", `{"action":"call_tool","tool":"prepare_transfer","arguments":{"recipient":"account-1001","amountMinor":250,"currency":"INR","reference":"invoice-101"},"missingFields":[],"reason":"\ud800"}`, true, nil, false},
		{"pay", "top-level array", `[{"action":"call_tool","tool":"prepare_transfer","arguments":{"recipient":"account-1001","amountMinor":250,"currency":"INR","reference":"invoice-101"},"missingFields":[],"reason":""}]`, false, []string{"SCHEMA_INVALID"}, false},
		{"pay", "top-level string", `"{\"action\":\"call_tool\",\"tool\":\"prepare_transfer\",\"arguments\":{\"recipient\":\"account-1001\",\"amountMinor\":250,\"currency\":\"INR\",\"reference\":\"invoice-101\"},\"missingFields\":[],\"reason\":\"\"}"`, false, []string{"SCHEMA_INVALID"}, false},
		{"pay", "refusal instead of a call", `{"action":"refuse","tool":null,"arguments":{},"missingFields":[],"reason":""}`, false, []string{"WRONG_ACTION"}, false},
		{"hotelState", "gold", `{"action":"call_tool","tool":"search_hotels","arguments":{"city":"Delhi","checkIn":"2027-01-11","checkOut":"2027-01-13","guests":3,"maxNightlyPrice":6000},"missingFields":[],"reason":""}`, true, nil, false},
		{"hotelState", "draft instead of confirmed state", `{"action":"call_tool","tool":"search_hotels","arguments":{"city":"Goa","checkIn":"2027-01-11","checkOut":"2027-01-13","guests":4,"maxNightlyPrice":6000},"missingFields":[],"reason":""}`, false, []string{"STATE_MISMATCH", "STATE_MISMATCH", "GROUND_TRUTH_MISMATCH"}, false},
		{"hotelState", "3.0 guests", `{"action":"call_tool","tool":"search_hotels","arguments":{"city":"Delhi","checkIn":"2027-01-11","checkOut":"2027-01-13","guests":3.0,"maxNightlyPrice":6000},"missingFields":[],"reason":""}`, false, []string{"STATE_MISMATCH", "GROUND_TRUTH_MISMATCH"}, false},
		{"hotelState", "dates in the wrong order", `{"action":"call_tool","tool":"search_hotels","arguments":{"city":"Delhi","checkIn":"2027-01-13","checkOut":"2027-01-11","guests":3,"maxNightlyPrice":6000},"missingFields":[],"reason":""}`, false, []string{"STATE_MISMATCH", "STATE_MISMATCH", "GROUND_TRUTH_MISMATCH", "POLICY_ORDER"}, false},
		{"hotelState", "check-out absent", `{"action":"call_tool","tool":"search_hotels","arguments":{"city":"Delhi","checkIn":"2027-01-11","guests":3,"maxNightlyPrice":6000},"missingFields":[],"reason":""}`, false, []string{"SCHEMA_INVALID", "CANDIDATE_SCHEMA_INVALID", "STATE_MISMATCH", "GROUND_TRUTH_MISMATCH", "POLICY_ORDER"}, false},
		{"hotelState", "year 0000", `{"action":"call_tool","tool":"search_hotels","arguments":{"city":"Delhi","checkIn":"0000-01-11","checkOut":"2027-01-13","guests":3,"maxNightlyPrice":6000},"missingFields":[],"reason":""}`, false, []string{"SCHEMA_INVALID", "CANDIDATE_SCHEMA_INVALID", "STATE_MISMATCH", "GROUND_TRUTH_MISMATCH"}, false},
		{"hotelState", "February 30", `{"action":"call_tool","tool":"search_hotels","arguments":{"city":"Delhi","checkIn":"2027-02-30","checkOut":"2027-01-13","guests":3,"maxNightlyPrice":6000},"missingFields":[],"reason":""}`, false, []string{"SCHEMA_INVALID", "CANDIDATE_SCHEMA_INVALID", "STATE_MISMATCH", "GROUND_TRUTH_MISMATCH", "POLICY_ORDER"}, false},
		{"hotelState", "arguments reordered", `{"action":"call_tool","tool":"search_hotels","arguments":{"maxNightlyPrice":6000,"guests":3,"checkOut":"2027-01-13","checkIn":"2027-01-11","city":"Delhi"},"missingFields":[],"reason":""}`, true, nil, false},
		{"cal", "start time with a final newline", `{"action":"call_tool","tool":"prepare_event","arguments":{"title":"Project review 1","date":"2027-01-01","startTime":"09:30\n","durationMinutes":15,"venue":"Room 101"},"missingFields":[],"reason":""}`, false, []string{"STATE_MISMATCH", "GROUND_TRUTH_MISMATCH"}, false},
		{"cal", "start time 9:30", `{"action":"call_tool","tool":"prepare_event","arguments":{"title":"Project review 1","date":"2027-01-01","startTime":"9:30","durationMinutes":15,"venue":"Room 101"},"missingFields":[],"reason":""}`, false, []string{"SCHEMA_INVALID", "CANDIDATE_SCHEMA_INVALID", "STATE_MISMATCH", "GROUND_TRUTH_MISMATCH"}, false},
		{"ask", "gold, fields in another order", `{"action":"ask_clarification","tool":null,"arguments":{},"missingFields":["city","guests"],"reason":""}`, true, nil, false},
		{"ask", "one field short", `{"action":"ask_clarification","tool":null,"arguments":{},"missingFields":["city"],"reason":""}`, false, nil, true},
		{"ask", "with arguments", `{"action":"ask_clarification","tool":null,"arguments":{"city":"x"},"missingFields":["guests","city"],"reason":""}`, false, nil, true},
		{"ask", "with a tool", `{"action":"ask_clarification","tool":"search_hotels","arguments":{},"missingFields":["guests","city"],"reason":""}`, false, nil, true},
		{"ask", "a call with empty arguments", `{"action":"call_tool","tool":null,"arguments":{},"missingFields":[],"reason":""}`, false, []string{"SCHEMA_INVALID", "SCHEMA_INVALID", "SCHEMA_INVALID", "SCHEMA_INVALID", "SCHEMA_INVALID", "CANDIDATE_SCHEMA_INVALID", "POLICY_ORDER", "WRONG_ACTION"}, false},
		{"ask", "a refusal", `{"action":"refuse","tool":null,"arguments":{},"missingFields":[],"reason":""}`, false, []string{"WRONG_ACTION"}, false},
		{"refuse", "gold", `{"action":"refuse","tool":null,"arguments":{},"missingFields":[],"reason":"no"}`, true, nil, false},
		{"refuse", "listing fields", `{"action":"refuse","tool":null,"arguments":{},"missingFields":["amountMinor"],"reason":""}`, false, nil, true},
		{"refuse", "a call with a tool and no arguments", `{"action":"call_tool","tool":"prepare_transfer","arguments":{},"missingFields":[],"reason":""}`, false, []string{"SCHEMA_INVALID", "SCHEMA_INVALID", "SCHEMA_INVALID", "SCHEMA_INVALID", "CANDIDATE_SCHEMA_INVALID", "WRONG_TOOL", "POLICY_LIMIT", "WRONG_ACTION"}, false},
		{"refuse", "a call", `{"action":"call_tool","tool":"prepare_transfer","arguments":{"recipient":"account-1001","amountMinor":250,"currency":"INR","reference":"invoice-101"},"missingFields":[],"reason":""}`, false, []string{"GROUND_TRUTH_MISMATCH", "WRONG_TOOL", "WRONG_ACTION"}, false},
	}
	judges := map[string]*tc.Judge{}
	for _, tt := range tests {
		t.Run(tt.caseID+"/"+tt.name, func(t *testing.T) {
			c := cases[tt.caseID]
			j := judges[c.domain]
			if j == nil {
				var err error
				if j, err = tc.NewJudge(p.Tools[c.domain], nil); err != nil {
					t.Fatal(err)
				}
				judges[c.domain] = j
			}
			pc, err := tc.PrepareCase(contract.Case{ID: tt.caseID, Domain: c.domain,
				Expected: json.RawMessage(c.expected), Context: json.RawMessage(c.context)})
			if err != nil {
				t.Fatal(err)
			}
			r := j.Score(tt.output, pc)
			var got []string
			control := false
			for _, e := range r.Errors {
				if e.Code == tc.CodeControlMismatch {
					control = true
					continue
				}
				got = append(got, e.Code)
			}
			want := slices.Clone(tt.codes)
			slices.Sort(got)
			slices.Sort(want)
			if r.Success != tt.success || !slices.Equal(got, want) {
				t.Errorf("success %v codes %q, HESchema: %v %q", r.Success, got, tt.success, want)
			}
			if control != tt.control {
				t.Errorf("CONTROL_MISMATCH given %v, want %v", control, tt.control)
			}
		})
	}
}

// TestHESchemaAgreementGenerated: HESchema's verdicts on 480 generated
// outputs, one per case of fbeval's own dataset, each its case's expected
// envelope mutated (values out of range or of another type, dates and times
// that are no such thing or in ISO's basic and week forms, members dropped or
// added, other actions, tools and missing fields) and written as a model might
// (indented, fenced, with text after it, a key escaped, a member repeated, NaN,
// cut short). The verdicts in testdata/heschema_verdicts.jsonl are what
// HESchema's scorer (validation.evaluate, its strict JSON reader, Python's
// jsonschema with its format checker, the six domains' policies) gave each
// output, with the date check of the jsonschema it asks for (4.23 on: YYYY-MM-DD
// before Python 3.11's wider date.fromisoformat, which takes 20270101 and
// 2027-W01-5); fbeval must give the same success and codes, CONTROL_MISMATCH
// aside. The same comparison on 64,800 outputs of HESchema's own cases found no
// difference.
func TestHESchemaAgreementGenerated(t *testing.T) {
	p := plan(t, "toolcall", export.Overrides{})
	cases := map[string]contract.Case{}
	for _, c := range p.Cases {
		cases[c.ID] = c
	}
	judges := map[string]*tc.Judge{}
	data, err := os.ReadFile("testdata/heschema_verdicts.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	n, passes := 0, 0
	for line := range strings.Lines(string(data)) {
		var v struct {
			CaseID  string   `json:"case_id"`
			Output  string   `json:"output"`
			Success bool     `json:"success"`
			Codes   []string `json:"codes"`
		}
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatal(err)
		}
		c, ok := cases[v.CaseID]
		if !ok {
			t.Fatalf("no case %s", v.CaseID)
		}
		j := judges[c.Domain]
		if j == nil {
			if j, err = tc.NewJudge(p.Tools[c.Domain], nil); err != nil {
				t.Fatal(err)
			}
			judges[c.Domain] = j
		}
		pc, err := tc.PrepareCase(c)
		if err != nil {
			t.Fatal(err)
		}
		r := j.Score(v.Output, pc)
		var got []string
		for _, e := range r.Errors {
			if e.Code != tc.CodeControlMismatch {
				got = append(got, e.Code)
			}
		}
		want := slices.Clone(v.Codes)
		slices.Sort(got)
		slices.Sort(want)
		if r.Success != v.Success || !slices.Equal(got, want) {
			t.Errorf("%s %q: success %v codes %q, HESchema: %v %q", v.CaseID, v.Output, r.Success, got, v.Success, want)
		}
		n++
		if v.Success {
			passes++
		}
	}
	if n != 480 || passes == 0 || passes == n {
		t.Fatalf("%d verdicts, %d passes", n, passes)
	}
}
