package report

import (
	"regexp"
	"strconv"
)

// GateHolds reports whether v meets a gate's operator and threshold: the one
// comparison of a gate, for its verdict (package score) and for how its actual
// value is shown (GateValue).
func GateHolds(v float64, op string, threshold float64) bool {
	switch op {
	case ">=":
		return v >= threshold
	case "<=":
		return v <= threshold
	case "==":
		return v == threshold
	case "!=":
		return v != threshold
	case ">":
		return v > threshold
	case "<":
		return v < threshold
	}
	return false
}

// GateValue writes a gate's actual value v with decimals digits after the
// point, or more where the value so rounded would not hold as the gate did: a
// failed >=78.6 whose actual is 78.5714 shows 78.571, where 78.6 beside FAIL
// read as a contradiction.
func GateValue(v float64, decimals int, op string, threshold float64, passed bool) string {
	for d := decimals; d <= 12; d++ {
		s := strconv.FormatFloat(v, 'f', d, 64)
		if r, err := strconv.ParseFloat(s, 64); err == nil && GateHolds(r, op, threshold) == passed {
			return s
		}
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// gateTail is the end of a gate's text: its operator and threshold (a % after
// it allowed).
var gateTail = regexp.MustCompile(`(>=|<=|==|!=|>|<)\s*([-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?)\s*%?\s*$`)

// ActualText is how the tables and the page show a report gate's actual value: one decimal,
// or as many as GateValue needs; "n/a" when it is null.
func (g Gate) ActualText() string {
	if g.Actual == nil {
		return num(nil, 1)
	}
	m := gateTail.FindStringSubmatch(g.Gate)
	if m == nil {
		return num(g.Actual, 1)
	}
	t, err := strconv.ParseFloat(m[2], 64)
	if err != nil {
		return num(g.Actual, 1)
	}
	return GateValue(*g.Actual, 1, m[1], t, g.Passed)
}
