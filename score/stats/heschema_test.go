package stats

import (
	"strconv"
	"testing"
)

// The point estimates come out to the last digit as HESchema's paired_effect writes
// them for the same pairs (one pair per cluster, so the cluster order cannot change
// a sum): its arithmetic order is (S-B)/B*100 and (S-B)/(1-B)*100.
func TestPairedDigitsLikeHESchema(t *testing.T) {
	tests := []struct {
		name             string
		base, treat      []bool
		baseline, uplift float64
		relative, errRed float64
		wins, losses     int
		mcnemar          float64
	}{
		// HESchema: relative -100.0, error reduction -49.99999999999999
		{"one of three to none", []bool{true, false, false}, []bool{false, false, false},
			33.33333333333333, -33.33333333333333, -100.0, -49.99999999999999, 0, 1, 1.0},
		{"three of five", []bool{true, false, false, false, false}, []bool{true, true, true, false, false},
			20.0, 40.0, 199.99999999999997, 49.99999999999999, 2, 0, 0.5},
		{"three of four to one", []bool{true, true, true, false}, []bool{true, false, false, false},
			75.0, -50.0, -66.66666666666666, -200.0, 0, 2, 0.5},
	}
	for _, tt := range tests {
		var pairs []Pair
		for i := range tt.base {
			pairs = append(pairs, Pair{Cluster: strconv.Itoa(i), Baseline: tt.base[i], Treatment: tt.treat[i]})
		}
		e := Paired(pairs, Options{Name: "t", Seed: 42, Resamples: 10})
		if *e.BaselineSuccess != tt.baseline || *e.AbsoluteUplift != tt.uplift ||
			*e.RelativeImprovement != tt.relative || *e.ErrorReduction != tt.errRed {
			t.Errorf("%s: baseline %v uplift %v relative %v error reduction %v, want %v %v %v %v", tt.name,
				*e.BaselineSuccess, *e.AbsoluteUplift, *e.RelativeImprovement, *e.ErrorReduction,
				tt.baseline, tt.uplift, tt.relative, tt.errRed)
		}
		if e.DiscordantWins != tt.wins || e.DiscordantLosses != tt.losses || e.McNemarP == nil || *e.McNemarP != tt.mcnemar {
			t.Errorf("%s: discordant %d/%d p %v, want %d/%d %v", tt.name, e.DiscordantWins, e.DiscordantLosses, e.McNemarP, tt.wins, tt.losses, tt.mcnemar)
		}
	}
}
