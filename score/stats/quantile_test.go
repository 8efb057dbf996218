package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestQuantile(t *testing.T) {
	tests := []struct {
		xs   []float64
		q    float64
		want float64
	}{
		{[]float64{1, 2, 3, 4}, 0.5, 2.5},
		{[]float64{1, 2, 3, 4}, 0.25, 1.75},
		{[]float64{1, 2, 3, 4}, 0, 1},
		{[]float64{1, 2, 3, 4}, 1, 4},
		{[]float64{10, 20}, 0.025, 10.25},
		{[]float64{10, 20}, 0.975, 19.75},
		{[]float64{7}, 0.3, 7},
		{[]float64{-5, -5, 0}, 0.75, -2.5},
		{[]float64{0, 0.1}, 0.5, 0.05},
	}
	for _, tt := range tests {
		if got := Quantile(tt.xs, tt.q); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("Quantile(%v, %v) = %v, want %v", tt.xs, tt.q, got, tt.want)
		}
	}
	for _, q := range []float64{-0.1, 1.1, math.NaN()} {
		if got := Quantile([]float64{1, 2}, q); !math.IsNaN(got) {
			t.Errorf("Quantile(.., %v) = %v, want NaN", q, got)
		}
	}
	if got := Quantile(nil, 0.5); !math.IsNaN(got) {
		t.Errorf("Quantile(nil) = %v, want NaN", got)
	}
}

func TestPercentile(t *testing.T) {
	xs := make([]float64, 20)
	for i := range xs {
		xs[i] = float64(i + 1)
	}
	// numpy.percentile(range(1, 21), [50, 95, 2.5, 97.5]) = 10.5, 19.05, 1.475, 19.525
	for _, c := range [][2]float64{{50, 10.5}, {95, 19.05}, {2.5, 1.475}, {97.5, 19.525}} {
		if got := Percentile(xs, c[0]); math.Abs(got-c[1]) > 1e-12 {
			t.Errorf("Percentile(1..20, %v) = %v, want %v", c[0], got, c[1])
		}
	}
}

// Against the textbook form x[f] + (h - f)(x[f+1] - x[f]) on random data, and
// monotone in q.
func TestQuantileSecondMethod(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 500; trial++ {
		xs := make([]float64, 1+r.IntN(40))
		for i := range xs {
			xs[i] = r.NormFloat64() * 100
		}
		slices.Sort(xs)
		prev := math.Inf(-1)
		for q := 0.0; q <= 1; q += 0.0125 {
			h := float64(len(xs)-1) * q
			f := int(math.Floor(h))
			want := xs[f]
			if f+1 < len(xs) {
				want += (h - float64(f)) * (xs[f+1] - xs[f])
			}
			got := Quantile(xs, q)
			if math.Abs(got-want) > 1e-9 {
				t.Fatalf("Quantile(%v, %v) = %v, want %v", xs, q, got, want)
			}
			if got < prev {
				t.Fatalf("Quantile not monotone at q=%v: %v < %v", q, got, prev)
			}
			prev = got
		}
	}
}

func TestLatencyPercentiles(t *testing.T) {
	if a, b := LatencyPercentiles(nil); a != nil || b != nil {
		t.Fatalf("no latencies: got %v, %v; want nil", a, b)
	}
	if a, b := LatencyPercentiles([]float64{math.NaN()}); a != nil || b != nil {
		t.Fatalf("only NaN: got %v, %v; want nil", a, b)
	}
	in := []float64{400, 100, math.NaN(), 300, 200}
	p50, p95 := LatencyPercentiles(in)
	if *p50 != 250 || math.Abs(*p95-385) > 1e-12 {
		t.Errorf("p50, p95 = %v, %v; want 250, 385", *p50, *p95)
	}
	if in[0] != 400 || in[1] != 100 {
		t.Errorf("input was modified: %v", in)
	}
	// the same, with the input given up
	if a, b := SortedPercentiles(in); *a != *p50 || *b != *p95 {
		t.Errorf("SortedPercentiles: %v, %v; want %v, %v", *a, *b, *p50, *p95)
	}
	if a, b := SortedPercentiles([]float64{math.NaN(), math.NaN()}); a != nil || b != nil {
		t.Errorf("SortedPercentiles of NaN: %v, %v; want nil", a, b)
	}
}

func FuzzQuantile(f *testing.F) {
	f.Add(1.0, 2.0, 3.0, 0.5)
	f.Fuzz(func(t *testing.T, a, b, c, q float64) {
		xs := []float64{a, b, c}
		for _, x := range xs {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return
			}
		}
		slices.Sort(xs)
		got := Quantile(xs, q)
		if !(q >= 0 && q <= 1) {
			if !math.IsNaN(got) {
				t.Fatalf("Quantile(%v, %v) = %v, want NaN", xs, q, got)
			}
			return
		}
		if got < xs[0] || got > xs[2] {
			t.Fatalf("Quantile(%v, %v) = %v outside the data", xs, q, got)
		}
	})
}
