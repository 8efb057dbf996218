package toolcall

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/contract/strictjson"
	"github.com/fbeval/fbeval/fixtures/fixturetest"
)

// interopDir is HESchema's published data, read in place (never copied here).
func interopDir(t testing.TB) string {
	t.Helper()
	fixturetest.Interop(t, "heschema", "cases.jsonl")
	return fixturetest.Interop(t, "heschema")
}

func loadInteropCases(t testing.TB, dir string) []contract.Case {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "cases.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []contract.Case
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var c contract.Case
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// interopTools builds the six tool contracts from the interop reference schemas and
// the spec's policy column.
func interopTools(t testing.TB, dir string) map[string]contract.Tool {
	t.Helper()
	names := map[string]string{
		"flights": "search_flights", "hotels": "search_hotels", "calendar": "prepare_event",
		"payments": "prepare_transfer", "inventory": "reserve_stock_draft", "search": "search_web",
	}
	policies := map[string]contract.Policy{
		"hotels":    {Ordered: [][2]string{{"checkIn", "checkOut"}}},
		"payments":  {Max: map[string]json.Number{"amountMinor": "100000"}},
		"inventory": {Max: map[string]json.Number{"quantity": "50"}},
	}
	tools := map[string]contract.Tool{}
	for domain, name := range names {
		ref, err := os.ReadFile(filepath.Join(dir, "schemas", domain+".reference.json"))
		if err != nil {
			t.Fatal(err)
		}
		tools[domain] = contract.Tool{Domain: domain, Name: name, ReferenceSchema: ref, Policy: policies[domain]}
	}
	return tools
}

// TestInteropGoldAnswers scores every HESchema case's expected envelope as the output:
// all 480 succeed under the reference schema.
func TestInteropGoldAnswers(t *testing.T) {
	dir := interopDir(t)
	cases := loadInteropCases(t, dir)
	if len(cases) != 480 {
		t.Fatalf("%d cases, want 480", len(cases))
	}
	judges := map[string]*Judge{}
	for domain, tool := range interopTools(t, dir) {
		judges[domain] = mustJudge(t, tool, "")
	}
	actions := map[string]int{}
	for _, raw := range cases {
		c, err := PrepareCase(raw)
		if err != nil {
			t.Fatal(err)
		}
		r := judges[raw.Domain].Score(string(raw.Expected), c)
		if !r.Success || len(r.Errors) != 0 {
			t.Errorf("%s: gold answer scored %+v", raw.ID, r)
		}
		if err := quickAgrees(judges[raw.Domain], string(raw.Expected), c); err != "" {
			t.Errorf("%s: %s", raw.ID, err)
		}
		actions[r.Action]++
	}
	want := map[string]int{contract.ActionCallTool: 240, contract.ActionAsk: 180, contract.ActionRefuse: 60}
	for a, n := range want {
		if actions[a] != n {
			t.Errorf("%d gold %s answers, want %d", actions[a], a, n)
		}
	}
}

// TestInteropConflictDrafts scores the unconfirmed draft of every conflict case as the
// call: the confirmed state must catch it.
func TestInteropConflictDrafts(t *testing.T) {
	dir := interopDir(t)
	tools := interopTools(t, dir)
	n := 0
	for _, raw := range loadInteropCases(t, dir) {
		if raw.Category != "conflict" {
			continue
		}
		c, err := PrepareCase(raw)
		if err != nil {
			t.Fatal(err)
		}
		if !c.HasState() {
			t.Fatalf("%s: conflict case without confirmed state", raw.ID)
		}
		// Replace one bound value with another string: a wrong draft.
		st := c.State()
		k := st.Members()[0].Key
		args := with(c.ExpectedArguments(), k, strictjson.StringValue("different-place"))
		out := call(tools[raw.Domain].Name, strictjson.Canonical(args))
		j := mustJudge(t, tools[raw.Domain], "")
		r := j.Score(out, c)
		if err := quickAgrees(j, out, c); err != "" {
			t.Errorf("%s: %s", raw.ID, err)
		}
		if r.Success || r.SemanticallyRight {
			t.Errorf("%s: wrong draft succeeded", raw.ID)
		}
		found := false
		for _, e := range r.PublicFeedback(c) {
			found = found || (e.Code == CodeStateMismatch && e.Path == "/arguments/"+k)
		}
		if !found {
			t.Errorf("%s: no public STATE_MISMATCH at %s in %+v", raw.ID, k, r.Errors)
		}
		n++
	}
	if n != 60 {
		t.Errorf("%d conflict cases, want 60", n)
	}
}

// TestInteropProbes checks the probe figures of the spec for every schema variant.
func TestInteropProbes(t *testing.T) {
	dir := interopDir(t)
	tools := interopTools(t, dir)
	var cases []*Case
	for _, raw := range loadInteropCases(t, dir) {
		c, err := PrepareCase(raw)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, c)
	}
	tests := []struct {
		variant string
		irr, fr float64
	}{
		{"reference", 100, 0},
		{"rich", 100, 0},
		{"complex-equivalent", 100, 0},
		{"minimal", 100 * 2000.0 / 2520.0, 0}, // 79.37: type and required kept, bounds and extras lost
		{"weak", 0, 0},
		{"contradictory", 100, 100},
	}
	for _, tt := range tests {
		var total ProbeStats
		for _, domain := range []string{"calendar", "flights", "hotels", "inventory", "payments", "search"} {
			cand, err := os.ReadFile(filepath.Join(dir, "schemas", domain+"."+tt.variant+".json"))
			if err != nil {
				t.Fatal(err)
			}
			st := Probes(mustJudge(t, tools[domain], string(cand)), cases)
			if st.ValidProbeCount != 40 {
				t.Errorf("%s/%s: %d valid probes, want 40", domain, tt.variant, st.ValidProbeCount)
			}
			total.ValidProbeCount += st.ValidProbeCount
			total.FalseRejections += st.FalseRejections
			total.InvalidProbeCount += st.InvalidProbeCount
			total.InvalidRejected += st.InvalidRejected
		}
		if total.InvalidProbeCount != 2520 {
			t.Errorf("%s: %d counted invalid probes, want 2520", tt.variant, total.InvalidProbeCount)
		}
		irr := *percent(total.InvalidRejected, total.InvalidProbeCount)
		fr := *percent(total.FalseRejections, total.ValidProbeCount)
		if math.Abs(irr-tt.irr) > 1e-9 || math.Abs(fr-tt.fr) > 1e-9 {
			t.Errorf("%s: IRR %.2f FR %.2f, want %.2f and %.2f", tt.variant, irr, fr, tt.irr, tt.fr)
		}
	}
}

func BenchmarkScoreInteropGold(b *testing.B) {
	dir := interopDir(b)
	tools := interopTools(b, dir)
	judges := map[string]*Judge{}
	for d, tool := range tools {
		judges[d] = mustJudge(b, tool, "")
	}
	type item struct {
		j   *Judge
		c   *Case
		out string
	}
	var items []item
	for _, raw := range loadInteropCases(b, dir) {
		c, err := PrepareCase(raw)
		if err != nil {
			b.Fatal(err)
		}
		items = append(items, item{judges[raw.Domain], c, string(raw.Expected)})
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		it := items[i%len(items)]
		if r := it.j.Score(it.out, it.c); !r.Success {
			b.Fatal(r.Errors)
		}
		i++
	}
}
