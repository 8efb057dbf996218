package runner

import (
	"math"
	"testing"
)

// TestCheckTemperature: a temperature outside what the API documents is
// refused, one ten times too large with the value likely meant.
func TestCheckTemperature(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, tt := range []struct {
		t    *float64
		max  float64
		want string
	}{
		{nil, 2, ""},
		{f(0), 2, ""},
		{f(2), 2, ""},
		{f(0.7), 1, ""},
		{f(7), 2, "--temperature 7: the API takes 0 to 2; did you mean 0.7"},
		{f(1.5), 1, "--temperature 1.5: the API takes 0 to 1; did you mean 0.15"},
		{f(25), 2, "--temperature 25: the API takes 0 to 2"},
		{f(-0.5), 2, "--temperature -0.5: the API takes 0 to 2"},
		{f(math.NaN()), 2, "--temperature NaN: the API takes 0 to 2"},
		{f(7), 0, ""}, // no bound known
	} {
		if got := CheckTemperature(tt.t, tt.max); got != tt.want {
			t.Errorf("CheckTemperature(%v, %v) = %q, want %q", tt.t, tt.max, got, tt.want)
		}
	}
}
