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
	"hash/fnv"
	"iter"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/score/report"
	"github.com/fbeval/fbeval/score/stats"
)

// Version is the schema_version of the JSON comparison.
const Version = contract.CompareV1

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
	// Flips lists the flips, arm by arm, in row order. When FlipSource is set it
	// yields them instead, reading the reports' rows again, and Flips is nil;
	// FlipCount counts them either way.
	Flips      []Flip
	FlipSource iter.Seq[*Flip]
	FlipCount  int
	// firstFlips, set beside FlipSource, returns the first limit flips of each
	// arm, arm by arm, from one reading of the rows
	firstFlips func(limit int) []Flip
}

// firstFlipsOfEachArm returns the first limit flips of each arm, arm by arm.
func (r *Result) firstFlipsOfEachArm(limit int) []Flip {
	if r.FlipSource != nil && r.firstFlips != nil {
		return r.firstFlips(limit)
	}
	out := []Flip{}
	perArm := map[string]int{}
	for f := range r.EachFlip() {
		if perArm[f.Arm] < limit {
			perArm[f.Arm]++
			out = append(out, *f)
		}
	}
	return out
}

// flipCount is FlipCount, or the length of Flips when no source is set.
func (r *Result) flipCount() int {
	if r.FlipSource != nil {
		return r.FlipCount
	}
	return len(r.Flips)
}

// EachFlip yields the flips, from FlipSource when it is set. A source reuses
// the flip it yields.
func (r *Result) EachFlip() iter.Seq[*Flip] {
	if r.FlipSource != nil {
		return r.FlipSource
	}
	return func(yield func(*Flip) bool) {
		for i := range r.Flips {
			if !yield(&r.Flips[i]) {
				return
			}
		}
	}
}

// Side describes one of the compared reports.
type Side struct {
	Label, Path     string
	StudyName       string
	ResponsesSHA256 []string // hashes of the responses inputs
	// Warnings are the report's own: what its scoring found that its figures
	// alone do not say (answers wrapped or in another form, duplicates, ...).
	Warnings []string
}

// Name is the side's label with its report file.
func (s Side) Name() string { return s.Label + " (" + s.Path + ")" }

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
	// WinnerSide is that side, "a" or "b"; "" with Winner.
	WinnerSide string
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
	if opts.LabelA == "" {
		opts.LabelA = defaultLabel(a, "A")
	}
	if opts.LabelB == "" {
		opts.LabelB = defaultLabel(b, "B")
	}
	if opts.LabelA == opts.LabelB {
		opts.LabelA, opts.LabelB = opts.LabelA+" (A)", opts.LabelB+" (B)"
	}
	if a.RowSource != nil || b.RowSource != nil {
		if res, ok, err := comparePositional(a, b, opts); ok {
			return res, err
		}
	}
	a, b = held(a), held(b)
	diffs := configDiffs(a, b)
	diffs = append(diffs, healthOfBoth(opts, a, flagsOf(a), b, flagsOf(b))...)

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
		return nil, notComparable(diffs)
	}

	res := newResult(a, b, opts)
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
			res.Flips = append(res.Flips, flipOf(&ra, &rb))
		}
		arm.finish(pairs, a.Study.Seed, opts)
		res.Arms = append(res.Arms, arm)
	}
	res.FlipCount = len(res.Flips)
	res.fitness(a, b)
	return res, nil
}

func newResult(a, b *report.ToolcallReport, opts Options) *Result {
	return &Result{
		A:     Side{Label: opts.LabelA, Path: opts.PathA, StudyName: a.Study.Name, ResponsesSHA256: hashes(a, "responses"), Warnings: a.Warnings},
		B:     Side{Label: opts.LabelB, Path: opts.PathB, StudyName: b.Study.Name, ResponsesSHA256: hashes(b, "responses"), Warnings: b.Warnings},
		Study: a.Study,
	}
}

// fitness sets both custom fitness values from the input arm's MS.
func (res *Result) fitness(a, b *report.ToolcallReport) {
	for _, arm := range res.Arms {
		if arm.Arm == InputArm {
			res.FitnessA = fitness(a, arm.MS)
			res.FitnessB = fitness(b, arm.MS)
		}
	}
}

// finish sets an arm's stability, paired effect and winner from its counts
// and pairs.
func (arm *Arm) finish(pairs []stats.Pair, seed int64, opts Options) {
	if arm.Rows > 0 {
		s := 100 * float64(arm.StableRows) / float64(arm.Rows)
		arm.Stability = &s
	}
	// The stream is named by the arm alone, so labels never change a digit.
	arm.Paired = stats.Paired(pairs, stats.Options{Name: "b vs a on " + arm.Arm, Seed: uint64(seed)})
	switch arm.Paired.Label {
	case stats.LabelImprovement:
		arm.Winner, arm.WinnerSide = opts.LabelB, "b"
	case stats.LabelHarm:
		arm.Winner, arm.WinnerSide = opts.LabelA, "a"
	}
}

// rowsOf yields r's rows for a comparison, which reads no attempt results:
// without them where the report can give them so more quickly.
func rowsOf(r *report.ToolcallReport) iter.Seq[*report.Row] { return r.EachBriefRow() }

// lockstep calls f with the i-th rows of a and b, one pair at a time, until f
// returns false. It reports whether f took every row and a and b have as many.
// b's rows are read on a goroutine of their own, a batch at a time, while a's
// are read on the calling one.
func lockstep(a, b *report.ToolcallReport, f func(ra, rb *report.Row) bool) bool {
	rowsB := make(chan []report.Row, 2)
	free := make(chan []report.Row, 3)
	stop, done := make(chan struct{}), make(chan struct{})
	for range 3 {
		free <- make([]report.Row, 0, lockstepBatch)
	}
	go func() {
		defer close(done)
		defer close(rowsB)
		batch := <-free
		for row := range rowsOf(b) {
			batch = append(batch, *row) // a source may reuse the row it yields
			if len(batch) < lockstepBatch {
				continue
			}
			select {
			case rowsB <- batch:
			case <-stop:
				return
			}
			select {
			case batch = <-free:
			case <-stop:
				return
			}
			batch = batch[:0]
		}
		if len(batch) > 0 {
			select {
			case rowsB <- batch:
			case <-stop:
			}
		}
	}()
	defer func() {
		close(stop)
		<-done
	}()
	var cur []report.Row
	k := 0
	for ra := range rowsOf(a) {
		if k == len(cur) {
			if cur != nil {
				free <- cur // never blocks: there are three batches in all
			}
			var ok bool
			if cur, ok = <-rowsB; !ok {
				return false
			}
			k = 0
		}
		if !f(ra, &cur[k]) {
			return false
		}
		k++
	}
	if k < len(cur) {
		return false
	}
	_, more := <-rowsB
	return !more
}

// lockstepBatch is how many of b's rows lockstep reads ahead at once.
const lockstepBatch = 256

// comparePositional compares reports whose rows stand in the same order (as
// the rows of two runs of one study do) by reading them side by side, holding
// a few bytes per row instead of the rows. ok is false when the rows are not in
// the same order, or a row may appear twice: Compare then joins them by key.
func comparePositional(a, b *report.ToolcallReport, opts Options) (res *Result, ok bool, err error) {
	// One reading of the rows checks their order and gathers the pairs, which
	// are let go if the rows turn out not to pair or the reports not to compare.
	var flagsA, flagsB rowFlags
	var keys []uint64
	res = newResult(a, b, opts)
	arms := a.Arms.Keys()
	res.Arms = make([]Arm, len(arms))
	pairs := make([][]stats.Pair, len(arms))
	clusters := map[string]string{}
	if !lockstep(a, b, func(ra, rb *report.Row) bool {
		if ra.Arm != rb.Arm || ra.CaseID != rb.CaseID || ra.Repeat != rb.Repeat {
			return false
		}
		flagsA.note(ra)
		flagsB.note(rb)
		keys = append(keys, keyHash(ra))
		addPair(res.Arms, pairs, arms, clusters, ra, rb)
		return true
	}) {
		return nil, false, nil
	}
	slices.Sort(keys)
	for i := 1; i < len(keys); i++ {
		if keys[i] == keys[i-1] {
			return nil, false, nil // perhaps a row twice: the join names it
		}
	}
	keys = nil
	diffs := configDiffs(a, b)
	diffs = append(diffs, healthOfBoth(opts, a, flagsA, b, flagsB)...)
	if len(diffs) > 0 {
		return nil, true, notComparable(diffs)
	}
	for i, e := range a.Arms {
		arm := &res.Arms[i]
		mb, _ := b.Arms.Get(e.Key)
		arm.Arm, arm.FPSA, arm.FPSB = e.Key, e.Value.FirstPassSuccess, mb.FirstPassSuccess
		arm.Gap = stats.Gap(arm.FPSB, arm.FPSA)
		arm.MS, arm.Sensitive = stats.ModelSensitivity(arm.Gap)
		arm.finish(pairs[i], a.Study.Seed, opts)
		pairs[i] = nil
		res.FlipCount += arm.OnlyA + arm.OnlyB
	}
	res.FlipSource = func(yield func(*Flip) bool) {
		// One reading of the rows: the first arm's flips are yielded as they
		// are read, the other arms' are held compactly and yielded after it.
		var f Flip
		var held flipStore
		later := make([][]heldFlip, len(arms))
		stopped := false
		lockstep(a, b, func(ra, rb *report.Row) bool {
			if ra.FirstPassSuccess == rb.FirstPassSuccess {
				return true
			}
			i := slices.Index(arms, ra.Arm)
			switch {
			case i == 0:
				f = flipOf(ra, rb)
				stopped = !yield(&f)
			case i > 0:
				later[i] = append(later[i], held.add(ra, rb))
			}
			return !stopped
		})
		for i := 1; i < len(arms) && !stopped; i++ {
			for _, h := range later[i] {
				f = held.flip(arms[i], h)
				if !yield(&f) {
					return
				}
			}
		}
	}
	res.firstFlips = func(limit int) []Flip {
		byArm := make([][]Flip, len(arms))
		full := 0 // arms with limit flips
		lockstep(a, b, func(ra, rb *report.Row) bool {
			i := slices.Index(arms, ra.Arm)
			if i < 0 || ra.FirstPassSuccess == rb.FirstPassSuccess || len(byArm[i]) == limit {
				return true
			}
			byArm[i] = append(byArm[i], flipOf(ra, rb))
			if len(byArm[i]) == limit {
				full++
			}
			return full < len(arms)
		})
		return slices.Concat(byArm...)
	}
	res.fitness(a, b)
	return res, true, nil
}

// flipStore holds flips in a few bytes each: every string and every list of
// codes is kept once, and a flip is indexes into them.
type flipStore struct {
	strs   []string
	strID  map[string]uint32
	codes  [][]string
	codeID map[string]uint32
	key    []byte
}

// heldFlip is a flip in a flipStore, its arm known to whoever holds it.
type heldFlip struct {
	caseID, domain, category uint32
	codesA, codesB           uint32
	repeat                   int
	a, b                     bool
}

// add holds the flip of rows ra and rb.
func (s *flipStore) add(ra, rb *report.Row) heldFlip {
	return heldFlip{caseID: s.str(ra.CaseID), domain: s.str(ra.Domain), category: s.str(ra.Category),
		codesA: s.codeList(ra.Codes), codesB: s.codeList(rb.Codes), repeat: ra.Repeat,
		a: ra.FirstPassSuccess, b: rb.FirstPassSuccess}
}

// flip is the held flip h of arm.
func (s *flipStore) flip(arm string, h heldFlip) Flip {
	return Flip{Arm: arm, CaseID: s.strs[h.caseID], Repeat: h.repeat, Domain: s.strs[h.domain],
		Category: s.strs[h.category], A: h.a, B: h.b, CodesA: s.codes[h.codesA], CodesB: s.codes[h.codesB]}
}

func (s *flipStore) str(v string) uint32 {
	if id, ok := s.strID[v]; ok {
		return id
	}
	if s.strID == nil {
		s.strID = map[string]uint32{}
	}
	v = strings.Clone(v)
	id := uint32(len(s.strs))
	s.strs = append(s.strs, v)
	s.strID[v] = id
	return id
}

func (s *flipStore) codeList(codes []string) uint32 {
	s.key = s.key[:0]
	for _, c := range codes {
		s.key = contract.AppendField(s.key, c)
	}
	if id, ok := s.codeID[string(s.key)]; ok {
		return id
	}
	if s.codeID == nil {
		s.codeID = map[string]uint32{}
	}
	kept := make([]string, len(codes))
	for i, c := range codes {
		kept[i] = strings.Clone(c)
	}
	id := uint32(len(s.codes))
	s.codes = append(s.codes, kept)
	s.codeID[string(s.key)] = id
	return id
}

// flipOf is the flip of rows ra and rb, the same case and repeat.
func flipOf(ra, rb *report.Row) Flip {
	return Flip{Arm: ra.Arm, CaseID: ra.CaseID, Repeat: ra.Repeat, Domain: ra.Domain, Category: ra.Category,
		A: ra.FirstPassSuccess, B: rb.FirstPassSuccess, CodesA: ra.Codes, CodesB: rb.Codes}
}

// addPair counts the pair of rows ra and rb (the same case and repeat) in its
// arm, and adds it to the arm's pairs, its cluster's name interned in clusters.
func addPair(res []Arm, pairs [][]stats.Pair, arms []string, clusters map[string]string, ra, rb *report.Row) {
	i := slices.Index(arms, ra.Arm)
	if i < 0 {
		return
	}
	cluster := ra.Cluster
	if cluster == "" {
		cluster = ra.CaseID
	}
	if c, ok := clusters[cluster]; ok {
		cluster = c
	} else {
		cluster = strings.Clone(cluster)
		clusters[cluster] = cluster
	}
	pairs[i] = append(pairs[i], stats.Pair{Cluster: cluster, Baseline: ra.FirstPassSuccess, Treatment: rb.FirstPassSuccess})
	arm := &res[i]
	arm.Rows++
	switch {
	case ra.FirstPassSuccess == rb.FirstPassSuccess:
		arm.StableRows++
	case ra.FirstPassSuccess:
		arm.OnlyA++
	default:
		arm.OnlyB++
	}
}

// rowFlags records whether any row is a provider error or a missing response.
type rowFlags struct{ provider, missing bool }

func (f *rowFlags) note(row *report.Row) {
	f.provider = f.provider || row.ProviderError
	f.missing = f.missing || row.Missing
}

func flagsOf(r *report.ToolcallReport) rowFlags {
	var f rowFlags
	for row := range rowsOf(r) {
		f.note(row)
	}
	return f
}

// keyHash is FNV-1a 64 of a row's (arm, case, repeat).
func keyHash(row *report.Row) uint64 {
	h := fnv.New64a()
	h.Write([]byte(row.Arm))
	h.Write([]byte{0})
	h.Write([]byte(row.CaseID))
	h.Write([]byte{0})
	h.Write([]byte(strconv.Itoa(row.Repeat)))
	return h.Sum64()
}

// held returns r with the rows its source yields collected, without their
// outputs and attempts, which a comparison does not use.
func held(r *report.ToolcallReport) *report.ToolcallReport {
	if r.RowSource == nil {
		return r
	}
	h := *r
	h.Rows, h.RowSource, h.BriefRowSource = []report.Row{}, nil, nil
	for row := range r.EachBriefRow() {
		k := *row
		k.Output, k.AttemptResults = nil, nil
		h.Rows = append(h.Rows, k)
	}
	return &h
}

// defaultLabel names a side by the models its responses name, else by its
// responses files, else by side.
func defaultLabel(r *report.ToolcallReport, side string) string {
	if models := r.Models(); len(models) > 0 {
		return strings.Join(models, "+")
	}
	var files []string
	for _, in := range r.Inputs {
		if in.Role == "responses" {
			files = append(files, in.Path)
		}
	}
	return filesLabel(files, side)
}

// filesLabel names a side by its response files: each, up to three; past
// three (a batch engine's shards), their folder, or the first and how many more.
func filesLabel(files []string, side string) string {
	switch {
	case len(files) == 0:
		return side
	case len(files) <= 3:
		return strings.Join(files, "+")
	}
	dir := filepath.Dir(files[0])
	if dir == "." || slices.ContainsFunc(files[1:], func(f string) bool { return filepath.Dir(f) != dir }) {
		return fmt.Sprintf("%s+%d more files", files[0], len(files)-1)
	}
	return fmt.Sprintf("%s (%d files)", dir, len(files))
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
// match, since any of them changes which prompts were asked. Files (a dataset,
// schema files, a template) are compared by their contents' hashes
// (inputDiffs), wherever they were read from; a built-in dataset too, where
// both reports hash their datasets alike (sameData): one side's built-in
// written out by fbeval fixtures build and read from the file is the same.
func studyDiffs(a, b *contract.Study, sameData bool) (d []string, schemaFiles [][3]string) {
	diff := func(what, x, y string) {
		if x != y {
			d = append(d, fmt.Sprintf("%s differs (%s vs %s)", what, x, y))
		}
	}
	// a file is compared by its contents (inputDiffs), not by its path: the
	// same dataset copied beside the study is the same study
	file := func(what, x, y string, isFile func(string) bool) {
		if !isFile(x) || !isFile(y) {
			diff(what, strconv.Quote(x), strconv.Quote(y))
		}
	}
	file("dataset", a.Dataset, b.Dataset, func(s string) bool { return sameData || !strings.HasPrefix(s, "builtin:") })
	diff("arms", strings.Join(a.Arms, ","), strings.Join(b.Arms, ","))
	arms := slices.Clone(a.Arms)
	for _, arm := range b.Arms {
		if !slices.Contains(arms, arm) {
			arms = append(arms, arm)
		}
	}
	for _, arm := range arms {
		file("schema of "+arm, a.Schemas[arm], b.Schemas[arm], contract.IsSchemaFile)
		if x, y := a.Schemas[arm], b.Schemas[arm]; contract.IsSchemaFile(x) && contract.IsSchemaFile(y) && x != y {
			schemaFiles = append(schemaFiles, [3]string{arm, x, y})
		}
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
	file("prompt_template", a.PromptTemplate, b.PromptTemplate, func(s string) bool { return s != "" })
	return d, schemaFiles
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

// hashOfInput is the sha256 of r's input of role read from path ("" when
// there is none).
func hashOfInput(r *report.ToolcallReport, role, path string) string {
	for _, in := range r.Inputs {
		if in.Role == role && in.Path == path {
			return in.SHA256
		}
	}
	return ""
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

// healthOfBoth lists why either report cannot take part (health), and once,
// when requests of either went unanswered (a provider error, a missing
// response), what to do.
func healthOfBoth(opts Options, a *report.ToolcallReport, fa rowFlags, b *report.ToolcallReport, fb rowFlags) []string {
	da, ua := health(opts.LabelA, a, fa)
	db, ub := health(opts.LabelB, b, fb)
	d := append(da, db...)
	if ua || ub {
		d = append(d, "ask the requests left without an answer again (a runner's -o resumes its file, asking only those) and score again")
	}
	return d
}

// health lists why one report cannot take part: incomplete, provider errors,
// missing responses, answers that measure the runner; unanswered says whether
// requests went without an answer (a provider error, a missing response).
func health(label string, r *report.ToolcallReport, flags rowFlags) (d []string, unanswered bool) {
	if !r.Complete {
		d = append(d, label+": report is not complete")
	}
	if r.Unmeasured {
		d = append(d, label+": every answer is empty, an API's message around the model's text, encoded twice, in quotes or in a list, or every record a provider error, so its figures measure the runner, not the model (its warnings say which): mend the runner and score its responses again")
	}
	var provider, missing int
	for _, a := range r.Arms {
		provider += a.Value.ProviderErrors
		missing += a.Value.MissingResponses
	}
	if flags.provider {
		provider = max(provider, 1)
	}
	if flags.missing {
		missing = max(missing, 1)
	}
	if provider > 0 {
		d = append(d, label+": "+contract.Plural(provider, "provider error", "provider errors"))
	}
	if missing > 0 {
		d = append(d, label+": "+contract.Plural(missing, "missing response", "missing responses"))
	}
	return d, provider+missing > 0
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
	return []string{fmt.Sprintf("%s only in %s (first: %s)", contract.Plural(n, "row", "rows"), label, first)}
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

// notComparable is the error of two reports that differ where a comparison
// needs them alike, and what compare takes.
func notComparable(diffs []string) error {
	return fmt.Errorf("reports cannot be compared: %s", strings.Join(diffs, "; "))
}

// configDiffs are the differences of configuration between a and b, with
// what compare takes when there are any.
func configDiffs(a, b *report.ToolcallReport) []string {
	ha, hb := hashes(a, "dataset"), hashes(b, "dataset")
	d, schemaFiles := studyDiffs(&a.Study, &b.Study, len(ha) > 0 && slices.Equal(ha, hb))
	d = append(d, inputDiffs(a, b)...)
	for _, f := range schemaFiles {
		// the set of schema hashes is the same with two arms' files swapped
		if x, y := hashOfInput(a, "schema", f[1]), hashOfInput(b, "schema", f[2]); x != y {
			d = append(d, fmt.Sprintf("schema of %s differs (%q vs %q: sha256 %s vs %s)", f[0], f[1], f[2], x, y))
		}
	}
	if len(d) > 0 {
		d[len(d)-1] += ": compare takes two reports of one study, each scored with the same study and flags (two models' runs, or two runs of one model)"
	}
	return d
}
