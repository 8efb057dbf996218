package study

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/export"
	"github.com/fbeval/fbeval/fixtures"
	"github.com/fbeval/fbeval/score"
	"github.com/fbeval/fbeval/score/stats"
	tc "github.com/fbeval/fbeval/score/toolcall"
)

// comparison is one paired effect: treatment vs baseline.
type comparison struct{ Name, Treatment, Baseline string }

// Comparisons are the paired effects a report carries: treatment vs baseline.
var Comparisons = []comparison{
	{"input_schema_vs_no_schema", contract.ArmInputSchema, contract.ArmNoSchema},
	{"input_schema_vs_minimal_schema", contract.ArmInputSchema, contract.ArmMinimalSchema},
	{"minimal_schema_vs_no_schema", contract.ArmMinimalSchema, contract.ArmNoSchema},
}

// Aggregates are what a run's rows sum to: an fbeval-report/v1 of a toolcall
// study (per-arm and per-subset metrics, effects, probes, classification, gates).
type Aggregates struct {
	Run            *Run
	Complete       bool
	Arms           map[string]*ArmMetrics
	Domains        map[string]map[string]*ArmMetrics
	Categories     map[string]map[string]*ArmMetrics
	Effects        []namedEffect
	Probes         *tc.ProbeStats
	Classification []string
	Gates          []score.GateResult
	Warnings       []string
	Models         map[string][]string // arm -> the models its answered attempts name, sorted
	report         contract.Object     // built once
}

type namedEffect struct {
	Name   string
	Effect stats.Effect
}

// Report sums a run's rows into a report and checks the study's gates.
func (run *Run) Report() (*Aggregates, error) {
	s := run.Plan.Study
	rep := &Aggregates{Run: run, Complete: true, Arms: map[string]*ArmMetrics{},
		Domains: map[string]map[string]*ArmMetrics{}, Categories: map[string]map[string]*ArmMetrics{}}
	byArm := map[string][]*caseRow{}
	byDomain := map[[2]string][]*caseRow{}
	byCategory := map[[2]string][]*caseRow{}
	missing := 0
	for _, r := range run.rows {
		byArm[r.Arm] = append(byArm[r.Arm], r)
		byDomain[[2]string{r.Case.Domain, r.Arm}] = append(byDomain[[2]string{r.Case.Domain, r.Arm}], r)
		byCategory[[2]string{r.Case.Category, r.Arm}] = append(byCategory[[2]string{r.Case.Category, r.Arm}], r)
		if !r.first().present {
			missing++
		}
	}
	if missing > 0 {
		rep.Complete = false
		rep.Warnings = append(rep.Warnings, score.Plural(missing, "row has", "rows have")+" no first-attempt response and score as failures")
	}
	for _, arm := range s.Arms {
		rep.Arms[arm] = computeMetrics(byArm[arm], s.Prices)
	}
	for k, rows := range byDomain {
		if rep.Domains[k[0]] == nil {
			rep.Domains[k[0]] = map[string]*ArmMetrics{}
		}
		rep.Domains[k[0]][k[1]] = computeMetrics(rows, s.Prices)
	}
	for k, rows := range byCategory {
		if rep.Categories[k[0]] == nil {
			rep.Categories[k[0]] = map[string]*ArmMetrics{}
		}
		rep.Categories[k[0]][k[1]] = computeMetrics(rows, s.Prices)
	}
	for _, cmp := range Comparisons {
		if slices.Contains(s.Arms, cmp.Treatment) && slices.Contains(s.Arms, cmp.Baseline) {
			rep.Effects = append(rep.Effects, namedEffect{Name: cmp.Name})
		}
	}
	// Each effect draws from its own seeded stream, so computing them at once
	// changes no digit.
	var wg sync.WaitGroup
	for i := range rep.Effects {
		e := &rep.Effects[i]
		cmp := Comparisons[slices.IndexFunc(Comparisons, func(c comparison) bool { return c.Name == e.Name })]
		pairs := run.pairs(cmp.Baseline, cmp.Treatment)
		wg.Go(func() { e.Effect = stats.Paired(pairs, stats.Options{Name: cmp.Name, Seed: uint64(s.Seed)}) })
	}
	wg.Wait()
	rep.Probes = run.probes()
	if in, ok := rep.Arms[contract.ArmInputSchema]; ok {
		ci := stats.ClassifyInput{CallValidity: in.CallSchemaValidity, SPV: in.SemanticPrecision,
			FPS: in.FirstPassSuccess, Final: in.FinalSuccess, Retry: in.RetryRate}
		if rep.Probes != nil {
			ci.FR, ci.IRR = rep.Probes.FalseRejectionPercent, rep.Probes.InvalidRejectionPercent
		}
		rep.Classification = stats.Classify(ci)
	}
	for _, arm := range s.Arms {
		if m := rep.Arms[arm]; m != nil && m.Saturated {
			rep.Warnings = append(rep.Warnings, arm+": a token total or the cost passed the largest value a report holds and is shown at that value (9223372036854775807 tokens, 1.7976931348623157e308 USD)")
		}
	}
	for _, in := range run.Inputs {
		if n := in.RejectedCount; n > 0 {
			w := in.Path + ": " + score.Plural(n, "line was", "lines were") + " rejected"
			if left := n - len(in.Rejected); left > 0 {
				w += fmt.Sprintf(" (the first %d are listed)", len(in.Rejected))
			}
			rep.Warnings = append(rep.Warnings, w)
		}
		if in.Duplicates > 0 {
			rep.Warnings = append(rep.Warnings, in.Path+": "+score.Plural(in.Duplicates, "record repeats", "records repeat")+" an earlier request id (the last one wins)")
		}
		if in.Unknown > 0 {
			rep.Warnings = append(rep.Warnings, in.Path+": "+score.Plural(in.Unknown, "record answers", "records answer")+" no request of this study")
		}
		rep.Warnings = append(rep.Warnings, in.Warnings...)
	}
	rep.Models = map[string][]string{}
	all := map[string]int{}
	for _, r := range run.rows {
		for i := range r.attempts {
			if a := &r.attempts[i]; a.present && a.model != "" {
				if !slices.Contains(rep.Models[r.Arm], a.model) {
					rep.Models[r.Arm] = append(rep.Models[r.Arm], a.model)
				}
				all[a.model]++
			}
		}
	}
	for arm := range rep.Models {
		slices.Sort(rep.Models[arm])
	}
	if len(all) > 1 {
		names := make([]string, 0, len(all))
		for m := range all {
			names = append(names, m)
		}
		slices.Sort(names)
		parts := make([]string, len(names))
		for i, m := range names {
			parts[i] = m + " (" + score.Plural(all[m], "answer", "answers") + ")"
		}
		rep.Warnings = append(rep.Warnings, "the responses mix "+itoa(len(names))+" models: "+strings.Join(parts, ", ")+"; the figures mix runs: score each model's responses apart")
	}
	rep.report = rep.object(nil)
	gates, err := score.ParseGates(s.Gates)
	if err != nil {
		return nil, err
	}
	rep.Gates = score.EvaluateGates(gates, rep.report)
	rep.report = rep.object(rep.Gates)
	return rep, nil
}

// pairs pairs the first-attempt outcomes of two arms on (case, repeat).
func (run *Run) pairs(baseline, treatment string) []stats.Pair {
	type key struct {
		id     string
		repeat int
	}
	base := map[key]bool{}
	for _, r := range run.rows {
		if r.Arm == baseline {
			base[key{r.Case.ID, r.Repeat}] = r.firstSuccess()
		}
	}
	var out []stats.Pair
	for _, r := range run.rows {
		if r.Arm != treatment {
			continue
		}
		b, ok := base[key{r.Case.ID, r.Repeat}]
		if !ok {
			continue
		}
		out = append(out, stats.Pair{Cluster: r.Case.Cluster, Baseline: b, Treatment: r.firstSuccess()})
	}
	return out
}

// probes runs the mutation probes of the candidate schema of every domain and adds
// the counts up.
func (run *Run) probes() *tc.ProbeStats {
	byDomain := map[string][]*tc.Case{}
	seen := map[string]bool{}
	for _, r := range run.rows {
		if !seen[r.Case.ID] {
			seen[r.Case.ID] = true
			byDomain[r.Case.Domain] = append(byDomain[r.Case.Domain], r.Prepared)
		}
	}
	var total tc.ProbeStats
	domains := make([]string, 0, len(byDomain))
	for d := range byDomain {
		domains = append(domains, d)
	}
	slices.Sort(domains)
	for _, d := range domains {
		p := tc.Probes(run.judges[d], byDomain[d])
		total.ValidProbeCount += p.ValidProbeCount
		total.FalseRejections += p.FalseRejections
		total.InvalidProbeCount += p.InvalidProbeCount
		total.InvalidRejected += p.InvalidRejected
	}
	total.InvalidRejectionPercent = pct(total.InvalidRejected, total.InvalidProbeCount)
	total.FalseRejectionPercent = pct(total.FalseRejections, total.ValidProbeCount)
	return &total
}

// OK reports whether the report is complete and every gate passed.
func (rep *Aggregates) OK() bool {
	if !rep.Complete {
		return false
	}
	for _, g := range rep.Gates {
		if !g.Passed {
			return false
		}
	}
	return true
}

// Object returns the report as an ordered JSON object (fbeval-report/v1).
func (rep *Aggregates) Object() contract.Object { return rep.report }

func (rep *Aggregates) object(gates []score.GateResult) contract.Object {
	run := rep.Run
	s := run.Plan.Study
	inputs := []contract.Object{}
	for _, in := range run.Plan.Inputs {
		inputs = append(inputs, contract.Object{{Key: "role", Value: in.Role}, {Key: "path", Value: in.Path}, {Key: "sha256", Value: in.SHA256}})
	}
	for i := range run.Inputs {
		inputs = append(inputs, run.Inputs[i].Object())
	}
	arms := contract.Object{}
	for _, arm := range s.Arms {
		// Every arm of a study is asked the same way; the report says how beside the figures.
		models := rep.Models[arm]
		if models == nil {
			models = []string{}
		}
		m := append(contract.Object{{Key: "decoding", Value: s.Decoding}, {Key: "models", Value: models}}, rep.Arms[arm].Object()...)
		arms = append(arms, contract.Member{Key: arm, Value: m})
	}
	effects := contract.Object{}
	for _, e := range rep.Effects {
		effects = append(effects, contract.Member{Key: e.Name, Value: e.Effect.Object()})
	}
	var probes any
	if p := rep.Probes; p != nil {
		probes = contract.Object{
			{Key: "valid_probe_count", Value: p.ValidProbeCount},
			{Key: "invalid_probe_count", Value: p.InvalidProbeCount},
			{Key: "invalid_rejection_percent", Value: p.InvalidRejectionPercent},
			{Key: "false_rejection_percent", Value: p.FalseRejectionPercent},
		}
	}
	gateObjs := []contract.Object{}
	for _, g := range gates {
		gateObjs = append(gateObjs, g.Object())
	}
	classification := rep.Classification
	if classification == nil {
		classification = []string{}
	}
	warnings := rep.Warnings
	if warnings == nil {
		warnings = []string{}
	}
	return contract.Object{
		{Key: "schema_version", Value: contract.ReportV1},
		{Key: "suite", Value: contract.SuiteToolcall},
		{Key: "study", Value: s.Object()},
		{Key: "inputs", Value: inputs},
		{Key: "complete", Value: rep.Complete},
		{Key: "expected_rows", Value: len(run.rows)},
		{Key: "arms", Value: arms},
		{Key: "subsets", Value: contract.Object{
			{Key: "domain", Value: subsetObject(rep.Domains, domainOrder(run), s.Arms)},
			{Key: "category", Value: subsetObject(rep.Categories, categoryOrder(run), s.Arms)},
		}},
		{Key: "effects", Value: effects},
		{Key: "probes", Value: probes},
		{Key: "classification", Value: classification},
		{Key: "custom_fitness_percent", Value: nil},
		{Key: "gates", Value: gateObjs},
		{Key: "warnings", Value: warnings},
		{Key: "rows", Value: run.rowObjects()},
		{Key: "cases", Value: run.caseObjects()},
	}
}

// caseObjects lists each case of the rows once, in row order: its prompt and
// expected answer, so a report shows every sample beside what was asked.
func (run *Run) caseObjects() []contract.Object {
	out := []contract.Object{}
	seen := map[string]bool{}
	for _, r := range run.rows {
		if seen[r.Case.ID] {
			continue
		}
		seen[r.Case.ID] = true
		var expected any
		if len(r.Case.Expected) > 0 {
			var b bytes.Buffer
			if err := json.Compact(&b, r.Case.Expected); err == nil {
				expected = contract.Raw(b.Bytes())
			}
		}
		out = append(out, contract.Object{
			{Key: "case_id", Value: r.Case.ID},
			{Key: "prompt", Value: r.Case.Prompt},
			{Key: "expected", Value: expected},
		})
	}
	return out
}

// attemptObjects lists a row's attempts that have a response, in order: the
// output as written and every error with its JSON Pointer and message.
func attemptObjects(r *caseRow) []contract.Object {
	out := []contract.Object{}
	for i := range r.attempts {
		a := &r.attempts[i]
		if !a.present {
			continue
		}
		errs := []contract.Object{}
		var output any = a.output
		if a.provider != nil {
			output = nil
			errs = append(errs, contract.Object{{Key: "code", Value: "PROVIDER_ERROR"}, {Key: "path", Value: ""}, {Key: "message", Value: a.provider.Code + ": " + a.provider.Message}})
		}
		for _, e := range a.result.Errors {
			errs = append(errs, contract.Object{{Key: "code", Value: e.Code}, {Key: "path", Value: e.Path}, {Key: "message", Value: e.Message}})
		}
		out = append(out, contract.Object{
			{Key: "attempt", Value: i + 1},
			{Key: "output", Value: output},
			{Key: "errors", Value: errs},
		})
	}
	return out
}

func subsetObject(m map[string]map[string]*ArmMetrics, order, arms []string) contract.Object {
	out := contract.Object{}
	for _, k := range order {
		perArm := contract.Object{}
		for _, arm := range arms {
			if mm, ok := m[k][arm]; ok {
				perArm = append(perArm, contract.Member{Key: arm, Value: mm.Object()})
			}
		}
		out = append(out, contract.Member{Key: k, Value: perArm})
	}
	return out
}

// domainOrder is the built-in domain order, then other domains in dataset order.
func domainOrder(run *Run) []string {
	return orderOf(run, fixtures.ToolcallDomains(), func(c *contract.Case) string { return c.Domain })
}

func categoryOrder(run *Run) []string {
	return orderOf(run, fixtures.ToolcallCategories(), func(c *contract.Case) string { return c.Category })
}

func orderOf(run *Run, known []string, key func(*contract.Case) string) []string {
	present := map[string]bool{}
	var extra []string
	for i := range run.Plan.Cases {
		k := key(&run.Plan.Cases[i])
		if !present[k] && !slices.Contains(known, k) {
			extra = append(extra, k)
		}
		present[k] = true
	}
	var out []string
	for _, k := range known {
		if present[k] {
			out = append(out, k)
		}
	}
	return append(out, extra...)
}

func codesOf(a *attempt) []string {
	switch {
	case !a.present:
		return []string{"MISSING_RESPONSE"}
	case a.provider != nil:
		return []string{"PROVIDER_ERROR"}
	}
	codes := []string{}
	for _, e := range a.result.Errors {
		codes = append(codes, e.Code)
	}
	return codes
}

func (run *Run) rowObjects() []contract.Object {
	out := make([]contract.Object, 0, len(run.rows))
	for _, r := range run.rows {
		last, n := r.latest()
		finalCodes := []string{"MISSING_RESPONSE"}
		if last != nil {
			finalCodes = codesOf(last)
		}
		o := contract.Object{
			{Key: "case_id", Value: r.Case.ID},
			{Key: "domain", Value: r.Case.Domain},
			{Key: "category", Value: r.Case.Category},
			{Key: "cluster", Value: r.Case.Cluster},
			{Key: "arm", Value: r.Arm},
			{Key: "repeat", Value: r.Repeat},
			{Key: "first_pass_success", Value: r.firstSuccess()},
			{Key: "final_success", Value: r.finalSuccess()},
			{Key: "attempts", Value: n},
			{Key: "provider_error", Value: r.first().present && r.first().provider != nil},
			{Key: "missing", Value: !r.first().present},
			{Key: "codes", Value: codesOf(r.first())},
			{Key: "final_codes", Value: finalCodes},
		}
		if !r.finalSuccess() && last != nil {
			o = append(o, contract.Member{Key: "output", Value: last.output})
		}
		o = append(o, contract.Member{Key: "attempt_results", Value: attemptObjects(r)})
		out = append(out, o)
	}
	return out
}

// CaseResults returns one fbeval-case-result/v1 record per row, for --cases-out.
func (run *Run) CaseResults() []contract.Object {
	out := make([]contract.Object, 0, len(run.rows))
	for _, r := range run.rows {
		ids := []string{}
		attempts := []contract.Object{}
		for i := range r.attempts {
			a := &r.attempts[i]
			if !a.present {
				continue
			}
			ids = append(ids, export.RequestID(r.Case.ID, r.Arm, r.Repeat, i+1))
			errs := []contract.Object{}
			if a.provider != nil {
				errs = append(errs, contract.Object{{Key: "code", Value: "PROVIDER_ERROR"}, {Key: "message", Value: a.provider.Code + ": " + a.provider.Message}})
			}
			for _, e := range a.result.Errors {
				errs = append(errs, ErrorObject(e))
			}
			attempts = append(attempts, contract.Object{
				{Key: "attempt", Value: i + 1},
				{Key: "success", Value: a.provider == nil && a.result.Success},
				{Key: "codes", Value: codesOf(a)},
				{Key: "errors", Value: errs},
			})
		}
		out = append(out, contract.Object{
			{Key: "schema_version", Value: contract.CaseResultV1},
			{Key: "case_id", Value: r.Case.ID},
			{Key: "domain", Value: r.Case.Domain},
			{Key: "category", Value: r.Case.Category},
			{Key: "arm", Value: r.Arm},
			{Key: "repeat", Value: r.Repeat},
			{Key: "request_ids", Value: ids},
			{Key: "first_pass_success", Value: r.firstSuccess()},
			{Key: "final_success", Value: r.finalSuccess()},
			{Key: "provider_error", Value: r.first().present && r.first().provider != nil},
			{Key: "missing", Value: !r.first().present},
			{Key: "attempts", Value: attempts},
		})
	}
	return out
}

// ErrorObject returns one judge error as a report object: code, path, keyword,
// message, expected, actual, and the details of a candidate schema error.
func ErrorObject(e tc.Error) contract.Object {
	o := contract.Object{
		{Key: "code", Value: e.Code},
		{Key: "path", Value: e.Path},
		{Key: "keyword", Value: e.Keyword},
		{Key: "message", Value: e.Message},
		{Key: "expected", Value: e.Expected},
		{Key: "actual", Value: e.Actual},
	}
	if len(e.Details) > 0 {
		d := make([]contract.Object, len(e.Details))
		for i, x := range e.Details {
			d[i] = ErrorObject(x)
		}
		o = append(o, contract.Member{Key: "details", Value: d})
	}
	return o
}

func itoa(n int) string { return strconv.Itoa(n) }
