package study

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/contract/usage"
	"github.com/fbeval/fbeval/export"
	"github.com/fbeval/fbeval/fixtures"
	"github.com/fbeval/fbeval/score"
	"github.com/fbeval/fbeval/score/report"
	tc "github.com/fbeval/fbeval/score/toolcall"
)

// GateFields returns every numeric field of the report a toolcall plan yields,
// as gate paths: top-level fields, each arm's metrics (ARM.FIELD, or
// arms.ARM.FIELD) and the count of each error code (ARM.error_counts.CODE),
// effects, probes and per-domain and per-category metrics.
func GateFields(plan *export.ToolcallPlan) []string {
	s := plan.Study
	metricKeys := report.NumberKeys(report.Metrics{})
	for _, c := range ErrorCodes() {
		metricKeys = append(metricKeys, "error_counts."+c)
	}
	out := []string{"complete", "expected_rows"}
	for _, arm := range s.Arms {
		for _, k := range metricKeys {
			out = append(out, arm+"."+k, "arms."+arm+"."+k)
		}
	}
	effectKeys := report.NumberKeys(report.Effect{})
	for _, cmp := range Comparisons {
		if slices.Contains(s.Arms, cmp.Treatment) && slices.Contains(s.Arms, cmp.Baseline) {
			for _, k := range effectKeys {
				out = append(out, "effects."+cmp.Name+"."+k)
			}
		}
	}
	for _, k := range []string{"valid_probe_count", "invalid_probe_count", "invalid_rejection_percent", "false_rejection_percent"} {
		out = append(out, "probes."+k)
	}
	subsets := func(kind string, keys []string) {
		for _, d := range keys {
			for _, arm := range s.Arms {
				for _, k := range metricKeys {
					out = append(out, "subsets."+kind+"."+d+"."+arm+"."+k)
				}
			}
		}
	}
	var domains, categories []string
	for i := range plan.Cases {
		c := &plan.Cases[i]
		if !slices.Contains(domains, c.Domain) {
			domains = append(domains, c.Domain)
		}
		if !slices.Contains(categories, c.Category) {
			categories = append(categories, c.Category)
		}
	}
	subsets("domain", domains)
	subsets("category", categories)
	return out
}

// CheckGates resolves every gate against the fields of the report plan yields,
// before any response is read, so that a typo is bad usage (exit 2) rather than a
// failed gate: an unknown field or arm is named with the closest known field
// (a bare word of a metric with the metrics that have it, a field nothing is
// near with examples);
// a threshold that cannot be meant for the field's unit is refused (a percent
// gate below 1 looks like a 0-1 rate: write 90 for 90 %, or 0.5% to mean half a
// percent; a percent outside 0-100, a negative count).
//
// A gate that names an arm, an effect, a domain or a category of the suite or
// the dataset that the run leaves out is said to be so, with what left it
// out: sel names the flags that chose the run's arms, domains and categories.
func CheckGates(gates []score.Gate, plan *export.ToolcallPlan, sel Selection) error {
	fields := GateFields(plan)
	known := make(map[string]bool, len(fields))
	for _, f := range fields {
		known[f] = true
	}
	for _, g := range gates {
		path := strings.Join(g.Path, ".")
		if !known[path] {
			if why := leftOut(g, plan, sel); why != "" {
				return &score.GateError{Gate: g.Text, Why: why}
			}
			return &score.GateError{Gate: g.Text, Why: unknownGateField(g, path, fields, plan.Study.Arms)}
		}
		// a field null by design first: its threshold is no matter then
		if g.Path[len(g.Path)-1] == "mcnemar_exact_p" {
			if cluster, n := largestCluster(plan); n > 1 {
				return &score.GateError{Gate: g.Text, Why: fmt.Sprintf("mcnemar_exact_p is null in every report of this study: the exact McNemar test takes one pair a cluster, and cluster %s holds %d (its cases × repeats; docs/statistics.md): gate on absolute_uplift_points, or read the effect's bootstrap interval", cluster, n)}
			}
		}
		if err := score.CheckThreshold(g); err != nil {
			return err
		}
	}
	return nil
}

// Selection names the flags that chose a run's arms, domains and categories
// ("--arms", "--domain", "--category"), each "" where the study's own did.
type Selection struct{ Arms, Domains, Categories string }

// leftOut says, of a gate whose field the report does not have, which arm,
// effect, domain or category it names that the run leaves out, what left it
// out and what to do; "" when it names none. Such a name is no typo, and the
// field nearest it another arm's or domain's.
func leftOut(g score.Gate, plan *export.ToolcallPlan, sel Selection) string {
	s := plan.Study
	p := g.Path
	if p[0] == "arms" && len(p) > 1 {
		p = p[1:]
	}
	// by says what left an arm out and what to do, "" when it is the run's
	// or none of the suite's
	by := func(arm string) string {
		switch {
		case !slices.Contains(contract.Arms, arm) || slices.Contains(s.Arms, arm):
			return ""
		case sel.Arms != "":
			return fmt.Sprintf("left out by %s (this run's arms: %s): add it to %s, or drop the gate", sel.Arms, strings.Join(s.Arms, ", "), sel.Arms)
		}
		return fmt.Sprintf("left out by the study's arms (%s): add it to them (or give --arms), or drop the gate", strings.Join(s.Arms, ", "))
	}
	switch {
	case len(p) >= 2 && p[0] == "effects":
		i := slices.IndexFunc(Comparisons, func(c comparison) bool { return c.Name == p[1] })
		if i < 0 {
			return ""
		}
		for _, arm := range []string{Comparisons[i].Baseline, Comparisons[i].Treatment} {
			if why := by(arm); why != "" {
				return fmt.Sprintf("effect %s needs arm %s, %s", p[1], arm, why)
			}
		}
	case len(p) >= 3 && p[0] == "subsets" && (p[1] == "domain" || p[1] == "category"):
		kind, name := p[1], p[2]
		all, chosen, flag, key := plan.DatasetDomains, s.Filter.Domains, sel.Domains, "domains"
		if kind == "category" {
			all, chosen, flag, key = plan.DatasetCategories, s.Filter.Categories, sel.Categories, "categories"
			if !slices.Contains(all, name) && slices.Contains(fixtures.ToolcallCategories(), name) {
				return fmt.Sprintf("category %s has no case in the dataset %s (its categories: %s): drop the gate", name, s.Dataset, strings.Join(all, ", "))
			}
		}
		if !slices.Contains(all, name) {
			break
		}
		if slices.ContainsFunc(plan.Cases, func(c contract.Case) bool {
			return kind == "domain" && c.Domain == name || kind == "category" && c.Category == name
		}) {
			// the subset is there: what is wrong is after it
			if len(p) >= 4 {
				if why := by(p[3]); why != "" {
					return fmt.Sprintf("arm %s is %s", p[3], why)
				}
			}
			return ""
		}
		switch {
		case len(chosen) > 0 && !slices.Contains(chosen, name) && flag != "":
			return fmt.Sprintf("%s %s is left out by %s (this run's %s: %s): add it to %s, or drop the gate", kind, name, flag, key, strings.Join(chosen, ", "), flag)
		case len(chosen) > 0 && !slices.Contains(chosen, name):
			return fmt.Sprintf("%s %s is left out by the study's filter (its %s: %s): add it to filter.%s (or give --%s), or drop the gate", kind, name, key, strings.Join(chosen, ", "), key, kind)
		}
		return fmt.Sprintf("%s %s has no case the filter selects: widen the filter (--domain, --category, --limit), or drop the gate", kind, name)
	case len(p) >= 2:
		if why := by(p[0]); why != "" {
			return fmt.Sprintf("arm %s is %s", p[0], why)
		}
	}
	return ""
}

// largestCluster names the cluster of plan with the most pairs (its cases
// times the repeats) and their number: the first in dataset order of the
// largest.
func largestCluster(plan *export.ToolcallPlan) (string, int) {
	cases := map[string]int{}
	best, most := "", 0
	for i := range plan.Cases {
		c := plan.Cases[i].Cluster
		cases[c]++
		if cases[c] > most {
			best, most = c, cases[c]
		}
	}
	return best, most * plan.Study.Repeats
}

// ErrorCodes are the codes a report's error_counts can name: the judge's,
// then a missing response and a provider error.
func ErrorCodes() []string { return append(tc.Codes(), codeMissing, codeProvider) }

// errorCount is the number at path of the report, where a count of
// error_counts the report leaves out, a code no row had, is 0 (when the
// figures it would be among are there): so a gate on it holds.
func errorCount(m *report.ToolcallReport) func(path []string) (float64, bool) {
	return func(path []string) (float64, bool) {
		v, ok := m.Number(path)
		if n := len(path); !ok && n >= 3 && path[n-2] == "error_counts" && slices.Contains(ErrorCodes(), path[n-1]) {
			if _, there := m.Number(append(slices.Clone(path[:n-2]), "runs")); there {
				return 0, true
			}
		}
		return v, ok
	}
}

// unknownGateField says why g, of a field the report does not have, cannot
// be used, and what was meant.
func unknownGateField(g score.Gate, path string, fields, arms []string) string {
	msg := "unknown field " + path
	if usage.Nearest(path, []string{"custom_fitness_percent"}) != "" || path == "custom_fitness_percent" {
		// a member of every report, and a number, but never one in a score's
		return fmt.Sprintf("custom_fitness_percent is null in every score report: it needs a second model's report for its MS term, and only fbeval compare A.json B.json gives it (compare has no gates); gate on a figure it weighs, such as %s.first_pass_success_percent", arms[len(arms)-1])
	}
	if n := len(g.Path); g.Path[n-1] == "error_counts" || n >= 2 && g.Path[n-2] == "error_counts" {
		if why := errorCountsField(g, fields, arms); why != "" {
			return why
		}
	}
	first := g.Path[0]
	if first == "arms" && len(g.Path) > 1 {
		first = g.Path[1]
	}
	if len(g.Path) >= 2 && !slices.Contains(arms, first) && !slices.Contains([]string{"effects", "probes", "subsets", "arms"}, g.Path[0]) {
		// ARM.FIELD with an arm the study does not have
		if isMetricKey(g.Path[len(g.Path)-1]) || g.Path[len(g.Path)-2] == "error_counts" {
			msg = fmt.Sprintf("unknown arm %s; the study's arms: %s", first, strings.Join(arms, ", "))
		}
	}
	if len(g.Path) == 1 {
		// a metric without the arm it is of (first_pass_success for
		// input_schema.first_pass_success_percent)
		var of []string
		for _, f := range fields {
			if last := f[strings.LastIndexByte(f, '.')+1:]; strings.Count(f, ".") == 1 && slices.Contains(arms, f[:strings.IndexByte(f, '.')]) && (last == path || strings.HasPrefix(last, path+"_")) {
				of = append(of, f)
			}
		}
		if len(of) > 0 {
			return msg + "; a field names its arm: " + strings.Join(of, ", ")
		}
	}
	if len(g.Path) == 1 {
		// a word of a metric (success, latency): the fields whose key has it
		if like := fieldsWithWord(path, fields, arms); like != "" {
			return msg + "; did you mean " + like
		}
	}
	if best := score.Closest(path, fields); best != "" {
		return msg + "; did you mean " + best
	}
	return msg + "; a field is a path to a number of the report, such as " + exampleFields(fields, arms)
}

// errorCountsField says what is wrong with a gate on error_counts of metrics
// the report has: it names no arm, no code, or a code there is none of (with
// the one meant); "" when the metrics are none of the report's.
func errorCountsField(g score.Gate, fields, arms []string) string {
	n := len(g.Path)
	metrics := g.Path[:n-1]
	if g.Path[n-1] != "error_counts" {
		metrics = g.Path[:n-2]
	}
	if len(metrics) == 0 {
		// error_counts.JSON_INVALID: the counts of every arm
		if n == 1 {
			return fmt.Sprintf("unknown field error_counts; error_counts are an arm's, a count per error code: gate on ARM.error_counts.CODE, ARM one of %s", strings.Join(arms, ", "))
		}
		code := g.Path[1]
		if !slices.Contains(ErrorCodes(), code) {
			if code = usage.Nearest(code, ErrorCodes()); code == "" {
				return fmt.Sprintf("unknown field %s; error_counts are an arm's, a count per error code: gate on ARM.error_counts.CODE, ARM one of %s, CODE one of %s", strings.Join(g.Path, "."), strings.Join(arms, ", "), strings.Join(ErrorCodes(), ", "))
			}
		}
		of := make([]string, len(arms))
		for i, arm := range arms {
			of[i] = arm + ".error_counts." + code
		}
		return fmt.Sprintf("unknown field %s; a field names its arm: %s", strings.Join(g.Path, "."), strings.Join(of, ", "))
	}
	if !slices.Contains(fields, strings.Join(append(slices.Clone(metrics), "runs"), ".")) {
		return ""
	}
	of := strings.Join(append(slices.Clone(metrics), "error_counts"), ".")
	if g.Path[n-1] == "error_counts" {
		return fmt.Sprintf("%s holds a count per error code: gate on %s.CODE, CODE one of %s", of, of, strings.Join(ErrorCodes(), ", "))
	}
	code := g.Path[n-1]
	if near := usage.Nearest(code, ErrorCodes()); near != "" {
		return fmt.Sprintf("unknown error code %s; did you mean %s.%s", code, of, near)
	}
	return fmt.Sprintf("unknown error code %s; the codes: %s", code, strings.Join(ErrorCodes(), ", "))
}

// fieldsWithWord lists the fields whose last key holds word as one or more of
// its underscore-separated parts, allowing a typo (sucess), skipping the
// arms. and subsets. spellings. Arms' metrics come first and alone when any
// has the word, each written once as ARM.KEY; else the effects', as
// effects.COMPARISON.KEY; else the rest. It returns "" when no field has it.
func fieldsWithWord(word string, fields, arms []string) string {
	var armKeys, effectKeys, comparisons, others []string
	for _, f := range fields {
		if strings.HasPrefix(f, "arms.") || strings.HasPrefix(f, "subsets.") {
			continue
		}
		key := f[strings.LastIndexByte(f, '.')+1:]
		if !score.HasWord(key, word) {
			continue
		}
		parts := strings.Split(f, ".")
		switch {
		case len(parts) == 2 && slices.Contains(arms, parts[0]):
			armKeys = appendNew(armKeys, key)
		case len(parts) == 3 && parts[0] == "effects":
			effectKeys = appendNew(effectKeys, key)
			comparisons = appendNew(comparisons, parts[1])
		default:
			others = append(others, f)
		}
	}
	switch {
	case len(armKeys) > 0:
		return listKeys("ARM.", armKeys) + " (ARM one of " + strings.Join(arms, ", ") + ")"
	case len(effectKeys) > 0:
		return listKeys("effects.COMPARISON.", effectKeys) + " (COMPARISON one of " + strings.Join(comparisons, ", ") + ")"
	}
	return listKeys("", others)
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// listKeys writes at most six keys, each after prefix.
func listKeys(prefix string, keys []string) string {
	const most = 6
	var b strings.Builder
	for i, k := range keys[:min(len(keys), most)] {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(prefix + k)
	}
	if len(keys) > most {
		b.WriteString(", ...")
	}
	return b.String()
}

// exampleFields names a few fields of the study's report, of each kind.
func exampleFields(fields, arms []string) string {
	var ex []string
	if len(arms) > 0 {
		ex = append(ex, arms[len(arms)-1]+".first_pass_success_percent")
	}
	// the uplift of the first comparison, the probes' false rejections
	for _, kind := range [][2]string{{"effects.", ".absolute_uplift_points"}, {"probes.", ".false_rejection_percent"}} {
		if i := slices.IndexFunc(fields, func(f string) bool { return strings.HasPrefix(f, kind[0]) && strings.HasSuffix(f, kind[1]) }); i >= 0 {
			ex = append(ex, fields[i])
		}
	}
	if len(ex) > 1 {
		return strings.Join(ex[:len(ex)-1], ", ") + " or " + ex[len(ex)-1]
	}
	return strings.Join(ex, "")
}

func isMetricKey(k string) bool {
	return slices.Contains(report.NumberKeys(report.Metrics{}), k)
}
