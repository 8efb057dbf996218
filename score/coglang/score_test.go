package coglang

import (
	"bytes"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/fixtures"
	"github.com/fbeval/fbeval/fixtures/fixturetest"
	"github.com/fbeval/fbeval/score/report"
)

func str(s string) *string { return &s }

func fixtureOf(cases ...fixtures.CogLangCase) *fixtures.CogLangFixture {
	return &fixtures.CogLangFixture{SchemaVersion: contract.CogLangFixture, Cases: cases}
}

func kase(id, level, head string) fixtures.CogLangCase {
	heads := []string{}
	if head != "" {
		heads = []string{head}
	}
	return fixtures.CogLangCase{CaseID: id, Level: level, Prompt: "p " + id, ReferenceExpr: head + "[]", ExpectedTopLevelHeads: heads}
}

func TestScoreCase(t *testing.T) {
	cases := []struct {
		name, output string
		expected     string // expected head
		strict       bool
		parseOK      bool
		validOK      bool
		headOK       bool
		halluc       []string
		cats         []string
		decision     Decision
		canonical    string
		parseError   string
	}{
		{"clean", `Equal[1,1]`, "Equal", false, true, true, true, nil, []string{}, Accepted, `Equal[1, 1]`, ""},
		{"parse error", `Equal[1, 1`, "Equal", false, false, false, false, nil, []string{"parse_error"}, Rejected, "", `ParseError["unclosed_bracket", 5]`},
		{"written ParseError is a parse failure", `ParseError["mine", 3]`, "ParseError", false, false, false, false, nil, []string{"parse_error"}, Rejected, "", `ParseError["mine", 3]`},
		{"bare ParseError promoted", `ParseError`, "ParseError", false, false, false, false, nil, []string{"parse_error"}, Rejected, "", `ParseError[]`},
		{"nested ParseError is fine", `List[ParseError["x", 1]]`, "List", false, true, true, true, nil, []string{}, Accepted, `List[ParseError["x", 1]]`, ""},
		{"hallucinated", `BetterEqual[1, 1]`, "Equal", false, true, false, false, []string{"BetterEqual"}, []string{"validation_error", "top_level_head_mismatch", "hallucinated_operator"}, Rejected, `BetterEqual[1, 1]`, ""},
		{"hallucinated in dict only", `Get[{"k": Zap[]}, "k"]`, "Get", false, true, true, true, []string{"Zap"}, []string{"hallucinated_operator"}, Accepted, `Get[{"k": Zap[]}, "k"]`, ""},
		{"arity", `Do[]`, "Do", false, true, false, true, nil, []string{"validation_error"}, Rejected, `Do[]`, ""},
		{"head mismatch only", `Query[n_, Traverse["a","b"]]`, "Traverse", false, true, true, false, nil, []string{"top_level_head_mismatch"}, CannotEstimate, `Query[n_, Traverse["a", "b"]]`, ""},
		{"no expected heads", `Equal[1, 1]`, "", false, true, true, false, nil, []string{"top_level_head_mismatch"}, Accepted, `Equal[1, 1]`, ""},
		{"quoted head promoted", `"Equal"`, "Equal", false, true, true, true, nil, []string{}, Accepted, `Equal[]`, ""},
		{"strict: quoted head not promoted", `"Equal"`, "Equal", true, false, false, false, nil, []string{"parse_error"}, Rejected, "", `ParseError["not_an_expression", 0]`},
		{"strict: comma required", `Equal[1 1]`, "Equal", true, false, false, false, nil, []string{"parse_error"}, Rejected, "", `ParseError["missing_comma", 3]`},
		{"strict: spec arity", `Equal[1]`, "Equal", true, true, false, true, nil, []string{"validation_error"}, Rejected, `Equal[1]`, ""},
		{"reference: spec arity not enforced", `Equal[1]`, "Equal", false, true, true, true, nil, []string{}, Accepted, `Equal[1]`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fx := fixtureOf(kase("c", "L1", tc.expected))
			res := Score(fx, []Response{{CaseID: "c", Output: str(tc.output)}}, Options{Strict: tc.strict})
			c := res.Cases[0]
			if c.ParseOK != tc.parseOK || c.ValidateOK != tc.validOK || c.HeadOK != tc.headOK ||
				!reflect.DeepEqual(c.Hallucinated, tc.halluc) || !reflect.DeepEqual(c.Failures.Categories(), tc.cats) ||
				c.Decision != tc.decision || c.Canonical != tc.canonical || c.ParseError != tc.parseError {
				t.Errorf("got %+v categories %v", c, c.Failures.Categories())
			}
			if res.OK() != (len(tc.cats) == 0) {
				t.Errorf("ok %v with categories %v", res.OK(), tc.cats)
			}
		})
	}
}

func TestScoreResponses(t *testing.T) {
	fx := fixtureOf(kase("a", "L1", "Equal"), kase("b", "L1", "Equal"), kase("c", "L2", "AllNodes"), kase("a", "L3", "Equal"))
	responses := []Response{
		{CaseID: "a", Output: str("Foo[]")},
		{CaseID: "zz", Output: str("Equal[1, 1]")},
		{CaseID: "a", Output: str("Equal[1, 1]")}, // the last record wins
		{CaseID: "c", Output: str("AllNodes[]")},
		{CaseID: "zz", Output: str("x")},
	}
	res := Score(fx, responses, Options{AnswerSource: "r.jsonl"})
	if res.RecordsRead != 5 || !reflect.DeepEqual(res.DuplicateCaseIDs, []string{"a", "zz"}) || !reflect.DeepEqual(res.UnknownCaseIDs, []string{"zz"}) {
		t.Errorf("records %d dup %v unknown %v", res.RecordsRead, res.DuplicateCaseIDs, res.UnknownCaseIDs)
	}
	if res.Cases[0].Output != "Equal[1, 1]" || res.Cases[3].Output != "Equal[1, 1]" {
		t.Errorf("a cases: %q %q", res.Cases[0].Output, res.Cases[3].Output)
	}
	b := res.Cases[1]
	if b.HasOutput || b.ParseError != "missing output" || b.Decision != DecisionNone || !reflect.DeepEqual(b.Failures.Categories(), []string{"missing_output"}) {
		t.Errorf("missing case: %+v", b)
	}
	if res.Summary.Missing != 1 || res.OK() || res.FailureCaseCount != 1 {
		t.Errorf("summary %+v", res.Summary)
	}
	if res.Preflight[Accepted] != 2 || res.Preflight[AcceptedWithWarnings] != 1 || res.Preflight[DecisionNone] != 1 {
		t.Errorf("preflight %v", res.Preflight)
	}
	if res.Maturity.BlockedLevel != "L1" || res.Maturity.HighestContiguousLevel != "L0" || !reflect.DeepEqual(res.Maturity.PassedLevels, []string{"L2", "L3"}) {
		t.Errorf("maturity %+v", res.Maturity)
	}

	// An empty response list leaves every case missing; nil scores the references.
	if r := Score(fx, []Response{}, Options{}); r.Summary.Missing != 4 || r.AnswerSource != "" {
		t.Errorf("empty responses: %+v", r.Summary)
	}
	if r := Score(fx, nil, Options{}); r.AnswerSource != "fixture_reference" || r.Summary.Missing != 0 {
		t.Errorf("reference answers: %q %+v", r.AnswerSource, r.Summary)
	}
}

func TestLevelsAndMaturity(t *testing.T) {
	fx := fixtureOf(kase("a", "L10", "Equal"), kase("b", "L2", "Equal"), kase("c", "X", "Equal"), kase("d", "L02", "Equal"), kase("e", "L١", "Equal"))
	fx.DefinedLevels = []string{"L3", "L1", "L2"}
	res := Score(fx, []Response{{CaseID: "a", Output: str("Equal[1, 1]")}, {CaseID: "b", Output: str("Equal[1, 1]")},
		{CaseID: "c", Output: str("Equal[1, 1]")}, {CaseID: "d", Output: str("Nope[]")}, {CaseID: "e", Output: str("Equal[1, 1]")}}, Options{})
	var order []string
	for _, l := range res.Levels {
		order = append(order, l.Level)
	}
	// level_summary keeps the reference's plain string order.
	if want := []string{"L02", "L10", "L2", "L١", "X"}; !reflect.DeepEqual(order, want) {
		t.Errorf("level_summary order %v, want %v", order, want)
	}
	m := res.Maturity
	if want := []string{"L١", "L02", "L2", "L10", "X"}; !reflect.DeepEqual(m.EvaluatedLevels, want) {
		t.Errorf("evaluated %v, want %v", m.EvaluatedLevels, want)
	}
	if want := []string{"L1", "L١", "L02", "L2", "L3", "L10", "X"}; !reflect.DeepEqual(m.DefinedLevels, want) {
		t.Errorf("defined %v, want %v", m.DefinedLevels, want)
	}
	if !reflect.DeepEqual(m.UnevaluatedLevels, []string{"L1", "L3"}) || m.NextUnevaluatedLevel != "L1" || m.EvaluationComplete {
		t.Errorf("unevaluated %v next %q", m.UnevaluatedLevels, m.NextUnevaluatedLevel)
	}
	if !reflect.DeepEqual(m.ContiguousPassedLevels, []string{"L١"}) || m.BlockedLevel != "L02" || m.HighestContiguousLevel != "L١" {
		t.Errorf("contiguous %v blocked %q", m.ContiguousPassedLevels, m.BlockedLevel)
	}

	empty := Score(fixtureOf(), nil, Options{})
	var buf bytes.Buffer
	if err := empty.WriteJSON(&buf, ModeFull); err != nil {
		t.Fatal(err)
	}
	for _, frag := range []string{`"parse_ok_rate": 0.0`, `"ok": true`, `"maturity_claim_scope": "defined_levels_complete"`, `"highest_contiguous_level": "L0"`, `"next_unevaluated_level": null`, `"level_summary": {}`} {
		if !strings.Contains(buf.String(), frag) {
			t.Errorf("empty fixture result lacks %s", frag)
		}
	}
}

func TestWriteJSONModes(t *testing.T) {
	fx := fixtureOf(kase("a", "L1", "Equal"), kase("b", "L1", "Equal"), kase("a", "L2", "Other"))
	res := Score(fx, []Response{{CaseID: "a", Output: str("Equal[1, 1]")}, {CaseID: "b", Output: str("Equal[1, 1]")}}, Options{AnswerSource: "r", FixturePath: "f.json"})
	res.ResponseFile = &report.ResponseFile{RecordsRead: 2}
	var full, summary, failures bytes.Buffer
	for _, w := range []struct {
		buf  *bytes.Buffer
		mode Mode
	}{{&full, ModeFull}, {&summary, ModeSummaryOnly}, {&failures, ModeFailuresOnly}} {
		if err := res.WriteJSON(w.buf, w.mode); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Contains(summary.String(), `"cases"`) {
		t.Error("summary-only output has cases")
	}
	// Failures-only keeps every case whose id failed: both "a" cases.
	if n := strings.Count(failures.String(), `"prompt"`); n != 2 {
		t.Errorf("failures-only has %d cases, want 2", n)
	}
	if n := strings.Count(full.String(), `"prompt"`); n != 3 {
		t.Errorf("full output has %d cases, want 3", n)
	}
	tail := `  "fixture_path": "f.json",
  "scoring_profile": "reference",
  "preflight_summary": {
    "accepted": 3,
    "accepted_with_warnings": 0,
    "cannot_estimate": 0,
    "requires_review": 0,
    "rejected": 0,
    "none": 0
  },
  "response_file": {
    "records_read": 2,
    "records_accepted": 0,
    "provider_error_records": 0,
    "duplicate_case_ids": [],
    "unknown_case_ids": [],
    "provider_error_case_ids": [],
    "warnings": []
  }
}
`
	if !strings.HasSuffix(full.String(), tail) {
		t.Errorf("output does not end with fbeval's additions:\n%s", full.String()[max(0, full.Len()-400):])
	}
}

// defaultMixed scores the default fixture against its references with a few
// cases broken on purpose.
func defaultMixed(strict bool) *Result {
	fx := fixtures.DefaultCogLangFixture()
	var responses []Response
	for i, c := range fx.Cases {
		out := c.ReferenceExpr
		switch i {
		case 0:
			out = `Equals[2, 2]`
		case 3:
			out = `Compare[List[1, 2], List[1, 3]`
		case 5:
			continue
		case 25:
			out = "```\n" + c.ReferenceExpr + "\n```"
		case 30:
			out = `Traverse["paris" "located_in"]`
		case 44:
			out = `Delete[]`
		}
		responses = append(responses, Response{CaseID: c.CaseID, Output: str(out)})
	}
	return Score(fx, responses, Options{Strict: strict, AnswerSource: "mixed.jsonl", FixturePath: fixtures.CogLangDefaultPath})
}

func TestGoldenOutputs(t *testing.T) {
	for _, strict := range []bool{false, true} {
		res := defaultMixed(strict)
		suffix := ""
		if strict {
			suffix = "_strict"
		}
		var text, table, js bytes.Buffer
		if err := report.WriteText(&text, res.Doc(ModeFull)); err != nil {
			t.Fatal(err)
		}
		if err := report.WriteTable(&table, res.Doc(ModeFull)); err != nil {
			t.Fatal(err)
		}
		if err := res.WriteJSON(&js, ModeFailuresOnly); err != nil {
			t.Fatal(err)
		}
		fixturetest.Golden(t, filepath.Join("testdata", "default_mixed"+suffix+".text.golden"), text.Bytes())
		fixturetest.Golden(t, filepath.Join("testdata", "default_mixed"+suffix+".table.golden"), table.Bytes())
		fixturetest.Golden(t, filepath.Join("testdata", "default_mixed"+suffix+".json.golden"), js.Bytes())
	}
}

func TestReferenceText(t *testing.T) {
	res := Score(fixtures.DefaultCogLangFixture(), nil, Options{})
	var buf bytes.Buffer
	if err := report.WriteText(&buf, res.Doc(ModeFull)); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"ok: true", "answer_source: fixture_reference", "failure_case_count: 0",
		"maturity.highest_contiguous_level: L3", "maturity.unevaluated_levels: L4, L5, L6",
		"maturity.next_unevaluated_level: L4", "maturity.claim_scope: evaluated_fixture_levels_only",
		"maturity.blocked_level: none", "failure_category_counts: none",
		"L1: validate_ok 22/22, head_ok 22/22, hallucinated 0",
	} {
		if !strings.Contains(buf.String(), line+"\n") {
			t.Errorf("text output lacks %q", line)
		}
	}
}
