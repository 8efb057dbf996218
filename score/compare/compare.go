// Package compare sets two toolcall reports of the same study side by side: one
// model against another, each labelled by the models its responses name. It
// checks that the two runs can be compared at all, then gives per arm which model
// wins, with the same paired test used within a study (clustered bootstrap
// interval and McNemar's exact test on the shared requests), each model's
// first-pass success, the cross-model gap, model sensitivity and stability, both
// custom-fitness values, and every (case, repeat) whose outcome flipped.
//
//	a, _ := report.Load("small.json", smallJSON)
//	b, _ := report.Load("large.json", largeJSON)
//	res, err := compare.Compare(a.Toolcall, b.Toolcall, compare.Options{PathA: "small.json", PathB: "large.json"})
//	if err != nil {
//		return err // the reports differ in configuration, or one has errors
//	}
//	return compare.WriteMarkdown(os.Stdout, res)
//
// The gap is B minus A (larger minus smaller model); sensitivity uses its absolute
// value, so a schema that helps either model by 15 points or more is called
// model-sensitive.
package compare

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/score/report"
	"github.com/fbeval/fbeval/score/stats"
)

// Version is the schema_version of the JSON comparison.
const Version = "fbeval-compare/v1"

// InputArm is the arm whose figures feed custom fitness.
const InputArm = "input_schema"

// Options name the two sides.
type Options struct {
	// LabelA and LabelB name the sides; by default each is the model its
	// responses name (from the report's arms), else its responses file.
	LabelA, LabelB string
	PathA, PathB   string // the report files, shown in outputs
}

// Result is a comparison of report A with report B.
type Result struct {
	A, B  Side
	Study contract.Study // the shared configuration (A's copy)
	Arms  []Arm
	// FitnessA and FitnessB are the custom fitness of each report: its input
	// arm's FPS, SPV and retry rate, its probes' IRR, and the input arm's MS.
	// Nil when any term is unknown.
	FitnessA, FitnessB *float64
	Flips              []Flip
}

// Side describes one of the compared reports.
type Side struct {
	Label, Path     string
	StudyName       string
	ResponsesSHA256 []string // hashes of the responses inputs
}

// Arm holds one arm's cross-model figures.
type Arm struct {
	Arm        string
	FPSA, FPSB *float64 // first-pass success %
	Gap        *float64 // FPSB - FPSA, points
	MS         *float64 // 100 - |gap|
	Sensitive  bool     // |gap| >= 15
	// Stability is the share of (case, repeat) rows with the same first-pass
	// outcome in both reports, in percent; nil with no rows.
	Stability  *float64
	StableRows int
	Rows       int
	OnlyA      int // rows right in A only
	OnlyB      int // rows right in B only
	// Paired is B against A on the shared (case, repeat) rows of this arm: B's
	// first pass is the treatment, A's the baseline, with the study's seed.
	Paired stats.Effect
	// Winner is the label of the side the paired interval favours, or "" when it
	// contains zero.
	Winner string
}

// Flip is a (case, repeat) of one arm whose first-pass outcome differs.
type Flip struct {
	Arm, CaseID      string
	Repeat           int
	Domain, Category string
	A, B             bool // first-pass success in each report
	CodesA, CodesB   []string
}

type rowKey struct {
	arm, caseID string
	repeat      int
}

func (k rowKey) String() string {
	return k.arm + "/" + k.caseID + "#r" + strconv.Itoa(k.repeat)
}

// Compare checks that a and b come from the same configuration and are complete
// and free of provider errors and missing responses, then compares them. Every
// difference found is listed in the one error returned.
func Compare(a, b *report.ToolcallReport, opts Options) (*Result, error) {
	if a == nil || b == nil {
		return nil, errors.New("compare: two toolcall reports are needed")
	}
	a, b = held(a), held(b)
	if opts.LabelA == "" {
		opts.LabelA = defaultLabel(a, "A")
	}
	if opts.LabelB == "" {
		opts.LabelB = defaultLabel(b, "B")
	}
	if opts.LabelA == opts.LabelB {
		opts.LabelA, opts.LabelB = opts.LabelA+" (A)", opts.LabelB+" (B)"
	}
	var diffs []string
	diffs = append(diffs, studyDiffs(&a.Study, &b.Study)...)
	diffs = append(diffs, inputDiffs(a, b)...)
	diffs = append(diffs, health(opts.LabelA, a)...)
	diffs = append(diffs, health(opts.LabelB, b)...)

	rowsA, dupA := index(a)
	rowsB, dupB := index(b)
	if dupA != "" {
		diffs = append(diffs, fmt.Sprintf("%s: row %s appears twice", opts.LabelA, dupA))
	}
	if dupB != "" {
		diffs = append(diffs, fmt.Sprintf("%s: row %s appears twice", opts.LabelB, dupB))
	}
	diffs = append(diffs, missingRows(opts.LabelA, a, rowsB)...)
	diffs = append(diffs, missingRows(opts.LabelB, b, rowsA)...)
	if len(diffs) > 0 {
		return nil, fmt.Errorf("reports cannot be compared: %s", strings.Join(diffs, "; "))
	}

	res := &Result{
		A:     Side{Label: opts.LabelA, Path: opts.PathA, StudyName: a.Study.Name, ResponsesSHA256: hashes(a, "responses")},
		B:     Side{Label: opts.LabelB, Path: opts.PathB, StudyName: b.Study.Name, ResponsesSHA256: hashes(b, "responses")},
		Study: a.Study,
	}
	for _, e := range a.Arms {
		mb, _ := b.Arms.Get(e.Key)
		arm := Arm{Arm: e.Key, FPSA: e.Value.FirstPassSuccess, FPSB: mb.FirstPassSuccess}
		arm.Gap = stats.Gap(arm.FPSB, arm.FPSA)
		arm.MS, arm.Sensitive = stats.ModelSensitivity(arm.Gap)
		var pairs []stats.Pair
		for _, ra := range a.Rows {
			if ra.Arm != e.Key {
				continue
			}
			rb := b.Rows[rowsB[rowKey{ra.Arm, ra.CaseID, ra.Repeat}]]
			cluster := ra.Cluster
			if cluster == "" {
				cluster = ra.CaseID
			}
			pairs = append(pairs, stats.Pair{Cluster: cluster, Baseline: ra.FirstPassSuccess, Treatment: rb.FirstPassSuccess})
			arm.Rows++
			if ra.FirstPassSuccess == rb.FirstPassSuccess {
				arm.StableRows++
				continue
			}
			if ra.FirstPassSuccess {
				arm.OnlyA++
			} else {
				arm.OnlyB++
			}
			res.Flips = append(res.Flips, Flip{Arm: ra.Arm, CaseID: ra.CaseID, Repeat: ra.Repeat, Domain: ra.Domain, Category: ra.Category,
				A: ra.FirstPassSuccess, B: rb.FirstPassSuccess, CodesA: ra.Codes, CodesB: rb.Codes})
		}
		if arm.Rows > 0 {
			s := 100 * float64(arm.StableRows) / float64(arm.Rows)
			arm.Stability = &s
		}
		// The stream is named by the arm alone, so labels never change a digit.
		arm.Paired = stats.Paired(pairs, stats.Options{Name: "b vs a on " + e.Key, Seed: uint64(a.Study.Seed)})
		switch arm.Paired.Label {
		case stats.LabelImprovement:
			arm.Winner = opts.LabelB
		case stats.LabelHarm:
			arm.Winner = opts.LabelA
		}
		res.Arms = append(res.Arms, arm)
	}
	for _, arm := range res.Arms {
		if arm.Arm == InputArm {
			res.FitnessA = fitness(a, arm.MS)
			res.FitnessB = fitness(b, arm.MS)
		}
	}
	return res, nil
}

// held returns r with the rows its source yields collected, without their
// outputs and attempts, which a comparison does not use.
func held(r *report.ToolcallReport) *report.ToolcallReport {
	if r.RowSource == nil {
		return r
	}
	h := *r
	h.Rows, h.RowSource = []report.Row{}, nil
	for row := range r.RowSource {
		k := *row
		k.Output, k.AttemptResults = nil, nil
		h.Rows = append(h.Rows, k)
	}
	return &h
}

// defaultLabel names a side by the models its responses name, else by its
// responses files, else by side.
func defaultLabel(r *report.ToolcallReport, side string) string {
	var models []string
	for _, a := range r.Arms {
		for _, m := range a.Value.Models {
			if m != "" && !slices.Contains(models, m) {
				models = append(models, m)
			}
		}
	}
	if len(models) > 0 {
		return strings.Join(models, "+")
	}
	var files []string
	for _, in := range r.Inputs {
		if in.Role == "responses" {
			files = append(files, in.Path)
		}
	}
	if len(files) > 0 {
		return strings.Join(files, "+")
	}
	return side
}

// fitness is the custom fitness of r with the given model sensitivity.
func fitness(r *report.ToolcallReport, ms *float64) *float64 {
	m, ok := r.Arms.Get(InputArm)
	if !ok {
		return nil
	}
	var irr *float64
	if r.Probes != nil {
		irr = r.Probes.InvalidRejectionPercent
	}
	return stats.CustomFitness(m.FirstPassSuccess, m.SemanticPrecision, irr, m.RetryRate, ms)
}

// studyDiffs lists the configuration fields on which two studies differ. Beyond
// the fields the method names (dataset, schemas, repeats, repairs, seed,
// decoding, max tokens, temperature), arms, filter and prompt template must also
// match, since any of them changes which prompts were asked.
func studyDiffs(a, b *contract.Study) []string {
	var d []string
	diff := func(what, x, y string) {
		if x != y {
			d = append(d, fmt.Sprintf("%s differs (%s vs %s)", what, x, y))
		}
	}
	diff("dataset", strconv.Quote(a.Dataset), strconv.Quote(b.Dataset))
	diff("arms", strings.Join(a.Arms, ","), strings.Join(b.Arms, ","))
	arms := slices.Clone(a.Arms)
	for _, arm := range b.Arms {
		if !slices.Contains(arms, arm) {
			arms = append(arms, arm)
		}
	}
	for _, arm := range arms {
		diff("schema of "+arm, strconv.Quote(a.Schemas[arm]), strconv.Quote(b.Schemas[arm]))
	}
	diff("filter domains", strings.Join(a.Filter.Domains, ","), strings.Join(b.Filter.Domains, ","))
	diff("filter categories", strings.Join(a.Filter.Categories, ","), strings.Join(b.Filter.Categories, ","))
	diff("filter limit", strconv.Itoa(a.Filter.Limit), strconv.Itoa(b.Filter.Limit))
	diff("repeats", strconv.Itoa(a.Repeats), strconv.Itoa(b.Repeats))
	diff("repairs", strconv.Itoa(a.Repairs), strconv.Itoa(b.Repairs))
	diff("seed", strconv.FormatInt(a.Seed, 10), strconv.FormatInt(b.Seed, 10))
	diff("decoding", strconv.Quote(a.Decoding), strconv.Quote(b.Decoding))
	diff("max_tokens", intPtr(a.MaxTokens), intPtr(b.MaxTokens))
	diff("temperature", floatPtr(a.Temperature), floatPtr(b.Temperature))
	diff("prompt_template", strconv.Quote(a.PromptTemplate), strconv.Quote(b.PromptTemplate))
	return d
}

// inputDiffs compares the hashes of the dataset, schema and template inputs, so
// two files with one path but different contents are caught.
func inputDiffs(a, b *report.ToolcallReport) []string {
	var d []string
	for _, role := range []string{"dataset", "schema", "template"} {
		ha, hb := hashes(a, role), hashes(b, role)
		slices.Sort(ha)
		slices.Sort(hb)
		if !slices.Equal(ha, hb) {
			d = append(d, fmt.Sprintf("%s input sha256 differs (%s vs %s)", role, list(ha), list(hb)))
		}
	}
	return d
}

func hashes(r *report.ToolcallReport, role string) []string {
	var out []string
	for _, in := range r.Inputs {
		if in.Role == role {
			out = append(out, in.SHA256)
		}
	}
	return out
}

// health lists why one report cannot take part: incomplete, provider errors,
// missing responses.
func health(label string, r *report.ToolcallReport) []string {
	var d []string
	if !r.Complete {
		d = append(d, label+": report is not complete")
	}
	var provider, missing int
	for _, a := range r.Arms {
		provider += a.Value.ProviderErrors
		missing += a.Value.MissingResponses
	}
	for _, row := range r.Rows {
		if row.ProviderError {
			provider = max(provider, 1)
		}
		if row.Missing {
			missing = max(missing, 1)
		}
	}
	if provider > 0 {
		d = append(d, fmt.Sprintf("%s: %d provider error%s", label, provider, plural(provider)))
	}
	if missing > 0 {
		d = append(d, fmt.Sprintf("%s: %d missing response%s", label, missing, plural(missing)))
	}
	return d
}

func index(r *report.ToolcallReport) (map[rowKey]int, string) {
	m := make(map[rowKey]int, len(r.Rows))
	for i, row := range r.Rows {
		k := rowKey{row.Arm, row.CaseID, row.Repeat}
		if _, ok := m[k]; ok {
			return m, k.String()
		}
		m[k] = i
	}
	return m, ""
}

// missingRows lists rows of r that the other report lacks: the count and the
// first one, so the message stays one readable line.
func missingRows(label string, r *report.ToolcallReport, other map[rowKey]int) []string {
	var first string
	n := 0
	for _, row := range r.Rows {
		k := rowKey{row.Arm, row.CaseID, row.Repeat}
		if _, ok := other[k]; !ok {
			if n == 0 {
				first = k.String()
			}
			n++
		}
	}
	if n == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%d row%s only in %s (first: %s)", n, plural(n), label, first)}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func list(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ",")
}

func intPtr(p *int) string {
	if p == nil {
		return "null"
	}
	return strconv.Itoa(*p)
}

func floatPtr(p *float64) string {
	if p == nil {
		return "null"
	}
	return strconv.FormatFloat(*p, 'g', -1, 64)
}
