package score

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/export"
	"github.com/fbeval/fbeval/score/stats"
)

// unit is what a report field measures; gate thresholds are written in the
// field's unit, and percents are 0-100 everywhere (never 0-1 rates).
type unit int

const (
	unitOther       unit = iota
	unitPercent          // 0-100
	unitOpenPercent      // a percent that can leave 0-100 (relative improvement)
	unitPoints           // a difference of two percents, -100-100
	unitProbability      // 0-1 (a p-value)
	unitCount            // 0 or more, whole
	unitMS               // 0 or more
	unitUSD              // 0 or more
	unitBool             // true is 1, false is 0
)

// unitOf tells a report field's unit from its name, which says it.
func unitOf(key string) unit {
	switch {
	case key == "relative_improvement_percent" || key == "error_reduction_percent":
		return unitOpenPercent
	case strings.HasSuffix(key, "_percent"):
		return unitPercent
	case strings.HasSuffix(key, "_points"):
		return unitPoints
	case strings.HasSuffix(key, "_p"):
		return unitProbability
	case strings.HasSuffix(key, "_ms"):
		return unitMS
	case strings.HasSuffix(key, "_usd"):
		return unitUSD
	case key == "complete":
		return unitBool
	}
	return unitCount
}

// GateFields returns every numeric field of the report a toolcall plan yields,
// as gate paths: top-level fields, each arm's metrics (ARM.FIELD, or
// arms.ARM.FIELD), effects, probes and per-domain and per-category metrics.
func GateFields(plan *export.ToolcallPlan) []string {
	s := plan.Study
	metricKeys := numericKeys((&Metrics{}).Object())
	out := []string{"complete", "expected_rows"}
	for _, arm := range s.Arms {
		for _, k := range metricKeys {
			out = append(out, arm+"."+k, "arms."+arm+"."+k)
		}
	}
	effectKeys := numericKeys(stats.Effect{}.Object())
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

// numericKeys are the keys of o whose values are numbers or null (a number that
// may be missing); nested objects and lists are left out.
func numericKeys(o contract.Object) []string {
	var out []string
	for _, m := range o {
		switch m.Value.(type) {
		case contract.Object, []any, []string, string, []contract.Object:
			continue
		}
		if m.Key == "first_pass_wilson95" || m.Key == "ci95" {
			continue
		}
		out = append(out, m.Key)
	}
	return out
}

// CheckGates resolves every gate against the fields of the report plan yields,
// before any response is read, so that a typo is bad usage (exit 2) rather than a
// failed gate: an unknown field or arm is named with the closest known field;
// a threshold that cannot be meant for the field's unit is refused (a percent
// gate below 1 looks like a 0-1 rate: write 90 for 90 %, or 0.5% to mean half a
// percent; a percent outside 0-100, a negative count).
func CheckGates(gates []Gate, plan *export.ToolcallPlan) error {
	fields := GateFields(plan)
	known := make(map[string]bool, len(fields))
	for _, f := range fields {
		known[f] = true
	}
	for _, g := range gates {
		path := strings.Join(g.Path, ".")
		if !known[path] {
			return &contract.InputError{Msg: unknownGateField(g, path, fields, plan.Study.Arms)}
		}
		if err := checkThreshold(g); err != nil {
			return err
		}
	}
	return nil
}

func unknownGateField(g Gate, path string, fields, arms []string) string {
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
	if best := closest(path, fields); best != "" {
		msg += "; did you mean " + best
	}
	return msg
}

func isMetricKey(k string) bool {
	return slices.Contains(numericKeys((&Metrics{}).Object()), k)
}

func checkThreshold(g Gate) error {
	key := g.Path[len(g.Path)-1]
	t := g.Threshold
	bad := func(why string) error {
		return &contract.InputError{Msg: fmt.Sprintf("gate %q: %s", g.Text, why)}
	}
	switch unitOf(key) {
	case unitPercent:
		if t < 0 || t > 100 {
			return bad(fmt.Sprintf("%s is a percent (0-100); %s is out of range", key, plainNumber(t)))
		}
		if t > 0 && t <= 1 && !g.Percent {
			return bad(fmt.Sprintf("%s is a percent (0-100), not a 0-1 rate: write %s for %s %%, or %s%% if you mean %s percent",
				key, plainNumber(t*100), plainNumber(t*100), plainNumber(t), plainNumber(t)))
		}
	case unitPoints:
		if t < -100 || t > 100 {
			return bad(fmt.Sprintf("%s is a difference of percents (-100 to 100); %s is out of range", key, plainNumber(t)))
		}
	case unitProbability:
		if t < 0 || t > 1 {
			return bad(fmt.Sprintf("%s is a probability (0-1); %s is out of range", key, plainNumber(t)))
		}
	case unitCount, unitMS, unitUSD:
		if t < 0 {
			return bad(fmt.Sprintf("%s is never negative; %s is out of range", key, plainNumber(t)))
		}
	case unitBool:
		if t != 0 && t != 1 {
			return bad(fmt.Sprintf("%s is true (1) or false (0)", key))
		}
	}
	if g.Percent && unitOf(key) != unitPercent && unitOf(key) != unitOpenPercent {
		return bad(fmt.Sprintf("%s is not a percent: drop the %% sign", key))
	}
	return nil
}

// plainNumber writes a threshold as the user would: shortest form.
func plainNumber(v float64) string {
	return strconv.FormatFloat(math.Round(v*1e6)/1e6, 'f', -1, 64)
}

// closest returns the known field nearest to path by edit distance, or "" when
// none is near enough to be a typo.
func closest(path string, fields []string) string {
	best, bestD := "", len(path)/2+3
	for _, f := range fields {
		if strings.HasPrefix(f, "arms.") || strings.HasPrefix(f, "subsets.") {
			if !strings.HasPrefix(path, "arms.") && !strings.HasPrefix(path, "subsets.") {
				continue
			}
		}
		// a missing arm prefix: the field of the last arm (input_schema, the treatment)
		if d := editDistance(path, f); d < bestD || (d == bestD && best != "" && strings.HasSuffix(f, "."+path)) {
			best, bestD = f, d
		}
		if strings.HasSuffix(f, "."+path) && !strings.Contains(path, ".") {
			best, bestD = f, 0
		}
	}
	return best
}

// editDistance is the Levenshtein distance of two strings (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
