package study

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/export"
	"github.com/fbeval/fbeval/fixtures"
	"github.com/fbeval/fbeval/fixtures/fixturetest"
	"github.com/fbeval/fbeval/score"
	"github.com/fbeval/fbeval/score/relations"
	"github.com/fbeval/fbeval/score/report"
)

func plan(t *testing.T, name string, o export.Overrides) *export.ToolcallPlan {
	t.Helper()
	s, err := export.LoadStudy(name)
	if err != nil {
		t.Fatal(err)
	}
	if s, err = export.Resolve(s, o); err != nil {
		t.Fatal(err)
	}
	p, err := export.PlanToolcall(s, relations.Vocabulary)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// responses answers every request with answer(req) as JSONL.
func responses(t *testing.T, p *export.ToolcallPlan, answer func(contract.Request) string) string {
	t.Helper()
	reqs, err := p.Requests(true)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range reqs {
		out := answer(r)
		if out == "" {
			continue
		}
		line, _ := contract.Marshal(contract.Object{{Key: "request_id", Value: r.RequestID}, {Key: "output", Value: out}}, contract.Compact)
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String()
}

func scoreText(t *testing.T, p *export.ToolcallPlan, files ...string) (*Run, *Aggregates) {
	t.Helper()
	run, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { run.Close() })
	for i, f := range files {
		if _, err := run.Read(score.Source{Name: fmt.Sprintf("r%d.jsonl", i+1), R: strings.NewReader(f)}, score.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := run.Report()
	if err != nil {
		t.Fatal(err)
	}
	return run, rep
}

const refusal = `{"action":"refuse","tool":null,"arguments":{},"missingFields":[],"reason":"no"}`

func TestToolcallGoldAndRefusals(t *testing.T) {
	p := plan(t, "toolcall", export.Overrides{})
	_, rep := scoreText(t, p, responses(t, p, func(r contract.Request) string { return *r.ReferenceOutput }))
	for arm, m := range rep.Arms {
		if *m.FirstPassSuccess != 100 || *m.SemanticAccuracy != 100 || *m.CallSchemaValidity != 100 {
			t.Errorf("gold answers, %s: FPS %v", arm, *m.FirstPassSuccess)
		}
	}
	if !rep.Complete || !rep.OK() {
		t.Errorf("gold answers: complete %v ok %v", rep.Complete, rep.OK())
	}
	_, rep = scoreText(t, p, responses(t, p, func(contract.Request) string { return refusal }))
	for arm, m := range rep.Arms {
		if *m.FirstPassSuccess != 12.5 {
			t.Errorf("refusals, %s: FPS %v, want 12.5", arm, *m.FirstPassSuccess)
		}
	}
	if got := rep.Categories["injection"][contract.ArmInputSchema].FirstPassSuccess; *got != 100 {
		t.Errorf("refusals score every injection case: %v", *got)
	}
}

// Every input line is accounted for: rejected lines, duplicates (last wins) and
// unknown ids are counted, and rows without a response are missing.
func TestToolcallAccounting(t *testing.T) {
	p := plan(t, "toolcall-quick", export.Overrides{Domains: []string{"hotels"}, Limit: ptr(1)})
	reqs, _ := p.Requests(true)
	first := reqs[0]
	lines := []string{
		`{"request_id":"` + first.RequestID + `","output":"garbage"}`,
		`{"request_id":"` + first.RequestID + `","output":` + quote(*first.ReferenceOutput) + `}`, // duplicate: wins
		`{"request_id":"nope","output":"x"}`,                                                      // unknown
		`{"request_id":"` + reqs[1].RequestID + `","output":"a","output":"b"}`,                    // duplicate key: rejected
		`not json`,
		`{"request_id":"` + reqs[2].RequestID + `","error":{"code":"http_500","message":"boom"}}`,
	}
	run, rep := scoreText(t, p, strings.Join(lines, "\n")+"\n")
	in := run.Inputs[0]
	if in.Records != 6 || in.Accepted != 4 || len(in.Rejected) != 2 || in.Duplicates != 1 || in.Unknown != 1 {
		t.Fatalf("accounting: %+v", in)
	}
	if in.Rejected[0].Line != 4 || !strings.Contains(in.Rejected[0].Reason, "r1.jsonl:4:") {
		t.Errorf("rejection: %+v", in.Rejected[0])
	}
	if rep.Complete || rep.OK() {
		t.Error("rows without responses must make the report incomplete")
	}
	var missing, provider int
	for _, m := range rep.Arms {
		missing += m.MissingResponses
		provider += m.ProviderErrors
	}
	if missing != len(reqs)-2 || provider != 1 {
		t.Errorf("missing %d provider %d", missing, provider)
	}
	if !run.rowAt(0).firstSuccess() {
		t.Error("the later duplicate should win")
	}
}

func TestToolcallReportDeterministic(t *testing.T) {
	p := plan(t, "toolcall-quick", export.Overrides{})
	i := 0
	resp := responses(t, p, func(r contract.Request) string {
		i++
		if i%3 == 0 {
			return refusal
		}
		return *r.ReferenceOutput
	})
	render := func() []byte {
		_, rep := scoreText(t, plan(t, "toolcall-quick", export.Overrides{}), resp)
		var out bytes.Buffer
		if err := report.WriteJSON(&out, rep.Doc()); err != nil {
			t.Fatal(err)
		}
		return out.Bytes()
	}
	if a, b := render(), render(); !bytes.Equal(a, b) {
		t.Error("the same study and responses gave different reports")
	}
}

// A repair round: only rows with public feedback get a next attempt, and scoring
// both rounds shows the recovery.
func TestToolcallRepairRound(t *testing.T) {
	p := plan(t, "toolcall-quick", export.Overrides{Repairs: ptr(1), Domains: []string{"payments"}})
	round1 := responses(t, p, func(r contract.Request) string {
		if r.Arm == contract.ArmInputSchema {
			return "```json\n" + *r.ReferenceOutput + "\n```" // fenced: JSON_INVALID, public
		}
		if r.Arm == contract.ArmMinimalSchema {
			return refusal // wrong action: no public feedback
		}
		return *r.ReferenceOutput
	})
	run, _ := scoreText(t, p, round1)
	repairs, err := repairRequests(run, p, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(repairs) != len(p.Cases) {
		t.Fatalf("%d repair requests, want one per input_schema row (%d)", len(repairs), len(p.Cases))
	}
	for _, r := range repairs {
		if r.Attempt != 2 || r.Arm != contract.ArmInputSchema || len(r.Messages) != 4 || r.Messages[2].Role != "assistant" {
			t.Fatalf("repair request %s: attempt %d arm %s messages %d", r.RequestID, r.Attempt, r.Arm, len(r.Messages))
		}
		if !strings.Contains(r.Messages[3].Content, "JSON_INVALID") {
			t.Errorf("feedback: %q", r.Messages[3].Content)
		}
	}
	var b strings.Builder
	for _, r := range repairs {
		line, _ := contract.Marshal(contract.Object{{Key: "request_id", Value: r.RequestID}, {Key: "output", Value: *r.ReferenceOutput}}, contract.Compact)
		b.Write(line)
		b.WriteByte('\n')
	}
	_, rep := scoreText(t, p, round1, b.String())
	m := rep.Arms[contract.ArmInputSchema]
	if *m.FirstPassSuccess != 0 || *m.FinalSuccess != 100 || *m.RetryRate != 100 || *m.RecoveryRate != 100 || *m.MeanRepairAttempts != 1 {
		t.Errorf("input arm after repair: FPS %v final %v retry %v recovery %v mean %v",
			*m.FirstPassSuccess, *m.FinalSuccess, *m.RetryRate, *m.RecoveryRate, *m.MeanRepairAttempts)
	}
}

func TestGates(t *testing.T) {
	rep := &report.ToolcallReport{
		Arms:         report.Ordered[report.Metrics]{{Key: "input_schema", Value: report.Metrics{FirstPassSuccess: ptrF(91.5)}}},
		ExpectedRows: 10,
	}
	tests := []struct {
		gate   string
		passed bool
		known  bool
	}{
		{"input_schema.first_pass_success_percent>=90", true, true},
		{"input_schema.first_pass_success_percent>91.5", false, true},
		{"arms.input_schema.first_pass_success_percent == 91.5", true, true},
		{"expected_rows<=10", true, true},
		{"input_schema.latency_p50_ms<100", false, false},
		{"no_such.field>=0", false, false},
	}
	for _, tt := range tests {
		g, err := score.ParseGate(tt.gate)
		if err != nil {
			t.Fatal(err)
		}
		r := score.EvaluateGates([]score.Gate{g}, rep.Number)[0]
		if r.Passed != tt.passed || (r.Actual != nil) != tt.known {
			t.Errorf("%s: passed %v actual %v", tt.gate, r.Passed, r.Actual)
		}
	}
	for _, bad := range []string{"x", ">=3", "a>=b", "a>=NaN"} {
		if _, err := score.ParseGate(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// HESchema's dataset is read as is and its gold answers score 100%.
func TestHESchemaDatasetGold(t *testing.T) {
	path := fixturetest.Interop(t, "heschema", "cases.jsonl")
	p := plan(t, "toolcall", export.Overrides{Dataset: path})
	if len(p.Cases) != 480 {
		t.Fatalf("%d HESchema cases, want 480", len(p.Cases))
	}
	_, rep := scoreText(t, p, responses(t, p, func(r contract.Request) string { return *r.ReferenceOutput }))
	if m := rep.Arms[contract.ArmInputSchema]; *m.FirstPassSuccess != 100 {
		t.Errorf("HESchema gold answers: FPS %v", *m.FirstPassSuccess)
	}
	if fails := AuditOracle(p.Cases); len(fails) > 0 {
		t.Errorf("oracle failures: %v", fails[:1])
	}
}

func TestAuditOracleEmbedded(t *testing.T) {
	if fails := AuditOracle(fixtures.ToolcallDataset()); len(fails) > 0 {
		t.Errorf("oracle failures: %v", fails)
	}
}

func ptr(n int) *int          { return &n }
func ptrF(f float64) *float64 { return &f }
func quote(s string) string   { b, _ := contract.Marshal(s, contract.Compact); return string(b) }

// A dataset whose reference schema uses fbeval's relation keywords: gold answers
// pass; a total that is not the sum of its lines fails with SUM_MISMATCH, which is
// public feedback for a repair round.
func TestToolcallRelationKeywords(t *testing.T) {
	p := plan(t, "toolcall", export.Overrides{Dataset: "../../../docs/examples/toolcall-invoices.jsonl", Repairs: ptr(1)})
	_, rep := scoreText(t, p, responses(t, p, func(r contract.Request) string { return *r.ReferenceOutput }))
	if m := rep.Arms[contract.ArmInputSchema]; *m.FirstPassSuccess != 100 {
		t.Fatalf("gold answers: FPS %v, errors %v", *m.FirstPassSuccess, m.ErrorCounts)
	}
	wrong := responses(t, p, func(r contract.Request) string {
		return strings.Replace(*r.ReferenceOutput, `"total":10.29`, `"total":10.3`, 1)
	})
	run, rep := scoreText(t, p, wrong)
	if got := rep.Arms[contract.ArmInputSchema].ErrorCounts["SUM_MISMATCH"]; got != 1 {
		t.Errorf("SUM_MISMATCH count %d, want 1 (errors %v)", got, rep.Arms[contract.ArmInputSchema].ErrorCounts)
	}
	reqs, err := repairRequests(run, p, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 3 || !strings.Contains(reqs[0].Messages[3].Content, "SUM_MISMATCH") {
		t.Errorf("repairs: %d requests", len(reqs))
	}
}

// Gates are checked against the report's fields and units before scoring.
func TestCheckGates(t *testing.T) {
	p := plan(t, "toolcall-quick", export.Overrides{})
	tests := []struct {
		gate, err string // err: "" when the gate is accepted
	}{
		{"input_schema.first_pass_success_percent>=90", ""},
		{"arms.no_schema.final_success_percent>=50", ""},
		{"effects.input_schema_vs_no_schema.absolute_uplift_points>=-5", ""},
		// toolcall-quick's clusters hold two cases: the p-value is null in
		// every report of it, so the gate could never pass
		{"effects.input_schema_vs_no_schema.mcnemar_exact_p<=0.05", "mcnemar_exact_p is null in every report of this study: the exact McNemar test takes one pair a cluster, and cluster flights-intent-00 holds 2 (its cases × repeats; docs/statistics.md): gate on absolute_uplift_points, or read the effect's bootstrap interval$"},
		{"probes.false_rejection_percent<=5", ""},
		{"subsets.domain.hotels.input_schema.first_pass_success_percent>=80", ""},
		{"input_schema.retry_rate_percent<=0.5%", ""},
		{"input_schema.latency_p95_ms<=2000", ""},
		{"complete==1", ""},
		{"input_schema.final_sucess_percent>=50", "did you mean input_schema.final_success_percent"},
		{"INPUT_SCHEMA.first_pass_success_percent>=50", "unknown arm INPUT_SCHEMA; the study's arms: no_schema, minimal_schema, input_schema; did you mean input_schema.first_pass_success_percent$"},
		{"json_schema.first_pass_success_percent>=90", "unknown arm json_schema"},
		{"final_success_percent>=50", "a field names its arm: no_schema.final_success_percent, minimal_schema.final_success_percent, input_schema.final_success_percent"},
		{"first_pass_success>=50", "a field names its arm: no_schema.first_pass_success_percent, minimal_schema.first_pass_success_percent, input_schema.first_pass_success_percent"},
		// a bare word of a metric, or a typo of one: the metrics that have it
		{"success>=90", "unknown field success; did you mean ARM.first_pass_success_percent, ARM.final_success_percent (ARM one of no_schema, minimal_schema, input_schema)"},
		{"sucess>=90", "did you mean ARM.first_pass_success_percent, ARM.final_success_percent (ARM one of"},
		{"latency<=2000", "a field names its arm: no_schema.latency_p50_ms, no_schema.latency_p95_ms, "},
		{"accuracy>=90", "did you mean ARM.semantic_accuracy_percent (ARM one of no_schema, minimal_schema, input_schema)$"},
		{"uplift>=5", "did you mean effects.COMPARISON.absolute_uplift_points (COMPARISON one of input_schema_vs_no_schema, input_schema_vs_minimal_schema, minimal_schema_vs_no_schema)$"},
		{"false_rejection<=5", "did you mean probes.false_rejection_percent$"},
		// nothing near: examples of the fields there are
		{"quality>=90", "unknown field quality; a field is a path to a number of the report, such as input_schema.first_pass_success_percent, effects.input_schema_vs_no_schema.absolute_uplift_points or probes.false_rejection_percent$"},
		{"scores.total>=1", "unknown field scores.total; a field is a path to a number of the report, such as input_schema.first_pass_success_percent, "},
		{"input_schema.first_pass_success_percent>=0.5", "not a 0-1 rate"},
		{"input_schema.first_pass_success_percent<=1", "not a 0-1 rate"},
		{"input_schema.first_pass_success_percent>=101", "out of range"},
		{"input_schema.runs>=-1", "never negative"},
		// a field null by design is said so whatever its threshold (it was
		// told a gate that is refused as null in turn)
		{"effects.input_schema_vs_no_schema.mcnemar_exact_p<0", "mcnemar_exact_p is null in every report of this study: "},
		{"input_schema.runs>=5%", "not a percent"},
		{"complete==2", "true (1) or false (0)"},
		// a strict bound at an end of the field's values: no value passes
		{"input_schema.first_pass_success_percent>100", "gate \"input_schema.first_pass_success_percent>100\": first_pass_success_percent is a percent (0-100), so >100 can never pass: did you mean input_schema.first_pass_success_percent>=100$"},
		{"arms.input_schema.final_success_percent < 0", "final_success_percent is a percent (0-100), so <0 can never pass: did you mean arms.input_schema.final_success_percent<=0$"},
		{"input_schema.retry_rate_percent>100%", "so >100 can never pass: did you mean input_schema.retry_rate_percent>=100%$"},
		{"effects.input_schema_vs_no_schema.absolute_uplift_points<-100", "absolute_uplift_points is a difference of percents (-100 to 100), so <-100 can never pass: did you mean effects.input_schema_vs_no_schema.absolute_uplift_points<=-100$"},
		{"input_schema.runs<0", "runs is 0 or more, so <0 can never pass: did you mean input_schema.runs<=0$"},
		{"input_schema.latency_p95_ms<0", "latency_p95_ms is 0 or more, so <0 can never pass"},
		{"complete>1", "complete is 1 (true) or 0 (false), so >1 can never pass: did you mean complete>=1$"},
		{"input_schema.first_pass_success_percent>=100", ""},
		{"input_schema.first_pass_success_percent>99.5", ""},
		{"input_schema.first_pass_success_percent<100", ""},
		{"input_schema.first_pass_success_percent>0", ""},
		{"effects.input_schema_vs_no_schema.relative_improvement_percent<0", ""},
		{"complete<1", ""},
		// an error code's count, of an arm or a subset's arm
		{"input_schema.error_counts.JSON_INVALID<=5", ""},
		{"arms.no_schema.error_counts.PROVIDER_ERROR==0", ""},
		{"input_schema.error_counts.SUM_MISMATCH<=0", ""},
		{"subsets.domain.hotels.input_schema.error_counts.WRONG_TOOL<=1", ""},
		{"input_schema.error_counts<=5", "gate \"input_schema.error_counts<=5\": input_schema.error_counts holds a count per error code: gate on input_schema.error_counts.CODE, CODE one of JSON_INVALID, SCHEMA_INVALID, "},
		{"input_schema.error_counts.JSON_INVALD<=5", "unknown error code JSON_INVALD; did you mean input_schema.error_counts.JSON_INVALID$"},
		{"arms.input_schema.error_counts.json_invalid<=5", "unknown error code json_invalid; did you mean arms.input_schema.error_counts.JSON_INVALID$"},
		{"input_schema.error_counts.FOO<=5", "unknown error code FOO; the codes: JSON_INVALID, SCHEMA_INVALID, "},
		{"error_counts<=5", "unknown field error_counts; error_counts are an arm's, a count per error code: gate on ARM.error_counts.CODE, ARM one of no_schema, minimal_schema, input_schema$"},
		{"error_counts.json_invalid<=5", "unknown field error_counts.json_invalid; a field names its arm: no_schema.error_counts.JSON_INVALID, minimal_schema.error_counts.JSON_INVALID, input_schema.error_counts.JSON_INVALID$"},
		{"json_schema.error_counts.JSON_INVALID<=5", "unknown arm json_schema; the study's arms: no_schema, minimal_schema, input_schema"},
		{"input_schema.error_counts.JSON_INVALID<=-1", "never negative"},
		// a member of every report, null in every score report
		{"custom_fitness_percent>=50", "gate \"custom_fitness_percent>=50\": custom_fitness_percent is null in every score report: it needs a second model's report for its MS term, and only fbeval compare A.json B.json gives it (compare has no gates); gate on a figure it weighs, such as input_schema.first_pass_success_percent$"},
		{"custom_fitnes_percent>=50", "custom_fitness_percent is null in every score report"},
	}
	for _, tt := range tests {
		g, err := score.ParseGate(tt.gate)
		if err != nil {
			t.Fatalf("%s: %v", tt.gate, err)
		}
		err = CheckGates([]score.Gate{g}, p, Selection{})
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%s: %v", tt.gate, err)
		case tt.err != "" && (err == nil || !matchesEnd(err.Error(), tt.err)):
			t.Errorf("%s: error %v, want one containing %q", tt.gate, err, tt.err)
		}
	}
	// one case a cluster, one repeat: the test is taken, the gate accepted
	single := plan(t, "toolcall", export.Overrides{Categories: []string{"complete"}})
	if g, _ := score.ParseGate("effects.input_schema_vs_no_schema.mcnemar_exact_p<=0.05"); CheckGates([]score.Gate{g}, single, Selection{}) != nil {
		t.Errorf("one pair a cluster: %v", CheckGates([]score.Gate{g}, single, Selection{}))
	}
	for gate, want := range map[string]string{
		"effects.input_schema_vs_no_schema.mcnemar_exact_p<=5": "probability",
		"effects.input_schema_vs_no_schema.mcnemar_exact_p>1":  "mcnemar_exact_p is a probability (0-1), so >1 can never pass: did you mean effects.input_schema_vs_no_schema.mcnemar_exact_p>=1",
	} {
		if g, _ := score.ParseGate(gate); CheckGates([]score.Gate{g}, single, Selection{}) == nil || !strings.Contains(CheckGates([]score.Gate{g}, single, Selection{}).Error(), want) {
			t.Errorf("%s: %v, want one containing %q", gate, CheckGates([]score.Gate{g}, single, Selection{}), want)
		}
	}
	for _, bad := range []string{"a=>3", "a=<3", "a<>3", "a>==3"} {
		if _, err := score.ParseGate(bad); err == nil || !strings.Contains(err.Error(), "operator") {
			t.Errorf("%q: %v, want a malformed operator", bad, err)
		}
	}
}

// A gate that names an arm, an effect, a domain or a category the run leaves
// out says what left it out, not that the field is unknown, and suggests no
// other arm's or domain's field in its place.
func TestGatesLeftOut(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("../../../docs/examples/toolcall-invoices.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	// a second domain of complete cases alone
	first, _, _ := strings.Cut(string(data), "\n")
	other := strings.NewReplacer(`"domain":"invoices"`, `"domain":"receipts"`, `"id":"invoices-000"`, `"id":"receipts-000"`, `"cluster":"invoices-intent-00"`, `"cluster":"receipts-intent-00"`).Replace(first)
	dataset := filepath.Join(dir, "cases.jsonl")
	if err := os.WriteFile(dataset, []byte(string(data)+other+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	oneArm := plan(t, "toolcall-quick", export.Overrides{Arms: []string{"input_schema"}})
	twoDomains := plan(t, "toolcall-quick", export.Overrides{Domains: []string{"flights", "hotels"}, Categories: []string{"complete", "missing"}})
	injection := plan(t, "toolcall", export.Overrides{Dataset: dataset, Categories: []string{"injection"}})
	flags := Selection{Arms: "--arms", Domains: "--domain", Categories: "--category"}
	tests := []struct {
		plan *export.ToolcallPlan
		sel  Selection
		gate string
		err  string // "" when accepted
	}{
		{oneArm, flags, "no_schema.first_pass_success_percent>=10", "gate \"no_schema.first_pass_success_percent>=10\": arm no_schema is left out by --arms (this run's arms: input_schema): add it to --arms, or drop the gate$"},
		{oneArm, Selection{}, "arms.minimal_schema.runs>=1", "arm minimal_schema is left out by the study's arms (input_schema): add it to them (or give --arms), or drop the gate$"},
		{oneArm, flags, "effects.input_schema_vs_no_schema.absolute_uplift_points>=-50", "effect input_schema_vs_no_schema needs arm no_schema, left out by --arms (this run's arms: input_schema): add it to --arms, or drop the gate$"},
		{oneArm, flags, "subsets.domain.hotels.no_schema.final_success_percent>=10", "arm no_schema is left out by --arms"},
		{oneArm, flags, "subsets.domain.hotels.input_schema.final_success_percent>=10", ""},
		// an arm of no suite is unknown still
		{oneArm, flags, "json_schema.first_pass_success_percent>=10", "unknown arm json_schema; the study's arms: input_schema"},
		{twoDomains, Selection{}, "subsets.domain.payments.input_schema.first_pass_success_percent>=10", "gate \"subsets.domain.payments.input_schema.first_pass_success_percent>=10\": domain payments is left out by the study's filter (its domains: flights, hotels): add it to filter.domains (or give --domain), or drop the gate$"},
		{twoDomains, flags, "subsets.domain.payments.input_schema.first_pass_success_percent>=10", "domain payments is left out by --domain (this run's domains: flights, hotels): add it to --domain, or drop the gate$"},
		{twoDomains, flags, "subsets.category.injection.input_schema.runs>=1", "category injection is left out by --category (this run's categories: complete, missing): add it to --category, or drop the gate$"},
		{twoDomains, Selection{}, "subsets.category.injection.input_schema.runs>=1", "category injection is left out by the study's filter (its categories: complete, missing): add it to filter.categories (or give --category), or drop the gate$"},
		{twoDomains, flags, "subsets.domain.flights.input_schema.runs>=1", ""},
		// a name of none is unknown still, and its nearest field suggested
		{twoDomains, flags, "subsets.domain.hotel.input_schema.runs>=1", "did you mean subsets.domain.hotels.input_schema.runs$"},
		{injection, flags, "subsets.domain.receipts.input_schema.runs>=1", "domain receipts has no case the filter selects: widen the filter (--domain, --category, --limit), or drop the gate$"},
		{injection, flags, "subsets.category.paraphrase.input_schema.runs>=1", "category paraphrase has no case in the dataset " + dataset + " (its categories: complete, missing, injection): drop the gate$"},
	}
	for _, tt := range tests {
		g, err := score.ParseGate(tt.gate)
		if err != nil {
			t.Fatalf("%s: %v", tt.gate, err)
		}
		err = CheckGates([]score.Gate{g}, tt.plan, tt.sel)
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%s: %v", tt.gate, err)
		case tt.err != "" && (err == nil || !matchesEnd(err.Error(), tt.err)):
			t.Errorf("%s: error %v, want one containing %q", tt.gate, err, tt.err)
		}
	}
}

// A gate on an error code's count reads the report's error_counts, and a
// code no row had, which error_counts leaves out, as 0.
func TestErrorCountGates(t *testing.T) {
	p := plan(t, "toolcall", export.Overrides{Dataset: "../../../docs/examples/toolcall-invoices.jsonl", Gates: []string{
		"input_schema.error_counts.SUM_MISMATCH>=1",
		"input_schema.error_counts.SUM_MISMATCH<=1",
		"input_schema.error_counts.JSON_INVALID==0",
		"arms.no_schema.error_counts.PROVIDER_ERROR==0",
		"subsets.category.complete.input_schema.error_counts.SUM_MISMATCH==1",
		"subsets.category.missing.input_schema.error_counts.SUM_MISMATCH==0",
	}})
	wrong := responses(t, p, func(r contract.Request) string {
		return strings.Replace(*r.ReferenceOutput, `"total":10.29`, `"total":10.3`, 1)
	})
	_, rep := scoreText(t, p, wrong)
	if got := rep.Arms[contract.ArmInputSchema].ErrorCounts; got["SUM_MISMATCH"] != 1 || got["JSON_INVALID"] != 0 {
		t.Fatalf("error counts %v, want SUM_MISMATCH 1 and no JSON_INVALID", got)
	}
	for _, g := range rep.Gates {
		if !g.Passed || g.Actual == nil {
			t.Errorf("%s: passed %v, actual %v", g.Gate.Text, g.Passed, g.Actual)
		}
	}
}

// matchesEnd reports whether msg contains want, or ends with it when want
// ends in $.
func matchesEnd(msg, want string) bool {
	if w, ok := strings.CutSuffix(want, "$"); ok {
		return strings.HasSuffix(msg, w)
	}
	return strings.Contains(msg, want)
}

// TestSumsSaturate: a row's latency over its attempts and token totals stop at the
// largest value they can hold instead of becoming infinite or wrapping negative.
func TestSumsSaturate(t *testing.T) {
	big := 1.7e308
	r := row{{flags: fPresent | fLat, lat: big}, {flags: fPresent | fLat, lat: big}}
	if ms, ok := r.latency(); !ok || ms != math.MaxFloat64 {
		t.Errorf("latency = %v, %v; want math.MaxFloat64", ms, ok)
	}
	if s, sat := satAdd(math.MaxInt64, 3); s != math.MaxInt64 || !sat {
		t.Errorf("satAdd(max, 3) = %d, %v", s, sat)
	}
	if s, sat := satAdd(4, 3); s != 7 || sat {
		t.Errorf("satAdd(4, 3) = %d, %v", s, sat)
	}
}

// repairRequests builds the next round's requests, as fbeval export --repair-from
// does: scoring says what failed, export builds the requests. It also holds
// RepairsDue, which counts from the attempts' codes, to Repairs, which reads
// their details: the same rows, at the same attempts, each with feedback.
func repairRequests(run *Run, p *export.ToolcallPlan, includeRef bool) ([]contract.Request, error) {
	repairs, err := run.Repairs()
	if err != nil {
		return nil, err
	}
	due, err := run.RepairsDue()
	if err != nil {
		return nil, err
	}
	byAttempt := map[int]int{}
	for _, r := range repairs {
		byAttempt[len(r.Turns)+1]++
		if r.Turns[len(r.Turns)-1].Feedback == "" {
			return nil, fmt.Errorf("%s %s r%d: a repair without feedback", r.Case.ID, r.Arm, r.Repeat)
		}
	}
	for k, n := range due {
		if byAttempt[k+2] != n {
			return nil, fmt.Errorf("attempt %d: RepairsDue counts %d rows, Repairs builds %d", k+2, n, byAttempt[k+2])
		}
		delete(byAttempt, k+2)
	}
	if len(byAttempt) > 0 {
		return nil, fmt.Errorf("Repairs builds requests RepairsDue does not count: %v", byAttempt)
	}
	return p.RepairRequests(repairs, includeRef)
}

// An answer is blank when its output has no text, and cut short when its
// finish_reason is a provider's word for the token limit, as the runners copy
// it from the recorded bodies (runners/internal/openai and anthropic testdata).
func TestAnswerFlags(t *testing.T) {
	for _, tt := range []struct {
		output, finish string
		want           uint32
	}{
		{`{"action":"refuse"}`, "stop", 0},
		{"", "stop", fBlank},
		{" \n\t", "", fBlank},
		{"\u00a0", "", fBlank}, // Unicode white space too
		{`{"action":"call_tool","tool":"search_flights","arguments":{"origin":"Os`, "length", fCutShort}, // OpenAI chat
		{"", "max_output_tokens", fBlank | fCutShort},                                                    // OpenAI Responses, reasoning only
		{`{"action":`, "max_tokens", fCutShort},                                                          // Anthropic
		{`{"action":`, "model_context_window_exceeded", fCutShort},                                       // Anthropic
		{`{"action":`, "MAX_TOKENS", fCutShort},                                                          // Gemini
		{`{"action":`, "tool_calls", 0},
		{`{"action":`, "end_turn", 0},
		{`{"action":`, "content_filter", fFiltered},       // OpenAI, Azure OpenAI
		{"", "content_filter", fBlank | fFiltered},        // withheld whole
		{"I can't help with that.", "refusal", fFiltered}, // Anthropic; OpenAI's refusal
		{"", "SAFETY", fBlank | fFiltered},                // Gemini
		{"", "PROHIBITED_CONTENT", fBlank | fFiltered},    // Gemini
		{`{"action":`, "content", 0},
		{`{"action":`, "lengthy", 0},
		// a reasoning model's thinking left in the answer (no reasoning parser)
		{"<think>\nthe user wants flights\n</think>\n{\"action\":\"refuse\"}", "stop", fThinking},
		{"  <think>plan</think>{}", "stop", fThinking},
		{"The user wants flights, so I call the tool.\n</think>\n\n{}", "stop", fThinking}, // the template opened it
		{"<think>\nstill thinking when the tokens ran out", "length", fThinking | fCutShort},
		{`{"action":"refuse","reason":"</think> is not a tag here"}`, "stop", 0}, // an answer that starts as JSON is none
		{"Sure! Here is the call: {}", "stop", 0},
	} {
		if got := answerFlags([]byte(tt.output), []byte(tt.finish)); got != tt.want {
			t.Errorf("answerFlags(%q, %q) = %b, want %b", tt.output, tt.finish, got, tt.want)
		}
	}
}

// A row whose repair attempt the provider did not answer is a provider error
// row, in the report's rows and case results as in its arm's provider_errors
// (HESchema's status provider_error), not a wrong answer.
func TestProviderErrorAtRepair(t *testing.T) {
	p := plan(t, "toolcall-quick", export.Overrides{Domains: []string{"hotels"}, Limit: ptr(1), Arms: []string{contract.ArmInputSchema}, Repairs: ptr(1)})
	reqs, _ := p.Requests(true)
	first := reqs[0]
	repair := strings.TrimSuffix(first.RequestID, ".a1") + ".a2"
	lines := `{"request_id":"` + first.RequestID + `","output":"{\"action\":"}` + "\n" + // not JSON: feedback, a repair is due
		`{"request_id":"` + repair + `","error":{"code":"http_429","message":"rate limited"}}` + "\n"
	run, rep := scoreText(t, p, lines)
	if n := rep.Arms[contract.ArmInputSchema].ProviderErrors; n != 1 {
		t.Fatalf("provider_errors %d, want 1", n)
	}
	js, cases := runOutputs(t, run, rep)
	rows := strings.Index(js, `"rows": [`)
	i := strings.Index(js[rows:], `{"case_id":"`+first.CaseID+`"`) + rows
	if rows < 0 || i < rows || !strings.Contains(js[i:i+600], `"attempts":2,"provider_error":true`) ||
		!strings.Contains(js[i:i+600], `"output":"{\"action\":"`) { // the answer before the error
		t.Errorf("the report's row is no provider error:\n%s", js[i:min(len(js), i+600)])
	}
	line := cases[:strings.IndexByte(cases, '\n')+1]
	if !strings.Contains(line, `"first_pass_success":false,"final_success":false,"provider_error":true`) {
		t.Errorf("the case result is no provider error:\n%s", line)
	}
}

// TestEveryOutputReported: each attempt's output is in the report as the model
// wrote it, a passing one too (its attempt_results, the page's samples), with
// repairs and without.
func TestEveryOutputReported(t *testing.T) {
	for _, repairs := range []int{0, 1} {
		p := plan(t, "toolcall-quick", export.Overrides{Domains: []string{"hotels"}, Limit: ptr(2), Repairs: &repairs})
		written := map[string]string{} // by case and arm
		data := responses(t, p, func(r contract.Request) string {
			if r.Attempt > 1 {
				return ""
			}
			out := *r.ReferenceOutput
			if r.Arm == contract.ArmNoSchema {
				out = "  " + out + "\n" // passes, as written
			} else if r.Arm == contract.ArmMinimalSchema {
				out = "not JSON"
			}
			written[r.CaseID+"/"+r.Arm] = out
			return out
		})
		_, rep := scoreText(t, p, data)
		n := 0
		for row := range rep.Model().RowSource {
			want := written[row.CaseID+"/"+row.Arm]
			if len(row.AttemptResults) != 1 || row.AttemptResults[0].Output == nil || *row.AttemptResults[0].Output != want {
				t.Errorf("repairs %d, %s %s: attempt results %+v, want the output %q", repairs, row.CaseID, row.Arm, row.AttemptResults, want)
			}
			if row.FinalSuccess != (row.Arm != contract.ArmMinimalSchema) {
				t.Errorf("repairs %d, %s %s: final success %v", repairs, row.CaseID, row.Arm, row.FinalSuccess)
			}
			n++
		}
		if n == 0 {
			t.Fatal("no rows")
		}
	}
}

// sameRecipe tells the study's recipe written another way (by a runner of
// one's own) from another recipe: the first was told to give
// --allow-other-recipe, which would hide the runner's slip.
func TestSameRecipe(t *testing.T) {
	const recipe = "sha256:bbebb588463061c1"
	for got, want := range map[string]bool{
		"bbebb588463061c1":                                  true,
		"SHA256:BBEBB588463061C1":                           true,
		"sha256:bbebb588463061c1" + strings.Repeat("0", 48): true,
		recipe:                    false,
		"sha256:0f28a999da7113fd": false,
		"sha256:bbebb588":         false,
		"":                        false,
	} {
		if sameRecipe(got, recipe) != want {
			t.Errorf("sameRecipe(%q) = %v, want %v", got, !want, want)
		}
	}
}

// TestTokenTotalsPastTheLargest: token totals past the largest a report holds
// are shown at it, with a warning; their cost is none, where it was the cost
// of the totals stopped there (neither the cost nor the value the warning
// names: 15 times too low, unmarked).
func TestTokenTotalsPastTheLargest(t *testing.T) {
	one := 1.0
	p := plan(t, "toolcall-quick", export.Overrides{Domains: []string{"hotels"}, Limit: ptr(2), InputPrice: &one, OutputPrice: &one})
	var b strings.Builder
	reqs, err := p.Requests(true)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reqs {
		fmt.Fprintf(&b, `{"request_id":%q,"output":%s,"input_token_count":%d,"output_token_count":%d}`+"\n", r.RequestID, quote(*r.ReferenceOutput), int64(math.MaxInt64), int64(1)<<62)
	}
	_, rep := scoreText(t, p, b.String())
	m := rep.Arms[contract.ArmInputSchema]
	if *m.InputTokens != math.MaxInt64 || !m.Saturated {
		t.Fatalf("input tokens %d, saturated %v", *m.InputTokens, m.Saturated)
	}
	if m.TotalCostUSD != nil || m.CostPerSuccessUSD != nil {
		t.Errorf("cost %v, per success %v: want none", *m.TotalCostUSD, m.CostPerSuccessUSD)
	}
	if !strings.Contains(strings.Join(rep.Warnings, "\n"), "the cost of a token total stopped there is not given") {
		t.Errorf("warnings: %q", rep.Warnings)
	}
}
