package score

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/score/report"
)

// Gate is one threshold on a numeric report field, like
// "input_schema.first_pass_success_percent>=90". The field is a dotted path from
// the report's top level; a path that starts with an arm name is looked up under
// "arms".
type Gate struct {
	Text      string
	Path      []string
	Op        string
	Threshold float64
	Percent   bool // the threshold was written with a % sign
}

// GateError is a gate that cannot be used: its text as written and why.
// Bad usage (exit 2); it unwraps to contract.ErrUsage.
type GateError struct {
	Gate string
	Why  string
}

func (e *GateError) Error() string { return fmt.Sprintf("gate %q: %s", e.Gate, e.Why) }

// Unwrap returns contract.ErrUsage.
func (e *GateError) Unwrap() error { return contract.ErrUsage }

// ExitCode is 2: bad usage.
func (e *GateError) ExitCode() int { return 2 }

// gateError is the GateError of the gate text for why, made with format.
func gateError(text, format string, args ...any) *GateError {
	return &GateError{Gate: text, Why: fmt.Sprintf(format, args...)}
}

// GateResult is a gate with the value it was checked against (nil when the field
// is null or absent, which fails the gate).
type GateResult struct {
	Gate   Gate
	Actual *float64
	Passed bool
}

// Why says why a gate failed, in one line, with numbers rounded as the report
// rounds them.
func (g GateResult) Why() string {
	if g.Actual == nil {
		return fmt.Sprintf("gate failed: %s: %s is null in this report (%s)", g.Gate.Text, strings.Join(g.Gate.Path, "."), nullReason(g.Gate.Path[len(g.Gate.Path)-1]))
	}
	key := g.Gate.Path[len(g.Gate.Path)-1]
	actual := FormatValue(key, *g.Actual)
	// as many decimals as show it below (or above) the threshold: a p95 of
	// 384.99999999999994 failed >=385 as "actual 385"
	switch unitOf(key) {
	case unitPercent, unitPoints, unitOpenPercent:
		actual = report.GateValue(*g.Actual, 1, g.Gate.Op, g.Gate.Threshold, g.Passed)
	case unitMS, unitCount:
		actual = report.GateValue(*g.Actual, 0, g.Gate.Op, g.Gate.Threshold, g.Passed)
	case unitUSD:
		actual = report.GateValue(*g.Actual, 6, g.Gate.Op, g.Gate.Threshold, g.Passed)
	}
	return fmt.Sprintf("gate failed: %s (actual %s)", g.Gate.Text, actual)
}

// nullReason says why a report field can be null.
func nullReason(key string) string {
	switch {
	case strings.HasSuffix(key, "_usd"):
		return "cost needs prices (--input-price, --output-price or the study's prices) and token counts in the responses"
	case strings.HasSuffix(key, "_tokens"):
		return "no response carried token counts"
	case strings.HasSuffix(key, "_ms"):
		return "no response carried latency_ms"
	case strings.HasPrefix(key, "recovery_rate") || key == "mean_repair_attempts":
		return "no row needed a repair"
	case key == "semantic_precision_among_valid_calls_percent":
		return "no call was schema-valid"
	case key == "call_schema_validity_percent":
		return "no row of it expects a tool call"
	case key == "mcnemar_exact_p":
		return "the exact McNemar test is taken only where every cluster holds one pair, and over pairs that exist (docs/statistics.md)"
	case key == "relative_improvement_percent":
		return "the baseline never succeeded, or there are no pairs"
	case key == "error_reduction_percent":
		return "the baseline never failed, or there are no pairs"
	}
	return noRows
}

// noRows is nullReason's word for a field that is null only when no row has
// a response (a run that is not ok for that alone).
const noRows = "nothing was counted toward it: no rows with a response"

// FormatValue writes the value of report field key rounded as the report's tables
// round it: percents and points to one decimal, milliseconds and counts whole,
// dollars to six decimals, p-values to three significant digits.
func FormatValue(key string, v float64) string {
	switch unitOf(key) {
	case unitPercent, unitPoints, unitOpenPercent:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case unitUSD:
		return strconv.FormatFloat(v, 'f', 6, 64)
	case unitProbability:
		return strconv.FormatFloat(v, 'g', 3, 64)
	case unitMS, unitCount:
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

var gateOps = []string{">=", "<=", "==", "!=", ">", "<"}

// malformedOps are operators people type that are not gate operators, with the one
// they most likely meant.
var malformedOps = []struct{ bad, want string }{{"=>", ">="}, {"=<", "<="}, {"<>", "!="}, {"≥", ">="}, {"≤", "<="}}

// ParseGates parses gate expressions: PATH OP NUMBER with OP one of >= <= == != > <.
// NUMBER may end in % to say that a small threshold on a percent field is meant
// as a percent (see CheckGates).
func ParseGates(texts []string) ([]Gate, error) {
	var out []Gate
	for _, t := range texts {
		g, err := ParseGate(t)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, nil
}

// ParseGate parses one gate expression.
func ParseGate(text string) (Gate, error) {
	s := strings.TrimSpace(text)
	for _, m := range malformedOps {
		if strings.Contains(s, m.bad) {
			return Gate{}, gateError(text, "malformed operator %q; did you mean %s", m.bad, m.want)
		}
	}
	for _, op := range gateOps {
		i := strings.Index(s, op)
		if i <= 0 {
			continue
		}
		path := strings.TrimSpace(s[:i])
		num := strings.TrimSpace(s[i+len(op):])
		percent := strings.HasSuffix(num, "%")
		digits := strings.TrimSpace(strings.TrimSuffix(num, "%"))
		v, err := strconv.ParseFloat(digits, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || !decimalNumber(digits) {
			if strings.HasPrefix(num, "=") || strings.HasPrefix(num, ">") || strings.HasPrefix(num, "<") {
				return Gate{}, gateError(text, "malformed operator %q; operators: >=, <=, ==, !=, >, <", op+num[:1])
			}
			return Gate{}, gateError(text, "%q is not a number; write FIELD OP NUMBER, e.g. input_schema.first_pass_success_percent>=90", num)
		}
		if strings.HasSuffix(path, "=") || strings.HasSuffix(path, "!") {
			return Gate{}, gateError(text, "malformed operator %q; operators: >=, <=, ==, !=, >, <", path[len(path)-1:]+op)
		}
		if path == "" || strings.ContainsAny(path, " \t") {
			return Gate{}, gateError(text, "bad field path %q; write FIELD OP NUMBER, e.g. input_schema.first_pass_success_percent>=90", path)
		}
		return Gate{Text: s, Path: strings.Split(path, "."), Op: op, Threshold: v, Percent: percent}, nil
	}
	if strings.IndexByte(s, '=') > 0 {
		return Gate{}, gateError(text, "malformed operator \"=\"; did you mean ==")
	}
	// A field alone is what a shell leaves of an unquoted gate: it takes the
	// > or < and what follows for a redirection.
	return Gate{}, gateError(text, "no operator and number: write FIELD OP NUMBER, e.g. 'input_schema.first_pass_success_percent>=90' (on a command line, quoted: a shell takes an unquoted > or < for a redirection)")
}

// decimalNumber reports whether s is a number as a person writes one: digits
// with a point and an exponent, signed or not (90, 0.5, -3, 1e-3). Go's
// ParseFloat also takes 5_2 for 52 and hexadecimal (0x1p-2), which a gate
// written so is likelier to mean otherwise.
func decimalNumber(s string) bool {
	s = strings.TrimLeft(s, "+-")
	mant, exp, hasExp := strings.Cut(strings.ToLower(s), "e")
	if hasExp {
		exp = strings.TrimLeft(exp, "+-")
		if exp == "" || strings.Trim(exp, "0123456789") != "" {
			return false
		}
	}
	whole, frac, _ := strings.Cut(mant, ".")
	return whole+frac != "" && strings.Trim(whole+frac, "0123456789") == ""
}

// EvaluateGates checks every gate against a report: number returns the number at a
// path of member names, and whether there is one. A path that is not found from
// the top is looked up under "arms" (ARM.FIELD).
func EvaluateGates(gates []Gate, number func(path []string) (float64, bool)) []GateResult {
	out := make([]GateResult, 0, len(gates))
	for _, g := range gates {
		v, ok := number(g.Path)
		if !ok {
			v, ok = number(append([]string{"arms"}, g.Path...))
		}
		r := GateResult{Gate: g}
		if ok {
			r.Actual = &v
			r.Passed = compare(v, g.Op, g.Threshold)
		}
		out = append(out, r)
	}
	return out
}

func compare(v float64, op string, t float64) bool { return report.GateHolds(v, op, t) }
