package stats

import "math"

// Z95 is the two-sided 95% normal quantile used by every interval in fbeval.
const Z95 = 1.959963984540054

// Wilson returns the Wilson score 95% interval for successes out of n, in percent.
// The lower bound is exactly 0 when there are no successes and the upper bound exactly
// 100 when every run succeeds, so rounding never hides a perfect or empty record.
// ok is false, with no interval, when n is 0 or the counts are impossible (negative,
// or more successes than runs).
func Wilson(successes, n int) (lo, hi float64, ok bool) {
	if n <= 0 || successes < 0 || successes > n {
		return 0, 0, false
	}
	nf := float64(n)
	p := float64(successes) / nf
	// z is a variable so z*z is rounded from the float64 value, as other tools do,
	// not computed exactly from the decimal constant.
	z := float64(Z95)
	z2 := z * z
	denom := 1 + float64(z2/nf)
	center := (p + float64(z2/(2*nf))) / denom
	// float64() conversions keep every product rounded on its own, so platforms
	// that fuse multiply-add give the same bits.
	margin := float64(z*math.Sqrt(float64(p*(1-p))/nf+float64(z2/float64(4*nf*nf)))) / denom
	lo = math.Max(0, center-margin) * 100
	hi = math.Min(1, center+margin) * 100
	if successes == 0 {
		lo = 0
	}
	if successes == n {
		hi = 100
	}
	return lo, hi, true
}
