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
