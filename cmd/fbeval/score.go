package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/contract/usage"
	"github.com/fbeval/fbeval/export"
	"github.com/fbeval/fbeval/fixtures"
	"github.com/fbeval/fbeval/score"
	"github.com/fbeval/fbeval/score/coglang"
	"github.com/fbeval/fbeval/score/relations"
	"github.com/fbeval/fbeval/score/report"
	"github.com/fbeval/fbeval/score/toolcall/study"
)

// ScoreCmd scores response files against a study.
type ScoreCmd struct {
	StudyFlags          `embed:""`
	Responses           []string `help:"Response file (JSONL, JSON list or batch object; - for standard input). Repeat for more files, or quote a pattern ('shards/*.jsonl': the files it matches, in byte order): later records win." placeholder:"FILE" sep:"none"`
	ReferenceAnswers    bool     `help:"CogLang: score the fixture's own reference answers instead of responses (what the reference scorer does when it is given no responses)."`
	AnswersFile         string   `help:"CogLang: score an answers file as the reference scorer's --answers-file reads one: a JSON list of {case_id, output}, or an object holding it in answers; each output is read alone, as Python's str() of it (null is None), and no schema_version is checked (- for standard input)." placeholder:"FILE"`
	Format              string   `help:"Output format: json, text, table, markdown, html, junit, or jsonl (toolcall case results). Without it, -o's name decides (.html, .xml for junit, .md, .txt for text, .jsonl, .json), else json." enum:"json,text,table,markdown,html,junit,jsonl" default:"json"`
	SummaryOnly         bool     `help:"CogLang: leave the per-case results out."`
	FailuresOnly        bool     `help:"CogLang: keep only failing cases in the per-case results."`
	CasesOut            string   `help:"Toolcall: write one fbeval-case-result/v1 line per case, arm and repeat to FILE (- is standard output, with the report in a file)." placeholder:"FILE"`
	Output              string   `short:"o" help:"Write the report to FILE instead of standard output: a file is replaced whole once the report is complete, never left half-written; a pipe or FIFO is written as it goes." placeholder:"FILE"`
	InputPrice          *float64 `help:"Toolcall: USD per million input tokens (with --output-price, or the study's prices)." placeholder:"USD"`
	OutputPrice         *float64 `help:"Toolcall: USD per million output tokens." placeholder:"USD"`
	Gate                []string `help:"Toolcall: a threshold on a report field, FIELD OP NUMBER, e.g. input_schema.first_pass_success_percent>=90; exit 1 when unmet. Percents are 0-100 (write 0.5% for half a percent); fields are checked before scoring." placeholder:"EXPR" sep:"none"`
	MinSuccess          []string `help:"Toolcall: the least first-pass success percent of every arm (90), or of one arm (input_schema=90); exit 1 when unmet. Shorthand for --gate ARM.first_pass_success_percent>=N." placeholder:"PERCENT|ARM=PERCENT" sep:"none"`
	AllowProviderErrors bool     `help:"Toolcall: rows left with a provider error (the model never answered: a bad key, a quota, a server error) do not make the run fail; they still score as failures in every rate."`
	MaxLineBytes        int      `help:"Longest response line read, in bytes (default 64 MiB)." default:"67108864" placeholder:"BYTES"`
	Workers             int      `help:"Goroutines that decode and judge records (0: one per core, eight at most; at most 1024, each adds a few MB); results are the same whatever the number." default:"0" placeholder:"N"`
	Profile             string   `help:"Write a CPU profile of the scoring to FILE (for go tool pprof)." placeholder:"FILE"`
	// formatByName: Format is what -o's name asks for (formatFromOutput)
	formatByName bool
	// givenTwice says which response files were named twice, once the files
	// are read: before, an error that stops the score is its one line
	givenTwice []string
	// answers: Responses is the one file of --answers-file
	answers bool
}

// responsesFlag is the flag that named the response files.
func (c *ScoreCmd) responsesFlag() string {
	if c.answers {
		return "--answers-file"
	}
	return "--responses"
}

// sayGivenTwice says which response files were named twice (Run found them).
func (c *ScoreCmd) sayGivenTwice(env *Env) {
	for _, w := range c.givenTwice {
		env.warnf("%s", w)
	}
}

func (c *ScoreCmd) Run(env *Env) error {
	responses, err := contract.ExpandPatterns("--responses", splitJoined(c.Responses))
	if err != nil {
		return err
	}
	c.Responses = responses
	if c.AnswersFile != "" {
		switch {
		case len(c.Responses) > 0:
			return usageError("give --responses or --answers-file, not both (the reference scorer takes one of them)")
		case c.ReferenceAnswers:
			return usageError("give --answers-file or --reference-answers, not both")
		}
		c.Responses, c.answers = []string{c.AnswersFile}, true
	}
	if c.SummaryOnly && c.FailuresOnly {
		return usageError("--summary-only and --failures-only exclude each other")
	}
	if c.Workers < 0 {
		return usageError("--workers must not be negative")
	}
	if c.Workers > score.MaxWorkers {
		return usageError("--workers %d: at most %d (each holds records in flight; 0 is one per core, eight at most)", c.Workers, score.MaxWorkers)
	}
	if c.MaxLineBytes <= 0 {
		return usageError("--max-line-bytes must be positive")
	}
	if c.CasesOut == "-" && (c.Output == "" || c.Output == "-") {
		// "-" is standard output, as for -o
		return usageError("--cases-out - and the report both go to standard output: write the report to a file (-o report.json), or give --format jsonl for the case results alone")
	}
	if c.Output != "" && c.CasesOut != "" && sameOutput(c.Output, c.CasesOut) {
		return usageError("-o %s and --cases-out %s name one file, and the second written would replace the first: give each its own file", c.Output, c.CasesOut)
	}
	if err := c.claimInputs(env, c.Output); err != nil {
		return err
	}
	env.noteInput(c.Responses...)
	var seen fileSet // the files named so far, each stat'ed once
	for i, p := range c.Responses {
		if err := contract.CommaList(c.responsesFlag(), p); err != nil {
			return err
		}
		if contract.Stdin(p) && slices.Contains(c.Responses[:i], p) {
			return usageError("--responses - can be given once")
		}
		if err := env.claimStdin(c.responsesFlag(), p); err != nil {
			return err
		}
		// one file named twice (a glob and its own name, a link): scored, its
		// records each repeating itself, and said so
		if contract.Stdin(p) {
			if f, ok := env.Stdin.(*os.File); ok {
				if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
					if name, ok := seen.find(st); ok {
						// f.jsonl, then - < f.jsonl
						c.givenTwice = append(c.givenTwice, fmt.Sprintf("%s and %s are one file, given twice: each of its records is read twice and repeats itself (the last wins)", name, contract.InputName(p)))
					}
					seen.add(p, st)
				}
			}
		} else if st, err := env.inputs.Stat(p, env.Stdin); err == nil && st.Mode().IsRegular() {
			if name, ok := seen.find(st); ok {
				c.givenTwice = append(c.givenTwice, fmt.Sprintf("%s and %s are one file, given twice: each of its records is read twice and repeats itself (the last wins)", contract.InputName(name), p))
			}
			seen.add(p, st)
		}
	}
	if err := checkOutputs(env, c.Output, c.CasesOut); err != nil {
		return err
	}
	s, err := c.resolve()
	if err != nil {
		return err
	}
	if err := c.checkInputs(env, s); err != nil {
		return err
	}
	if err := c.checkOutputKinds(s); err != nil {
		return err
	}
	if os.Getenv("GOGC") == "" {
		// Scoring allocates little that lives long, and the live heap stays small
		// (flat at tens of MB): collecting less often buys throughput cheaply.
		debug.SetGCPercent(400)
	}
	if c.Profile != "" {
		stop, err := startProfile(env, c.Profile)
		if err != nil {
			return err
		}
		defer stop()
	}
	if s.Suite == contract.SuiteCogLang {
		return c.runCogLang(env, s)
	}
	return c.runToolcall(env, s)
}

// checkOutputKinds refuses -o or --cases-out over a file of fbeval's of
// another kind than it writes (notOtherKind).
func (c *ScoreCmd) checkOutputKinds(s contract.Study) error {
	result := contract.FileKind(contract.ReportV1)
	if s.Suite == contract.SuiteCogLang {
		result = contract.FileKind(contract.CogLangResult)
	}
	cases := contract.FileKind(contract.CaseResultV1)
	what, writes := formatOutput(c.Format, map[string]string{"json": result, "jsonl": cases})
	if err := notOtherKind("-o", c.Output, what, writes...); err != nil {
		return err
	}
	return notOtherKind("--cases-out", c.CasesOut, cases, cases)
}

// checkInputs refuses a score whose input would be a guess: no responses named
// while standard input holds data, or none named at all.
func (c *ScoreCmd) checkInputs(env *Env, s contract.Study) error {
	cog := s.Suite == contract.SuiteCogLang
	switch {
	case c.answers && !cog:
		return usageError("--answers-file is for coglang studies (the CogLang reference scorer's answers file); toolcall responses go to --responses")
	case c.ReferenceAnswers && !cog:
		return usageError("--reference-answers is for coglang studies; for a toolcall smoke test run fbeval export %s --include-reference | fbeval-mock --mode reference | fbeval score %s --responses -", c.Study, c.Study)
	case c.ReferenceAnswers && len(c.Responses) > 0:
		return usageError("give --responses or --reference-answers, not both")
	case c.ReferenceAnswers || len(c.Responses) > 0:
		return nil
	}
	alt := ""
	if cog {
		alt = ", or --reference-answers to score the fixture's own reference answers"
	}
	if stdinHasData(env) {
		return usageError("no responses given, and standard input is not read without --responses -: give --responses - to score it, or --responses FILE%s", alt)
	}
	return usageError("no responses given: give --responses FILE (- for standard input)%s", alt)
}

// stdinHasData reports whether standard input is a pipe or a regular file (not a
// terminal or /dev/null): data someone meant to give.
func stdinHasData(env *Env) bool {
	f, ok := env.Stdin.(*os.File)
	if !ok {
		if l, ok := env.Stdin.(interface{ Len() int }); ok {
			return l.Len() > 0
		}
		return env.Stdin != nil
	}
	st, err := f.Stat()
	if err != nil {
		return false
	}
	return st.Mode()&os.ModeNamedPipe != 0 || st.Mode().IsRegular()
}

func (c *ScoreCmd) options() score.Options {
	return score.Options{MaxLineBytes: c.MaxLineBytes, Workers: c.Workers}
}

// sources gives the response files, each opened when its turn to be read
// comes (a thousand shards are not open at once).
func (c *ScoreCmd) sources(env *Env) []score.Source {
	var srcs []score.Source
	for _, p := range c.Responses {
		srcs = append(srcs, inputSource(env, p))
	}
	return srcs
}

// inputSource is the response file path, opened (openInput) when it is read.
func inputSource(env *Env, path string) score.Source {
	return score.Source{Name: path, Open: func() (io.Reader, func(), error) { return openInput(env, path, true) }}
}

// noToolcallOutputs refuses, naming the ones given, the flags of a toolcall
// score a CogLang score has no use for, with what a CogLang result does
// instead.
func (c *ScoreCmd) noToolcallOutputs() error {
	var given []string
	why := ""
	if len(c.Gate) > 0 || len(c.MinSuccess) > 0 {
		given = append(given, flagsGiven(map[string]bool{"--gate": len(c.Gate) > 0, "--min-success": len(c.MinSuccess) > 0})...)
		why = "a CogLang result's ok decides the exit code"
	}
	if c.CasesOut != "" || c.Format == "jsonl" {
		given = append(given, flagsGiven(map[string]bool{"--cases-out": c.CasesOut != "", "--format jsonl": c.Format == "jsonl"})...)
		if why == "" {
			why = "a CogLang result is one JSON document, its cases in it (--format json; --failures-only for the failing ones)"
		}
	}
	if c.InputPrice != nil || c.OutputPrice != nil {
		given = append(given, flagsGiven(map[string]bool{"--input-price": c.InputPrice != nil, "--output-price": c.OutputPrice != nil})...)
		if why == "" {
			why = "a CogLang result counts no tokens"
		}
	}
	if len(given) == 0 {
		return nil
	}
	return usageError("%s %s for toolcall studies: %s", contract.JoinWords(given), contract.Pick(len(given), "is", "are"), why)
}

// flagsGiven lists the flags of set that are true, in a fixed order.
func flagsGiven(set map[string]bool) []string {
	var out []string
	for f, ok := range set {
		if ok {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out
}

// cogLangMemoryLimit is the soft memory limit of CogLang scoring unless
// GOMEMLIMIT is set.
const cogLangMemoryLimit = 80 << 20

func (c *ScoreCmd) runCogLang(env *Env, s contract.Study) error {
	if c.Format == "jsonl" && c.formatByName {
		return usageError("-o %s: a CogLang result is one JSON document, not JSON lines: name the output .json (or give --format)", c.Output)
	}
	if err := c.noToolcallOutputs(); err != nil {
		return err
	}
	if err := noCogLangGates(c.Study, &s); err != nil {
		return err
	}
	// the fixture is read once, one case at a time, and each case keeps a small
	// slot; the result reads its cases back as it is written
	if os.Getenv("GOMEMLIMIT") == "" {
		// The live heap is the slots (about 44 bytes a case) and the batches in
		// flight; a soft limit keeps the collector from letting it grow to
		// GOGC's goal at a million cases.
		debug.SetMemoryLimit(cogLangMemoryLimit)
	}
	if os.Getenv("GOGC") == "" {
		// The slots hold no pointers, so collecting at the default pace costs
		// little here, and GOGC 400 would let the heap of short-lived strings
		// grow to five times the live heap (100,000 cases: 90 to 63 MB).
		debug.SetGCPercent(100)
	}
	src, path := export.CogLangSourceOf(s.Dataset)
	defer src.Close()
	opts := coglang.Options{Strict: s.Strict, FixturePath: path, Workers: c.Workers, AllowOtherRecipe: c.AllowOtherRecipe, AnswersFile: c.answers}
	var res *coglang.Result
	if len(c.Responses) > 0 {
		// the fixture first: a bad one is the error, whatever the responses
		fx, err := coglang.IndexFixture(src)
		if err != nil {
			return err
		}
		srcs := c.sources(env)
		opts.AnswerSource = strings.Join(c.Responses, ", ")
		var loaded *coglang.ResponseFiles
		sopts := c.options()
		sopts.StrictBatch = s.Strict
		res, loaded, err = fx.ScoreFiles(srcs, sopts, opts)
		if err != nil {
			return err
		}
		c.sayGivenTwice(env)
		for _, w := range loaded.Warnings {
			env.warnf("%s", w)
		}
		if n := len(res.DuplicateCaseIDs); n > 0 {
			env.warnf("%s given more than once (%s): the last record wins", contract.Plural(n, "case id", "case ids"), usage.List(res.DuplicateCaseIDs, 5))
		}
		if n := len(res.UnknownCaseIDs); n > 0 {
			changed := ""
			if loaded.Changed > 0 {
				// a runner or a script that changed the ids it was given
				changed = fmt.Sprintf("; %d of them %s a case id of the fixture but for white space or letter case (the first, %q): write each request's case_id back as the request file has it", loaded.Changed, contract.Pick(loaded.Changed, "is", "are"), loaded.FirstChanged)
			}
			env.warnf("%s the fixture does not have (%s), not scored%s", contract.Plural(n, "case id", "case ids"), usage.List(res.UnknownCaseIDs, 5), changed)
		}
	} else {
		var err error
		if res, err = coglang.ScoreReferences(src, opts); err != nil {
			return err
		}
	}
	defer res.Close()
	for _, w := range res.FixtureWarnings() {
		env.warnf("%s", w)
	}
	if res.Summary.CaseCount == 0 {
		// ok, exit 0, as the reference scorer gives it: a fixture a filter
		// emptied would pass a CI job that checks only the exit code
		env.warnf("the fixture (%s) has no cases: nothing was scored, and the result is ok as the reference scorer gives it; check the fixture", path)
	}
	mode := coglang.ModeFull
	switch {
	case c.SummaryOnly:
		mode = coglang.ModeSummaryOnly
	case c.FailuresOnly:
		mode = coglang.ModeFailuresOnly
	}
	failed := false // the output could not be written: the summary says not ok
	defer func() { c.cogSummary(env, res, failed) }()
	doc := res.Doc(mode)
	err := writeOutput(env, c.Output, func(w *bufio.Writer) error {
		if err := renderDoc(w, doc, c.Format); err != nil {
			return err
		}
		return res.Err()
	})
	if err != nil {
		failed = true
		return err
	}
	if n := res.ProviderErrorCases(); n > 0 {
		env.warnf("%s a provider error, where the model never answered (%s): %s and the result is not ok; run the runner again with -o FILE to ask %s again (answered requests are skipped; of a batch: fbeval-batch to-* REQUESTS --answered FILE makes the batch of the rest, and from-* converts its results into FILE)%s", contract.Plural(n, "case has", "cases have"), res.ProviderErrorCodes, contract.Pick(n, "it scores as a failure", "they score as failures"), contract.Pick(n, "it", "them"), res.ProviderErrorCodes.FilterNote())
	}
	if !res.OK() {
		return &exitError{code: 1}
	}
	return nil
}

// toolcallMemoryLimit is the soft memory limit of toolcall scoring unless
// GOMEMLIMIT is set: what the run holds for the whole study (a slot of 56 bytes
// per attempt and at most 8 MiB of staged details, study.Run.HeldBytes) and a
// fixed allowance for the rest (batches in flight, rows being written). Scoring
// collects rarely (GOGC 400) for throughput, and the limit keeps the heap near
// what is live instead of five times it; it costs no measurable time. A study
// that holds more only collects more often.
func toolcallMemoryLimit(run *study.Run) int64 { return 48<<20 + run.HeldBytes() }

func (c *ScoreCmd) runToolcall(env *Env, s contract.Study) error {
	if c.SummaryOnly || c.FailuresOnly {
		return usageError("--summary-only and --failures-only are for coglang studies")
	}
	s, err := export.ApplyPrices(s, c.InputPrice, c.OutputPrice)
	if err != nil {
		return err
	}
	s.Gates = append(s.Gates, c.Gate...)
	extra, from, err := minSuccessGates(c.MinSuccess, s.Arms)
	if err != nil {
		return err
	}
	s.Gates = append(s.Gates, extra...)
	plan, err := export.PlanToolcall(s, relations.Vocabulary)
	if err != nil {
		return c.pathHint(err)
	}
	if err := c.checkGates(plan, from); err != nil {
		return err
	}
	run, err := study.New(plan)
	if err != nil {
		return err
	}
	defer run.Close()
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(toolcallMemoryLimit(run))
	}
	if err := readAll(env, run, c.Responses, c.options(), c.given()); err != nil {
		return err
	}
	c.sayGivenTwice(env)
	rep, err := run.Report()
	if err != nil {
		return err
	}
	doc := rep.Doc()
	write := func(w *bufio.Writer) error {
		if c.Format == "jsonl" {
			return caseResults(w, run)
		}
		if err := renderDoc(w, doc, c.Format); err != nil {
			return err
		}
		// rows are built from details read back as they are written
		return run.Err()
	}
	switch {
	case c.CasesOut != "" && c.Format == "json":
		// one pass: the report's rows write their case results as they are built
		err = writeOutput(env, c.CasesOut, func(cw *bufio.Writer) error {
			parts := report.NewCaseResultParts(cw, doc.Toolcall.ExpectedRows)
			run.CaseResultsBeside(parts)
			if err := writeOutput(env, c.Output, write); err != nil {
				return err
			}
			return parts.Close()
		})
	case c.CasesOut != "":
		if err = writeOutput(env, c.CasesOut, func(w *bufio.Writer) error { return caseResults(w, run) }); err == nil {
			err = writeOutput(env, c.Output, write)
		}
	default:
		err = writeOutput(env, c.Output, write)
	}
	if err != nil {
		// the summary all the same, as CogLang's: not ok, the output failed
		c.toolcallSummary(env, run, rep, false)
		return err
	}
	for _, w := range rep.Warnings {
		env.warnf("%s", w)
	}
	for _, g := range rep.Gates {
		if !g.Passed {
			env.warnf("%s", g.Why())
		} else if why := score.Vacuous(g.Gate); why != "" {
			env.warnf("%s", why)
		}
	}
	if !rep.Complete {
		env.warnf("the report is incomplete: some rows have no response")
		writtenFor(env, run)
	}
	ok := rep.OK() && !rep.Unmeasured // the warning says why
	if n := rep.ProviderErrorRows(); n > 0 {
		switch {
		case c.AllowProviderErrors && rep.NoAnswer:
			// the warning above says the run is not ok all the same
		case c.AllowProviderErrors:
			env.warnf("%s (--allow-provider-errors: the run does not fail for %s)", contract.Plural(n, "row has a provider error: it scores as a failure", "rows have a provider error: they score as failures"), contract.Pick(n, "it", "them"))
		default:
			ok = false
			codes := rep.ProviderErrorCodes()
			accept := ", or give --allow-provider-errors to accept " + contract.Pick(n, "it", "them")
			if rep.NoAnswer {
				accept = "" // it accepts some, not all
			}
			env.warnf("%s a provider error, where the model never answered (%s): %s and the run is not ok; run the runner again with -o FILE to ask %s again (answered requests are skipped; of a batch: fbeval-batch to-* REQUESTS --answered FILE makes the batch of the rest, and from-* converts its results into FILE)%s%s", contract.Plural(n, "row has", "rows have"), codes, contract.Pick(n, "it scores as a failure", "they score as failures"), contract.Pick(n, "it", "them"), accept, codes.FilterNote())
		}
	}
	c.toolcallSummary(env, run, rep, ok)
	if !ok {
		return &exitError{code: 1}
	}
	return nil
}

// writtenFor says which response files of an incomplete run were written for
// another study, by the identity their first record names (run.study): the
// responses of toolcall-quick scored as toolcall answer a sixth of its rows and
// leave the rest missing, which is the wrong study, not a failing model.
func writtenFor(env *Env, run *study.Run) {
	this := run.Plan.StudyID()
	for _, st := range run.Inputs {
		if st.WrittenFor == "" || st.WrittenFor == this {
			continue
		}
		name := ""
		for _, n := range fixtures.StudyNames() {
			if s, ok := fixtures.BuiltinStudy(n); ok && s.Suite == contract.SuiteToolcall {
				if p, err := export.PlanToolcall(s); err == nil && p.StudyID() == st.WrittenFor {
					name = " (" + n + ")"
				}
			}
		}
		env.warnf("%s: its records were written for study %s%s, and this study is %s: score them with the study, flags and files they were exported with", st.Path, st.WrittenFor, name, this)
	}
}

// caseResults writes a run's case results, failing when a detail could not be
// read back.
func caseResults(w *bufio.Writer, run *study.Run) error {
	results, err := run.CaseResultRanges()
	if err != nil {
		return err
	}
	return report.WriteCaseResultRanges(w, results)
}

// fromFiles names the response files a summary line counts from, and the
// models their scored records name: "a.jsonl (model m)".
func fromFiles(files, models []string) string {
	from := contract.FileList(files)
	short := make([]string, len(models)) // a name from a file, cut as quoted input is
	for i, m := range models {
		short[i] = contract.ShortLine(m)
	}
	if m := report.ModelsPhrase(short, " "); m != "" {
		from += " (" + m + ")"
	}
	return from
}

// cogSummary writes the one-line summary of a CogLang score on stderr; failed
// says the output could not be written (not ok, whatever the result).
func (c *ScoreCmd) cogSummary(env *Env, res *coglang.Result, failed bool) {
	n := res.Summary.CaseCount
	from := "the fixture's reference answers"
	if len(c.Responses) > 0 {
		var models []string
		if res.ResponseFile != nil {
			models = res.ResponseFile.Models
		}
		from = fromFiles(c.Responses, models)
	}
	verdict := "ok"
	if !res.OK() || failed {
		verdict = "not ok"
	}
	unknownIDs := contract.Plural(len(res.UnknownCaseIDs), "unknown id", "unknown ids")
	if res.UnknownNotListed > 0 {
		unknownIDs = fmt.Sprintf("more than %d unknown ids", len(res.UnknownCaseIDs))
	}
	env.warnf("%s: %s from %s: validate ok %d/%d, missing %d; %s, %s, %s; %s",
		c.Study, contract.Plural(n, "case", "cases"), from, res.Summary.ValidateOK, n, res.Summary.Missing, contract.Plural(res.RecordsRead, "record", "records"),
		contract.Plural(len(res.DuplicateCaseIDs), "duplicate id", "duplicate ids"), unknownIDs, verdict)
}

// toolcallSummary writes the one-line summary of a toolcall score on stderr.
func (c *ScoreCmd) toolcallSummary(env *Env, run *study.Run, rep *study.Aggregates, ok bool) {
	records, dups, unknown, rejected := 0, 0, 0, 0
	for _, in := range run.Inputs {
		records += in.Records
		dups += in.Duplicates
		unknown += in.Unknown
		rejected += in.RejectedCount
	}
	var arms []string
	for _, arm := range run.Plan.Study.Arms {
		v := "n/a"
		if p := rep.Arms[arm].FirstPassSuccess; p != nil {
			v = score.FormatValue("first_pass_success_percent", *p) + "%"
		}
		arms = append(arms, arm+" "+v)
	}
	met := 0
	for _, g := range rep.Gates {
		if g.Passed {
			met++
		}
	}
	verdict := "ok"
	if !ok {
		verdict = "not ok"
	}
	env.warnf("%s: %s from %s: first-pass success %s; %s, %s, %s, %d rejected; gates met %d/%d; %s",
		c.Study, contract.Plural(run.RowCount(), "row", "rows"), fromFiles(c.Responses, rep.Model().Models()), strings.Join(arms, ", "), contract.Plural(records, "record", "records"),
		contract.Plural(dups, "duplicate", "duplicates"), contract.Plural(unknown, "unknown id", "unknown ids"), rejected, met, len(rep.Gates), verdict)
}

// minSuccessGates turns --min-success values (PERCENT for every arm, or
// ARM=PERCENT) into gates on first-pass success, and from the value each
// gate was made of.
func minSuccessGates(values, arms []string) (out, from []string, err error) {
	for _, v := range values {
		arm, pct, found := strings.Cut(v, "=")
		if !found {
			arm, pct = "", v
		}
		if _, err := strconv.ParseFloat(strings.TrimSuffix(pct, "%"), 64); err != nil {
			return nil, nil, usageError("--min-success %q: want a percent (90) or ARM=PERCENT (input_schema=90)", v)
		}
		if arm == "" {
			for _, a := range arms {
				out, from = append(out, a+".first_pass_success_percent>="+pct), append(from, v)
			}
			continue
		}
		if !slices.Contains(arms, arm) && !slices.Contains(contract.Arms, arm) {
			// an arm of the suite the run leaves out: its gate says what did
			return nil, nil, usageError("--min-success %q: unknown arm %s; the study's arms: %s%s", v, arm, strings.Join(arms, ", "), usage.SuggestWord(arm, arms))
		}
		out, from = append(out, arm+".first_pass_success_percent>="+pct), append(from, v)
	}
	return out, from, nil
}

// fileSet finds a file among those added, as os.SameFile tells them apart,
// looking only at those of its size and time: ten thousand shards are not
// fifty million comparisons.
type fileSet struct {
	byStamp map[fileStamp][]int
	infos   []os.FileInfo
	names   []string
}

type fileStamp struct{ size, mod int64 }

func stampOf(fi os.FileInfo) fileStamp { return fileStamp{fi.Size(), fi.ModTime().UnixNano()} }

// add adds the file fi, named name.
func (s *fileSet) add(name string, fi os.FileInfo) {
	if s.byStamp == nil {
		s.byStamp = map[fileStamp][]int{}
	}
	k := stampOf(fi)
	s.byStamp[k] = append(s.byStamp[k], len(s.infos))
	s.infos, s.names = append(s.infos, fi), append(s.names, name)
}

// find returns the name the file fi was first added with.
func (s *fileSet) find(fi os.FileInfo) (string, bool) {
	for _, i := range s.byStamp[stampOf(fi)] {
		if os.SameFile(s.infos[i], fi) {
			return s.names[i], true
		}
	}
	return "", false
}

// checkGates parses the gates of plan's study and resolves each against the
// fields of the report it yields: a gate that names no field, or whose
// threshold cannot be meant for its field's unit, is bad usage. Export and
// study show check them too, so a study file's mistyped gate is found before
// the run, not at its scoring.
// A gate of the study file is named at its line and column there, one made
// of a --min-success value by that value (minSuccess: the value of each of
// the study's last gates, minSuccessGates), and one that names an arm, a
// domain or a category the flags left out says so.
func (f *StudyFlags) checkGates(plan *export.ToolcallPlan, minSuccess []string) error {
	var sel study.Selection
	if len(f.Arms) > 0 {
		sel.Arms = "--arms"
	}
	if len(f.Domain) > 0 {
		sel.Domains = "--domain"
	}
	if len(f.Category) > 0 {
		sel.Categories = "--category"
	}
	for i, text := range plan.Study.Gates {
		gates, err := score.ParseGates([]string{text})
		if err == nil {
			err = study.CheckGates(gates, plan, sel)
		}
		if err != nil {
			ge, ok := errors.AsType[*score.GateError](err)
			if j := i - (len(plan.Study.Gates) - len(minSuccess)); j >= 0 && ok {
				return usageError("--min-success %q: %s", minSuccess[j], ge.Why)
			}
			return usageError("%v", gateAt(f.Study, i, err))
		}
	}
	return nil
}

// gateAt places err, about the i-th gate of a study, at that gate's line and
// column in the study file studyArg names: its gates come first, those of
// --gate and --min-success after them. Other errors come back as they are.
func gateAt(studyArg string, i int, err error) error {
	if _, builtin := fixtures.BuiltinStudy(studyArg); builtin {
		return err
	}
	data, rerr := contract.ReadFile(studyArg)
	if rerr != nil {
		return err
	}
	s, perr := export.ParseStudy(studyArg, data)
	if perr != nil || i >= len(s.Gates) {
		return err
	}
	msg := err.Error()
	var ie *contract.InputError
	if errors.As(err, &ie) {
		msg = ie.Msg
	}
	rec := &contract.Record{File: studyArg, Line: 1, Col: 1, Raw: data}
	return rec.Errorf(contract.PointerOffset(data, fmt.Sprintf("/gates/%d", i)), "study: %s", msg)
}

// noCogLangGates refuses gates in a CogLang study (name: the study as given).
func noCogLangGates(name string, s *contract.Study) error {
	if len(s.Gates) > 0 {
		return usageError("%s: gates are for toolcall studies; a CogLang result's ok decides the exit code: remove \"gates\" from the study", name)
	}
	return nil
}
