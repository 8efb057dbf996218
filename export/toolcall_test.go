package export

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/fixtures"
)

func quickPlan(t *testing.T, o Overrides) *ToolcallPlan {
	t.Helper()
	s, err := LoadStudy("toolcall-quick")
	if err != nil {
		t.Fatal(err)
	}
	s, err = Resolve(s, o)
	if err != nil {
		t.Fatal(err)
	}
	p, err := PlanToolcall(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestToolcallRequests(t *testing.T) {
	p := quickPlan(t, Overrides{})
	reqs, err := p.Requests(true)
	if err != nil {
		t.Fatal(err)
	}
	if want := 6 * 7 * 2 * 3; len(reqs) != want {
		t.Fatalf("%d requests, want %d", len(reqs), want)
	}
	ids := map[string]bool{}
	seeds := map[string]int64{}
	for _, r := range reqs {
		if ids[r.RequestID] {
			t.Fatalf("duplicate request id %s", r.RequestID)
		}
		ids[r.RequestID] = true
		if s, ok := seeds[r.CaseID]; ok && s != r.Seed {
			t.Errorf("%s: arms of one case and repeat have different seeds", r.RequestID)
		}
		seeds[r.CaseID] = r.Seed
		hasSchema := strings.Contains(r.Instructions, "JSON Schema of the arguments")
		if hasSchema != (r.Arm != contract.ArmNoSchema) {
			t.Errorf("%s: schema shown = %v", r.RequestID, hasSchema)
		}
		if r.ReferenceOutput == nil || !strings.HasPrefix(*r.ReferenceOutput, `{"action":`) {
			t.Errorf("%s: reference output %v", r.RequestID, r.ReferenceOutput)
		}
		if r.ResponseFormat != nil {
			t.Errorf("%s: prompt-only decoding carries a response format", r.RequestID)
		}
	}
}

// Hidden answers never reach the prompt: the expected envelope is not in any
// message, and a conflict case's context is.
func TestToolcallPromptsCarryContextNotAnswers(t *testing.T) {
	p := quickPlan(t, Overrides{Categories: []string{"conflict"}})
	for i := range p.Cases {
		c := &p.Cases[i]
		req, err := p.Request(c, contract.ArmInputSchema, 1, false)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(req.Prompt, "Application context:") || !strings.Contains(req.Prompt, "confirmedState") {
			t.Errorf("%s: context missing from the prompt:\n%s", c.ID, req.Prompt)
		}
		if strings.Contains(req.Prompt+req.Instructions, canonical(c.Expected)) {
			t.Errorf("%s: the expected envelope leaks into the prompt", c.ID)
		}
	}
}

func TestToolcallNativeSchema(t *testing.T) {
	p := quickPlan(t, Overrides{Decoding: contract.DecodingNativeSchema, Domains: []string{"hotels"}})
	reqs, err := p.Requests(false)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reqs {
		if r.ResponseFormat == nil || r.ResponseFormat.Type != "json_schema" {
			t.Fatalf("%s: no response format", r.RequestID)
		}
		if r.Arm == contract.ArmInputSchema && !strings.Contains(string(r.ResponseFormat.JSONSchema.Schema), `"maxNightlyPrice"`) {
			t.Errorf("%s: the arm's schema is not in the response format", r.RequestID)
		}
	}
}

func TestToolcallNativeTools(t *testing.T) {
	p := quickPlan(t, Overrides{Decoding: contract.DecodingNativeTools, Domains: []string{"hotels"}})
	reqs, err := p.Requests(false)
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) == 0 {
		t.Fatal("no requests")
	}
	for _, r := range reqs {
		if r.ResponseFormat != nil {
			t.Errorf("%s: native_tools decoding carries a response format", r.RequestID)
		}
		if len(r.Tools) != 1 {
			t.Fatalf("%s: %d tools, want 1", r.RequestID, len(r.Tools))
		}
		tool := r.Tools[0]
		if tool.Name != "search_hotels" || tool.Description == "" || tool.Strict {
			t.Errorf("%s: tool %+v", r.RequestID, tool)
		}
		params := string(tool.Parameters)
		switch r.Arm {
		case contract.ArmNoSchema:
			if params != "{}" {
				t.Errorf("%s: no_schema parameters %s, want {}", r.RequestID, params)
			}
		case contract.ArmInputSchema:
			if !strings.Contains(params, `"maxNightlyPrice"`) {
				t.Errorf("%s: the arm's schema is not the tool's parameters: %s", r.RequestID, params)
			}
		}
		line, err := contract.Marshal(r.Object(), contract.Compact)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(line), `,"tools":[{"name":"search_hotels","description":`) {
			t.Errorf("%s: record %s", r.RequestID, line)
		}
	}
}

func TestToolcallRequestsDeterministic(t *testing.T) {
	a, _ := quickPlan(t, Overrides{}).Requests(false)
	b, _ := quickPlan(t, Overrides{}).Requests(false)
	for i := range a {
		ja, _ := contract.Marshal(a[i].Object(), contract.Compact)
		jb, _ := contract.Marshal(b[i].Object(), contract.Compact)
		if string(ja) != string(jb) {
			t.Fatalf("request %d differs between two builds", i)
		}
	}
}

func TestSeed(t *testing.T) {
	if Seed(42, "hotels-001", 1) == Seed(42, "hotels-001", 2) || Seed(42, "hotels-001", 1) == Seed(43, "hotels-001", 1) {
		t.Error("seeds do not depend on repeat and study seed")
	}
	if s := Seed(42, "hotels-001", 1); s < 0 || s > 1<<31-1 {
		t.Errorf("seed %d out of range", s)
	}
	// docs/studies.md's formula, in Python:
	// int.from_bytes(sha256(b"fbeval-seed/v1\x0042\x00hotels-001\x001").digest()[:4], "big") & 0x7fffffff
	if s := Seed(42, "hotels-001", 1); s != 1126141467 {
		t.Errorf("seed %d, want 1126141467 as docs/studies.md derives it", s)
	}
}

func TestResolveRejects(t *testing.T) {
	base, _ := fixtures.BuiltinStudy("toolcall")
	neg := -1
	six := 6
	for name, o := range map[string]Overrides{
		"arm":      {Arms: []string{"bogus"}},
		"repairs":  {Repairs: &six},
		"limit":    {Limit: &neg},
		"decoding": {Decoding: "json"},
		"category": {Categories: []string{"nope"}},
	} {
		if _, err := Resolve(base, o); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestAppendRequestID(t *testing.T) {
	for _, tc := range []struct {
		caseID, arm     string
		repeat, attempt int
		want            string
	}{
		{"flights-000", "no_schema", 1, 1, "flights-000.no_schema.r1.a1"},
		{"flights-000", "input_schema", 700, 12, "flights-000.input_schema.r700.a12"},
		{"FB-L1-001", "", 3, 2, "FB-L1-001"},
		{"", "a", 0, 0, ".a.r0.a0"},
	} {
		if got := RequestID(tc.caseID, tc.arm, tc.repeat, tc.attempt); got != tc.want {
			t.Errorf("RequestID = %q, want %q", got, tc.want)
		}
		if got := string(AppendRequestID([]byte("x"), tc.caseID, tc.arm, tc.repeat, tc.attempt)); got != "x"+tc.want {
			t.Errorf("AppendRequestID = %q, want %q", got, "x"+tc.want)
		}
	}
}

// TestRecipe: what shapes a request's text changes the recipe; what only
// selects requests, or never reaches them, does not; files count by content.
func TestRecipe(t *testing.T) {
	dir := t.TempDir()
	data, _ := fixtures.ToolcallFixtureFile("cases.jsonl")
	same, other := dir+"/same.jsonl", dir+"/other.jsonl"
	lines := strings.SplitAfter(string(data), "\n")
	schema := dir + "/schema.json"
	tmpl := dir + "/prompt.tmpl"
	weak, err := fixtures.ToolcallVariant("flights", "weak")
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		same:   string(data),
		other:  strings.Join(lines[1:], ""),
		schema: string(weak),
		tmpl:   `{{define "system"}}S {{.Tool}}{{end}}{{define "user"}}{{.Prompt}} {{.Schema}}{{end}}`,
	} {
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	one, two, seven := 1, 2, 7
	seed := int64(1)
	price := 3.0
	base := quickPlan(t, Overrides{}).Recipe()
	if !strings.HasPrefix(base, "sha256:") || len(base) != len("sha256:")+16 {
		t.Fatalf("recipe %q", base)
	}
	for _, c := range []struct {
		name string
		o    Overrides
		same bool
	}{
		{"arms", Overrides{Arms: []string{contract.ArmInputSchema}}, true},
		{"domain", Overrides{Domains: []string{"flights"}}, true},
		{"category", Overrides{Categories: []string{"complete"}}, true},
		{"limit", Overrides{Limit: &one}, true},
		{"repeats", Overrides{Repeats: &two}, true},
		{"repairs", Overrides{Repairs: &two}, true},
		{"prices", Overrides{InputPrice: &price, OutputPrice: &price}, true},
		{"gates", Overrides{Gates: []string{"input_schema.first_pass_success_percent>=90"}}, true},
		{"the dataset's contents elsewhere", Overrides{Dataset: same}, true},
		{"the default schemas named", Overrides{Schema: "reference", MinimalSchema: "minimal"}, true},
		{"schema", Overrides{Schema: "weak"}, false},
		{"minimal schema", Overrides{MinimalSchema: "reference"}, false},
		{"schema file", Overrides{Schema: schema, Domains: []string{"flights"}}, false},
		{"seed", Overrides{Seed: &seed}, false},
		{"decoding", Overrides{Decoding: contract.DecodingNativeTools}, false},
		{"template", Overrides{PromptTemplate: tmpl}, false},
		{"another dataset", Overrides{Dataset: other}, false},
		{"repeats and a seed", Overrides{Repeats: &seven, Seed: &seed}, false},
	} {
		got := quickPlan(t, c.o).Recipe()
		if (got == base) != c.same {
			t.Errorf("%s: recipe %s, base %s: same %v, want %v", c.name, got, base, got == base, c.same)
		}
	}
	// every request carries it (repair requests: cmd/fbeval/testdata/repair-from.golden)
	p := quickPlan(t, Overrides{Schema: "weak"})
	reqs, err := p.Requests(false)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reqs {
		if r.Recipe != p.Recipe() {
			t.Fatalf("%s: recipe %q, want %q", r.RequestID, r.Recipe, p.Recipe())
		}
	}
}

// TestNegativeZeroTemperature: a study's temperature -0.0 is 0: the same
// requests and recipe (it made another recipe, and requests said -0.0).
func TestNegativeZeroTemperature(t *testing.T) {
	base, _ := fixtures.BuiltinStudy("toolcall-quick")
	zero, negZero := 0.0, math.Copysign(0, -1)
	var recipes []string
	for _, temp := range []*float64{&zero, &negZero} {
		s := base
		s.Temperature = temp
		s, err := Resolve(s, Overrides{})
		if err != nil {
			t.Fatal(err)
		}
		if math.Signbit(*s.Temperature) {
			t.Error("-0.0 kept")
		}
		p, err := PlanToolcall(s)
		if err != nil {
			t.Fatal(err)
		}
		recipes = append(recipes, p.Recipe())
	}
	if recipes[0] != recipes[1] {
		t.Errorf("recipes %v differ", recipes)
	}
}
