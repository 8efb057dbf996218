package report

import "testing"

// TestGateValue: a gate's actual value is shown to one decimal, or to as many
// as it takes to hold as the gate held: a failed >=78.6 whose actual is
// 78.5714 showed 78.6 beside FAIL, and a passed >=55.95 showed 56.0.
func TestGateValue(t *testing.T) {
	for _, tt := range []struct {
		v         float64
		op        string
		threshold float64
		passed    bool
		want      string
	}{
		{78.57142857142857, ">=", 78.6, false, "78.57"},
		{78.57142857142857, ">=", 78.5, true, "78.6"},
		{55.952380952380956, ">=", 55.95, true, "56.0"},
		{51.19047619047619, "<", 51.19, false, "51.2"},
		{51.19047619047619, ">", 51.1904, true, "51.2"},
		{51.19047619047619, "<=", 51.1905, true, "51.19"},
		{100, "==", 100, true, "100.0"},
		{33.33333333333333, "!=", 33.3, true, "33.33"},
	} {
		if got := GateValue(tt.v, 1, tt.op, tt.threshold, tt.passed); got != tt.want {
			t.Errorf("GateValue(%v %s %v, passed %v) = %s, want %s", tt.v, tt.op, tt.threshold, tt.passed, got, tt.want)
		}
	}
	g := Gate{Gate: "input_schema.final_success_percent >= 78.6%", Actual: new(78.57142857142857), Passed: false}
	if got := g.ActualText(); got != "78.57" {
		t.Errorf("ActualText of %q: %s", g.Gate, got)
	}
	if got := (Gate{Gate: "x>=1", Passed: false}).ActualText(); got != num(nil, 1) {
		t.Errorf("a null actual: %s", got)
	}
}
