package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/fixtures/fixturetest"
)

func f(x float64) *float64 { return &x }

func eqPtr(a, b *float64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return math.Abs(*a-*b) <= 1e-9
}

func show(p *float64) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}

// singles returns one pair per cluster, named so that sorted order is input order.
func singles(outcomes ...[2]bool) []Pair {
	ps := make([]Pair, len(outcomes))
	for i, o := range outcomes {
		ps[i] = Pair{Cluster: fmt.Sprintf("c%03d", i), Baseline: o[0], Treatment: o[1]}
	}
	return ps
}

func repeat(n int, o [2]bool) [][2]bool {
	out := make([][2]bool, n)
	for i := range out {
		out[i] = o
	}
	return out
}

var (
	ff = [2]bool{false, false}
	ft = [2]bool{false, true}
	tf = [2]bool{true, false}
	tt = [2]bool{true, true}
)

func TestPairedByHand(t *testing.T) {
	// Four singleton clusters: B = 2/4, S = 3/4.
	e := Paired(singles(ft, ft, tt, tf), Options{Name: "x", Seed: 1})
	if e.PairedRuns != 4 || e.IndependentClusters != 4 {
		t.Fatalf("runs, clusters = %d, %d; want 4, 4", e.PairedRuns, e.IndependentClusters)
	}
	checks := []struct {
		name      string
		got, want *float64
	}{
		{"baseline", e.BaselineSuccess, f(50)},
		{"treatment", e.TreatmentSuccess, f(75)},
		{"uplift", e.AbsoluteUplift, f(25)},
		{"relative", e.RelativeImprovement, f(50)},
		{"error reduction", e.ErrorReduction, f(50)},
		{"mcnemar", e.McNemarP, f(1)}, // b=2, c=1: 2 P(X <= 1 | n=3) = 2 * 4/8
	}
	for _, c := range checks {
		if !eqPtr(c.got, c.want) {
			t.Errorf("%s = %s, want %s", c.name, show(c.got), show(c.want))
		}
	}
	if e.DiscordantWins != 2 || e.DiscordantLosses != 1 {
		t.Errorf("wins, losses = %d, %d; want 2, 1", e.DiscordantWins, e.DiscordantLosses)
	}

	// Unequal clusters: a = {ft, tt} has means (1/2, 1), b = {ff} has (0, 0);
	// B = 1/4, S = 1/2, and a cluster with two pairs rules McNemar out.
	e = Paired([]Pair{{"b", false, false}, {"a", false, true}, {"a", true, true}}, Options{})
	if !eqPtr(e.BaselineSuccess, f(25)) || !eqPtr(e.TreatmentSuccess, f(50)) ||
		!eqPtr(e.AbsoluteUplift, f(25)) || !eqPtr(e.RelativeImprovement, f(100)) ||
		!eqPtr(e.ErrorReduction, f(100.0/3)) {
		t.Errorf("unequal clusters: B %s S %s uplift %s rel %s err %s", show(e.BaselineSuccess),
			show(e.TreatmentSuccess), show(e.AbsoluteUplift), show(e.RelativeImprovement), show(e.ErrorReduction))
	}
	if e.McNemarP != nil || e.IndependentClusters != 2 || e.DiscordantWins != 1 || e.DiscordantLosses != 0 {
		t.Errorf("unequal clusters: mcnemar %s, clusters %d, wins %d, losses %d",
			show(e.McNemarP), e.IndependentClusters, e.DiscordantWins, e.DiscordantLosses)
	}
}

func TestPairedNullRulesAndLabels(t *testing.T) {
	tests := []struct {
		name                      string
		pairs                     []Pair
		relative, errRed, mcnemar *float64
		ci                        *[2]float64
		label                     string
	}{
		{"no pairs", nil, nil, nil, nil, nil, LabelInconclusive},
		{"baseline never succeeds", singles(repeat(10, ft)...), nil, f(100), f(2.0 / 1024), &[2]float64{100, 100}, LabelImprovement},
		{"baseline always succeeds", singles(repeat(10, tf)...), f(-100), nil, f(2.0 / 1024), &[2]float64{-100, -100}, LabelHarm},
		{"both always succeed", singles(repeat(6, tt)...), f(0), nil, f(1), &[2]float64{0, 0}, LabelInconclusive},
		{"both always fail", singles(repeat(6, ff)...), nil, f(0), f(1), &[2]float64{0, 0}, LabelInconclusive},
		{"repeats rule out mcnemar", []Pair{{"a", false, true}, {"a", false, true}, {"b", false, true}}, nil, f(100), nil, &[2]float64{100, 100}, LabelImprovement},
		{"one cluster", singles(tf), f(-100), nil, f(1), &[2]float64{-100, -100}, LabelHarm},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := Paired(tc.pairs, Options{Name: "n", Seed: 3})
			if !eqPtr(e.RelativeImprovement, tc.relative) || !eqPtr(e.ErrorReduction, tc.errRed) || !eqPtr(e.McNemarP, tc.mcnemar) {
				t.Errorf("relative %s, error reduction %s, mcnemar %s; want %s, %s, %s",
					show(e.RelativeImprovement), show(e.ErrorReduction), show(e.McNemarP),
					show(tc.relative), show(tc.errRed), show(tc.mcnemar))
			}
			if (e.CI95 == nil) != (tc.ci == nil) || (e.CI95 != nil && *e.CI95 != *tc.ci) {
				t.Errorf("ci95 = %v, want %v", e.CI95, tc.ci)
			}
			if e.Label != tc.label {
				t.Errorf("label = %q, want %q", e.Label, tc.label)
			}
			if len(tc.pairs) == 0 && (e.BaselineSuccess != nil || e.TreatmentSuccess != nil || e.AbsoluteUplift != nil) {
				t.Errorf("no pairs: rates must be null")
			}
			if e.Bootstrap.Resamples != DefaultResamples {
				t.Errorf("resamples = %d, want %d", e.Bootstrap.Resamples, DefaultResamples)
			}
		})
	}
}

// exactDistribution enumerates all k^k ordered resamples of k clusters, each equally
// likely, and returns the probability of each value of 100 (S* - B*), keyed by the
// value rounded to 1e-9 (summation order changes the last bits).
func exactDistribution(base, treat []float64) map[int64]float64 {
	k := len(base)
	dist := map[int64]float64{}
	total := int(math.Pow(float64(k), float64(k)))
	idx := make([]int, k)
	for r := 0; r < total; r++ {
		x := r
		var sb, st float64
		for j := range idx {
			idx[j] = x % k
			x /= k
			sb += base[idx[j]]
			st += treat[idx[j]]
		}
		dist[key(100*(st/float64(k)-sb/float64(k)))] += 1 / float64(total)
	}
	return dist
}

func key(v float64) int64 { return int64(math.Round(v * 1e9)) }

// The bootstrap's draws must follow the exact resampling distribution, found by
// enumerating every resample of a small case.
func TestResampleMatchesExactEnumeration(t *testing.T) {
	pairs := []Pair{
		{"a", false, true}, {"a", false, true},
		{"b", true, true},
		{"c", true, false}, {"c", false, false}, {"c", true, true},
		{"d", false, false},
	}
	base := []float64{0, 1, 2.0 / 3, 0}
	treat := []float64{1, 1, 1.0 / 3, 0}
	dist := exactDistribution(base, treat)

	const n = 256_000
	draws := make([]float64, n)
	resample(base, treat, rand.NewPCG(11, streamOf("enumeration")), draws)
	counts := map[int64]int{}
	for _, d := range draws {
		k := key(d)
		if _, ok := dist[k]; !ok {
			t.Fatalf("draw %v is not a possible resample value", d)
		}
		counts[k]++
	}
	for k, p := range dist {
		want := n * p
		sd := math.Sqrt(n * p * (1 - p))
		if math.Abs(float64(counts[k])-want) > 5*sd+1 {
			t.Errorf("value %v: %d draws, expected %.1f ± %.1f", float64(k)/1e9, counts[k], want, sd)
		}
	}

	// The percentile interval of many draws converges to the exact distribution's
	// 2.5% and 97.5% points (chosen here away from any jump of the CDF).
	vals := make([]int64, 0, len(dist))
	for k := range dist {
		vals = append(vals, k)
	}
	slices.Sort(vals)
	exactQuantile := func(q float64) float64 {
		var cdf float64
		for _, v := range vals {
			cdf += dist[v]
			if math.Abs(cdf-q) < 0.002 {
				t.Fatalf("test data puts a CDF jump at %v, near %v", cdf, q)
			}
			if cdf > q {
				return float64(v) / 1e9
			}
		}
		return float64(vals[len(vals)-1]) / 1e9
	}
	slices.Sort(draws)
	for _, q := range []float64{0.025, 0.975} {
		if got, want := Quantile(draws, q), exactQuantile(q); math.Abs(got-want) > 1e-9 {
			t.Errorf("quantile %v of draws = %v, exact %v", q, got, want)
		}
	}

	// Paired on the same pairs uses the same means in the same cluster order.
	e := Paired(pairs, Options{Name: "enumeration", Seed: 11, Resamples: 4000})
	if !eqPtr(e.AbsoluteUplift, f(100*(7.0/3/4-5.0/3/4))) {
		t.Errorf("uplift = %s", show(e.AbsoluteUplift))
	}
	lo, hi := float64(vals[0])/1e9, float64(vals[len(vals)-1])/1e9
	if e.CI95[0] < lo || e.CI95[1] > hi || e.CI95[0] > e.CI95[1] {
		t.Errorf("ci95 %v outside the support [%v, %v]", *e.CI95, lo, hi)
	}
}

// synthetic returns k singleton clusters with a fixed pattern: baseline succeeds on
// two cases in three, treatment on six in seven.
func synthetic(k int) []Pair {
	ps := make([]Pair, k)
	for i := range ps {
		ps[i] = Pair{Cluster: fmt.Sprintf("case-%04d", i), Baseline: i%3 != 0, Treatment: i%7 != 0}
	}
	return ps
}

// Counts reach PairedCounts in any order, a cluster's pairs split over several
// tallies and empty tallies among them, and give Paired's effect to the digit.
func TestPairedCountsAnyOrder(t *testing.T) {
	var pairs []Pair
	for i := range 900 {
		pairs = append(pairs, Pair{Cluster: fmt.Sprintf("intent-%02d", i%37), Baseline: i%3 != 0, Treatment: i%5 != 0})
	}
	opt := Options{Name: "input_schema vs no_schema", Seed: 42}
	want := Paired(pairs, opt)
	c := Count(pairs)
	if len(c.Clusters) != 37 || c.Wins+c.Losses == 0 {
		t.Fatalf("Count: %d clusters, %d wins, %d losses", len(c.Clusters), c.Wins, c.Losses)
	}
	var split Counts
	split.Wins, split.Losses = c.Wins, c.Losses
	for _, tl := range slices.Backward(c.Clusters) {
		half := Tally{Cluster: tl.Cluster, N: tl.N / 2, Baseline: min(tl.Baseline, tl.N/2)}
		half.Treatment = min(tl.Treatment, half.N)
		rest := Tally{Cluster: tl.Cluster, N: tl.N - half.N, Baseline: tl.Baseline - half.Baseline, Treatment: tl.Treatment - half.Treatment}
		split.Clusters = append(split.Clusters, rest, Tally{Cluster: "empty"}, half)
	}
	if got := PairedCounts(split, opt); !reflect.DeepEqual(got, want) {
		t.Fatalf("PairedCounts of split tallies:\n%+v\nwant\n%+v", got, want)
	}
	if got := PairedCounts(Counts{}, opt); got.PairedRuns != 0 || got.CI95 != nil || got.Label != LabelInconclusive {
		t.Fatalf("no pairs: %+v", got)
	}
}

func TestPairedDeterministic(t *testing.T) {
	pairs := synthetic(120)
	opt := Options{Name: "input_schema vs no_schema", Seed: 20260101}
	a, b := Paired(pairs, opt), Paired(slices.Clone(pairs), opt)
	if *a.CI95 != *b.CI95 {
		t.Fatalf("same seed, different intervals: %v, %v", *a.CI95, *b.CI95)
	}
	// Input order does not matter: clusters are visited in sorted order.
	rev := slices.Clone(pairs)
	slices.Reverse(rev)
	if c := Paired(rev, opt); *c.CI95 != *a.CI95 {
		t.Fatalf("reordered pairs, different interval: %v, %v", *c.CI95, *a.CI95)
	}
	other := opt
	other.Seed++
	if c := Paired(pairs, other); *c.CI95 == *a.CI95 {
		t.Errorf("different seed, same interval %v", *a.CI95)
	}
	other = opt
	other.Name = "input_schema vs minimal_schema"
	c := Paired(pairs, other)
	if *c.CI95 == *a.CI95 || c.Bootstrap.Stream == a.Bootstrap.Stream {
		t.Errorf("different name, same interval %v or stream %x", *a.CI95, a.Bootstrap.Stream)
	}
	if !(a.CI95[0] <= *a.AbsoluteUplift && *a.AbsoluteUplift <= a.CI95[1]) {
		t.Errorf("interval %v does not contain the estimate %v", *a.CI95, *a.AbsoluteUplift)
	}
}

func TestResampleAllocatesNothing(t *testing.T) {
	base, treat := make([]float64, 480), make([]float64, 480)
	out := make([]float64, 50)
	src := rand.NewPCG(1, 2)
	if n := testing.AllocsPerRun(10, func() { resample(base, treat, src, out) }); n != 0 {
		t.Errorf("resample allocates %v times per run", n)
	}
}

// TestPairedGolden pins the whole JSON of a few effects, including the intervals, so
// any change to the generator, the index mapping or the quantile shows up here.
func TestPairedGolden(t *testing.T) {
	effects := []Effect{
		Paired(nil, Options{Name: "input_schema vs no_schema", Seed: 7}),
		Paired(singles(ft, ft, tt, tf), Options{Name: "input_schema vs no_schema", Seed: 7}),
		Paired(synthetic(480), Options{Name: "input_schema vs no_schema", Seed: 7}),
		Paired(append(synthetic(480), synthetic(480)...), Options{Name: "minimal_schema vs no_schema", Seed: 7}),
	}
	got, err := contract.Marshal(effects, contract.PythonIndent)
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	fixturetest.Golden(t, filepath.Join("testdata", "effects.golden"), got)
}

func FuzzPaired(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7}, uint64(1))
	f.Add([]byte{}, uint64(0))
	f.Fuzz(func(t *testing.T, data []byte, seed uint64) {
		// Each byte is one pair: low 2 bits the outcomes, the rest the cluster.
		pairs := make([]Pair, len(data))
		for i, b := range data {
			pairs[i] = Pair{Cluster: fmt.Sprint(b >> 2), Baseline: b&1 != 0, Treatment: b&2 != 0}
		}
		e := Paired(pairs, Options{Seed: seed, Resamples: 50})
		if len(pairs) == 0 {
			if e.CI95 != nil || e.Label != LabelInconclusive {
				t.Fatalf("no pairs: %+v", e)
			}
			return
		}
		lo, hi := e.CI95[0], e.CI95[1]
		if !(lo <= hi && lo >= -100 && hi <= 100) {
			t.Fatalf("ci95 = [%v, %v]", lo, hi)
		}
		if (e.Label == LabelImprovement) != (lo > 0) || (e.Label == LabelHarm) != (hi < 0) {
			t.Fatalf("label %q for [%v, %v]", e.Label, lo, hi)
		}
		if e.McNemarP != nil && !(*e.McNemarP >= 0 && *e.McNemarP <= 1) {
			t.Fatalf("mcnemar = %v", *e.McNemarP)
		}
		if _, err := contract.Marshal(e, contract.Compact); err != nil {
			t.Fatal(err)
		}
	})
}

func BenchmarkPaired480x2000(b *testing.B) {
	pairs := synthetic(480)
	opt := Options{Name: "input_schema vs no_schema", Seed: 7}
	b.ReportAllocs()
	for b.Loop() {
		Paired(pairs, opt)
	}
}

func BenchmarkResample480x2000(b *testing.B) {
	base, treat := make([]float64, 480), make([]float64, 480)
	for i := range base {
		base[i], treat[i] = float64(i%3)/2, float64(i%7)/6
	}
	out := make([]float64, DefaultResamples)
	src := rand.NewPCG(7, 8)
	b.ReportAllocs()
	for b.Loop() {
		resample(base, treat, src, out)
	}
}
