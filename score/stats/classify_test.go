package stats

import (
	"math"
	"slices"
	"testing"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		name string
		in   ClassifyInput
		want []string
	}{
		{"all known, friendly",
			ClassifyInput{CallValidity: f(98), SPV: f(95), FPS: f(92), Final: f(99), Retry: f(5), FR: f(0), IRR: f(100)},
			[]string{LabelLLMFriendly}},
		{"friendly at the thresholds",
			ClassifyInput{CallValidity: f(95), SPV: f(90), FPS: f(90), FR: f(0), IRR: f(80)},
			[]string{LabelLLMFriendly}},
		{"friendly needs FPS known",
			ClassifyInput{CallValidity: f(98), SPV: f(95), FR: f(0), IRR: f(100)},
			[]string{LabelNeedsMoreEvidence}},
		{"FPS below 90 falls through to nothing",
			ClassifyInput{CallValidity: f(98), SPV: f(95), FPS: f(89.9), FR: f(0), IRR: f(100)},
			[]string{LabelNeedsMoreEvidence}},
		{"high validity low semantic",
			ClassifyInput{CallValidity: f(97), SPV: f(84.9), FPS: f(70), FR: f(0), IRR: f(100)},
			[]string{LabelHighValidityLowSemantic}},
		{"SPV between 85 and 90 gets no first label",
			ClassifyInput{CallValidity: f(97), SPV: f(87), FPS: f(95), FR: f(0), IRR: f(100)},
			[]string{LabelNeedsMoreEvidence}},
		{"low validity",
			ClassifyInput{CallValidity: f(84.99), SPV: f(99), FPS: f(99), FR: f(0), IRR: f(100)},
			[]string{LabelLowValidity}},
		{"validity between 85 and 95",
			ClassifyInput{CallValidity: f(90), SPV: f(99), FPS: f(99), FR: f(0), IRR: f(100)},
			[]string{LabelNeedsMoreEvidence}},
		{"SPV unknown skips the first group",
			ClassifyInput{CallValidity: f(50), FR: f(0), IRR: f(100)},
			[]string{LabelNeedsMoreEvidence}},
		{"over-constrained",
			ClassifyInput{CallValidity: f(98), SPV: f(95), FPS: f(92), FR: f(0.5), IRR: f(100)},
			[]string{LabelLLMFriendly, LabelOverConstrained}},
		{"under-constrained",
			ClassifyInput{FR: f(0), IRR: f(79.9)},
			[]string{LabelUnderConstrained}},
		{"unknown IRR counts as 0",
			ClassifyInput{FR: f(0)},
			[]string{LabelUnderConstrained}},
		{"unknown FR does not apply",
			ClassifyInput{IRR: f(80)},
			[]string{LabelNeedsMoreEvidence}},
		{"retry-dependent",
			ClassifyInput{FPS: f(84), Final: f(95), Retry: f(15), IRR: f(100)},
			[]string{LabelRetryDependent}},
		{"retry-dependent needs retry known",
			ClassifyInput{FPS: f(84), Final: f(95), IRR: f(100)},
			[]string{LabelNeedsMoreEvidence}},
		{"retry rate below 15",
			ClassifyInput{FPS: f(84), Final: f(95), Retry: f(14.9), IRR: f(100)},
			[]string{LabelNeedsMoreEvidence}},
		{"everything at once, in order",
			ClassifyInput{CallValidity: f(60), SPV: f(80), FPS: f(40), Final: f(96), Retry: f(60), FR: f(100), IRR: f(100)},
			[]string{LabelLowValidity, LabelOverConstrained, LabelRetryDependent}},
		{"contradictory schema on probes",
			ClassifyInput{CallValidity: f(0), SPV: nil, FR: f(100), IRR: f(100)},
			[]string{LabelOverConstrained}},
		{"weak schema on probes",
			ClassifyInput{CallValidity: f(100), SPV: f(50), FPS: f(50), FR: f(0), IRR: f(0)},
			[]string{LabelHighValidityLowSemantic, LabelUnderConstrained}},
		{"nothing known",
			ClassifyInput{},
			[]string{LabelUnderConstrained}},
	}
	for _, tc := range tests {
		if got := Classify(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("%s: Classify = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestCustomFitness(t *testing.T) {
	// 0.45*80 + 0.20*90 + 0.15*100 + 0.10*(100-10) + 0.10*95 = 36+18+15+9+9.5
	if got := CustomFitness(f(80), f(90), f(100), f(10), f(95)); got == nil || math.Abs(*got-87.5) > 1e-12 {
		t.Fatalf("CustomFitness = %v, want 87.5", got)
	}
	if got := CustomFitness(f(100), f(100), f(100), f(0), f(100)); got == nil || math.Abs(*got-100) > 1e-12 {
		t.Fatalf("perfect CustomFitness = %v, want 100", got)
	}
	for i := range 5 {
		args := []*float64{f(80), f(90), f(100), f(10), f(95)}
		args[i] = nil
		if got := CustomFitness(args[0], args[1], args[2], args[3], args[4]); got != nil {
			t.Errorf("input %d unknown: CustomFitness = %v, want nil", i, *got)
		}
	}
}

func TestGapAndModelSensitivity(t *testing.T) {
	tests := []struct {
		larger, smaller *float64
		gap, ms         *float64
		sensitive       bool
	}{
		{f(90), f(80), f(10), f(90), false},
		{f(90), f(75), f(15), f(85), true},
		{f(60), f(75), f(-15), f(85), true}, // the smaller model does better: still sensitive
		{f(60), f(74.5), f(-14.5), f(85.5), false},
		{f(50), f(50), f(0), f(100), false},
		{nil, f(50), nil, nil, false},
		{f(50), nil, nil, nil, false},
	}
	for _, tc := range tests {
		gap := Gap(tc.larger, tc.smaller)
		ms, sensitive := ModelSensitivity(gap)
		if !eqPtr(gap, tc.gap) || !eqPtr(ms, tc.ms) || sensitive != tc.sensitive {
			t.Errorf("Gap(%s, %s) = %s, MS %s, sensitive %v; want %s, %s, %v", show(tc.larger), show(tc.smaller),
				show(gap), show(ms), sensitive, show(tc.gap), show(tc.ms), tc.sensitive)
		}
	}
}
