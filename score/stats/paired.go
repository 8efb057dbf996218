package stats

import (
	"fmt"

	"github.com/fbeval/fbeval/score/report"
	"hash/fnv"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
)

// DefaultResamples is the number of bootstrap resamples of clusters drawn for a
// paired effect when Options.Resamples is not set.
const DefaultResamples = 2000

// Effect labels.
const (
	LabelImprovement  = "improvement"
	LabelHarm         = "harm"
	LabelInconclusive = "inconclusive"
)

// Pair is one (case, repeat) run under both arms: whether the first attempt
// succeeded under the baseline arm and under the treatment arm. Cluster is the
// case's cluster; cases sharing an intent share a cluster and are resampled together.
type Pair struct {
	Cluster   string
	Baseline  bool
	Treatment bool
}

// Options configure Paired.
type Options struct {
	// Name names the comparison, for example "input_schema vs no_schema". Each name
	// gets its own random stream, so adding a comparison never shifts another's
	// interval.
	Name string
	// Seed is the study seed.
	Seed uint64
	// Resamples is the number of bootstrap resamples; 0 or less means
	// DefaultResamples.
	Resamples int
}

// Bootstrap records how an interval was drawn, so it can be reproduced.
type Bootstrap = report.Bootstrap

// Effect is the paired comparison of a treatment arm with a baseline arm, as a
// report holds it (its json tags are the report contract's keys).
type Effect = report.Effect

// Tally is the pairs of one cluster: how many there are, and in how many the
// first attempt succeeded under each arm.
type Tally struct {
	Cluster             string
	N                   int
	Baseline, Treatment int
}

// Counts are a comparison's pairs as Paired needs them: tallied by cluster, and
// the discordant pairs (the treatment alone succeeded: a win; the baseline alone:
// a loss).
type Counts struct {
	Clusters     []Tally // in any order; a cluster tallied twice counts once
	Wins, Losses int
}

// Count tallies pairs by cluster.
func Count(pairs []Pair) Counts {
	var c Counts
	byCluster := map[string]int{}
	for _, p := range pairs {
		i, ok := byCluster[p.Cluster]
		if !ok {
			i = len(c.Clusters)
			byCluster[p.Cluster] = i
			c.Clusters = append(c.Clusters, Tally{Cluster: p.Cluster})
		}
		c.Add(i, p.Baseline, p.Treatment)
	}
	return c
}

// Add counts one pair, of the cluster c.Clusters[cluster]: whether its first
// attempt succeeded under the baseline arm and under the treatment arm.
func (c *Counts) Add(cluster int, baseline, treatment bool) {
	t := &c.Clusters[cluster]
	t.N++
	if baseline {
		t.Baseline++
	}
	if treatment {
		t.Treatment++
	}
	switch {
	case treatment && !baseline:
		c.Wins++
	case baseline && !treatment:
		c.Losses++
	}
}

// Paired computes the paired clustered effect of the treatment over the baseline:
// PairedCounts of Count(pairs).
func Paired(pairs []Pair, opt Options) Effect {
	return PairedCounts(Count(pairs), opt)
}

// PairedCounts computes the paired clustered effect of the treatment over the
// baseline from its pairs' counts.
//
// Clusters are taken in sorted order. The interval is the 2.5th and 97.5th
// percentile (linear interpolation) of 100 (S* - B*) over resamples that draw as
// many clusters as there are, with replacement, from rand.NewPCG(opt.Seed,
// FNV-1a-64(opt.Name)); each draw is a 64-bit output mapped to a cluster index by
// Lemire's multiply-shift with rejection, so there is no bias.
//
// With no pairs every rate, the interval and the p-value are nil and the label is
// inconclusive; the bootstrap block still records the configuration.
func PairedCounts(c Counts, opt Options) Effect {
	stream := streamOf(opt.Name)
	n, baseAll := 0, 0
	for _, t := range c.Clusters {
		n += t.N
		baseAll += t.Baseline
	}
	e := Effect{
		PairedRuns:       n,
		DiscordantWins:   c.Wins,
		DiscordantLosses: c.Losses,
		Label:            LabelInconclusive,
		Bootstrap: Bootstrap{
			Resamples: opt.Resamples,
			Seed:      opt.Seed,
			Stream:    stream,
			Algorithm: fmt.Sprintf("pcg (math/rand/v2) NewPCG(seed, 0x%016x), lemire index", stream),
		},
	}
	if e.Bootstrap.Resamples <= 0 {
		e.Bootstrap.Resamples = DefaultResamples
	}
	if n == 0 {
		return e
	}
	clusters := make([]Tally, 0, len(c.Clusters))
	for _, t := range c.Clusters {
		if t.N > 0 {
			clusters = append(clusters, t)
		}
	}
	slices.SortFunc(clusters, func(a, b Tally) int { return strings.Compare(a.Cluster, b.Cluster) })
	// a cluster tallied twice counts once, with both tallies' pairs
	merged := clusters[:0]
	for _, t := range clusters {
		if last := len(merged) - 1; last >= 0 && merged[last].Cluster == t.Cluster {
			merged[last].N += t.N
			merged[last].Baseline += t.Baseline
			merged[last].Treatment += t.Treatment
			continue
		}
		merged = append(merged, t)
	}
	clusters = merged

	k := len(clusters)
	e.IndependentClusters = k
	baseMean := make([]float64, k)
	treatMean := make([]float64, k)
	singletons := true
	for i, t := range clusters {
		baseMean[i] = float64(t.Baseline) / float64(t.N)
		treatMean[i] = float64(t.Treatment) / float64(t.N)
		singletons = singletons && t.N == 1
	}
	B, S := meanOf(baseMean), meanOf(treatMean)
	e.BaselineSuccess = ptr(B * 100)
	e.TreatmentSuccess = ptr(S * 100)
	e.AbsoluteUplift = ptr((S - B) * 100)
	// Decide the null rules on counts, not on float equality. Divide first, then
	// scale, in HESchema's order, so both tools write the same digits.
	if baseAll > 0 {
		e.RelativeImprovement = ptr((S - B) / B * 100)
	}
	if baseAll < n {
		e.ErrorReduction = ptr((S - B) / (1 - B) * 100)
	}

	draws := make([]float64, e.Bootstrap.Resamples)
	resample(baseMean, treatMean, rand.NewPCG(opt.Seed, stream), draws)
	slices.Sort(draws)
	e.CI95 = &[2]float64{Quantile(draws, 0.025), Quantile(draws, 0.975)}
	switch {
	case e.CI95[0] > 0:
		e.Label = LabelImprovement
	case e.CI95[1] < 0:
		e.Label = LabelHarm
	}

	if singletons {
		e.McNemarP = ptr(McNemarExact(e.DiscordantWins, e.DiscordantLosses))
	}
	return e
}

// resample fills out with one bootstrap statistic 100 (S* - B*) per slot. It
// allocates nothing: the per-cluster means are precomputed and each resample only
// sums them.
func resample(baseMean, treatMean []float64, src *rand.PCG, out []float64) {
	k := len(baseMean)
	treatMean = treatMean[:k]
	n, kf := uint64(k), float64(k)
	thresh := -n % n
	// Each draw maps a 64-bit output to a cluster index in [0, k) by Lemire's
	// multiply-shift with rejection, written out here, not taken from
	// rand.Rand, so the mapping is fixed by this package. The generator is a
	// local copy while it draws, so its state stays in registers.
	p := *src
	for r := range out {
		var sb, st float64
		for range k {
			hi, lo := bits.Mul64(p.Uint64(), n)
			for lo < thresh {
				hi, lo = bits.Mul64(p.Uint64(), n)
			}
			sb += baseMean[hi]
			st += treatMean[hi]
		}
		out[r] = 100 * (st/kf - sb/kf)
	}
	*src = p
}

// streamOf derives the second PCG seed from the comparison's name.
func streamOf(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}

func meanOf(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func ptr(x float64) *float64 { return &x }
