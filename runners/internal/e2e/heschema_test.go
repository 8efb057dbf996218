package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hesLogRow is what the test reads of a line of HESchema's run log.
type hesLogRow struct {
	CaseID         string `json:"caseId"`
	Cluster        string `json:"cluster"`
	Arm            string `json:"arm"`
	Repeat         int    `json:"repeat"`
	Status         string `json:"status"`
	FirstPass      bool   `json:"firstPassSuccess"`
	Final          bool   `json:"finalSuccess"`
	RepairAttempts int    `json:"repairAttempts"`
	Attempts       []any  `json:"attempts"`
}

// TestHESchemaRunLog: a HESchema run (testdata/heschema_run: its config.json
// and run log, one row per case, repeat and arm, a provider error asked again
// in a later line), converted by fbeval-batch from-heschema and scored by
// fbeval, gives every row HESchema's first-pass and final success, attempts
// and provider error, and each arm and paired effect the figures HESchema's
// metrics.py gives from the same rows (the formulas of summarize and
// paired_effect that need no evaluation details).
func TestHESchemaRunLog(t *testing.T) {
	needBinaries(t)
	dir := t.TempDir()
	run, _ := filepath.Abs(filepath.Join("testdata", "heschema_run"))
	res := pipeline(t, dir, []string{"fbeval-batch", "from-heschema", run, "-o", "responses.jsonl"})
	// three rows end in a provider error: said, exit 1
	if res.codes[0] != 1 || !strings.Contains(res.stderr, "252 rows of 257 lines (5 replaced by a later line): 374 answers, 3 provider errors") ||
		!strings.Contains(res.stderr, "--repeats 2 --repairs 2 --input-price 0.15 --output-price 0.6 (from config.json)") {
		t.Fatalf("from-heschema: exit %v\n%s", res.codes, res.stderr)
	}
	res = pipeline(t, dir, []string{"fbeval", "score", "toolcall", "--limit", "1", "--repeats", "2", "--repairs", "2",
		"--responses", "responses.jsonl", "--cases-out", "cases.jsonl", "--format", "json", "-o", "report.json"})
	if res.codes[0] != 1 || !strings.Contains(res.stderr, "252 rows from responses.jsonl") || !strings.Contains(res.stderr, "0 unknown ids, 0 rejected") {
		t.Fatalf("score: exit %v\n%s", res.codes, res.stderr)
	}

	// HESchema's rows: the last line of each case, repeat and arm
	rows := map[string]hesLogRow{}
	f, err := os.Open(filepath.Join(run, "runs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r hesLogRow
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		rows[fmt.Sprintf("%s.%s.r%d", r.CaseID, r.Arm, r.Repeat+1)] = r
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}

	// every row as HESchema judged it
	data, err := os.ReadFile(filepath.Join(dir, "cases.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for line := range strings.Lines(string(data)) {
		var c struct {
			CaseID        string `json:"case_id"`
			Arm           string `json:"arm"`
			Repeat        int    `json:"repeat"`
			FirstPass     bool   `json:"first_pass_success"`
			Final         bool   `json:"final_success"`
			ProviderError bool   `json:"provider_error"`
			Attempts      []any  `json:"attempts"`
		}
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatal(err)
		}
		key := fmt.Sprintf("%s.%s.r%d", c.CaseID, c.Arm, c.Repeat)
		h, ok := rows[key]
		if !ok {
			t.Fatalf("%s: not in HESchema's log", key)
		}
		attempts := len(h.Attempts)
		if h.Status != "ok" {
			attempts++ // the attempt the provider failed
		}
		if c.FirstPass != h.FirstPass || c.Final != h.Final || len(c.Attempts) != attempts || c.ProviderError != (h.Status != "ok") {
			t.Errorf("%s: fbeval first %v final %v attempts %d provider error %v; HESchema %v %v %d %v",
				key, c.FirstPass, c.Final, len(c.Attempts), c.ProviderError, h.FirstPass, h.Final, attempts, h.Status != "ok")
		}
		n++
	}
	if n != len(rows) {
		t.Fatalf("%d rows scored, HESchema's log has %d", n, len(rows))
	}

	// each arm and paired effect as HESchema's metrics.py computes them
	var rep struct {
		Arms map[string]struct {
			Runs           int     `json:"runs"`
			ProviderErrors int     `json:"provider_errors"`
			FirstPass      float64 `json:"first_pass_success_percent"`
			Final          float64 `json:"final_success_percent"`
			Retry          float64 `json:"retry_rate_percent"`
			MeanRepairs    float64 `json:"mean_repair_attempts"`
		} `json:"arms"`
		Effects map[string]struct {
			Baseline  float64 `json:"baseline_success_percent"`
			Treatment float64 `json:"treatment_success_percent"`
			Uplift    float64 `json:"absolute_uplift_points"`
			Wins      int     `json:"discordant_wins"`
			Losses    int     `json:"discordant_losses"`
			Clusters  int     `json:"independent_clusters"`
		} `json:"effects"`
	}
	if data, err = os.ReadFile(filepath.Join(dir, "report.json")); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	near := func(what string, got, want float64) { nearHESchema(t, what, got, want) }
	for _, arm := range []string{"no_schema", "minimal_schema", "input_schema"} {
		var runs, errs, first, final, retried, repairs int
		for _, r := range rows {
			if r.Arm != arm {
				continue
			}
			runs++
			errs += b2i(r.Status != "ok")
			first += b2i(r.FirstPass)
			final += b2i(r.Final)
			retried += b2i(r.RepairAttempts > 0)
			repairs += r.RepairAttempts
		}
		a := rep.Arms[arm]
		if a.Runs != runs || a.ProviderErrors != errs {
			t.Errorf("%s: fbeval %d runs, %d provider errors; HESchema %d, %d", arm, a.Runs, a.ProviderErrors, runs, errs)
		}
		near(arm+" first-pass success", a.FirstPass, float64(first)*100/float64(runs))
		near(arm+" final success", a.Final, float64(final)*100/float64(runs))
		near(arm+" retry rate", a.Retry, float64(retried)*100/float64(runs))
		near(arm+" mean repair attempts", a.MeanRepairs, float64(repairs)/float64(runs))
	}
	for name, base := range map[string]string{"input_schema_vs_no_schema": "no_schema", "input_schema_vs_minimal_schema": "minimal_schema"} {
		// paired_effect: each cluster's mean of its (baseline, treatment)
		// pairs, then the mean of the clusters' means
		type sums struct{ x, y, n float64 }
		clusters := map[string]*sums{}
		wins, losses := 0, 0
		for _, r := range rows {
			if r.Arm != "input_schema" {
				continue
			}
			b := rows[fmt.Sprintf("%s.%s.r%d", r.CaseID, base, r.Repeat+1)]
			x, y := b2i(b.FirstPass), b2i(r.FirstPass)
			s := clusters[r.Cluster]
			if s == nil {
				s = &sums{}
				clusters[r.Cluster] = s
			}
			s.x, s.y, s.n = s.x+float64(x), s.y+float64(y), s.n+1
			wins += b2i(y > x)
			losses += b2i(x > y)
		}
		var before, after float64
		for _, s := range clusters {
			before += s.x / s.n
			after += s.y / s.n
		}
		before, after = before/float64(len(clusters)), after/float64(len(clusters))
		e := rep.Effects[name]
		if e.Wins != wins || e.Losses != losses || e.Clusters != len(clusters) {
			t.Errorf("%s: fbeval %d wins, %d losses, %d clusters; HESchema %d, %d, %d", name, e.Wins, e.Losses, e.Clusters, wins, losses, len(clusters))
		}
		near(name+" baseline", e.Baseline, before*100)
		near(name+" treatment", e.Treatment, after*100)
		near(name+" uplift", e.Uplift, (after-before)*100)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestHESchemaCompareModels: two HESchema runs (testdata/heschema_compare),
// converted, scored and compared by fbeval in both orders, give the input
// arm's gap, model sensitivity and both custom fitness values that HESchema's
// compare-models gives for them (recorded in compare_models.json); the
// model-sensitive flag is HESchema's for the smaller model first, and
// either-way where the larger comes first, as docs/statistics.md says.
func TestHESchemaCompareModels(t *testing.T) {
	needBinaries(t)
	dir := t.TempDir()
	data, _ := filepath.Abs(filepath.Join("testdata", "heschema_compare"))
	for _, run := range []string{"small", "large"} {
		res := pipeline(t, dir, []string{"fbeval-batch", "from-heschema", filepath.Join(data, run), "-o", run + ".jsonl"})
		if res.codes[0] != 0 || !strings.Contains(res.stderr, "126 rows of 126 lines") {
			t.Fatalf("from-heschema %s: exit %v\n%s", run, res.codes, res.stderr)
		}
		res = pipeline(t, dir, []string{"fbeval", "score", "toolcall", "--limit", "1", "--repeats", "1", "--repairs", "2",
			"--responses", run + ".jsonl", "--format", "json", "-o", run + ".json"})
		if res.codes[0] != 0 {
			t.Fatalf("score %s: exit %v\n%s", run, res.codes, res.stderr)
		}
	}
	raw, err := os.ReadFile(filepath.Join(data, "compare_models.json"))
	if err != nil {
		t.Fatal(err)
	}
	var hes map[string]struct {
		Gap       float64 `json:"modelGapPoints"`
		Stability float64 `json:"modelStabilityPercent"`
		Sensitive bool    `json:"modelSensitive"`
		FitSmall  float64 `json:"customFitnessSmall"`
		FitLarge  float64 `json:"customFitnessLarge"`
	}
	if err := json.Unmarshal(raw, &hes); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ order, a, b string }{{"small_then_large", "small", "large"}, {"large_then_small", "large", "small"}} {
		res := pipeline(t, dir, []string{"fbeval", "compare", tt.a + ".json", tt.b + ".json", "--format", "json", "-o", tt.order + ".json"})
		if res.codes[0] != 0 {
			t.Fatalf("compare %s: exit %v\n%s", tt.order, res.codes, res.stderr)
		}
		out, err := os.ReadFile(filepath.Join(dir, tt.order+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var cmp struct {
			Arms map[string]struct {
				Gap         float64 `json:"gap_points"`
				Sensitivity float64 `json:"model_sensitivity"`
				Sensitive   bool    `json:"model_sensitive"`
			} `json:"arms"`
			Fitness struct{ A, B float64 } `json:"custom_fitness_percent"`
		}
		if err := json.Unmarshal(out, &cmp); err != nil {
			t.Fatal(err)
		}
		h, f := hes[tt.order], cmp.Arms["input_schema"]
		near := func(what string, got, want float64) { nearHESchema(t, tt.order+" "+what, got, want) }
		near("gap", f.Gap, h.Gap)
		near("model sensitivity", f.Sensitivity, h.Stability)
		near("custom fitness of A", cmp.Fitness.A, h.FitSmall)
		near("custom fitness of B", cmp.Fitness.B, h.FitLarge)
		// HESchema reads its first report as the smaller model's: a larger gap
		// the other way is no sensitivity to it, and is to fbeval
		if want := h.Sensitive || math.Abs(h.Gap) >= 15; f.Sensitive != want {
			t.Errorf("%s: model sensitive %v, want %v (HESchema %v, gap %v)", tt.order, f.Sensitive, want, h.Sensitive, h.Gap)
		}
	}
}

// nearHESchema reports what differs between fbeval's figure and HESchema's by more
// than floating point's rounding.
func nearHESchema(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
		t.Errorf("%s: fbeval %v, HESchema %v", what, got, want)
	}
}
