package stats

import (
	"math"
	"slices"
)

// Quantile returns the q-quantile (0 <= q <= 1) of sorted, an ascending slice, by
// linear interpolation between the two nearest order statistics: numpy's default
// method ("linear", Hyndman and Fan type 7), position (n-1)q. It returns NaN when
// sorted is empty or q is outside [0, 1]; callers report that as no value.
func Quantile(sorted []float64, q float64) float64 {
	n := len(sorted)
	if n == 0 || !(q >= 0 && q <= 1) {
		return math.NaN()
	}
	h := float64(n-1) * q
	prev := math.Floor(h)
	i := int(prev)
	if i >= n-1 {
		return sorted[n-1]
	}
	return lerp(sorted[i], sorted[i+1], h-prev)
}

// lerp interpolates as numpy's _lerp does: from a for t < 0.5 and back from b
// otherwise, which keeps the result exact at both ends and monotone in t.
func lerp(a, b, t float64) float64 {
	d := b - a
	if t >= 0.5 {
		return b - float64(d*(1-t))
	}
	return a + float64(d*t)
}

// Percentile returns the p-th percentile (0 <= p <= 100) of sorted, an ascending
// slice: Quantile(sorted, p/100), as numpy.percentile computes it.
func Percentile(sorted []float64, p float64) float64 {
	return Quantile(sorted, p/100)
}

// LatencyPercentiles returns the median (p50) and p95 of latencies in any order,
// or nil for both when there are none. NaN values are ignored. The input is not
// modified.
func LatencyPercentiles(latencies []float64) (p50, p95 *float64) {
	return SortedPercentiles(slices.Clone(latencies))
}

// SortedPercentiles is LatencyPercentiles of latencies the caller gives up:
// they are sorted in place (NaN values are ignored), and nothing is copied.
func SortedPercentiles(latencies []float64) (p50, p95 *float64) {
	xs := latencies[:0]
	for _, x := range latencies {
		if !math.IsNaN(x) {
			xs = append(xs, x)
		}
	}
	if len(xs) == 0 {
		return nil, nil
	}
	slices.Sort(xs)
	a, b := Percentile(xs, 50), Percentile(xs, 95)
	return &a, &b
}
