package study

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/export"
	"github.com/fbeval/fbeval/score"
	"github.com/fbeval/fbeval/score/report"
)

// GateFields returns every numeric field of the report a toolcall plan yields,
// as gate paths: top-level fields, each arm's metrics (ARM.FIELD, or
// arms.ARM.FIELD), effects, probes and per-domain and per-category metrics.
func GateFields(plan *export.ToolcallPlan) []string {
	s := plan.Study
	metricKeys := report.NumberKeys(report.Metrics{})
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
// failed gate: an unknown field or arm is named with the closest known field;
// a threshold that cannot be meant for the field's unit is refused (a percent
// gate below 1 looks like a 0-1 rate: write 90 for 90 %, or 0.5% to mean half a
// percent; a percent outside 0-100, a negative count).
func CheckGates(gates []score.Gate, plan *export.ToolcallPlan) error {
	fields := GateFields(plan)
	known := make(map[string]bool, len(fields))
	for _, f := range fields {
		known[f] = true
	}
	for _, g := range gates {
		path := strings.Join(g.Path, ".")
		if !known[path] {
			return &contract.InputError{Kind: contract.ErrUsage, Msg: unknownGateField(g, path, fields, plan.Study.Arms)}
		}
		if err := score.CheckThreshold(g); err != nil {
			return err
		}
	}
	return nil
}

func unknownGateField(g score.Gate, path string, fields, arms []string) string {
	msg := fmt.Sprintf("gate %q: unknown field %s", g.Text, path)
	first := g.Path[0]
	if first == "arms" && len(g.Path) > 1 {
		first = g.Path[1]
	}
	if len(g.Path) >= 2 && !slices.Contains(arms, first) && !slices.Contains([]string{"effects", "probes", "subsets", "arms"}, g.Path[0]) {
		// ARM.FIELD with an arm the study does not have
		if isMetricKey(g.Path[len(g.Path)-1]) {
			msg = fmt.Sprintf("gate %q: unknown arm %s; the study's arms: %s", g.Text, first, strings.Join(arms, ", "))
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
	if best := score.Closest(path, fields); best != "" {
		msg += "; did you mean " + best
	}
	return msg
}

func isMetricKey(k string) bool {
	return slices.Contains(report.NumberKeys(report.Metrics{}), k)
}
