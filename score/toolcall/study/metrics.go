package study

import (
	"math"
	"slices"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/score/report"
	"github.com/fbeval/fbeval/score/stats"
)

// ArmMetrics are the figures of one arm over a set of rows (spec section 5). Rates
// are percentages; a rate whose denominator is zero is nil. A row's latency covers
// all its attempts, as HESchema's does: a row with a provider error at any attempt
// has no latency. Tokens and cost are summed over every response record (attempt)
// that carries both token counts; RecordsWithoutTokens counts the records that do
// not (provider errors mostly), so one provider error does not hide the totals
// (HESchema leaves them unknown then). Rows with no response at all are left out
// of the tokens, cost and latency (HESchema has no such rows).
type ArmMetrics struct {
	Runs               int
	ProviderErrors     int // rows with a provider error at any attempt
	MissingResponses   int // rows whose first attempt has no response
	FirstPassSuccess   *float64
	FirstPassWilson    *[2]float64
	FinalSuccess       *float64
	SemanticAccuracy   *float64
	CallSchemaValidity *float64
	SemanticPrecision  *float64 // among valid calls
	RetryRate          *float64
	RecoveryRate       *float64
	MeanRepairAttempts *float64
	InputTokens        *int64 // over the records with token counts; nil when none has them
	OutputTokens       *int64
	// RecordsWithoutTokens counts the response records (attempts) summed into
	// neither token total: those without both counts.
	RecordsWithoutTokens int
	TotalCostUSD         *float64 // priced over the same records as the tokens
	CostPerSuccessUSD    *float64
	LatencyP50           *float64
	LatencyP95           *float64
	ErrorCounts          map[string]int
	// Saturated is set when a token total or the cost passed the largest value
	// it can hold and stopped there (math.MaxInt64, math.MaxFloat64).
	Saturated          bool
	firstSuccesses     int
	finalSuccesses     int
	validCalls         int
	semanticValidCalls int
	expectedCalls      int
}

func pct(n, d int) *float64 {
	if d == 0 {
		return nil
	}
	v := 100 * float64(n) / float64(d)
	return &v
}

// satAdd adds two counts that are never negative, stopping at math.MaxInt64.
func satAdd(a, b int64) (int64, bool) {
	if a > math.MaxInt64-b {
		return math.MaxInt64, true
	}
	return a + b, false
}

// computeMetrics sums rows (all of one arm) into ArmMetrics.
func computeMetrics(rows []*caseRow, prices *contract.Prices) *ArmMetrics {
	m := &ArmMetrics{Runs: len(rows), ErrorCounts: map[string]int{}}
	var semantic, retried, firstFailed, recovered, repairs int
	var inTok, outTok int64
	withTokens := 0
	var cost float64
	var latencies []float64
	for _, r := range rows {
		a := r.first()
		switch {
		case !a.present:
			m.MissingResponses++
			m.ErrorCounts["MISSING_RESPONSE"]++
		case a.provider != nil:
			m.ErrorCounts["PROVIDER_ERROR"]++
		default:
			for _, e := range a.result.Errors {
				m.ErrorCounts[e.Code]++
			}
		}
		if r.providerError() {
			m.ProviderErrors++
		}
		first, final := r.firstSuccess(), r.finalSuccess()
		if first {
			m.firstSuccesses++
		} else {
			firstFailed++
			if final {
				recovered++
			}
		}
		if final {
			m.finalSuccesses++
		}
		ok := a.present && a.provider == nil
		if ok && a.result.SemanticallyRight {
			semantic++
		}
		if r.Prepared.ExpectedAction() == contract.ActionCallTool {
			m.expectedCalls++
			if ok && a.result.Action == contract.ActionCallTool && a.result.CandidateValid {
				m.validCalls++
				if a.result.SemanticallyRight {
					m.semanticValidCalls++
				}
			}
		}
		if n := r.repairs(); n > 0 {
			retried++
			repairs += n
		}
		if !a.present {
			continue // no attempt: nothing to count (the row is reported missing)
		}
		if lat, ok := r.latency(); ok {
			latencies = append(latencies, lat)
		}
		for i := range r.attempts {
			at := &r.attempts[i]
			if !at.present {
				continue
			}
			if at.inTokens == nil || at.outTokens == nil {
				m.RecordsWithoutTokens++
				continue
			}
			in, out := *at.inTokens, *at.outTokens
			withTokens++
			var sat1, sat2 bool
			inTok, sat1 = satAdd(inTok, in)
			outTok, sat2 = satAdd(outTok, out)
			m.Saturated = m.Saturated || sat1 || sat2
			if prices != nil {
				// per record, then summed
				cost += (float64(in)*prices.InputPerMillionUSD + float64(out)*prices.OutputPerMillionUSD) / 1e6
				if math.IsInf(cost, 0) || math.IsNaN(cost) {
					cost, m.Saturated = math.MaxFloat64, true
				}
			}
		}
	}
	m.FirstPassSuccess = pct(m.firstSuccesses, m.Runs)
	if lo, hi, ok := stats.Wilson(m.firstSuccesses, m.Runs); ok {
		m.FirstPassWilson = &[2]float64{lo, hi}
	}
	m.FinalSuccess = pct(m.finalSuccesses, m.Runs)
	m.SemanticAccuracy = pct(semantic, m.Runs)
	m.CallSchemaValidity = pct(m.validCalls, m.expectedCalls)
	m.SemanticPrecision = pct(m.semanticValidCalls, m.validCalls)
	m.RetryRate = pct(retried, m.Runs)
	m.RecoveryRate = pct(recovered, firstFailed)
	if m.Runs > 0 {
		v := float64(repairs) / float64(m.Runs)
		m.MeanRepairAttempts = &v
	}
	if withTokens > 0 {
		m.InputTokens, m.OutputTokens = &inTok, &outTok
		if prices != nil {
			m.TotalCostUSD = &cost
			// A cost per success from part of the records would understate it.
			if m.finalSuccesses > 0 && m.RecordsWithoutTokens == 0 {
				per := cost / float64(m.finalSuccesses)
				m.CostPerSuccessUSD = &per
			}
		}
	}
	m.LatencyP50, m.LatencyP95 = stats.LatencyPercentiles(latencies)
	return m
}

// metrics returns the metrics as the report writes them (an arm's decoding and
// models are the caller's to add).
func (m *ArmMetrics) metrics() report.Metrics {
	codes := make([]string, 0, len(m.ErrorCounts))
	for c := range m.ErrorCounts {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	counts := make(report.Ordered[int], len(codes))
	for i, c := range codes {
		counts[i] = report.Entry[int]{Key: c, Value: m.ErrorCounts[c]}
	}
	without := m.RecordsWithoutTokens
	return report.Metrics{
		Runs:                 m.Runs,
		ProviderErrors:       m.ProviderErrors,
		MissingResponses:     m.MissingResponses,
		FirstPassSuccess:     m.FirstPassSuccess,
		FirstPassWilson95:    m.FirstPassWilson,
		FinalSuccess:         m.FinalSuccess,
		SemanticAccuracy:     m.SemanticAccuracy,
		CallSchemaValidity:   m.CallSchemaValidity,
		SemanticPrecision:    m.SemanticPrecision,
		RetryRate:            m.RetryRate,
		RecoveryRate:         m.RecoveryRate,
		MeanRepairAttempts:   m.MeanRepairAttempts,
		InputTokens:          m.InputTokens,
		OutputTokens:         m.OutputTokens,
		RecordsWithoutTokens: &without,
		TotalCostUSD:         m.TotalCostUSD,
		CostPerSuccessUSD:    m.CostPerSuccessUSD,
		LatencyP50Ms:         m.LatencyP50,
		LatencyP95Ms:         m.LatencyP95,
		ErrorCounts:          counts,
	}
}
