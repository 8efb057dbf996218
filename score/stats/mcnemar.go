package stats

import (
	"math"
	"math/big"
)

// exactLimit is the largest discordant count summed with exact integers; above it the
// log-space sum is used, whose relative error (about 1e-12) is far below any decision
// a p-value supports, and whose cost does not grow with the square of the count.
const exactLimit = 4096

// McNemarExact returns the exact two-sided McNemar p-value for wins and losses, the
// discordant pairs in each direction: min(1, 2 P(X <= min(wins, losses))) with X
// binomial(wins+losses, 1/2). It is 1 when there is no discordant pair and NaN when a
// count is negative.
func McNemarExact(wins, losses int) float64 {
	if wins < 0 || losses < 0 {
		return math.NaN()
	}
	n := wins + losses
	if n == 0 {
		return 1
	}
	m := min(wins, losses)
	if 2*m >= n {
		// The lower tail reaches the middle, so twice it is at least 1.
		return 1
	}
	var p float64
	if n <= exactLimit {
		p = binomTailExact(n, m)
	} else {
		p = binomTailLog(n, m)
	}
	return math.Min(1, 2*p)
}

// binomTailExact returns P(X <= m) for X ~ binomial(n, 1/2), summing the binomial
// coefficients as integers and rounding once: sum / 2^n.
func binomTailExact(n, m int) float64 {
	sum := big.NewInt(1)
	c := big.NewInt(1)
	var t big.Int
	for k := 0; k < m; k++ {
		// C(n, k+1) = C(n, k) (n-k) / (k+1), exact at every step.
		c.Mul(c, t.SetInt64(int64(n-k)))
		c.Quo(c, t.SetInt64(int64(k+1)))
		sum.Add(sum, c)
	}
	f := new(big.Float).SetInt(sum)
	f.SetMantExp(f, -n)
	v, _ := f.Float64()
	return v
}

// binomTailLog returns P(X <= m) for X ~ binomial(n, 1/2) by summing the terms
// in log space from the largest (k = m) down, so nothing overflows or underflows
// early.
func binomTailLog(n, m int) float64 {
	lgN, _ := math.Lgamma(float64(n + 1))
	logTerm := func(k int) float64 {
		a, _ := math.Lgamma(float64(k + 1))
		b, _ := math.Lgamma(float64(n - k + 1))
		return lgN - a - b - float64(n)*math.Ln2
	}
	top := logTerm(m)
	// Terms fall by the ratio k/(n-k+1) going down; add relative to the top term.
	sum, rel := 1.0, 1.0
	for k := m; k > 0; k-- {
		rel *= float64(k) / float64(n-k+1)
		if rel < 1e-17*sum {
			break
		}
		sum += rel
	}
	return math.Exp(top + math.Log(sum))
}
