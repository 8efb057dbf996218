package study

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/contract/strictjson"
	"github.com/fbeval/fbeval/fixtures"
	"github.com/fbeval/fbeval/score"
	"github.com/fbeval/fbeval/score/report"
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
	// Unmeasured: every answer read is blank (answerFlags), wrapped or
	// encoded twice, or every record a provider error, so the figures measure
	// the runner, not the model; the run is not ok
	Unmeasured bool
	// NoAnswer: every record read is a provider error, so no request was
	// answered (Unmeasured too)
	NoAnswer bool
	// Undue counts the repair attempts left out of the figures as no earlier
	// attempt of their row called for them (Run.dropUndue); the run is not ok
	Undue int
	model *report.ToolcallReport
}

type namedEffect struct {
	Name   string
	Effect stats.Effect
}

// Report sums a run's rows into a report and checks the study's gates.
func (run *Run) Report() (*Aggregates, error) {
	if err := run.settle(); err != nil {
		return nil, err
	}
	s := run.Plan.Study
	rep := &Aggregates{Run: run, Complete: true, Arms: map[string]*ArmMetrics{},
		Domains: map[string]map[string]*ArmMetrics{}, Categories: map[string]map[string]*ArmMetrics{}}
	missing, topRepeat := 0, 0 // the highest repeat a first attempt answers
	for i := range run.rows {
		if !run.rowAt(i)[0].has(fPresent) {
			missing++
		} else {
			topRepeat = max(topRepeat, run.placeOf(i).repeat)
		}
	}
	if missing > 0 {
		rep.Complete = false
		w := contract.Plural(missing, "row has no first-attempt response and scores as a failure", "rows have no first-attempt response and score as failures")
		switch _, later := run.Answered(); {
		case missing == run.rows && later+run.undue.n > 0:
			// the repair round's responses given alone
			w += ": the records read answer repair attempts only; give the first attempts' responses too (--responses first.jsonl --responses repairs.jsonl)"
		case topRepeat > 0 && topRepeat < s.Repeats && missing == run.rows/s.Repeats*(s.Repeats-topRepeat):
			// every row of the repeats past the records' is missing, and no other
			w += fmt.Sprintf(": the records read answer %s of this study's %d, and none after: give --repeats %d, as the export had, if that is all there is", numbers("repeat", "repeats", 1, topRepeat), s.Repeats, topRepeat)
		}
		rep.Warnings = append(rep.Warnings, w)
	}
	if run.goldWarning != "" {
		rep.Warnings = append(rep.Warnings, run.goldWarning)
	}
	n := run.answerCounts()
	warnings, unmeasured, err := run.answerWarnings(n)
	if err != nil {
		return nil, err
	}
	rep.NoAnswer = n.answered == 0 && n.errors > 0
	rep.Warnings, rep.Unmeasured = append(rep.Warnings, warnings...), unmeasured
	if s.Repairs > 0 {
		w, err := run.repairsDueWarning()
		if err != nil {
			return nil, err
		}
		if w != "" {
			rep.Warnings = append(rep.Warnings, w)
		}
	}
	if u := run.undue; u.n > 0 && missing < run.rows { // with no first attempt, the warning above says what to do
		rep.Undue = u.n
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s a repair attempt that no earlier attempt of %s called for (the first, %s: %s), so %s out of the figures and the run is not ok: "+
			"a repair round's records answer the attempts its requests were exported from (fbeval export STUDY --repair-from FILE...), and these were not: score each round with the files it was exported from, or export the repairs of these again and run them",
			contract.Plural(u.n, "record answers", "records answer"), contract.Pick(u.n, "its row", "their rows"), u.first, u.why, contract.Pick(u.n, "it is left", "they are left")))
	}
	for _, cmp := range Comparisons {
		if slices.Contains(s.Arms, cmp.Treatment) && slices.Contains(s.Arms, cmp.Baseline) {
			rep.Effects = append(rep.Effects, namedEffect{Name: cmp.Name})
		}
	}
	// Each effect draws from its own seeded stream, so computing them at once
	// changes no digit; they hold a tally per cluster, and are computed while
	// the metrics are summed.
	var wg sync.WaitGroup
	clusters, caseCluster := run.caseGroups(func(c *contract.Case) string { return c.Cluster })
	unanswered := make([]string, len(rep.Effects)) // the arm of an effect that no answer measures
	for i := range rep.Effects {
		e := &rep.Effects[i]
		cmp := Comparisons[slices.IndexFunc(Comparisons, func(c comparison) bool { return c.Name == e.Name })]
		wg.Go(func() {
			counts, arm := run.pairCounts(cmp.Baseline, cmp.Treatment, clusters, caseCluster)
			e.Effect = stats.PairedCounts(counts, stats.Options{Name: cmp.Name, Seed: uint64(s.Seed)})
			unanswered[i] = arm
		})
	}
	// one grouping at a time, so that only its latencies are held
	for k, m := range run.metricsBy(func(*contract.Case) string { return "" }, s.Prices) {
		rep.Arms[k[1]] = m
	}
	for _, arm := range s.Arms {
		if rep.Arms[arm] == nil {
			rep.Arms[arm] = newMetricsAcc().finish(run.codeNames) // no rows
		}
	}
	for _, g := range []struct {
		out map[string]map[string]*ArmMetrics
		key func(*contract.Case) string
	}{{rep.Domains, func(c *contract.Case) string { return c.Domain }}, {rep.Categories, func(c *contract.Case) string { return c.Category }}} {
		for k, m := range run.metricsBy(g.key, s.Prices) {
			if g.out[k[0]] == nil {
				g.out[k[0]] = map[string]*ArmMetrics{}
			}
			g.out[k[0]][k[1]] = m
		}
	}
	wg.Wait()
	for i, arm := range unanswered {
		if arm != "" {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s is not measured: no first attempt of the %s arm was answered (each is missing or a provider error), so its figures are null and its label inconclusive: give that arm's responses", rep.Effects[i].Name, arm))
		}
	}
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
			rep.Warnings = append(rep.Warnings, arm+": a token total or the cost passed the largest value a report holds and is shown at that value (9223372036854775807 tokens, 1.7976931348623157e308 USD); the cost of a token total stopped there is not given")
		}
	}
	var files score.FileWarnings
	for _, in := range run.Inputs {
		var ws []string
		if n := in.OtherCase; n > 0 {
			ws = append(ws, in.Path+": "+contract.Plural(n, "record names", "records name")+
				" another case_id than the request it answers (the first, "+in.OtherCaseNote+"): scored as the request's, which request_id names")
		}
		if n := in.RejectedCount; n > 0 {
			w := in.Path + ": " + contract.Plural(n, "line was", "lines were") + " rejected"
			if left := n - len(in.Rejected); left > 0 {
				w += fmt.Sprintf(" (the first %d are listed)", len(in.Rejected))
			}
			ws = append(ws, w)
		}
		if in.Duplicates > 0 {
			w := in.Path + ": " + contract.Plural(in.Duplicates, "record repeats", "records repeat") + " an earlier request id (the last one wins"
			if n := in.ErrorsAfterAnswer; n > 0 {
				w += ", but an answer over " + contract.Plural(n, "provider error", "provider errors") + " after it"
			}
			w += ")"
			if n := in.OtherModel; n > 0 {
				w += fmt.Sprintf(", %d of them %s (fbeval compare compares two reports)", n, score.OtherModels(in.OtherModelNote))
			}
			ws = append(ws, w)
		}
		if in.Unknown > 0 {
			w := in.Path + ": " + contract.Plural(in.Unknown, "record answers", "records answer") + " no request of this study"
			switch why, kind, flags := run.unknownReason(in.FirstUnknown); kind {
			case unknownBeyond:
			case unknownSubset:
				// the rest is scored: a subset may be meant
				w += ": " + why + ": left out, as a subset of an export scored on purpose is; to score them, give " + flags + " the requests were exported with"
			default:
				w += ": " + why
			}
			ws = append(ws, w)
		}
		files.Add(append(ws, in.Warnings...)...)
	}
	rep.Warnings = append(rep.Warnings, files.Lines("the report's inputs")...)
	rep.Warnings = append(rep.Warnings, run.beyondWarnings()...)
	if in := run.firstOtherRecipe(); in != nil {
		if kept, _ := run.otherRecipes(); kept > 0 {
			rep.Warnings = append(rep.Warnings, contract.Plural(kept, "record scored answers", "records scored answer")+" requests made from another recipe (the first, in "+
				in.Path+", from "+in.OtherRecipeName+") than this study's "+run.Plan.Recipe()+": scored as this study's (--allow-other-recipe)")
		}
	}
	rep.Models = map[string][]string{}
	perSource := make([]int, len(run.sources))
	armSources := make([][]bool, len(s.Arms))
	for a := range armSources {
		armSources[a] = make([]bool, len(run.sources))
	}
	for i := range run.rows {
		r, arm := run.rowAt(i), i%len(s.Arms)
		for k := range r {
			if a := &r[k]; a.has(fPresent) && a.src != 0 {
				armSources[arm][a.src] = true
				perSource[a.src]++
			}
		}
	}
	for a, arm := range s.Arms {
		seen := map[string]bool{}
		for id, ok := range armSources[a] {
			if m := run.sources[id].model; ok && m != "" && !seen[m] {
				seen[m] = true
				rep.Models[arm] = append(rep.Models[arm], m)
			}
		}
	}
	all := map[string]int{}
	runs := map[string]map[string]int{} // per model, the answers of each run that names its settings
	for id, n := range perSource {
		src := run.sources[id]
		if n == 0 || src.model == "" {
			continue
		}
		all[src.model] += n
		if src.settings != "" {
			if runs[src.model] == nil {
				runs[src.model] = map[string]int{}
			}
			runs[src.model][strings.TrimSpace(src.runner+" "+src.settings)] += n
		}
	}
	for arm := range rep.Models {
		slices.Sort(rep.Models[arm])
	}
	if len(all) > 1 {
		rep.Warnings = append(rep.Warnings, score.MixedModels(all))
	}
	for _, m := range slices.Sorted(maps.Keys(runs)) {
		if len(runs[m]) > 1 {
			rep.Warnings = append(rep.Warnings, score.MixedRuns(m, runs[m]))
		}
	}
	rep.model = rep.build()
	gates, err := score.ParseGates(s.Gates)
	if err != nil {
		return nil, err
	}
	rep.Gates = score.EvaluateGates(gates, errorCount(rep.model))
	rep.model.Gates = make([]report.Gate, len(rep.Gates))
	for i, g := range rep.Gates {
		rep.model.Gates[i] = report.Gate{Gate: g.Gate.Text, Actual: g.Actual, Passed: g.Passed}
	}
	return rep, nil
}

// pairCounts counts the first-attempt outcomes of two arms, paired on (case,
// repeat), by cluster (clusters and caseCluster are run.caseGroups' by cluster).
//
// An arm no first attempt of which was answered (each missing or a provider
// error: the model never answered it) measures nothing: the counts are then
// none (the effect's figures null, its label inconclusive, where the missing
// rows, counted as failures, made a certain harm or improvement of it) and
// unanswered names the arm.
func (run *Run) pairCounts(baseline, treatment string, clusters []string, caseCluster []int) (c stats.Counts, unanswered string) {
	// rows go case by case, repeat by repeat, arm by arm (New): the two arms of
	// one case and repeat are in the same run of len(arms) rows
	arms := run.Plan.Study.Arms
	bi, ti := slices.Index(arms, baseline), slices.Index(arms, treatment)
	if bi < 0 || ti < 0 {
		return stats.Counts{}, ""
	}
	c = stats.Counts{Clusters: make([]stats.Tally, len(clusters))}
	for i, name := range clusters {
		c.Clusters[i].Cluster = name
	}
	answered := func(r row) bool { return r[0].has(fPresent) && !r[0].has(fProvider) }
	var baseAnswered, treatAnswered bool
	perCase := run.Plan.Study.Repeats * len(arms)
	for ci, k := range caseCluster {
		for start := ci * perCase; start < (ci+1)*perCase; start += len(arms) {
			b, t := run.rowAt(start+bi), run.rowAt(start+ti)
			c.Add(k, b.firstSuccess(), t.firstSuccess())
			baseAnswered = baseAnswered || answered(b)
			treatAnswered = treatAnswered || answered(t)
		}
	}
	switch {
	case len(caseCluster) == 0 || run.Plan.Study.Repeats == 0:
		return c, ""
	case !treatAnswered:
		return stats.Counts{}, treatment
	case !baseAnswered:
		return stats.Counts{}, baseline
	}
	return c, ""
}

// rowCases is the number of cases that have rows: every case of the plan, unless
// the study has no repeats or arms.
func (run *Run) rowCases() int {
	if run.rows == 0 {
		return 0
	}
	return len(run.Plan.Cases)
}

// probes runs the mutation probes of the candidate schema of every domain and adds
// the counts up.
func (run *Run) probes() *tc.ProbeStats {
	byDomain := map[string][]*tc.Case{}
	for ci := range run.rowCases() {
		d := run.Plan.Cases[ci].Domain
		byDomain[d] = append(byDomain[d], run.prepared[ci])
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
	if !rep.Complete || rep.Undue > 0 {
		return false
	}
	for _, g := range rep.Gates {
		if !g.Passed {
			return false
		}
	}
	return true
}

// repairsDueWarning says how many rows failed with feedback a repair round
// shows the model and have no response to that round's request, or "": scored
// after fewer rounds than the study allows, they count as never retried,
// which the retry and recovery rates cannot tell from a model that was
// retried and failed. It is in the report's warnings, so every format of it
// says the run was cut short.
func (run *Run) repairsDueWarning() (string, error) {
	due, err := run.RepairsDue()
	if err != nil {
		return "", err
	}
	var n int
	var at []string
	for k, d := range due {
		if d > 0 {
			n += d
			at = append(at, strconv.Itoa(k+2))
		}
	}
	if n == 0 {
		return "", nil
	}
	// a row with attempt 2 due was not retried; one with a later attempt due
	// was, and its figures stop at its last attempt answered
	counted := contract.Pick(n, "it counts", "they count") + " as not retried"
	switch {
	case due[0] == 0:
		counted = contract.Pick(n, "its figures stop", "their figures stop") + " at the last attempt answered"
	case due[0] < n:
		counted = "their figures stop at the last attempt answered (those with attempt 2 due count as not retried)"
	}
	return fmt.Sprintf("%s a repair request due (attempt %s; the study allows %d attempts) and no response to it: %s; fbeval export STUDY --repair-from FILE... writes those requests, and scoring their responses with the others counts them",
		contract.Plural(n, "row has", "rows have"), strings.Join(at, " or "), run.Plan.Study.Repairs+1, counted), nil
}

// encodeOnce is what to do of answers in quotes: the runner's encoding.
const encodeOnce = "a runner of your own writes the model's text as the output string, encoded once"

// answerWarnings says what the answers read hold that the figures alone do
// not show (n, their answerCounts): thinking, tool calls in another form, answers cut
// short, filtered, empty or wrapped in an API's message or encoded twice; unmeasured
// when every answer is empty, wrapped or encoded twice, so the figures measure
// the runner and the run is not ok.
func (run *Run) answerWarnings(n answerTally) (out []string, unmeasured bool, err error) {
	if n.answered == 0 && n.errors > 0 {
		// --allow-provider-errors accepts some rows the model never
		// answered, not a run it answered none of (a revoked key)
		unmeasured = true
		out = append(out, "no request was answered: every record read is a provider error ("+contract.Plural(n.errors, "record", "records")+
			"), so the figures measure nothing and the run is not ok, --allow-provider-errors or not: mend what the errors say (a key, a quota, a model name) and run the runner again with -o FILE")
	}
	if n.think > 0 {
		out = append(out, score.ThinkingWarning(n.think, "JSON_INVALID"))
	}
	if n.calls > 0 {
		w, err := run.toolCallFormWarning(n.calls)
		if err != nil {
			return nil, false, err
		}
		out = append(out, w)
	}
	if n.cut > 0 {
		out = append(out, score.CutWarning(n.cut))
	}
	if n.filtered > 0 {
		id, _, err := run.firstFlagged(fFiltered)
		if err != nil {
			return nil, false, err
		}
		out = append(out, score.FilteredWarning(n.filtered, id))
	}
	switch {
	case n.blank == 0 || n.blank == n.answered:
	case run.Plan.Study.Decoding == contract.DecodingNativeTools:
		// those cut short or filtered are said above, with their cause
		if n.bare > 0 {
			out = append(out, contract.Plural(n.bare, "answer is", "answers are")+" empty in this native_tools study, with no finish reason that says why, and "+contract.Pick(n.bare, "scores as a failure", "score as failures")+
				": a runner that takes only the text of an answer loses its tool call; "+envelopeAdvice)
		}
	default:
		id, _, err := run.firstFlagged(fBlank)
		if err != nil {
			return nil, false, err
		}
		out = append(out, score.BlankWarning(n.blank, n.answered, id))
	}
	if n.answered > 0 && n.blank == n.answered {
		unmeasured = true
		out = append(out, "every answer is empty ("+contract.Plural(n.answered, "record", "records")+
			"; no text, or an empty text encoded: \"\" or null): the runner took no text from the model's answers (a reasoning model may spend its tokens before it answers; a server's reasoning parser may return the answer apart, as reasoning, which fbeval's runners keep in the records' metadata.reasoning), so the figures measure nothing and the run is not ok")
	}
	if n.wrapped > 0 {
		w, err := run.wrappedWarning(n)
		if err != nil {
			return nil, false, err
		}
		unmeasured = unmeasured || n.wrapped == n.answered
		out = append(out, w)
	}
	if n.twice > 0 {
		const why = "JSON (" + score.EncodedTwice + ")"
		w := contract.Plural(n.twice, "answer is a JSON string that holds ", "answers are JSON strings that hold ") + why + " and " + contract.Pick(n.twice, "scores as a failure", "score as failures") + ": " + encodeOnce
		if n.twice == n.answered {
			unmeasured = true
			w = "every answer (" + contract.Plural(n.answered, "record", "records") + ") is a JSON string that holds " + why + ", so the figures measure the runner and the run is not ok: " + encodeOnce
		}
		out = append(out, w)
	}
	if n.quotedText > 0 {
		w := contract.Plural(n.quotedText, "answer is", "answers are") + " in quotes, one JSON string of text (" + score.InQuotes + ") and " + contract.Pick(n.quotedText, "scores as a failure", "score as failures") + ": " + encodeOnce
		if n.quoted == n.answered && !unmeasured {
			// each kind alone, said above, stops short of every answer
			unmeasured = true
			kinds := []string{strconv.Itoa(n.quotedText) + " of text"}
			if n.twice > 0 {
				kinds = append(kinds, strconv.Itoa(n.twice)+" of JSON")
			}
			if empty := n.quoted - n.quotedText - n.twice; empty > 0 {
				kinds = append(kinds, strconv.Itoa(empty)+" empty")
			}
			w = "every answer (" + contract.Plural(n.answered, "record", "records") + ") is in quotes, one JSON string (" + score.InQuotes + "; " + strings.Join(kinds, ", ") +
				"), so the figures measure the runner and the run is not ok: " + encodeOnce
		}
		out = append(out, w)
	}
	if n.listed > 0 {
		id, _, err := run.firstFlagged(fListed)
		if err != nil {
			return nil, false, err
		}
		const why = "a JSON list holding the answer, not the answer (a list of texts, as [c.message.content for c in resp.choices] keeps them, or of the answer parsed)"
		const fix = "a runner of your own writes the answer itself as the output (choices[0].message.content)"
		w := contract.Plural(n.listed, "answer is ", "answers are ") + why + " and " + contract.Pick(n.listed, "scores as a failure", "score as failures") + "; the first is " + id + ": " + fix
		if n.listed == n.answered {
			unmeasured = true
			w = "every answer (" + contract.Plural(n.answered, "record", "records") + ") is " + why + ", so the figures measure the runner and the run is not ok: " + fix
		}
		out = append(out, w)
	}
	return out, unmeasured, nil
}

// Answered counts the first attempts and the later (repair) attempts that a
// record answered, provider errors included.
func (run *Run) Answered() (first, later int) {
	per := run.Plan.Study.Repairs + 1
	for i := range run.atts {
		if run.atts[i].has(fPresent) {
			if i%per == 0 {
				first++
			} else {
				later++
			}
		}
	}
	return first, later
}

// answerTally counts the answers that stand (provider errors and attempts no
// record answered left out), the provider errors, those that are blank, those the model stopped at
// its token limit, those a safety filter stopped or the model refused on
// safety grounds (bare: the blank ones neither), those that hold its thinking, those that are a tool call in
// another form than the envelope, those encoded twice and those wrapped in an
// API's message.
// Of the answers in quotes (quoted), those that hold text other than JSON or
// white space are quotedText.
type answerTally struct {
	answered, errors, blank, bare, cut, filtered, think, calls, twice, wrapped int
	quoted, quotedText, listed                                                 int
}

func (run *Run) answerCounts() answerTally {
	var n answerTally
	for i := range run.atts {
		a := &run.atts[i]
		if !a.ok() {
			n.errors += a.count(fProvider)
			continue
		}
		n.answered++
		n.blank += a.count(fBlank)
		if a.has(fBlank) && !a.has(fCutShort) && !a.has(fFiltered) {
			n.bare++ // blank with no finish reason that says why
		}
		n.cut += a.count(fCutShort)
		n.filtered += a.count(fFiltered)
		n.think += a.count(fThinking)
		n.calls += a.count(fToolCallForm)
		n.twice += a.count(fEncodedTwice)
		n.wrapped += a.count(fWrapped)
		n.listed += a.count(fListed)
		if a.has(fQuoted) {
			n.quoted++
			if !a.has(fEncodedTwice) && !a.has(fBlank) {
				n.quotedText++
			}
		}
	}
	return n
}

// toolCallFormWarning is the warning for n answers that are a tool call in
// another form than the envelope (contract.ToolCallForm): what the first (in
// row order) is, and what to do, which the study's decoding decides. With
// native_tools the provider's API made the call, so a runner wrote its object
// as the answer, or a server left the model's markup in the text; otherwise the
// model wrote a tool call of its own format where the prompt asks for the
// envelope, a failure the figures should count.
func (run *Run) toolCallFormWarning(n int) (string, error) {
	id, output, err := run.firstFlagged(fToolCallForm)
	if err != nil {
		return "", err
	}
	form := contract.ToolCallForm([]byte(output))
	w := contract.Plural(n, "answer is", "answers are") + " a tool call in another form than the envelope and " + contract.Pick(n, "scores as a failure", "score as failures") + "; the first, " + id + ", is " + form + ": "
	switch {
	case run.Plan.Study.Decoding != contract.DecodingNativeTools:
		return w + "the model answered with a tool call of its own format where the prompt asks for the envelope (with " + run.Plan.Study.Decoding + " decoding no API makes the call)", nil
	case strings.HasPrefix(form, "the model's"):
		return w + serverAdvice, nil
	case strings.HasPrefix(form, `a {"name"`):
		// bare JSON: a server's text or a runner's own writing of the call
		return w + serverAdvice + "; " + envelopeAdvice, nil
	}
	return w + envelopeAdvice, nil
}

// wrappedWarning is the warning for the answers that are an API's message
// around the model's text (contract.WrappedAnswer): how many, what the first
// (in row order) is, and what the runner should write; when every answer is
// one, the figures measure the runner.
func (run *Run) wrappedWarning(n answerTally) (string, error) {
	id, output, err := run.firstFlagged(fWrapped)
	if err != nil {
		return "", err
	}
	const fix = "a runner of your own writes the model's text as the output (choices[0].message.content; a Messages reply's text blocks joined)"
	what := "; the first, " + id + ", is " + contract.WrappedAnswer([]byte(output)) + ": " + fix
	if n.wrapped == n.answered {
		return "every answer (" + contract.Plural(n.answered, "record", "records") + ") is an API's message around the model's text, not the text, so the figures measure the runner and the run is not ok" + what, nil
	}
	return contract.Plural(n.wrapped, "answer is an API's message", "answers are an API's message") + " around the model's text, not the text, and " + contract.Pick(n.wrapped, "scores as a failure", "score as failures") + what, nil
}

// firstFlagged returns the request id and output of the first attempt, in row
// order, that a record answered and flag f marks.
func (run *Run) firstFlagged(f uint32) (id, output string, err error) {
	i := slices.IndexFunc(run.atts, func(a att) bool { return a.ok() && a.has(f) })
	per := run.Plan.Study.Repairs + 1
	err = run.settledRange(i/per, i/per+1, nil, func(sr *settledRow) bool {
		p := sr.p
		id, output = sr.ar.requestID(sr.c.ID, p.arm, p.repeat, i%per+1), strings.Clone(sr.dets[i%per].output)
		return false
	})
	return id, output, err
}

// serverAdvice says what to do about a server that returns the model's tool
// calls as text.
const serverAdvice = "the server left the model's tool call unparsed in the text; start it with the tool-call parser of the model (vLLM: --enable-auto-tool-choice --tool-call-parser NAME; llama.cpp: --jinja)"

// envelopeAdvice says how a runner of one's own writes an API's tool call.
const envelopeAdvice = `a runner of your own writes the API's tool call back as the envelope {"action":"call_tool","tool":NAME,"arguments":{...},"missingFields":[],"reason":""} (docs/contract.md), as fbeval-openai and fbeval-anthropic do`

// ProviderErrorRows counts the rows with a provider error at some attempt:
// the model never answered it (a bad key, a quota, a server error).
func (rep *Aggregates) ProviderErrorRows() int {
	n := 0
	for _, m := range rep.Arms {
		n += m.ProviderErrors
	}
	return n
}

// ProviderErrorCodes says which provider errors the rows are left with (the
// attempts ProviderErrorRows counts), most first: "http_401 in 252 records,
// http_500 in 1". An error a later answer replaced is not counted.
func (rep *Aggregates) ProviderErrorCodes() score.ProviderCodes {
	var p score.ProviderCodes
	for i := range rep.Run.atts {
		if a := &rep.Run.atts[i]; a.flags&(fPresent|fProvider) == fPresent|fProvider {
			rep.Run.pcodes.Count(&p, a.pcode)
		}
	}
	return p
}

// Model returns the report in the report model (fbeval-report/v1). Its rows are a
// source that builds each row as it is written.
func (rep *Aggregates) Model() *report.ToolcallReport { return rep.model }

// Doc returns the report as a report document, for any renderer.
func (rep *Aggregates) Doc() report.Doc {
	return report.Doc{Kind: report.KindToolcall, Toolcall: rep.model}
}

// build returns the report model without its gates.
func (rep *Aggregates) build() *report.ToolcallReport {
	run := rep.Run
	s := run.Plan.Study
	out := &report.ToolcallReport{
		SchemaVersion:  contract.ReportV1,
		Suite:          contract.SuiteToolcall,
		Study:          s,
		Inputs:         []report.Input{},
		Complete:       rep.Complete,
		ExpectedRows:   run.rows,
		Arms:           report.Ordered[report.Metrics]{},
		Effects:        report.Ordered[report.Effect]{},
		Classification: strs(rep.Classification),
		Gates:          []report.Gate{},
		Warnings:       strs(rep.Warnings),
		Unmeasured:     rep.Unmeasured,
		RowRanges:      run.rowRanges(),
		Cases:          run.cases(),
	}
	out.RowSource = out.RowRanges.Seq(run.fail)
	for _, in := range run.Plan.Inputs {
		out.Inputs = append(out.Inputs, report.Input{Role: in.Role, Path: in.Path, SHA256: in.SHA256})
	}
	for i := range run.Inputs {
		out.Inputs = append(out.Inputs, run.Inputs[i].Input())
	}
	for _, arm := range s.Arms {
		// Every arm of a study is asked the same way; the report says how beside the figures.
		m := rep.Arms[arm].metrics()
		m.Decoding, m.Models = s.Decoding, strs(rep.Models[arm])
		out.Arms = append(out.Arms, report.Entry[report.Metrics]{Key: arm, Value: m})
	}
	out.Subsets.Domain = subsets(rep.Domains, domainOrder(run), s.Arms)
	out.Subsets.Category = subsets(rep.Categories, categoryOrder(run), s.Arms)
	for _, e := range rep.Effects {
		out.Effects = append(out.Effects, report.Entry[report.Effect]{Key: e.Name, Value: e.Effect})
	}
	if p := rep.Probes; p != nil {
		out.Probes = &report.Probes{ValidProbeCount: p.ValidProbeCount, InvalidProbeCount: p.InvalidProbeCount,
			InvalidRejectionPercent: p.InvalidRejectionPercent, FalseRejectionPercent: p.FalseRejectionPercent}
	}
	return out
}

func strs(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

// cases lists each case of the rows once, in row order: its prompt and expected
// answer, so a report shows every sample beside what was asked.
func (run *Run) cases() []report.CaseInfo {
	out := []report.CaseInfo{}
	seen := map[string]bool{}
	for ci := range run.rowCases() {
		c := &run.Plan.Cases[ci]
		if seen[c.ID] {
			continue
		}
		seen[c.ID] = true
		info := report.CaseInfo{CaseID: c.ID, Prompt: c.Prompt}
		if len(c.Expected) > 0 {
			var b bytes.Buffer
			if err := json.Compact(&b, c.Expected); err == nil {
				info.Expected = b.Bytes()
			}
		}
		out = append(out, info)
	}
	return out
}

// attempts lists a row's attempts that have a response, in order: the output as
// written and every error with its JSON Pointer and message.
func attempts(r row, dets []detail, ar *rowArenas) []report.AttemptResult {
	out := ar.attempts.take(len(r))
	for i := range r {
		a, d := &r[i], &dets[i]
		if !a.has(fPresent) {
			continue
		}
		res := report.AttemptResult{Attempt: i + 1, Output: &d.output, Errors: ar.attErrs.take(len(d.errors) + 1)}
		if a.has(fProvider) {
			res.Output = nil
			res.Errors = append(res.Errors, report.AttemptError{Code: codeProvider, Message: d.provider.Code + ": " + d.provider.Message})
		}
		for i := range d.errors {
			e := &d.errors[i]
			res.Errors = append(res.Errors, report.AttemptError{Code: e.Code, Path: e.Path, Message: e.Message})
		}
		out = append(out, res)
	}
	return out
}

func subsets(m map[string]map[string]*ArmMetrics, order, arms []string) report.Ordered[report.Ordered[report.Metrics]] {
	out := report.Ordered[report.Ordered[report.Metrics]]{}
	for _, k := range order {
		perArm := report.Ordered[report.Metrics]{}
		for _, arm := range arms {
			if mm, ok := m[k][arm]; ok {
				perArm = append(perArm, report.Entry[report.Metrics]{Key: arm, Value: mm.metrics()})
			}
		}
		out = append(out, report.Entry[report.Ordered[report.Metrics]]{Key: k, Value: perArm})
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

func codesOf(a *att, d *detail) []string {
	switch {
	case !a.has(fPresent):
		return missingCodes
	case a.has(fProvider):
		return providerCodes
	}
	return d.codes
}

// The codes lists of a missing response and a provider error; the writers only
// read them.
var (
	missingCodes  = []string{codeMissing}
	providerCodes = []string{codeProvider}
)

// settledRow is one row as the outputs are built from it: its slots, the details
// of its attempts, its place and its case.
type settledRow struct {
	r    row
	dets []detail
	p    place
	c    *contract.Case
	ar   *rowArenas // where the lists of its row and case result are taken from
}

// rangeScratch is the memory a range of settled rows is built in: the details
// read back, the details decoded and the arenas of the rows' lists.
type rangeScratch struct {
	data []byte
	dets []detail
	ar   rowArenas
}

// settledRange walks rows lo to hi-1 in order with their details, which it reads
// back in one piece. Once the run is settled it may run on several goroutines at
// once for different ranges: it only reads the run. The range is built in sc,
// whose memory the rows then point into; with sc nil, in memory of its own. A
// caller that passes the same sc for its next range must be done with every row
// of this one (the writers: report.Ranges.Builder).
func (run *Run) settledRange(lo, hi int, sc *rangeScratch, yield func(*settledRow) bool) error {
	if !run.settled {
		return errors.New("study: rows built before every attempt was judged")
	}
	per := run.Plan.Study.Repairs + 1
	atts := run.atts[lo*per : hi*per]
	from, to := int64(-1), int64(0)
	for i := range atts {
		if a := &atts[i]; a.has(fDetail) {
			if from < 0 {
				from = a.det
			}
			to = a.det + int64(a.detLen)
		}
	}
	if sc == nil {
		sc = &rangeScratch{}
	}
	var data []byte
	if from >= 0 {
		if to < from || to-from > int64(math.MaxInt) {
			return errBadDetail
		}
		if int64(cap(sc.data)) < to-from {
			sc.data = make([]byte, to-from)
		}
		data = sc.data[:to-from]
		if err := run.spool.readAt(data, from); err != nil {
			return err
		}
	}
	// The range's strings are parts of one, its lists parts of a few arrays.
	// The string is data's bytes, not a copy: nothing writes to data until the
	// caller is done with the range's rows.
	var all string
	if len(data) > 0 {
		all = unsafe.String(&data[0], len(data))
	}
	ar := &sc.ar
	ar.reset()
	if cap(sc.dets) < len(atts) {
		sc.dets = make([]detail, len(atts))
	}
	dets := sc.dets[:len(atts)]
	clear(dets)
	present, errs := 0, 0
	for i := range atts {
		a := &atts[i]
		if a.has(fPresent) {
			present++
		}
		if !a.has(fDetail) {
			continue
		}
		off := a.det - from
		if off < 0 || off+int64(a.detLen) > int64(len(all)) {
			return errBadDetail
		}
		var err error
		if dets[i], err = decodeDetailString(all[off:off+int64(a.detLen)], false, &ar.errs); err != nil {
			return err
		}
		errs += len(dets[i].errors)
	}
	ar.codes.reserve(errs)
	for i := range dets {
		d := &dets[i]
		d.codes = ar.codes.take(len(d.errors))
		for k := range d.errors {
			d.codes = append(d.codes, d.errors[k].Code)
		}
	}
	// a row takes room for all its attempts, and for one error more than its
	// detail holds in each attempt with a response (a provider error's)
	ar.attempts.reserve(len(atts))
	ar.cases.reserve(len(atts))
	ar.ids.reserve(len(atts))
	ar.attErrs.reserve(errs + present)
	ar.infos.reserve(errs + present)
	var sr settledRow
	for i := lo; i < hi; i++ {
		k := (i - lo) * per
		p := run.placeOf(i)
		sr = settledRow{run.rowAt(i), dets[k : k+per : k+per], p, run.caseOf(p), ar}
		if !yield(&sr) {
			return nil
		}
	}
	return nil
}

// settledRows walks every row in order with its details, after settling the
// run; it stops early when a detail cannot be read back (Err says why).
func (run *Run) settledRows(yield func(*settledRow) bool) {
	if run.settle() != nil {
		return
	}
	rows := report.Ranges[settledRow]{N: run.rows, Ends: run.rangeEnds(), Build: func(lo, hi int, yield func(*settledRow) bool) error {
		return run.settledRange(lo, hi, nil, yield) // Repairs keeps the rows' outputs
	}}
	rows.Seq(run.fail)(yield)
}

// rowRanges builds the report's rows a range at a time, from the slots and the
// details of each range; with run.beside set, each range also writes the case
// results of its rows there.
func (run *Run) rowRanges() *report.Ranges[report.Row] {
	build := func(sc *rangeScratch) func(lo, hi int, yield func(*report.Row) bool) error {
		return func(lo, hi int, yield func(*report.Row) bool) error {
			var out report.Row
			var res report.CaseResult
			var part *report.CasePart
			if run.beside != nil {
				part = run.beside.Part(lo)
			}
			err := run.settledRange(lo, hi, sc, func(sr *settledRow) bool {
				out = reportRow(sr)
				if part != nil {
					res = caseResult(sr)
					part.Add(&res)
				}
				return yield(&out)
			})
			if err == nil && part != nil {
				err = run.beside.Done(part)
			}
			return err
		}
	}
	return settledRanges(run, build)
}

// settledRanges is the list of the run's rows as build makes them, a range at a
// time in the scratch it is given: Build gives each range memory of its own, and
// each writer's Builder one scratch for all its ranges.
func settledRanges[T any](run *Run, build func(sc *rangeScratch) func(lo, hi int, yield func(*T) bool) error) *report.Ranges[T] {
	return &report.Ranges[T]{N: run.rows, Workers: run.workers, Ends: run.rangeEnds(),
		Build:   build(nil),
		Builder: func() func(lo, hi int, yield func(*T) bool) error { return build(&rangeScratch{}) }}
}

// rangeRows is the most rows a range holds, and rangeBytes about how many bytes
// of rows (details included) it holds: a writer holds a few ranges written out
// per goroutine, so rows that quote long outputs make short ranges. (Variables
// for the tests.)
var rangeRows, rangeBytes = 512, 2 << 20

// rangeEnds are the ends of the ranges of the run's rows: at most rangeRows
// rows a range, and about rangeBytes of them, a row being about a kilobyte
// written and its details more. Each row's details count, not the average
// over the run: a few long answers among short ones are ranges of their own.
func (run *Run) rangeEnds() []int {
	per := run.Plan.Study.Repairs + 1
	var ends []int
	rows, size := 0, 0
	for i := range run.rows {
		n := 1024
		row := run.atts[i*per : (i+1)*per]
		for k := range row {
			if row[k].has(fDetail) {
				n += int(row[k].detLen)
			}
		}
		if rows > 0 && (rows == rangeRows || size+n > rangeBytes) {
			ends = append(ends, i)
			rows, size = 0, 0
		}
		rows++
		size += n
	}
	if rows > 0 {
		ends = append(ends, run.rows)
	}
	return ends
}

// CaseResultsBeside makes the JSON report's rows, as they are written, also write
// their case results to parts: --cases-out and the report in one pass over the
// details. Only a writer that walks the rows once may follow (WriteJSON);
// parts.Close then says whether every result was written.
func (run *Run) CaseResultsBeside(parts *report.CaseResultParts) { run.beside = parts }

// reportRow is a settled row as the report writes it.
func reportRow(sr *settledRow) report.Row {
	r, dets, p, c := sr.r, sr.dets, sr.p, sr.c
	last, n := r.latest()
	codes := codesOf(&r[0], &dets[0])
	finalCodes := missingCodes
	switch {
	case n == 1:
		finalCodes = codes // one list for both: the writers only read them
	case last != nil:
		finalCodes = codesOf(last, &dets[n-1])
	}
	out := report.Row{
		CaseID:           c.ID,
		Domain:           c.Domain,
		Category:         c.Category,
		Cluster:          c.Cluster,
		Arm:              p.arm,
		Repeat:           p.repeat,
		FirstPassSuccess: r.firstSuccess(),
		FinalSuccess:     r.finalSuccess(),
		Attempts:         n,
		ProviderError:    r.providerError(),
		Missing:          !r[0].has(fPresent),
		Codes:            codes,
		FinalCodes:       finalCodes,
		AttemptResults:   attempts(r, dets, sr.ar),
	}
	if !out.FinalSuccess {
		// the last attempt answered: not a provider error after it
		for k := n - 1; k >= 0; k-- {
			if r[k].ok() {
				out.Output = &dets[k].output
				break
			}
		}
	}
	return out
}

// CaseResultRanges builds one fbeval-case-result/v1 record per row, for
// --cases-out and --format jsonl, a range at a time from the slots and the
// details of each range.
func (run *Run) CaseResultRanges() (*report.Ranges[report.CaseResult], error) {
	if err := run.settle(); err != nil {
		return nil, err
	}
	build := func(sc *rangeScratch) func(lo, hi int, yield func(*report.CaseResult) bool) error {
		return func(lo, hi int, yield func(*report.CaseResult) bool) error {
			var out report.CaseResult
			return run.settledRange(lo, hi, sc, func(sr *settledRow) bool {
				out = caseResult(sr)
				return yield(&out)
			})
		}
	}
	return settledRanges(run, build), nil
}

// caseResult is a settled row as its case result.
func caseResult(sr *settledRow) report.CaseResult {
	r, dets, p, c := sr.r, sr.dets, sr.p, sr.c
	ids := sr.ar.ids.take(len(r))
	attempts := sr.ar.cases.take(len(r))
	for k := range r {
		a, d := &r[k], &dets[k]
		if !a.has(fPresent) {
			continue
		}
		ids = append(ids, sr.ar.requestID(c.ID, p.arm, p.repeat, k+1))
		errs := sr.ar.infos.take(len(d.errors) + 1)
		if a.has(fProvider) {
			errs = append(errs, report.ErrorInfo{Code: codeProvider, Message: d.provider.Code + ": " + d.provider.Message})
		}
		for i := range d.errors {
			errs = append(errs, ErrorInfo(&d.errors[i]))
		}
		attempts = append(attempts, report.CaseAttempt{Attempt: k + 1, Success: a.success(), Codes: codesOf(a, d), Errors: errs})
	}
	missing, missingID := !r[0].has(fPresent), ""
	if missing {
		missingID = sr.ar.requestID(c.ID, p.arm, p.repeat, 1)
	}
	return report.CaseResult{
		SchemaVersion:    contract.CaseResultV1,
		CaseID:           c.ID,
		Domain:           c.Domain,
		Category:         c.Category,
		Cluster:          c.Cluster,
		Arm:              p.arm,
		Repeat:           p.repeat,
		RequestIDs:       ids,
		FirstPassSuccess: r.firstSuccess(),
		FinalSuccess:     r.finalSuccess(),
		ProviderError:    r.providerError(),
		Missing:          missing,
		MissingRequestID: missingID,
		Attempts:         attempts,
	}
}

// fail keeps the first error met while rows or case results were built.
func (run *Run) fail(err error) {
	if run.err == nil {
		run.err = err
	}
}

// Err returns the first error met reading the details back while rows or case
// results were built: an output that stopped early is then incomplete.
func (run *Run) Err() error { return run.err }

// ErrorInfo returns one judge error in full: code, path, keyword, message,
// expected, actual, and the details of a candidate schema error. The result
// points into e (its path and keyword).
func ErrorInfo(e *tc.Error) report.ErrorInfo {
	out := report.ErrorInfo{Code: e.Code, Path: &e.Path, Keyword: &e.Keyword, Message: e.Message,
		Expected: jsonText(e.Expected), Actual: jsonText(e.Actual)}
	for i := range e.Details {
		out.Details = append(out.Details, ErrorInfo(&e.Details[i]))
	}
	return out
}

// jsonNull is the JSON text of no value, shared: it is only written out.
var jsonNull = jsontext.Value("null")

// jsonText is a judge error's expected or actual value as JSON text: null when
// there is none.
func jsonText(v any) jsontext.Value {
	switch x := v.(type) {
	case nil:
		return jsonNull
	case strictjson.JSONText:
		if len(x) == 0 {
			return jsontext.Value{}
		}
		// x's bytes, not a copy: they are never written (the value is only
		// written out), and live as long as x
		return unsafe.Slice(unsafe.StringData(string(x)), len(x))
	}
	b, err := contract.Marshal(v, contract.Compact)
	if err != nil {
		return jsontext.Value("null")
	}
	return b
}
