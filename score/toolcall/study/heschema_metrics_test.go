package study

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/fbeval/fbeval/contract"
	tc "github.com/fbeval/fbeval/score/toolcall"
)

// A row's latency covers all its attempts, and a provider error at any attempt
// makes it a provider-error row, as in HESchema's summarize (the latencies below
// are what it gives for the same rows). Tokens and cost are fbeval's: summed over
// the records that carry token counts, the others counted, where HESchema gives
// null for the whole arm.
func TestMetricsRowsLikeHESchema(t *testing.T) {
	prepared, err := tc.PrepareCase(contract.Case{ID: "c", Domain: "d",
		Expected: json.RawMessage(`{"action":"call_tool","tool":"t","arguments":{"a":1},"missingFields":[],"reason":""}`)})
	if err != nil {
		t.Fatal(err)
	}
	expectCall := prepared.ExpectedAction() == contract.ActionCallTool
	i64 := func(n int64) *int64 { return &n }
	known := uint32(fPresent | fLat | fIn | fOut)
	ok := func(lat float64, in, out int64) att {
		return att{flags: known | fSuccess | fSemantic | fCandValid | fCall, lat: lat, in: in, out: out}
	}
	codes := []uint16{2} // JSON_INVALID
	failed := func(lat float64, in, out int64) att {
		return att{flags: known, ncodes: 1, lat: lat, in: in, out: out}
	}
	providerErr := att{flags: fPresent | fProvider}
	noLatency := ok(0, 3, 4)
	noLatency.flags &^= fLat
	noTokens := ok(5, 0, 0)
	noTokens.flags &^= fIn
	rowOf := func(atts ...att) row { return atts }

	a := rowOf(ok(10, 5, 7))                   // first-pass success
	b := rowOf(failed(20, 1, 1), ok(30, 2, 2)) // repaired: latency 50, tokens 3/3
	c := rowOf(failed(40, 1, 1), providerErr)  // provider error at the repair
	d := rowOf(providerErr)                    // provider error at once
	e := rowOf(noLatency)                      // no latency reported
	f := rowOf(noTokens)                       // tokens unknown
	missing := rowOf(att{})                    // no response at all
	prices := &contract.Prices{InputPerMillionUSD: 3, OutputPerMillionUSD: 15}
	// the cost of the token totals, rounded once (in × 3 + out × 15 is exact)
	cost := func(in, out float64) float64 { return (in*3 + out*15) / 1e6 }

	tests := []struct {
		name             string
		rows             []row
		providerErrors   int
		p50, p95         *float64
		in, out          *int64
		without          int
		totalCost, perOK *float64
	}{
		{"every row known", []row{a, b}, 0, ptrF(30), ptrF(48), i64(8), i64(10), 0,
			ptrF(cost(8, 10)), ptrF(cost(8, 10) / 2)},
		{"provider error at a repair", []row{a, b, c}, 1, ptrF(30), ptrF(48), i64(9), i64(11), 1,
			ptrF(cost(9, 11)), nil},
		{"provider error at once", []row{a, d}, 1, ptrF(10), ptrF(10), i64(5), i64(7), 1, ptrF(cost(5, 7)), nil},
		{"latency unknown", []row{a, e}, 0, ptrF(10), ptrF(10), i64(8), i64(11), 0,
			ptrF(cost(8, 11)), ptrF(cost(8, 11) / 2)},
		{"tokens unknown", []row{a, f}, 0, ptrF(7.5), ptrF(9.75), i64(5), i64(7), 1, ptrF(cost(5, 7)), nil},
		{"missing row left out", []row{a, missing}, 0, ptrF(10), ptrF(10), i64(5), i64(7), 0, ptrF(cost(5, 7)), ptrF(cost(5, 7))},
		{"only failures", []row{c}, 1, nil, nil, i64(1), i64(1), 1, ptrF(cost(1, 1)), nil},
		{"only provider errors", []row{d}, 1, nil, nil, nil, nil, 1, nil, nil},
	}
	eq := func(x, y *float64) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	eqi := func(x, y *int64) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	show := func(p *float64) any {
		if p == nil {
			return nil
		}
		return *p
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			acc := newMetricsAcc()
			for _, r := range tt.rows {
				acc.add(r, expectCall, codes, prices)
			}
			m := acc.finish([]string{codeMissing, codeProvider, tc.CodeJSONInvalid})
			if m.ProviderErrors != tt.providerErrors {
				t.Errorf("provider errors %d, want %d", m.ProviderErrors, tt.providerErrors)
			}
			if !eq(m.LatencyP50, tt.p50) || !eq(m.LatencyP95, tt.p95) {
				t.Errorf("latency p50 %v p95 %v, want %v %v", show(m.LatencyP50), show(m.LatencyP95), show(tt.p50), show(tt.p95))
			}
			if !eqi(m.InputTokens, tt.in) || !eqi(m.OutputTokens, tt.out) {
				t.Errorf("tokens %v %v, want %v %v", m.InputTokens, m.OutputTokens, tt.in, tt.out)
			}
			if m.RecordsWithoutTokens != tt.without {
				t.Errorf("records without tokens %d, want %d", m.RecordsWithoutTokens, tt.without)
			}
			if !eq(m.TotalCostUSD, tt.totalCost) || !eq(m.CostPerSuccessUSD, tt.perOK) {
				t.Errorf("cost %v per success %v, want %v %v", show(m.TotalCostUSD), show(m.CostPerSuccessUSD), show(tt.totalCost), show(tt.perOK))
			}
		})
	}
}

// TestUSD: the cost of the token totals, exact and rounded once: what summing
// each record's own cost in float64 gave (0.0008147999999999949) is not what
// the prices and tokens make (0.0008148); a total past float64's range is its
// largest value, said saturated.
func TestUSD(t *testing.T) {
	for _, tt := range []struct {
		in, out       int64
		input, output float64
		n             int
		total, per    float64
		saturated     bool
	}{
		{1438, 3355, 0.1, 0.2, 480, 0.0008148, 1.6975e-06, false},
		{1, 2, 0.3, 0.6, 3, 0.0000015, 0.0000005, false},
		{0, 0, 3, 15, 0, 0, 0, false},
		{math.MaxInt64, math.MaxInt64, 1e300, 1e300, 2, math.MaxFloat64, math.MaxFloat64 / 2, true},
	} {
		total, per, sat := usd(tt.in, tt.out, &contract.Prices{InputPerMillionUSD: tt.input, OutputPerMillionUSD: tt.output}, tt.n)
		if total != tt.total || per != tt.per || sat != tt.saturated {
			t.Errorf("usd(%d, %d at %v, %v; %d) = %v, %v, %v; want %v, %v, %v", tt.in, tt.out, tt.input, tt.output, tt.n, total, per, sat, tt.total, tt.per, tt.saturated)
		}
	}
}
