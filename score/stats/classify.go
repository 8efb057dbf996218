package stats

import "math"

// Classification labels of the input arm, exactly as reports write them.
const (
	LabelLLMFriendly             = "LLM-friendly"
	LabelHighValidityLowSemantic = "high-validity-low-semantic-accuracy"
	LabelLowValidity             = "low-validity"
	LabelOverConstrained         = "over-constrained-on-probes"
	LabelUnderConstrained        = "under-constrained-on-probes"
	LabelRetryDependent          = "retry-dependent"
	LabelNeedsMoreEvidence       = "needs-more-evidence"
)

// ModelSensitiveGap is the absolute cross-model FPS gap, in points, from which a
// schema is called model-sensitive.
const ModelSensitiveGap = 15

// ClassifyInput holds the input arm's metrics, in percent. A nil field is unknown
// (a rate with a zero denominator, or probes not run).
type ClassifyInput struct {
	CallValidity *float64 // call schema validity %
	SPV          *float64 // semantic precision among valid calls %
	FPS          *float64 // first-attempt success %
	Final        *float64 // final success % after repairs
	Retry        *float64 // retry rate %
	FR           *float64 // false rejection % of valid probes
	IRR          *float64 // invalid rejection rate % of invalid probes
}

// Classify returns the labels that describe the input arm, in this order: at most
// one of LLM-friendly, high-validity-low-semantic-accuracy and low-validity (the
// first that applies, only when call validity and SPV are both known); then each of
// over-constrained-on-probes (FR > 0), under-constrained-on-probes (IRR < 80, an
// unknown IRR counting as 0) and retry-dependent (FPS < 85, final >= 95, retry >=
// 15) that applies; needs-more-evidence alone when none does. A rule whose inputs
// are unknown does not apply, except for IRR as said.
func Classify(in ClassifyInput) []string {
	var labels []string
	if in.CallValidity != nil && in.SPV != nil {
		v, spv := *in.CallValidity, *in.SPV
		switch {
		case v >= 95 && spv >= 90 && in.FPS != nil && *in.FPS >= 90:
			labels = append(labels, LabelLLMFriendly)
		case v >= 95 && spv < 85:
			labels = append(labels, LabelHighValidityLowSemantic)
		case v < 85:
			labels = append(labels, LabelLowValidity)
		}
	}
	if in.FR != nil && *in.FR > 0 {
		labels = append(labels, LabelOverConstrained)
	}
	irr := 0.0
	if in.IRR != nil {
		irr = *in.IRR
	}
	if irr < 80 {
		labels = append(labels, LabelUnderConstrained)
	}
	if in.FPS != nil && in.Final != nil && in.Retry != nil &&
		*in.FPS < 85 && *in.Final >= 95 && *in.Retry >= 15 {
		labels = append(labels, LabelRetryDependent)
	}
	if len(labels) == 0 {
		labels = append(labels, LabelNeedsMoreEvidence)
	}
	return labels
}

// CustomFitness returns 0.45 FPS + 0.20 SPV + 0.15 IRR + 0.10 (100 - retry) + 0.10 MS,
// a 0-100 score that rewards first-pass success, semantic precision, probe
// rejection, few retries and stability across models. It is nil when any input is
// unknown: MS exists only once a matched second model has been scored, and a
// missing term would silently lower the score.
func CustomFitness(fps, spv, irr, retry, ms *float64) *float64 {
	if fps == nil || spv == nil || irr == nil || retry == nil || ms == nil {
		return nil
	}
	// Each product is rounded on its own (no fused multiply-add) so every platform
	// writes the same digits.
	f := float64(0.45**fps) + float64(0.20**spv) + float64(0.15**irr) +
		float64(0.10*(100-*retry)) + float64(0.10**ms)
	return &f
}

// Gap returns the cross-model gap, larger-model FPS minus smaller-model FPS, in
// points: positive when the larger model does better. It is nil when either is
// unknown. Callers check first that the two reports are complete, error-free and
// configuration-matched.
func Gap(largerFPS, smallerFPS *float64) *float64 {
	if largerFPS == nil || smallerFPS == nil {
		return nil
	}
	g := *largerFPS - *smallerFPS
	return &g
}

// ModelSensitivity returns MS = 100 - |gap| and whether the schema is
// model-sensitive, |gap| >= 15. The absolute gap is used, so a schema that helps the
// smaller model by 15 points is as sensitive as one that helps the larger. ms is nil
// and sensitive false when gap is nil.
func ModelSensitivity(gap *float64) (ms *float64, sensitive bool) {
	if gap == nil {
		return nil, false
	}
	a := math.Abs(*gap)
	m := 100 - a
	return &m, a >= ModelSensitiveGap
}
