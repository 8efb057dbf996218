package study

import (
	"math"
	"math/big"
	"slices"
	"strconv"

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

// metricsBy sums the rows into ArmMetrics per (key of the row's case, arm), in
// one pass over the rows.
func (run *Run) metricsBy(key func(*contract.Case) string, prices *contract.Prices) map[[2]string]*ArmMetrics {
	arms := run.Plan.Study.Arms
	keys, caseKey := run.caseGroups(key)
	accs := make([]*metricsAcc, len(keys)*len(arms))
	// rows go case by case, repeat by repeat, arm by arm (New)
	perCase := run.Plan.Study.Repeats * len(arms)
	rows := make([]int, len(keys)) // rows of one arm in each group
	for _, k := range caseKey {
		rows[k] += run.Plan.Study.Repeats
	}
	for ci, k := range caseKey {
		group := accs[k*len(arms) : (k+1)*len(arms)]
		for a := range group {
			if group[a] == nil {
				group[a] = newMetricsAcc()
				group[a].rows = rows[k]
			}
		}
		expectCall := run.prepared[ci].ExpectedAction() == contract.ActionCallTool
		for i := ci * perCase; i < (ci+1)*perCase; i += len(arms) {
			for a, acc := range group {
				acc.add(run.rowAt(i+a), expectCall, run.codes, prices)
			}
		}
	}
	out := make(map[[2]string]*ArmMetrics, len(accs))
	for g, acc := range accs {
		if acc != nil {
			out[[2]string{keys[g/len(arms)], arms[g%len(arms)]}] = acc.finish(run.codeNames)
		}
	}
	return out
}

// caseGroups groups the cases that have rows by key: the distinct keys in the
// order the cases first give them, and the index in keys of each case's key.
func (run *Run) caseGroups(key func(*contract.Case) string) (keys []string, caseKey []int) {
	index := map[string]int{}
	caseKey = make([]int, run.rowCases())
	for ci := range caseKey {
		k := key(&run.Plan.Cases[ci])
		i, ok := index[k]
		if !ok {
			i = len(keys)
			index[k] = i
			keys = append(keys, k)
		}
		caseKey[ci] = i
	}
	return keys, caseKey
}

// metricsAcc sums rows (all of one arm) into ArmMetrics.
type metricsAcc struct {
	m                                                 *ArmMetrics
	semantic, retried, firstFailed, recovered, repair int
	inTok, outTok                                     int64
	withTokens                                        int
	prices                                            *contract.Prices // set once a record with tokens is priced
	latencies                                         []float64
	rows                                              int   // the rows it will sum, when known: room for their latencies
	counts                                            []int // by code id
}

func newMetricsAcc() *metricsAcc {
	return &metricsAcc{m: &ArmMetrics{ErrorCounts: map[string]int{}}}
}

// count adds one to an error code's count.
func (acc *metricsAcc) count(id uint16) {
	if int(id) >= len(acc.counts) {
		acc.counts = append(acc.counts, make([]int, int(id)+1-len(acc.counts))...)
	}
	acc.counts[id]++
}

// add sums one row; expectCall is its case's expected action being call_tool,
// codes the arena the attempts' codes are in.
func (acc *metricsAcc) add(r row, expectCall bool, codes []uint16, prices *contract.Prices) {
	m := acc.m
	m.Runs++
	a := &r[0]
	switch {
	case !a.has(fPresent):
		m.MissingResponses++
		acc.count(codeMissingID)
	case a.has(fProvider):
		acc.count(codeProviderID)
	default:
		for _, c := range codes[a.codes : a.codes+a.ncodes] {
			acc.count(c)
		}
	}
	if r.providerError() {
		m.ProviderErrors++
	}
	first, final := r.firstSuccess(), r.finalSuccess()
	if first {
		m.firstSuccesses++
	} else {
		acc.firstFailed++
		if final {
			acc.recovered++
		}
	}
	if final {
		m.finalSuccesses++
	}
	ok := a.ok()
	if ok && a.has(fSemantic) {
		acc.semantic++
	}
	if expectCall {
		m.expectedCalls++
		if ok && a.has(fCall) && a.has(fCandValid) {
			m.validCalls++
			if a.has(fSemantic) {
				m.semanticValidCalls++
			}
		}
	}
	if n := r.repairs(); n > 0 {
		acc.retried++
		acc.repair += n
	}
	if !a.has(fPresent) {
		return // no attempt: nothing to count (the row is reported missing)
	}
	if lat, ok := r.latency(); ok {
		if acc.latencies == nil {
			// made once, at the first latency: a file without any allocates none
			acc.latencies = make([]float64, 0, acc.rows)
		}
		acc.latencies = append(acc.latencies, lat)
	}
	for i := range r {
		at := &r[i]
		if !at.has(fPresent) {
			continue
		}
		if !at.has(fIn) || !at.has(fOut) {
			m.RecordsWithoutTokens++
			continue
		}
		in, out := at.in, at.out
		acc.withTokens++
		var sat1, sat2 bool
		acc.inTok, sat1 = satAdd(acc.inTok, in)
		acc.outTok, sat2 = satAdd(acc.outTok, out)
		m.Saturated = m.Saturated || sat1 || sat2
		if prices != nil {
			acc.prices = prices // priced from the totals in finish
		}
	}
}

// usd is the cost of in and out tokens at prices, (in × input + out × output)
// / 10⁶, and the cost per each of n (n > 0; 0: none): the sum over every
// record of its own cost, computed in decimal from the token totals and the
// prices as written (0.1, not the binary fraction nearest it) and rounded
// once, so that no record order or float accumulation changes a digit (1,438
// and 3,355 tokens at 0.1 and 0.2 USD cost 0.0008148, where summing each
// record's cost gave 0.0008147999999999949). saturated: past the largest
// float64, given as that.
func usd(in, out int64, prices *contract.Prices, n int) (total, per float64, saturated bool) {
	var c, x big.Rat
	c.SetInt64(in)
	c.Mul(&c, decimalOf(prices.InputPerMillionUSD))
	x.SetInt64(out)
	x.Mul(&x, decimalOf(prices.OutputPerMillionUSD))
	c.Add(&c, &x)
	c.Quo(&c, big.NewRat(1_000_000, 1))
	total, _ = c.Float64()
	if math.IsInf(total, 0) {
		return math.MaxFloat64, math.MaxFloat64 / float64(max(n, 1)), true
	}
	if n > 0 {
		per, _ = c.Quo(&c, big.NewRat(int64(n), 1)).Float64()
	}
	return total, per, false
}

// decimalOf is the decimal a price was written as: the shortest digits that
// read back as f, exactly ("0.1" is 1/10).
func decimalOf(f float64) *big.Rat {
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(f, 'g', -1, 64))
	if !ok {
		return new(big.Rat).SetFloat64(f) // not reached: prices are finite
	}
	return r
}

// finish returns the figures of the rows added; names are the codes by id.
func (acc *metricsAcc) finish(names []string) *ArmMetrics {
	m := acc.m
	for id, n := range acc.counts {
		if n > 0 {
			m.ErrorCounts[names[id]] = n
		}
	}
	m.FirstPassSuccess = pct(m.firstSuccesses, m.Runs)
	if lo, hi, ok := stats.Wilson(m.firstSuccesses, m.Runs); ok {
		m.FirstPassWilson = &[2]float64{lo, hi}
	}
	m.FinalSuccess = pct(m.finalSuccesses, m.Runs)
	m.SemanticAccuracy = pct(acc.semantic, m.Runs)
	m.CallSchemaValidity = pct(m.validCalls, m.expectedCalls)
	m.SemanticPrecision = pct(m.semanticValidCalls, m.validCalls)
	m.RetryRate = pct(acc.retried, m.Runs)
	m.RecoveryRate = pct(acc.recovered, acc.firstFailed)
	if m.Runs > 0 {
		v := float64(acc.repair) / float64(m.Runs)
		m.MeanRepairAttempts = &v
	}
	if acc.withTokens > 0 {
		inTok, outTok := acc.inTok, acc.outTok
		m.InputTokens, m.OutputTokens = &inTok, &outTok
		// a cost of token totals stopped at their largest value would be
		// neither the cost nor that largest value: none is given
		if acc.prices != nil && inTok < math.MaxInt64 && outTok < math.MaxInt64 {
			cost, per, sat := usd(inTok, outTok, acc.prices, m.finalSuccesses)
			m.TotalCostUSD, m.Saturated = &cost, m.Saturated || sat
			// A cost per success from part of the records would understate it.
			if m.finalSuccesses > 0 && m.RecordsWithoutTokens == 0 {
				m.CostPerSuccessUSD = &per
			}
		}
	}
	m.LatencyP50, m.LatencyP95 = stats.SortedPercentiles(acc.latencies)
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
