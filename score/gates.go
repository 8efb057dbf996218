package score

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/fbeval/fbeval/contract"
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
}

// GateResult is a gate with the value it was checked against (nil when the field
// is null or absent, which fails the gate).
type GateResult struct {
	Gate   Gate
	Actual *float64
	Passed bool
}

// Object returns the result in report order.
func (g GateResult) Object() contract.Object {
	return contract.Object{
		{Key: "gate", Value: g.Gate.Text},
		{Key: "actual", Value: g.Actual},
		{Key: "passed", Value: g.Passed},
	}
}

var gateOps = []string{">=", "<=", "==", "!=", ">", "<"}

// ParseGates parses gate expressions: PATH OP NUMBER with OP one of >= <= == != > <.
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
	for _, op := range gateOps {
		i := strings.Index(s, op)
		if i <= 0 {
			continue
		}
		path := strings.TrimSpace(s[:i])
		num := strings.TrimSpace(s[i+len(op):])
		v, err := strconv.ParseFloat(num, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return Gate{}, &contract.InputError{Msg: fmt.Sprintf("gate %q: %q is not a number", text, num)}
		}
		if path == "" || strings.ContainsAny(path, " \t") {
			return Gate{}, &contract.InputError{Msg: fmt.Sprintf("gate %q: bad field path %q", text, path)}
		}
		return Gate{Text: s, Path: strings.Split(path, "."), Op: op, Threshold: v}, nil
	}
	return Gate{}, &contract.InputError{Msg: fmt.Sprintf("gate %q: want FIELD OP NUMBER, e.g. input_schema.first_pass_success_percent>=90", text)}
}

// EvaluateGates checks every gate against a report object.
func EvaluateGates(gates []Gate, report contract.Object) []GateResult {
	out := make([]GateResult, 0, len(gates))
	for _, g := range gates {
		v, ok := lookupNumber(report, g.Path)
		if !ok {
			if arms, found := member(report, "arms"); found {
				v, ok = lookupNumber(arms, g.Path)
			}
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

func compare(v float64, op string, t float64) bool {
	switch op {
	case ">=":
		return v >= t
	case "<=":
		return v <= t
	case "==":
		return v == t
	case "!=":
		return v != t
	case ">":
		return v > t
	case "<":
		return v < t
	}
	return false
}

func member(v any, key string) (any, bool) {
	switch o := v.(type) {
	case contract.Object:
		for _, m := range o {
			if m.Key == key {
				return m.Value, true
			}
		}
	case map[string]any:
		x, ok := o[key]
		return x, ok
	}
	return nil, false
}

func lookupNumber(v any, path []string) (float64, bool) {
	for _, k := range path {
		var ok bool
		if v, ok = member(v, k); !ok {
			return 0, false
		}
	}
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case *float64:
		if x != nil {
			return *x, true
		}
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}
