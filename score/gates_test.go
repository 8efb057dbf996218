package score

import (
	"strings"
	"testing"
)

// TestGateNumbers: a threshold is a number as a person writes one; Go's
// ParseFloat also read 5_2 as 52 and 0x1p-2 as 0.25.
func TestGateNumbers(t *testing.T) {
	for _, tc := range []struct {
		gate string
		want float64
	}{
		{"a>=90", 90}, {"a>=90%", 90}, {"a>= 0.5", 0.5}, {"a<=-3", -3}, {"a>=+2", 2}, {"a<=1e-3", 0.001},
		{"a<=1E+2", 100}, {"a>=.5", 0.5}, {"a>=5.", 5}, {"a>=0 %", 0},
	} {
		g, err := ParseGate(tc.gate)
		if err != nil || g.Threshold != tc.want {
			t.Errorf("%s: %v, %v; want %v", tc.gate, g.Threshold, err, tc.want)
		}
	}
	for _, bad := range []string{"a>=5_2", "a>=0x10", "a>=0x1p-2", "a>=inf", "a>=1e", "a>=.", "a>=1..2", "a>=1e5.5", "a>=--1"} {
		if _, err := ParseGate(bad); err == nil || !strings.Contains(err.Error(), "is not a number") {
			t.Errorf("%s: %v, want not a number", bad, err)
		}
	}
}

// Why shows a failed gate's value with as many decimals as show it fails:
// numpy's p95 of 100, 200, 300 and 400 ms is 384.99999999999994, which
// failed >=385 said as "actual 385".
func TestGateWhyShowsTheFailure(t *testing.T) {
	for _, tt := range []struct {
		gate   string
		actual float64
		want   string
	}{
		{"input_schema.latency_p95_ms>=385", 384.99999999999994, "gate failed: input_schema.latency_p95_ms>=385 (actual 384.99999999999994)"},
		{"input_schema.latency_p95_ms<=300", 384.99999999999994, "gate failed: input_schema.latency_p95_ms<=300 (actual 385)"},
		{"input_schema.first_pass_success_percent>=90", 89.96, "gate failed: input_schema.first_pass_success_percent>=90 (actual 89.96)"},
		{"input_schema.total_cost_usd<=0.5", 0.5000001, "gate failed: input_schema.total_cost_usd<=0.5 (actual 0.5000001)"},
	} {
		gs, err := ParseGates([]string{tt.gate})
		if err != nil {
			t.Fatal(err)
		}
		v := tt.actual
		if got := (GateResult{Gate: gs[0], Actual: &v}).Why(); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.gate, got, tt.want)
		}
	}
}
