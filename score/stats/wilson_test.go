package stats

import (
	"math"
	"testing"
)

func TestWilsonKnownPoints(t *testing.T) {
	z2 := Z95 * Z95
	tests := []struct {
		s, n   int
		lo, hi float64
	}{
		// Closed forms: with no successes the upper bound is z²/(n+z²); with all
		// successes the lower bound is n/(n+z²).
		{0, 10, 0, 100 * z2 / (10 + z2)},
		{10, 10, 100 * 10 / (10 + z2), 100},
		{5, 10, 23.659309, 76.340691},
		{0, 1, 0, 100 * z2 / (1 + z2)},
		{1, 1, 100 / (1 + z2), 100},
		{240, 480, 45.544807, 54.455193},
	}
	for _, tt := range tests {
		lo, hi, ok := Wilson(tt.s, tt.n)
		if !ok {
			t.Fatalf("Wilson(%d, %d): no interval", tt.s, tt.n)
		}
		const tol = 1e-6
		if math.Abs(lo-tt.lo) > tol || math.Abs(hi-tt.hi) > tol {
			t.Errorf("Wilson(%d, %d) = [%.9f, %.9f], want [%.9f, %.9f]", tt.s, tt.n, lo, hi, tt.lo, tt.hi)
		}
	}
}

func TestWilsonExactEnds(t *testing.T) {
	for n := 1; n <= 2000; n++ {
		lo, _, _ := Wilson(0, n)
		_, hi, _ := Wilson(n, n)
		if lo != 0 || hi != 100 {
			t.Fatalf("n=%d: lower at 0 successes %v, upper at all successes %v; want exactly 0 and 100", n, lo, hi)
		}
	}
}

func TestWilsonNoInterval(t *testing.T) {
	for _, c := range [][2]int{{0, 0}, {1, 0}, {-1, 5}, {6, 5}, {0, -3}} {
		if lo, hi, ok := Wilson(c[0], c[1]); ok || lo != 0 || hi != 0 {
			t.Errorf("Wilson(%d, %d) = %v, %v, %v; want no interval", c[0], c[1], lo, hi, ok)
		}
	}
}

// The Wilson bounds are the two roots p of n (p̂ - p)² = z² p (1 - p), the
// proportions a score test does not reject; check that equation directly.
func TestWilsonInvertsScoreTest(t *testing.T) {
	for n := 1; n <= 300; n += 7 {
		for s := 0; s <= n; s++ {
			lo, hi, ok := Wilson(s, n)
			if !ok {
				t.Fatalf("Wilson(%d, %d): no interval", s, n)
			}
			ph := float64(s) / float64(n)
			if !(lo <= 100*ph+1e-9 && 100*ph <= hi+1e-9) {
				t.Fatalf("Wilson(%d, %d) = [%v, %v] does not contain %v", s, n, lo, hi, 100*ph)
			}
			for _, b := range []float64{lo / 100, hi / 100} {
				lhs := float64(n) * (ph - b) * (ph - b)
				rhs := Z95 * Z95 * b * (1 - b)
				if math.Abs(lhs-rhs) > 1e-9 {
					t.Fatalf("Wilson(%d, %d) bound %v: n(p̂-p)² = %v, z²p(1-p) = %v", s, n, b, lhs, rhs)
				}
			}
		}
	}
}

func FuzzWilson(f *testing.F) {
	f.Add(0, 0)
	f.Add(5, 10)
	f.Add(480, 480)
	f.Add(-1, 3)
	f.Fuzz(func(t *testing.T, s, n int) {
		lo, hi, ok := Wilson(s, n)
		if ok != (n > 0 && s >= 0 && s <= n) {
			t.Fatalf("Wilson(%d, %d) ok = %v", s, n, ok)
		}
		if ok && !(0 <= lo && lo <= hi && hi <= 100) {
			t.Fatalf("Wilson(%d, %d) = [%v, %v]", s, n, lo, hi)
		}
	})
}
