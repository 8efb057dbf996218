package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/contract/usage"
	"github.com/fbeval/fbeval/export"
	"github.com/fbeval/fbeval/fixtures"
	"github.com/fbeval/fbeval/score/relations"
	"github.com/fbeval/fbeval/score/report"
	"github.com/fbeval/fbeval/score/toolcall/study"
)

// FixturesCmd inspects and rebuilds the embedded datasets.
type FixturesCmd struct {
	List   FixturesListCmd   `cmd:"" help:"List built-in datasets, schema variants and studies."`
	Build  FixturesBuildCmd  `cmd:"" help:"Regenerate the embedded toolcall dataset and schema variants byte for byte, and write the CogLang fixture."`
	Audit  FixturesAuditCmd  `cmd:"" help:"Count a toolcall dataset and check that every gold answer passes its own contract."`
	Probes FixturesProbesCmd `cmd:"" help:"Mutation probes of a candidate schema: invalid rejection and false rejection, no model needed."`
}

// FixturesListCmd lists what is built in.
type FixturesListCmd struct{}

func (FixturesListCmd) Run(env *Env) error {
	w := env.Stdout
	fmt.Fprintln(w, "studies:")
	for _, n := range fixtures.StudyNames() {
		s, _ := fixtures.BuiltinStudy(n)
		fmt.Fprintf(w, "  %-16s %s\n", n, s.Description)
	}
	fx := fixtures.DefaultCogLangFixture()
	fmt.Fprintln(w, "datasets:")
	fmt.Fprintf(w, "  %-16s CogLang generation-eval fixture, %d cases\n", fixtures.CogLangDefaultPath, len(fx.Cases))
	fmt.Fprintf(w, "  %-16s toolcall cases, %d cases in %d domains\n", fixtures.ToolcallDatasetPath, len(fixtures.ToolcallDataset()), len(fixtures.ToolcallDomains()))
	fmt.Fprintln(w, "toolcall domains:")
	for _, t := range fixtures.ToolcallTools() {
		fmt.Fprintf(w, "  %-10s %-20s %s\n", t.Domain, t.Name, t.Description)
	}
	fmt.Fprintln(w, "schema variants:")
	fmt.Fprintf(w, "  %s\n", strings.Join(fixtures.ToolcallVariantNames(), ", "))
	return nil
}

// cogLangFixtureFile is where fixtures build writes the embedded CogLang fixture.
const cogLangFixtureFile = "coglang_default_v0_1.json"

// FixturesBuildCmd writes the embedded fixture files: the toolcall dataset, its
// manifest and schema variants, and the CogLang fixture.
type FixturesBuildCmd struct {
	Out   string `required:"" help:"Folder to write cases.jsonl, manifest.json, schemas/ and the CogLang fixture into; a file there with other bytes (an edited copy) is refused, not replaced." placeholder:"DIR"`
	Check bool   `help:"Also compare the written files with the embedded ones; exit 1 on any difference."`
}

func (c *FixturesBuildCmd) Run(env *Env) error {
	files := []string{"cases.jsonl", "manifest.json", cogLangFixtureFile}
	for _, d := range fixtures.ToolcallDomains() {
		for _, v := range fixtures.ToolcallVariantNames() {
			files = append(files, "schemas/"+d+"."+v+".json")
		}
	}
	if strings.TrimSpace(c.Out) == "" {
		// an unset shell variable, most times
		return usageError("--out %q names no folder: name one (--out fixtures)", c.Out)
	}
	if c.Out == "-" {
		// not a folder named "-": "-" is standard output everywhere else
		return usageError("--out -: the build writes %d files, not one to standard output: name a folder (--out fixtures)", len(files))
	}
	embedded := func(f string) []byte {
		if f == cogLangFixtureFile {
			return fixtures.CogLangDefaultJSON()
		}
		want, _ := fixtures.ToolcallFixtureFile(f)
		return want
	}
	// the folder holds copies to edit (README): an edited one is not replaced
	var edited []string
	for _, f := range files {
		if got, err := os.ReadFile(filepath.Join(c.Out, filepath.FromSlash(f))); err == nil && !bytes.Equal(got, embedded(f)) {
			edited = append(edited, f)
		}
	}
	if len(edited) > 0 {
		return usageError("%s holds %s with other bytes than the embedded fixtures (edited copies?), which a build would replace: give another --out, or remove them first", c.Out, usage.List(edited, 3))
	}
	// the files are written in the folder itself: a link in it (to a file
	// or a folder elsewhere) would have them written there
	for _, f := range append([]string{"schemas"}, files...) {
		p := filepath.Join(c.Out, filepath.FromSlash(f))
		if st, err := os.Lstat(p); err == nil && st.Mode()&os.ModeSymlink != 0 {
			return &exitError{code: 2, err: fmt.Errorf("%s is a symbolic link: the build writes its files in %s itself, not where a link leads: remove the link, or give another --out", p, c.Out)}
		}
	}
	if err := os.MkdirAll(c.Out, 0o755); err != nil {
		return &exitError{code: 2, err: cleanPathError(err)}
	}
	if err := fixtures.WriteToolcallFixtures(c.Out); err != nil {
		return &exitError{code: 2, err: fixtureWriteError(err)}
	}
	if err := fixtures.WriteFileWhole(filepath.Join(c.Out, cogLangFixtureFile), fixtures.CogLangDefaultJSON()); err != nil {
		return &exitError{code: 2, err: fixtureWriteError(err)}
	}
	fmt.Fprintf(env.Stderr, "fbeval: wrote the fixtures to %s\n", c.Out)
	if !c.Check {
		return nil
	}
	diff := 0
	for _, f := range files {
		got, err := os.ReadFile(c.Out + "/" + f)
		if err != nil || !bytes.Equal(got, embedded(f)) {
			diff++
			env.warnf("%s differs from the embedded file", f)
		}
	}
	if diff > 0 {
		return &exitError{code: 1}
	}
	fmt.Fprintf(env.Stdout, "%d files identical to the embedded fixtures\n", len(files))
	return nil
}

// fixtureWriteError is the one line of a fixture file the build could not
// write (each is replaced whole: it is as it was, or not there).
func fixtureWriteError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) && pe.Op == "write" {
		return outputWriteError(pe.Path, pe.Err)
	}
	return cleanPathError(err)
}

// FixturesAuditCmd audits a toolcall dataset.
type FixturesAuditCmd struct {
	Dataset string `help:"Dataset file in HESchema's case format (default: the embedded dataset)." placeholder:"FILE"`
	Format  string `help:"text or json." enum:"text,json" default:"text"`
}

func (c *FixturesAuditCmd) Run(env *Env) error {
	cases, name, err := loadCases(c.Dataset)
	if err != nil {
		return err
	}
	counts := fixtures.ToolcallAudit(cases)
	fails := study.AuditOracle(cases)
	if c.Format == "json" {
		failObjs := []contract.Object{}
		for _, f := range fails {
			failObjs = append(failObjs, contract.Object{{Key: "case_id", Value: f.CaseID}, {Key: "reason", Value: f.Reason}})
		}
		out, err := contract.Marshal(contract.Object{
			{Key: "dataset", Value: name},
			{Key: "cases", Value: counts.Total},
			{Key: "unique_prompts", Value: counts.UniquePrompts},
			{Key: "duplicate_ids", Value: counts.DuplicateIDs},
			{Key: "domains", Value: counts.Domains},
			{Key: "categories", Value: counts.Categories},
			{Key: "expected_actions", Value: counts.Actions},
			{Key: "oracle_pass", Value: counts.Total - len(fails)},
			{Key: "oracle_failures", Value: failObjs},
		}, contract.PythonIndent)
		if err != nil {
			return err
		}
		env.Stdout.Write(append(out, '\n'))
	} else {
		w := env.Stdout
		fmt.Fprintf(w, "dataset: %s\ncases: %d\nunique prompts: %d\nduplicate ids: %d\n", name, counts.Total, counts.UniquePrompts, len(counts.DuplicateIDs))
		fmt.Fprintf(w, "domains: %s\ncategories: %s\nexpected actions: %s\n", countList(counts.Domains), countList(counts.Categories), countList(counts.Actions))
		fmt.Fprintf(w, "gold answers passing their own contract: %d/%d\n", counts.Total-len(fails), counts.Total)
		for _, f := range fails {
			fmt.Fprintf(w, "FAIL %s: %s\n", f.CaseID, f.Reason)
		}
	}
	// why the exit is 1, said
	if n := len(fails); n > 0 {
		env.warnf("%s: %s %s own contract (listed above)", name, contract.Plural(n, "gold answer fails", "gold answers fail"), contract.Pick(n, "its", "their"))
	}
	if n := len(counts.DuplicateIDs); n > 0 {
		env.warnf("%s: %s repeated", name, contract.Plural(n, "case id is", "case ids are"))
	}
	if n := counts.RepeatedRequests; n > 0 {
		env.warnf("%s: %s a prompt another case asks with the same context (the first: %s asks %s's), so a study asks it twice as two cases", name, contract.Plural(n, "case asks", "cases ask"), counts.FirstRepeat[0], counts.FirstRepeat[1])
	}
	if len(fails) > 0 || len(counts.DuplicateIDs) > 0 || counts.RepeatedRequests > 0 {
		return &exitError{code: 1}
	}
	return nil
}

func countList(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sortStrings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// loadCases reads the dataset as export and score read a study's (- for
// standard input), the built-in one when path is "".
func loadCases(path string) ([]contract.Case, string, error) {
	if path == "" {
		path = fixtures.ToolcallDatasetPath
	}
	cases, err := export.LoadDataset(path, relations.Vocabulary)
	return cases, path, err
}

// FixturesProbesCmd runs the mutation probes of a candidate schema.
type FixturesProbesCmd struct {
	Schema  string   `help:"Candidate schema: a variant name or a schema file (one domain)." default:"reference" placeholder:"VARIANT|FILE"`
	Dataset string   `help:"Dataset file (default: the embedded dataset)." placeholder:"FILE"`
	Domain  []string `help:"Only these domains." placeholder:"D"`
	Format  string   `help:"table or json." enum:"table,json" default:"table"`
}

func (c *FixturesProbesCmd) Run(env *Env) error {
	s, _ := fixtures.BuiltinStudy(fixtures.StudyToolcall)
	o := export.Overrides{Schema: c.Schema, Domains: c.Domain}
	if c.Dataset != "" {
		o.Dataset = c.Dataset
	}
	s, err := export.Resolve(s, o)
	if err != nil {
		return err
	}
	plan, err := export.PlanToolcall(s, relations.Vocabulary)
	if err != nil {
		return err
	}
	var domains []string
	for _, d := range append(fixtures.ToolcallDomains(), extraDomains(plan)...) {
		if _, ok := plan.Tools[d]; ok {
			domains = append(domains, d)
		}
	}
	reports, err := study.RunProbes(plan.Cases, domains, func(d string) ([]byte, error) { return plan.Candidate[d], nil })
	if err != nil {
		return err
	}
	if c.Format == "json" {
		objs := []contract.Object{}
		for _, r := range reports {
			objs = append(objs, contract.Object{
				{Key: "domain", Value: r.Domain},
				{Key: "valid_probe_count", Value: r.Stats.ValidProbeCount},
				{Key: "invalid_probe_count", Value: r.Stats.InvalidProbeCount},
				{Key: "invalid_rejection_percent", Value: r.Stats.InvalidRejectionPercent},
				{Key: "false_rejection_percent", Value: r.Stats.FalseRejectionPercent},
			})
		}
		out, err := contract.Marshal(contract.Object{{Key: "schema", Value: c.Schema}, {Key: "probes", Value: objs}}, contract.PythonIndent)
		if err != nil {
			return err
		}
		_, err = env.Stdout.Write(append(out, '\n'))
		return err
	}
	t := report.NewTextTable(env.Stdout) // the one style of fbeval's tables
	t.Header("domain", "valid probes", "false rejection %", "invalid probes", "invalid rejection %")
	for _, r := range reports {
		t.Append(r.Domain, fmt.Sprint(r.Stats.ValidProbeCount), fmtPct(r.Stats.FalseRejectionPercent),
			fmt.Sprint(r.Stats.InvalidProbeCount), fmtPct(r.Stats.InvalidRejectionPercent))
	}
	return t.Render()
}

func extraDomains(plan *export.ToolcallPlan) []string {
	var out []string
	for d := range plan.Tools {
		if _, ok := fixtures.ToolcallTool(d); !ok {
			out = append(out, d)
		}
	}
	sortStrings(out)
	return out
}

func fmtPct(p *float64) string {
	if p == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.1f", *p)
}
