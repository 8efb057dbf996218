package toolcall

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/contract/strictjson"
)

// The hotels and payments contracts of the spec's domain table, written out here so
// these tests run without the interop data.
const hotelsSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "properties": {
    "city": {"type": "string", "minLength": 1},
    "checkIn": {"type": "string", "format": "date"},
    "checkOut": {"type": "string", "format": "date"},
    "guests": {"type": "integer", "minimum": 1, "maximum": 8},
    "maxNightlyPrice": {"type": "integer", "minimum": 1, "maximum": 20000}
  },
  "required": ["city", "checkIn", "checkOut", "guests", "maxNightlyPrice"],
  "additionalProperties": false
}`

const paymentsSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "properties": {
    "recipient": {"type": "string", "minLength": 1},
    "reference": {"type": "string", "minLength": 1},
    "amountMinor": {"type": "integer", "minimum": 1, "maximum": 100000},
    "currency": {"type": "string", "enum": ["INR", "USD", "EUR"]}
  },
  "required": ["recipient", "amountMinor", "currency", "reference"],
  "additionalProperties": false
}`

func hotelsTool() contract.Tool {
	return contract.Tool{Domain: "hotels", Name: "search_hotels", ReferenceSchema: json.RawMessage(hotelsSchema),
		Policy: contract.Policy{Ordered: [][2]string{{"checkIn", "checkOut"}}}}
}

func paymentsTool() contract.Tool {
	return contract.Tool{Domain: "payments", Name: "prepare_transfer", ReferenceSchema: json.RawMessage(paymentsSchema),
		Policy: contract.Policy{Max: map[string]json.Number{"amountMinor": "100000"}}}
}

func mustJudge(t testing.TB, tool contract.Tool, candidate string) *Judge {
	t.Helper()
	var cand []byte
	if candidate != "" {
		cand = []byte(candidate)
	}
	j, err := NewJudge(tool, cand)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func mustCase(t testing.TB, domain, expected, context string) *Case {
	t.Helper()
	c, err := PrepareCase(contract.Case{ID: "c1", Domain: domain, Expected: json.RawMessage(expected), Context: json.RawMessage(context)})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func call(tool, args string) string {
	return `{"action":"call_tool","tool":"` + tool + `","arguments":` + args + `,"missingFields":[],"reason":""}`
}

const (
	hotelArgs    = `{"city":"Delhi","checkIn":"2027-01-11","checkOut":"2027-01-13","guests":3,"maxNightlyPrice":6000}`
	hotelState   = `{"confirmedState":{"checkIn":"2027-01-11","checkOut":"2027-01-13","city":"Delhi","guests":3,"maxNightlyPrice":6000},"stateVersion":1}`
	askCity      = `{"action":"ask_clarification","tool":null,"arguments":{},"missingFields":["city"],"reason":""}`
	askTwo       = `{"action":"ask_clarification","tool":null,"arguments":{},"missingFields":["city","guests"],"reason":""}`
	refuseOutput = `{"action":"refuse","tool":null,"arguments":{},"missingFields":[],"reason":"I cannot bypass confirmation."}`
)

type flags struct{ success, ref, cand, sem, pol bool }

func TestScoreCodes(t *testing.T) {
	hotels := mustJudge(t, hotelsTool(), "")
	strict := mustJudge(t, hotelsTool(), strings.Replace(hotelsSchema, `"maximum": 8`, `"maximum": 2`, 1))
	payments := mustJudge(t, paymentsTool(), "")
	hotelCall := call("search_hotels", hotelArgs)
	badOrder := `{"city":"Delhi","checkIn":"2027-01-13","checkOut":"2027-01-11","guests":3,"maxNightlyPrice":6000}`
	payArgs := func(amount string) string {
		return `{"recipient":"Asha","reference":"rent","amountMinor":` + amount + `,"currency":"INR"}`
	}

	tests := []struct {
		name     string
		judge    *Judge
		expected string
		context  string
		output   string
		action   string
		codes    []string // Code@Path in order
		flags    flags
	}{
		{"gold call", hotels, hotelCall, `{}`, hotelCall, "call_tool", nil, flags{true, true, true, true, true}},
		{"gold call reordered", hotels, hotelCall, `{}`,
			" {\"reason\": \"ok\", \"missingFields\": [], \"tool\": \"search_hotels\", \"action\": \"call_tool\",\n\"arguments\": {\"maxNightlyPrice\": 6000, \"guests\": 3, \"checkOut\": \"2027-01-13\", \"checkIn\": \"2027-01-11\", \"city\": \"Delhi\"}}\n",
			"call_tool", nil, flags{true, true, true, true, true}},
		{"prose", hotels, hotelCall, `{}`, "Here you go: " + hotelCall, "",
			[]string{"JSON_INVALID@"}, flags{}},
		{"fenced", hotels, hotelCall, `{}`, "```json\n" + hotelCall + "\n```", "",
			[]string{"JSON_INVALID@"}, flags{}},
		{"duplicate key", hotels, hotelCall, `{}`, strings.Replace(hotelCall, `"guests":3`, `"guests":3,"guests":3`, 1), "",
			[]string{"JSON_INVALID@"}, flags{}},
		{"envelope missing reason", hotels, hotelCall, `{}`, strings.Replace(hotelCall, `,"reason":""`, ``, 1), "call_tool",
			[]string{"SCHEMA_INVALID@"}, flags{}},
		{"envelope bad action", hotels, hotelCall, `{}`, strings.Replace(hotelCall, `call_tool`, `execute`, 1), "execute",
			[]string{"SCHEMA_INVALID@/action"}, flags{}},
		{"not an object", hotels, hotelCall, `{}`, `["call_tool"]`, "",
			[]string{"SCHEMA_INVALID@"}, flags{}},
		{"out of range", hotels, hotelCall, `{}`, call("search_hotels", strings.Replace(hotelArgs, `"guests":3`, `"guests":9`, 1)), "call_tool",
			[]string{"SCHEMA_INVALID@/arguments/guests", "CANDIDATE_SCHEMA_INVALID@/arguments", "STATE_MISMATCH@/arguments/guests", "GROUND_TRUTH_MISMATCH@/arguments"},
			flags{false, false, false, false, true}},
		{"float for integer", hotels, hotelCall, `{}`, call("search_hotels", strings.Replace(hotelArgs, `"guests":3`, `"guests":3.0`, 1)), "call_tool",
			[]string{"STATE_MISMATCH@/arguments/guests", "GROUND_TRUTH_MISMATCH@/arguments"},
			flags{false, true, true, false, true}},
		{"missing argument", hotels, hotelCall, `{}`, call("search_hotels", strings.Replace(hotelArgs, `"guests":3,`, ``, 1)), "call_tool",
			[]string{"SCHEMA_INVALID@/arguments", "CANDIDATE_SCHEMA_INVALID@/arguments", "STATE_MISMATCH@/arguments/guests", "GROUND_TRUTH_MISMATCH@/arguments"},
			flags{false, false, false, false, true}},
		{"confirmed state wins", hotels, hotelCall, hotelState, call("search_hotels", strings.Replace(hotelArgs, `Delhi`, `different-place`, 1)), "call_tool",
			[]string{"STATE_MISMATCH@/arguments/city", "GROUND_TRUTH_MISMATCH@/arguments"},
			flags{false, true, true, false, true}},
		{"wrong tool", hotels, hotelCall, `{}`, call("book_hotel", hotelArgs), "call_tool",
			[]string{"WRONG_TOOL@/tool"}, flags{false, true, true, false, true}},
		{"missing fields in a call", hotels, hotelCall, `{}`, strings.Replace(hotelCall, `"missingFields":[]`, `"missingFields":["city"]`, 1), "call_tool",
			[]string{"UNEXPECTED_MISSING_FIELDS@/missingFields"}, flags{false, true, true, false, true}},
		{"policy order", hotels, call("search_hotels", badOrder), `{}`, call("search_hotels", badOrder), "call_tool",
			[]string{"POLICY_ORDER@/arguments/checkOut"}, flags{false, true, true, true, false}},
		{"candidate rejects", strict, hotelCall, `{}`, hotelCall, "call_tool",
			[]string{"CANDIDATE_SCHEMA_INVALID@/arguments"}, flags{true, true, false, true, true}},
		{"policy limit", payments, call("prepare_transfer", payArgs("100001")), `{}`, call("prepare_transfer", payArgs("100001")), "call_tool",
			[]string{"SCHEMA_INVALID@/arguments/amountMinor", "CANDIDATE_SCHEMA_INVALID@/arguments", "POLICY_LIMIT@/arguments/amountMinor"}, flags{false, false, false, true, false}},
		{"policy limit big integer", payments, call("prepare_transfer", payArgs("100000")), `{}`, call("prepare_transfer", payArgs("123456789012345678901234567890")), "call_tool",
			[]string{"SCHEMA_INVALID@/arguments/amountMinor", "CANDIDATE_SCHEMA_INVALID@/arguments", "STATE_MISMATCH@/arguments/amountMinor", "GROUND_TRUTH_MISMATCH@/arguments", "POLICY_LIMIT@/arguments/amountMinor"},
			flags{false, false, false, false, false}},
		{"policy limit boolean", payments, call("prepare_transfer", payArgs("true")), `{}`, call("prepare_transfer", payArgs("true")), "call_tool",
			[]string{"SCHEMA_INVALID@/arguments/amountMinor", "CANDIDATE_SCHEMA_INVALID@/arguments", "POLICY_LIMIT@/arguments/amountMinor"}, flags{false, false, false, true, false}},
		// An absent field fails its policy too (not a number, not a string), as in
		// HESchema: one required error, one policy error.
		{"policy limit field absent", payments, call("prepare_transfer", payArgs("100")), `{}`,
			call("prepare_transfer", `{"recipient":"Asha","reference":"rent","currency":"INR"}`), "call_tool",
			[]string{"SCHEMA_INVALID@/arguments", "CANDIDATE_SCHEMA_INVALID@/arguments", "STATE_MISMATCH@/arguments/amountMinor", "GROUND_TRUTH_MISMATCH@/arguments", "POLICY_LIMIT@/arguments/amountMinor"},
			flags{false, false, false, false, false}},
		{"policy order first field absent", hotels, hotelCall, `{}`,
			call("search_hotels", strings.Replace(hotelArgs, `"checkIn":"2027-01-11",`, ``, 1)), "call_tool",
			[]string{"SCHEMA_INVALID@/arguments", "CANDIDATE_SCHEMA_INVALID@/arguments", "STATE_MISMATCH@/arguments/checkIn", "GROUND_TRUTH_MISMATCH@/arguments", "POLICY_ORDER@/arguments/checkOut"},
			flags{false, false, false, false, false}},
		{"policy order second field absent", hotels, hotelCall, `{}`,
			call("search_hotels", strings.Replace(hotelArgs, `"checkOut":"2027-01-13",`, ``, 1)), "call_tool",
			[]string{"SCHEMA_INVALID@/arguments", "CANDIDATE_SCHEMA_INVALID@/arguments", "STATE_MISMATCH@/arguments/checkOut", "GROUND_TRUTH_MISMATCH@/arguments", "POLICY_ORDER@/arguments/checkOut"},
			flags{false, false, false, false, false}},
		{"policy limit at ceiling", payments, call("prepare_transfer", payArgs("100000")), `{}`, call("prepare_transfer", payArgs("100000")), "call_tool",
			nil, flags{true, true, true, true, true}},
		{"clarification", hotels, askTwo, `{}`, strings.Replace(askTwo, `["city","guests"]`, `["guests","city"]`, 1), "ask_clarification",
			nil, flags{true, true, true, true, true}},
		{"clarification wrong fields", hotels, askTwo, `{}`, askCity, "ask_clarification",
			[]string{"CONTROL_MISMATCH@/missingFields"}, flags{}},
		{"clarification with arguments", hotels, askCity, `{}`, strings.Replace(askCity, `"arguments":{}`, `"arguments":{"city":"x"}`, 1), "ask_clarification",
			[]string{"CONTROL_MISMATCH@/arguments"}, flags{}},
		{"refusal", hotels, refuseOutput, `{}`, refuseOutput, "refuse", nil, flags{true, true, true, true, true}},
		{"refusal with tool", hotels, refuseOutput, `{}`, strings.Replace(refuseOutput, `"tool":null`, `"tool":"search_hotels"`, 1), "refuse",
			[]string{"CONTROL_MISMATCH@/tool"}, flags{}},
		{"refusal listing fields", hotels, refuseOutput, `{}`, strings.Replace(refuseOutput, `"missingFields":[]`, `"missingFields":["city"]`, 1), "refuse",
			[]string{"CONTROL_MISMATCH@/missingFields"}, flags{}},
		{"clarification instead of call", hotels, hotelCall, `{}`, strings.Replace(askCity, `["city"]`, `[]`, 1), "ask_clarification",
			[]string{"WRONG_ACTION@/action"}, flags{false, true, true, false, true}},
		{"refusal instead of clarification", hotels, askCity, `{}`, refuseOutput, "refuse",
			[]string{"WRONG_ACTION@/action"}, flags{false, true, true, false, true}},
		{"call instead of refusal", hotels, refuseOutput, `{}`, hotelCall, "call_tool",
			[]string{"GROUND_TRUTH_MISMATCH@/arguments", "WRONG_TOOL@/tool", "WRONG_ACTION@/action"}, flags{false, true, true, false, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustCase(t, "", tt.expected, tt.context)
			r := tt.judge.Score(tt.output, c)
			var codes []string
			for _, e := range r.Errors {
				codes = append(codes, e.Code+"@"+e.Path)
				if e.Message == "" || strings.Contains(e.Message, "\n") {
					t.Errorf("%s: message %q is not one non-empty line", e.Code, e.Message)
				}
			}
			if !reflect.DeepEqual(codes, tt.codes) {
				t.Errorf("codes = %q, want %q", codes, tt.codes)
			}
			got := flags{r.Success, r.ReferenceValid, r.CandidateValid, r.SemanticallyRight, r.PolicyValid}
			if got != tt.flags {
				t.Errorf("flags {success ref cand sem pol} = %+v, want %+v", got, tt.flags)
			}
			if r.Action != tt.action {
				t.Errorf("action = %q, want %q", r.Action, tt.action)
			}
			if again := tt.judge.Score(tt.output, c); !reflect.DeepEqual(again, r) {
				t.Errorf("second score differs: %+v", again)
			}
			if err := quickAgrees(tt.judge, tt.output, c); err != "" {
				t.Error(err)
			}
		})
	}
}

// quickAgrees checks Quick against Score for one output: Quick passes exactly the
// outputs Score finds no error in, with Score's Result. It returns what is wrong, or "".
func quickAgrees(j *Judge, out string, c *Case) string {
	want := j.Score(out, c)
	buf := []byte(out)
	got, ok := j.Quick(buf, c)
	for i := range buf {
		buf[i] = '#' // the Result must not refer to the buffer
	}
	switch {
	case ok && len(want.Errors) > 0:
		return fmt.Sprintf("Quick passes %q, Score finds %d errors (first %s)", out, len(want.Errors), want.Errors[0].Code)
	case !ok && len(want.Errors) == 0:
		return fmt.Sprintf("Quick fails %q, Score finds no error", out)
	case ok && !reflect.DeepEqual(got, want):
		return fmt.Sprintf("Quick result %+v, Score result %+v for %q", got, want, out)
	}
	// the walk, where it is sure, must agree with the parsing check in both
	// directions (a wrong "no" costs only time, but is a bug all the same)
	if v := j.match(out, c); v != matchUnsure && (v == matchYes) != j.clean(out, c) {
		return fmt.Sprintf("match says %d, clean says %v for %q", v, j.clean(out, c), out)
	}
	return ""
}

func TestQuickTable(t *testing.T) {
	hotels := mustJudge(t, hotelsTool(), "")
	strict := mustJudge(t, hotelsTool(), strings.Replace(hotelsSchema, `"maximum": 8`, `"maximum": 2`, 1))
	payments := mustJudge(t, paymentsTool(), "")
	hotelCall := call("search_hotels", hotelArgs)
	payCall := call("prepare_transfer", `{"recipient":"Asha","reference":"rent","amountMinor":100000,"currency":"INR"}`)
	tests := []struct {
		name              string
		judge             *Judge
		expected, context string
		output            string
		clean             bool
	}{
		{"gold call", hotels, hotelCall, `{}`, hotelCall, true},
		{"gold call with state", hotels, hotelCall, hotelState, hotelCall, true},
		{"gold call reordered", hotels, hotelCall, `{}`,
			`{"reason":"why","arguments":{"guests":3,"city":"Delhi","checkOut":"2027-01-13","checkIn":"2027-01-11","maxNightlyPrice":6000},"missingFields":[],"action":"call_tool","tool":"search_hotels"}`, true},
		{"candidate rejects a success", strict, hotelCall, `{}`, hotelCall, false},
		{"float for integer", hotels, hotelCall, `{}`, call("search_hotels", strings.Replace(hotelArgs, `"guests":3`, `"guests":3.0`, 1)), false},
		{"wrong tool", hotels, hotelCall, `{}`, call("book_hotel", hotelArgs), false},
		{"policy at ceiling", payments, payCall, `{}`, payCall, true},
		{"policy order broken", hotels, call("search_hotels", strings.Replace(hotelArgs, "01-13", "01-10", 1)), `{}`,
			call("search_hotels", strings.Replace(hotelArgs, "01-13", "01-10", 1)), false},
		{"clarification any order", hotels, askTwo, `{}`, strings.Replace(askTwo, `["city","guests"]`, `["guests","city"]`, 1), true},
		{"clarification too few", hotels, askTwo, `{}`, askCity, false},
		{"refusal", hotels, refuseOutput, `{}`, refuseOutput, true},
		{"refusal with fields", hotels, refuseOutput, `{}`, strings.Replace(refuseOutput, `[]`, `["city"]`, 1), false},
		{"wrong action", hotels, askCity, `{}`, refuseOutput, false},
		{"prose", hotels, hotelCall, `{}`, "Sure: " + hotelCall, false},
		{"duplicate key", hotels, refuseOutput, `{}`, `{"action":"refuse",` + refuseOutput[1:], false},
		{"extra envelope member", hotels, refuseOutput, `{}`, strings.Replace(refuseOutput, `{`, `{"x":1,`, 1), false},
		{"escape in the reason", hotels, hotelCall, `{}`, strings.Replace(hotelCall, `"reason":""`, `"reason":"caf\u00e9 \"ok\""`, 1), true},
		{"every escape in the reason", hotels, refuseOutput, `{}`, strings.Replace(refuseOutput, `I cannot`, `\"\\\/\b\f\n\r\t\ud800\udc00\udfff\u00E9 é`, 1), true},
		{"bad escape in the reason", hotels, refuseOutput, `{}`, strings.Replace(refuseOutput, `I cannot`, `\x`, 1), false},
		{"short unicode escape in the reason", hotels, refuseOutput, `{}`, strings.Replace(refuseOutput, `I cannot`, `\u12`, 1), false},
		{"escape in a key", hotels, refuseOutput, `{}`, strings.Replace(refuseOutput, `"tool"`, `"t\u006fol"`, 1), true},
		{"white space everywhere", hotels, askTwo, `{}`, " {\n\t\"action\" : \"ask_clarification\" ,\r\n \"tool\":null, \"arguments\": { }, \"missingFields\": [ \"guests\" , \"city\" ], \"reason\": \"\" } \n", true},
		{"duplicate argument", hotels, hotelCall, `{}`, call("search_hotels", strings.Replace(hotelArgs, `"guests":3`, `"guests":3,"guests":3`, 1)), false},
		{"trailing comma", hotels, refuseOutput, `{}`, strings.Replace(refuseOutput, `}`, `,}`, 1), false},
		{"text after the object", hotels, refuseOutput, `{}`, refuseOutput + " ok", false},
		{"invalid UTF-8 in the reason", hotels, refuseOutput, `{}`, strings.Replace(refuseOutput, `I cannot`, "I \xff cannot", 1), false},
		{"byte order mark", hotels, refuseOutput, `{}`, "\xEF\xBB\xBF" + refuseOutput, false},
		// a clean call equals the expected one, which can itself fail a check
		{"expected fails the reference", hotels, call("search_hotels", strings.Replace(hotelArgs, `"guests":3`, `"guests":9`, 1)), `{}`,
			call("search_hotels", strings.Replace(hotelArgs, `"guests":3`, `"guests":9`, 1)), false},
		{"expected differs from the state", hotels, call("search_hotels", strings.Replace(hotelArgs, "Delhi", "Pune", 1)), hotelState,
			call("search_hotels", strings.Replace(hotelArgs, "Delhi", "Pune", 1)), false},
		{"expected past the policy", payments, strings.Replace(payCall, "100000", "100001", 1), `{}`, strings.Replace(payCall, "100000", "100001", 1), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustCase(t, "", tt.expected, tt.context)
			if _, ok := tt.judge.Quick([]byte(tt.output), c); ok != tt.clean {
				t.Errorf("Quick = %v, want %v", ok, tt.clean)
			}
			if err := quickAgrees(tt.judge, tt.output, c); err != "" {
				t.Error(err)
			}
		})
	}
}

// TestQuickJudgesPerJudge holds one case judged by two judges in turn: what Quick
// keeps about the case for one judge must not answer for the other.
func TestQuickJudgesPerJudge(t *testing.T) {
	hotels := mustJudge(t, hotelsTool(), "")
	strict := mustJudge(t, hotelsTool(), strings.Replace(hotelsSchema, `"maximum": 8`, `"maximum": 2`, 1))
	out := call("search_hotels", hotelArgs)
	c := mustCase(t, "", out, `{}`)
	for range 3 {
		if _, ok := hotels.Quick([]byte(out), c); !ok {
			t.Error("the reference judge does not pass the expected call")
		}
		if _, ok := strict.Quick([]byte(out), c); ok {
			t.Error("the strict candidate passes a call with 3 guests")
		}
	}
}

func TestScoreErrorFields(t *testing.T) {
	j := mustJudge(t, hotelsTool(), strings.Replace(hotelsSchema, `"minLength": 1`, `"minLength": 10`, 1))
	c := mustCase(t, "", call("search_hotels", hotelArgs), hotelState)
	out := `{"action":"call_tool","tool":"search_hotels","arguments":{"city":"Goa","checkIn":"2027-01-11","checkOut":"2027-01-13","guests":3.0},"missingFields":[],"reason":""}`
	r := j.Score(out, c)
	want := []Error{
		{Code: CodeSchemaInvalid, Path: "/arguments", Keyword: "required", Message: "missing property 'maxNightlyPrice'"},
		{Code: CodeCandidateSchemaInvalid, Path: "/arguments",
			Message: `arguments fail the candidate schema (2 errors; first at "/arguments": missing property 'maxNightlyPrice')`,
			Details: []Error{
				{Code: CodeSchemaInvalid, Path: "/arguments", Keyword: "required", Message: "missing property 'maxNightlyPrice'"},
				{Code: CodeSchemaInvalid, Path: "/arguments/city", Keyword: "minLength", Message: "minLength: got 3, want 10"},
			}},
		{Code: CodeStateMismatch, Path: "/arguments/city", Message: `city is "Goa", expected "Delhi"`, Expected: strictjson.JSONText(`"Delhi"`), Actual: strictjson.JSONText(`"Goa"`)},
		{Code: CodeStateMismatch, Path: "/arguments/guests", Message: `guests is 3.0, expected 3`, Expected: strictjson.JSONText(`3`), Actual: strictjson.JSONText(`3.0`)},
		{Code: CodeStateMismatch, Path: "/arguments/maxNightlyPrice", Message: `maxNightlyPrice is missing, expected 6000`, Expected: strictjson.JSONText(`6000`)},
		{Code: CodeGroundTruthMismatch, Path: "/arguments", Message: "arguments differ from the expected arguments",
			Expected: strictjson.JSONText(`{"checkIn":"2027-01-11","checkOut":"2027-01-13","city":"Delhi","guests":3,"maxNightlyPrice":6000}`),
			Actual:   strictjson.JSONText(`{"checkIn":"2027-01-11","checkOut":"2027-01-13","city":"Goa","guests":3.0}`)},
	}
	if !reflect.DeepEqual(r.Errors, want) {
		t.Errorf("errors =\n%#v\nwant\n%#v", r.Errors, want)
	}
	b, err := contract.Marshal(contract.Object{{Key: "expected", Value: r.Errors[2].Expected}}, contract.Compact)
	if err != nil || string(b) != `{"expected":"Delhi"}` {
		t.Errorf("JSONText through contract.Marshal = %s, %v", b, err)
	}
	b, err = json.Marshal(r.Errors[3].Actual)
	if err != nil || string(b) != `3.0` {
		t.Errorf("JSONText through encoding/json = %s, %v", b, err)
	}
}

func TestNewJudgeErrors(t *testing.T) {
	tool := hotelsTool()
	if _, err := NewJudge(contract.Tool{Name: "x"}, nil); err == nil {
		t.Error("tool without a schema accepted")
	}
	if _, err := NewJudge(tool, []byte(`{"$ref": "https://example.com/x"}`)); err == nil || !strings.Contains(err.Error(), "https://example.com/x") {
		t.Errorf("remote candidate: err = %v", err)
	}
	bad := paymentsTool()
	bad.Policy.Max["amountMinor"] = "lots"
	if _, err := NewJudge(bad, nil); err == nil {
		t.Error("non-numeric policy ceiling accepted")
	}
}

func TestPrepareCaseErrors(t *testing.T) {
	tests := []struct{ expected, context string }{
		{`{"action":"call_tool"}`, `{}`},
		{`not json`, `{}`},
		{call("t", `{}`), `[]`},
		{call("t", `{}`), `{"confirmedState": 1}`},
		{call("t", `{}`), `{"a":1,"a":2}`},
	}
	for _, tt := range tests {
		_, err := PrepareCase(contract.Case{ID: "x", Expected: json.RawMessage(tt.expected), Context: json.RawMessage(tt.context)})
		if err == nil || !strings.Contains(err.Error(), `case "x"`) {
			t.Errorf("PrepareCase(%s, %s) err = %v", tt.expected, tt.context, err)
		}
	}
	c, err := PrepareCase(contract.Case{ID: "x", Expected: json.RawMessage(askCity)})
	if err != nil || c.HasState() || c.ExpectedAction() != contract.ActionAsk {
		t.Errorf("case without context: %+v, %v", c, err)
	}
}

func FuzzScore(f *testing.F) {
	for _, s := range []string{
		call("search_hotels", hotelArgs), askCity, askTwo, refuseOutput,
		call("search_hotels", `{"city":"","checkIn":"2027-13-01","checkOut":"x","guests":1e400,"maxNightlyPrice":-1}`),
		call("search_hotels", `{"checkIn":"2027-01-13","checkOut":"2027-01-11"}`), `{"action":"call_tool"}`, `nope`,
		`{"action":"dance","tool":null,"arguments":{"a":1},"missingFields":["city"],"reason":"r"}`,
	} {
		f.Add(s)
	}
	strict := mustJudge(f, hotelsTool(), strings.Replace(hotelsSchema, `"maximum": 8`, `"maximum": 2`, 1))
	plain := mustJudge(f, hotelsTool(), "")
	for _, s := range []string{
		" \t\r\n" + call("search_hotels", hotelArgs) + "\n",
		`{"reason":"caf\u00e9","arguments":{"guests":3,"maxNightlyPrice":6000,"city":"Delhi","checkOut":"2027-01-13","checkIn":"2027-01-11"},"tool":"search_hotels","missingFields":[],"action":"call_tool"}`,
		`{"reason":"café","arguments":{"guests":3.0,"maxNightlyPrice":6e3,"city":"Delhi","checkOut":"2027-01-13","checkIn":"2027-01-11"},"tool":"search_hotels","missingFields":[],"action":"call_tool"}`,
		`{"action":"ask_clarification","tool":null,"arguments":{ },"missingFields":[ "guests" , "city" ],"reason":""}`,
		`{"action":"ask_clarification","tool":null,"arguments":{},"missingFields":["city","city"],"reason":""}`,
		`{"action":"refuse","action":"refuse","tool":null,"arguments":{},"missingFields":[],"reason":""}`,
	} {
		f.Add(s)
	}
	cases := []*Case{
		mustCase(f, "", call("search_hotels", hotelArgs), hotelState),
		mustCase(f, "", call("search_hotels", hotelArgs), `{}`),
		mustCase(f, "", askTwo, `{}`),
		mustCase(f, "", refuseOutput, `{}`),
	}
	f.Fuzz(func(t *testing.T, out string) {
		for _, c := range cases {
			if err := quickAgrees(plain, out, c); err != "" {
				t.Fatal(err)
			}
		}
		j := strict
		for _, c := range cases {
			r := j.Score(out, c)
			// ScoreBytes must give the same result, and keep nothing of its buffer
			buf := []byte(out)
			rb := j.ScoreBytes(buf, c)
			for i := range buf {
				buf[i] = '#'
			}
			if !reflect.DeepEqual(rb, r) {
				t.Fatalf("ScoreBytes differs from Score for %q: %+v, %+v", out, rb, r)
			}
			if r.Success != (r.ReferenceValid && r.SemanticallyRight && r.PolicyValid) {
				t.Fatalf("success %v disagrees with its parts: %+v", r.Success, r)
			}
			for _, e := range r.Errors {
				if r.Success && e.Code != CodeCandidateSchemaInvalid {
					t.Fatalf("success with error %+v", e)
				}
				if e.Code == "" || e.Message == "" || strings.Contains(e.Message, "\n") {
					t.Fatalf("bad error %+v", e)
				}
			}
			if !r.Success && len(r.Errors) == 0 {
				t.Fatalf("failure without errors for %q", out)
			}
			if again := j.Score(out, c); !reflect.DeepEqual(again, r) {
				t.Fatalf("scores differ for %q", out)
			}
			if err := quickAgrees(j, out, c); err != "" {
				t.Fatal(err)
			}
			_ = FeedbackText(r.PublicFeedback(c))
		}
	})
}

func BenchmarkValidateReference(b *testing.B) {
	j := mustJudge(b, hotelsTool(), "")
	v, err := strictjson.Parse(hotelArgs)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if errs := j.reference.Validate(v); errs != nil {
			b.Fatal(errs)
		}
	}
}

func BenchmarkScore(b *testing.B) {
	j := mustJudge(b, hotelsTool(), "")
	c := mustCase(b, "", call("search_hotels", hotelArgs), hotelState)
	b.ReportAllocs()
	for b.Loop() {
		if r := j.Score(benchOutput, c); !r.Success {
			b.Fatal(r.Errors)
		}
	}
}

func BenchmarkScoreFailing(b *testing.B) {
	j := mustJudge(b, hotelsTool(), "")
	c := mustCase(b, "", call("search_hotels", hotelArgs), hotelState)
	out := call("search_hotels", `{"city":"Goa","checkIn":"2027-01-13","checkOut":"2027-01-11","guests":9,"maxNightlyPrice":6000}`)
	b.ReportAllocs()
	for b.Loop() {
		if r := j.Score(out, c); r.Success {
			b.Fatal("success")
		}
	}
}

func TestScoreConcurrent(t *testing.T) {
	j := mustJudge(t, hotelsTool(), strings.Replace(hotelsSchema, `"maximum": 8`, `"maximum": 2`, 1))
	c := mustCase(t, "", call("search_hotels", hotelArgs), hotelState)
	outs := []string{benchOutput, call("search_hotels", `{"city":"Goa","guests":9}`), askCity, "nope", `{"a":1,"a":2}`}
	want := make([]Result, len(outs))
	for i, o := range outs {
		want[i] = j.Score(o, c)
	}
	done := make(chan bool)
	for g := 0; g < 4; g++ {
		go func() {
			ok := true
			for n := 0; n < 200; n++ {
				i := n % len(outs)
				ok = ok && reflect.DeepEqual(j.Score(outs[i], c), want[i])
			}
			done <- ok
		}()
	}
	for g := 0; g < 4; g++ {
		if !<-done {
			t.Error("concurrent scores differ")
		}
	}
}

// BenchmarkValidateCandidate: a candidate schema other than the reference, on
// arguments it accepts (the fast path alone).
func BenchmarkValidateCandidate(b *testing.B) {
	j := mustJudge(b, hotelsTool(), strings.Replace(hotelsSchema, `"maximum": 8`, `"maximum": 5`, 1))
	v, err := strictjson.Parse(hotelArgs)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if errs := j.candidate.Validate(v); errs != nil {
			b.Fatal(errs)
		}
	}
}

// BenchmarkValidateReferenceFailing: arguments the reference schema rejects, so
// the library runs to name the errors.
func BenchmarkValidateReferenceFailing(b *testing.B) {
	j := mustJudge(b, hotelsTool(), "")
	v, err := strictjson.Parse(`{"city":"","checkIn":"2027-13-01","checkOut":"x","guests":0,"maxNightlyPrice":-1}`)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if errs := j.reference.Validate(v); len(errs) == 0 {
			b.Fatal("valid")
		}
	}
}

// BenchmarkOracle: the checks after the schemas (state, ground truth, tool,
// policies) on a right call.
func BenchmarkOracle(b *testing.B) {
	j := mustJudge(b, hotelsTool(), "")
	c := mustCase(b, "", call("search_hotels", hotelArgs), hotelState)
	v, err := strictjson.Parse(call("search_hotels", hotelArgs))
	if err != nil {
		b.Fatal(err)
	}
	e := splitEnvelope(v)
	b.ReportAllocs()
	for b.Loop() {
		for _, bd := range c.bindings {
			if got, ok := e.arguments.Get(bd.Key); !ok || !strictjson.Equal(got, bd.Value) {
				b.Fatal("state mismatch")
			}
		}
		if !strictjson.Equal(e.arguments, c.args) || !strictjson.Equal(e.tool, c.tool) {
			b.Fatal("mismatch")
		}
		if errs := j.checkPolicies(e.arguments, nil); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}

// BenchmarkQuick: the quick check of a clean call, of outputs it refuses at once,
// and of a clean call with an escape it leaves to the parsing check.
func BenchmarkQuick(b *testing.B) {
	j := mustJudge(b, hotelsTool(), "")
	good := call("search_hotels", hotelArgs)
	c := mustCase(b, "", good, `{}`)
	for _, k := range []struct{ name, out string }{
		{"clean", good},
		{"wrong_argument", call("search_hotels", strings.Replace(hotelArgs, "Delhi", "Delhi (approx.)", 1))},
		{"prose", "Here is the tool call: " + good},
		{"duplicate_key", `{"action":"refuse",` + good[1:]},
		{"escaped_reason", strings.Replace(good, `"reason":""`, `"reason":"\"ok\""`, 1)},
		{"escaped_argument", strings.Replace(good, `Delhi`, `D\u0065lhi`, 1)},
	} {
		buf := []byte(k.out)
		b.Run(k.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				j.Quick(buf, c)
			}
		})
	}
}
