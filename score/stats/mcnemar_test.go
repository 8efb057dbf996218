package stats

import (
	"math"
	"testing"
)

func TestMcNemarExactByHand(t *testing.T) {
	tests := []struct {
		wins, losses int
		want         float64
	}{
		{0, 0, 1},       // no discordant pair
		{5, 5, 1},       // balanced
		{0, 1, 1},       // 2 * 1/2
		{0, 5, 0.0625},  // 2 * 1/32
		{5, 0, 0.0625},  // symmetric
		{1, 5, 0.21875}, // 2 * 7/64
		{0, 10, 2.0 / 1024},
		{2, 8, 2 * 56.0 / 1024}, // 2 * (1 + 10 + 45)/1024
		{3, 4, 1},
	}
	for _, tt := range tests {
		if got := McNemarExact(tt.wins, tt.losses); math.Abs(got-tt.want) > 1e-15 {
			t.Errorf("McNemarExact(%d, %d) = %v, want %v", tt.wins, tt.losses, got, tt.want)
		}
	}
	if got := McNemarExact(-1, 3); !math.IsNaN(got) {
		t.Errorf("McNemarExact(-1, 3) = %v, want NaN", got)
	}
}

// Direct summation of the binomial probabilities from Pascal's triangle, a method
// independent of the implementation's multiplicative exact sum.
func TestMcNemarExactDirectSummation(t *testing.T) {
	const maxN = 60
	pascal := make([][]float64, maxN+1)
	for n := range pascal {
		pascal[n] = make([]float64, n+1)
		pascal[n][0], pascal[n][n] = 1, 1
		for k := 1; k < n; k++ {
			pascal[n][k] = pascal[n-1][k-1] + pascal[n-1][k]
		}
	}
	for n := 0; n <= maxN; n++ {
		for b := 0; b <= n; b++ {
			c := n - b
			var tail float64
			for k := 0; k <= min(b, c); k++ {
				tail += pascal[n][k] / math.Pow(2, float64(n))
			}
			want := math.Min(1, 2*tail)
			got := McNemarExact(b, c)
			if math.Abs(got-want) > 1e-13*want {
				t.Fatalf("McNemarExact(%d, %d) = %v, direct sum %v", b, c, got, want)
			}
		}
	}
}

// The log-space path must agree with the exact path where both can run.
func TestMcNemarLogSpaceAgrees(t *testing.T) {
	for _, n := range []int{61, 200, 999, 2500, exactLimit} {
		for _, m := range []int{0, 1, n / 10, n/2 - 40, n/2 - 3, (n - 1) / 2} {
			if m < 0 || 2*m >= n {
				continue
			}
			exact, logSpace := binomTailExact(n, m), binomTailLog(n, m)
			if exact == 0 && logSpace == 0 {
				continue
			}
			if math.Abs(exact-logSpace) > 1e-9*exact {
				t.Errorf("P(X <= %d), n=%d: exact %v, log space %v", m, n, exact, logSpace)
			}
		}
	}
}

func TestMcNemarLargeCounts(t *testing.T) {
	// Beyond the exact limit: no overflow, a probability, symmetric, and close to
	// the normal approximation when the counts are near balance.
	b, c := 50_000, 50_600
	p := McNemarExact(b, c)
	if !(p > 0 && p <= 1) || p != McNemarExact(c, b) {
		t.Fatalf("McNemarExact(%d, %d) = %v", b, c, p)
	}
	n := float64(b + c)
	zs := (float64(b) + 0.5 - n/2) / math.Sqrt(n/4) // continuity-corrected
	normal := math.Erfc(-zs/math.Sqrt2) * 1         // 2 Φ(zs)
	if math.Abs(p-normal) > 0.002 {
		t.Errorf("McNemarExact(%d, %d) = %v, normal approximation %v", b, c, p, normal)
	}
	if p := McNemarExact(0, 1_000_000); p != 0 {
		t.Errorf("McNemarExact(0, 1e6) = %v, want 0 (underflow of 2^-999999)", p)
	}
}

func FuzzMcNemarExact(f *testing.F) {
	f.Add(uint16(3), uint16(9))
	f.Fuzz(func(t *testing.T, b, c uint16) {
		p := McNemarExact(int(b), int(c))
		if !(p >= 0 && p <= 1) || p != McNemarExact(int(c), int(b)) {
			t.Fatalf("McNemarExact(%d, %d) = %v", b, c, p)
		}
	})
}

func BenchmarkMcNemarExact(b *testing.B) {
	for b.Loop() {
		McNemarExact(1800, 2296)
	}
}
