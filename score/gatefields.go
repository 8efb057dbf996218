package score

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/fbeval/fbeval/contract/usage"
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

// CheckThreshold refuses a gate threshold that cannot be meant for its field's
// unit: a percent gate below 1 looks like a 0-1 rate (write 90 for 90 %, or 0.5%
// to mean half a percent); a percent outside 0-100, a negative count; a gate
// no value passes (a percent >100 or <0, a count <0).
func CheckThreshold(g Gate) error {
	key := g.Path[len(g.Path)-1]
	t := g.Threshold
	bad := func(why string) error {
		return gateError(g.Text, "%s", why)
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
	// a strict bound at an end of the field's values: no value passes, and
	// the gate fails every run as if the figures had fallen
	if lo, hi, what, ok := span(unitOf(key)); ok && (g.Op == ">" && t >= hi || g.Op == "<" && t <= lo) {
		meant := strings.Join(g.Path, ".") + g.Op + "=" + plainNumber(t)
		if g.Percent {
			meant += "%"
		}
		return bad(fmt.Sprintf("%s is %s, so %s%s can never pass: did you mean %s", key, what, g.Op, plainNumber(t), meant))
	}
	return nil
}

// Vacuous says, when g holds for every value its field can take (a percent
// >= 0 or <= 100, a count >= 0, a probability <= 1) and the field has a
// value in every run with a response (neverNull), so, with what the field's values are: a
// gate that checks nothing, which a CI reads
// as a check (--min-success 0, a threshold's default left in a template).
// "" for a gate that can fail.
func Vacuous(g Gate) string {
	key := g.Path[len(g.Path)-1]
	// a count of an error code is 0 where no row had it, never null
	errorCount := len(g.Path) >= 2 && g.Path[len(g.Path)-2] == "error_counts"
	if !slices.Contains(neverNull, key) && !errorCount || g.Path[0] == "subsets" {
		// null where nothing was priced, timed, retried or called (or a
		// subset has no row): the gate fails then, so it checks that the
		// figure is there
		return ""
	}
	t := g.Threshold
	lo, hi, what, bounded := span(unitOf(key))
	if !bounded {
		return ""
	}
	if g.Op == ">=" && t <= lo || g.Op == "<=" && t >= hi || g.Op == ">" && t < lo || g.Op == "<" && t > hi {
		return fmt.Sprintf("gate %q holds for every value %s can take (%s), so it checks nothing", g.Text, key, what)
	}
	return ""
}

// span is the values a field of unit u can take, lo to hi, and how to say
// so; bounded is false for a unit of no bounds.
func span(u unit) (lo, hi float64, what string, bounded bool) {
	switch u {
	case unitPercent:
		return 0, 100, "a percent (0-100)", true
	case unitPoints:
		return -100, 100, "a difference of percents (-100 to 100)", true
	case unitProbability:
		return 0, 1, "a probability (0-1)", true
	case unitCount, unitMS, unitUSD:
		return 0, math.Inf(1), "0 or more", true
	case unitBool:
		return 0, 1, "1 (true) or 0 (false)", true
	}
	return 0, 0, "", false
}

// neverNull are the fields of an arm (and an effect's uplift) that have a
// value in every report with a response: a gate that holds for all their
// values checks nothing.
var neverNull = []string{"complete", "runs", "absolute_uplift_points", "first_pass_success_percent", "final_success_percent", "semantic_accuracy_percent", "retry_rate_percent", "provider_errors", "missing_responses", "records_without_tokens", "expected_rows"}

// plainNumber writes a threshold as the user would: shortest form.
func plainNumber(v float64) string {
	return strconv.FormatFloat(math.Round(v*1e6)/1e6, 'f', -1, 64)
}

// Closest returns the known field nearest to path by edit distance (letter
// case aside), or "" when none is near enough to be a typo.
func Closest(path string, fields []string) string {
	best, bestD := "", len(path)/2+3
	for _, f := range fields {
		if strings.HasPrefix(f, "arms.") || strings.HasPrefix(f, "subsets.") {
			if !strings.HasPrefix(path, "arms.") && !strings.HasPrefix(path, "subsets.") {
				continue
			}
		}
		// a missing arm prefix: the field of the last arm (input_schema, the treatment)
		if d := usage.EditDistance(strings.ToLower(path), strings.ToLower(f)); d < bestD || (d == bestD && best != "" && strings.HasSuffix(f, "."+path)) {
			best, bestD = f, d
		}
		if strings.HasSuffix(f, "."+path) && !strings.Contains(path, ".") {
			best, bestD = f, 0
		}
	}
	return best
}

// HasWord reports whether a run of key's underscore-separated parts is word
// (success in first_pass_success_percent), or one edit from it when word is
// five bytes or longer (sucess): how a gate's bare word finds its metrics.
func HasWord(key, word string) bool {
	parts := strings.Split(key, "_")
	for i := range parts {
		for j := i + 1; j <= len(parts); j++ {
			run := strings.Join(parts[i:j], "_")
			if run == word || len(word) >= 5 && usage.EditDistance(run, word) <= 1 {
				return true
			}
		}
	}
	return false
}
