package stats

import (
	"fmt"
	"hash/fnv"
	"math/bits"
	"math/rand/v2"
	"slices"

	"github.com/fbeval/fbeval/contract"
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
type Bootstrap struct {
	Resamples int
	Seed      uint64 // first PCG seed: the study seed
	Stream    uint64 // second PCG seed: FNV-1a 64 of Options.Name
	Algorithm string // names the generator and both seeds
}

// Effect is the paired comparison of a treatment arm with a baseline arm. Rates are
// in percent, differences in percentage points; a nil pointer is a value that does
// not exist for these pairs (written as null).
type Effect struct {
	PairedRuns          int
	IndependentClusters int
	// BaselineSuccess and TreatmentSuccess are 100 B and 100 S, where B and S are
	// the means over clusters of each cluster's success rate.
	BaselineSuccess  *float64
	TreatmentSuccess *float64
	// AbsoluteUplift is 100 (S - B) points.
	AbsoluteUplift *float64
	// RelativeImprovement is 100 (S - B) / B; nil when B = 0.
	RelativeImprovement *float64
	// ErrorReduction is 100 (S - B) / (1 - B), the share of baseline failures
	// removed; nil when B = 1.
	ErrorReduction *float64
	// CI95 is the percentile bootstrap 95% interval of AbsoluteUplift.
	CI95 *[2]float64
	// McNemarP is the exact two-sided McNemar p-value; nil unless every cluster
	// holds exactly one pair.
	McNemarP *float64
	// DiscordantWins counts pairs the treatment got right and the baseline wrong;
	// DiscordantLosses the reverse.
	DiscordantWins   int
	DiscordantLosses int
	// Label is LabelImprovement when the interval lies above 0, LabelHarm when it
	// lies below 0, else LabelInconclusive.
	Label     string
	Bootstrap Bootstrap
}

// Paired computes the paired clustered effect of the treatment over the baseline.
//
// Pairs are grouped by cluster and clusters taken in sorted order. The interval is
// the 2.5th and 97.5th percentile (linear interpolation) of 100 (S* - B*) over
// resamples that draw as many clusters as there are, with replacement, from
// rand.NewPCG(opt.Seed, FNV-1a-64(opt.Name)); each draw is a 64-bit output mapped to
// a cluster index by Lemire's multiply-shift with rejection, so there is no bias.
//
// With no pairs every rate, the interval and the p-value are nil and the label is
// inconclusive; the bootstrap block still records the configuration.
func Paired(pairs []Pair, opt Options) Effect {
	stream := streamOf(opt.Name)
	e := Effect{
		PairedRuns: len(pairs),
		Label:      LabelInconclusive,
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
	if len(pairs) == 0 {
		return e
	}

	type tally struct{ n, base, treat int }
	byCluster := make(map[string]*tally)
	baseAll := 0
	for _, p := range pairs {
		t := byCluster[p.Cluster]
		if t == nil {
			t = &tally{}
			byCluster[p.Cluster] = t
		}
		t.n++
		if p.Baseline {
			t.base++
			baseAll++
		}
		if p.Treatment {
			t.treat++
		}
		switch {
		case p.Treatment && !p.Baseline:
			e.DiscordantWins++
		case p.Baseline && !p.Treatment:
			e.DiscordantLosses++
		}
	}
	names := make([]string, 0, len(byCluster))
	for k := range byCluster {
		names = append(names, k)
	}
	slices.Sort(names)

	k := len(names)
	e.IndependentClusters = k
	baseMean := make([]float64, k)
	treatMean := make([]float64, k)
	singletons := true
	for i, name := range names {
		t := byCluster[name]
		baseMean[i] = float64(t.base) / float64(t.n)
		treatMean[i] = float64(t.treat) / float64(t.n)
		singletons = singletons && t.n == 1
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
	if baseAll < len(pairs) {
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
	kf := float64(k)
	for r := range out {
		var sb, st float64
		for range k {
			i := index(src, uint64(k))
			sb += baseMean[i]
			st += treatMean[i]
		}
		out[r] = 100 * (st/kf - sb/kf)
	}
}

// index returns a uniform integer in [0, n) from src by Lemire's multiply-shift
// with rejection. It is written out here, not taken from rand.Rand, so the mapping
// from generator output to cluster is fixed by this package.
func index(src *rand.PCG, n uint64) uint64 {
	hi, lo := bits.Mul64(src.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(src.Uint64(), n)
		}
	}
	return hi
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

// Object returns the effect as an ordered JSON object with the keys of the report
// contract, in this order: paired_runs, independent_clusters,
// baseline_success_percent, treatment_success_percent, absolute_uplift_points,
// relative_improvement_percent, error_reduction_percent, ci95, mcnemar_exact_p,
// discordant_wins, discordant_losses, effect, bootstrap {resamples, seed,
// algorithm}. Nil values are written as null.
func (e Effect) Object() contract.Object {
	var ci any
	if e.CI95 != nil {
		ci = []any{e.CI95[0], e.CI95[1]}
	}
	return contract.Object{
		{Key: "paired_runs", Value: e.PairedRuns},
		{Key: "independent_clusters", Value: e.IndependentClusters},
		{Key: "baseline_success_percent", Value: e.BaselineSuccess},
		{Key: "treatment_success_percent", Value: e.TreatmentSuccess},
		{Key: "absolute_uplift_points", Value: e.AbsoluteUplift},
		{Key: "relative_improvement_percent", Value: e.RelativeImprovement},
		{Key: "error_reduction_percent", Value: e.ErrorReduction},
		{Key: "ci95", Value: ci},
		{Key: "mcnemar_exact_p", Value: e.McNemarP},
		{Key: "discordant_wins", Value: e.DiscordantWins},
		{Key: "discordant_losses", Value: e.DiscordantLosses},
		{Key: "effect", Value: e.Label},
		{Key: "bootstrap", Value: contract.Object{
			{Key: "resamples", Value: e.Bootstrap.Resamples},
			{Key: "seed", Value: e.Bootstrap.Seed},
			{Key: "algorithm", Value: e.Bootstrap.Algorithm},
		}},
	}
}

// AppendJSON writes the effect as Object does, so an Effect can be placed directly
// in a contract.Object.
func (e Effect) AppendJSON(dst []byte, s contract.Style, depth int) ([]byte, error) {
	return contract.AppendJSON(dst, e.Object(), s, depth)
}
