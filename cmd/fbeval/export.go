package main

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/export"
	"github.com/fbeval/fbeval/score"
	"github.com/fbeval/fbeval/score/relations"
	"github.com/fbeval/fbeval/score/toolcall/study"
)

// ExportCmd writes the requests of a study.
type ExportCmd struct {
	StudyFlags       `embed:""`
	Format           string   `help:"jsonl (one request per line), json (one batch object), or text (what the batch holds, one key: value line each, as the CogLang reference prints it; no requests). Without it, -o's name decides (.json the batch object, .txt text), else jsonl." enum:"jsonl,json,text" default:"jsonl"`
	IncludeReference bool     `help:"Include the reference answer in every request (for smoke tests with fbeval-mock)."`
	RepairFrom       []string `help:"Response files of the previous rounds: write the next attempt's requests for rows that failed with public feedback. Repeat for more files, or quote a pattern ('round*.jsonl')." placeholder:"FILE" sep:"none"`
	Output           string   `short:"o" help:"Write to FILE instead of standard output: a file is replaced whole once the output is complete, never left half-written; a pipe or FIFO is written as it goes." placeholder:"FILE"`
}

func (c *ExportCmd) Run(env *Env) error {
	repairFrom, err := contract.ExpandPatterns("--repair-from", splitJoined(c.RepairFrom))
	if err != nil {
		return err
	}
	c.RepairFrom = repairFrom
	env.noteInput(c.RepairFrom...)
	if err := c.claimInputs(env, c.Output); err != nil {
		return err
	}
	for _, p := range c.RepairFrom {
		if err := env.claimStdin("--repair-from", p); err != nil {
			return err
		}
	}
	if err := checkOutputs(env, c.Output); err != nil {
		return err
	}
	requests := contract.FileKind(contract.RequestV1)
	// a summary (--format text) is no file of fbeval's: not over one
	what, writes := formatOutput(c.Format, map[string]string{"jsonl": requests, "json": requests})
	if err := notOtherKind("-o", c.Output, what, writes...); err != nil {
		return err
	}
	s, err := c.resolve()
	if err != nil {
		return err
	}
	return writeOutput(env, c.Output, func(w *bufio.Writer) error {
		if s.Suite == contract.SuiteCogLang {
			if len(c.RepairFrom) > 0 {
				return usageError("--repair-from is for toolcall studies")
			}
			if err := noCogLangGates(c.Study, &s); err != nil {
				return err
			}
			sayCogLangSampling(env, &s, c.Format)
			// two passes over the fixture, one case at a time: the first checks it
			// whole (and counts its cases), so a bad fixture writes nothing
			src, path := export.CogLangSourceOf(s.Dataset)
			defer src.Close()
			n, warnings, err := export.CheckCogLangFixture(src)
			if err != nil {
				return err
			}
			for _, w := range warnings {
				env.warnf("%s", w)
			}
			switch c.Format {
			case "json":
				return export.WriteCogLangBatch(w, export.CogLangCasesOf(src), n, path, c.IncludeReference)
			case "text":
				return export.WriteCogLangSummary(w, n, path, c.IncludeReference)
			}
			return export.WriteCogLangJSONL(w, export.CogLangCasesOf(src), c.IncludeReference)
		}
		plan, err := export.PlanToolcall(s, relations.Vocabulary)
		if err != nil {
			return c.pathHint(err)
		}
		// the study's gates decide its scoring: a mistyped one is said now,
		// not after the run
		if err := c.checkGates(plan, nil); err != nil {
			return err
		}
		// a case no answer can pass is not asked (score warns of one)
		if err := study.GoldError(plan.Study.Dataset, plan.Cases); err != nil {
			return err
		}
		if len(c.RepairFrom) == 0 && c.Format == "text" {
			// every request is made, as for the file, so that what would stop
			// the export (a prompt template's error) stops the summary too
			n := 0
			if err := plan.Each(c.IncludeReference, func(*contract.Request) error { n++; return nil }); err != nil {
				return err
			}
			return export.WriteRequestSummary(w, &plan.Study, n, c.IncludeReference)
		}
		if len(c.RepairFrom) == 0 {
			// a prompt template that fails for a later case stops the export
			// before its first request reaches a pipe
			if err := plan.CheckPrompts(); err != nil {
				return err
			}
			// one request at a time: memory does not grow with the study
			return export.StreamRequests(w, &plan.Study, plan.RequestCount(), c.Format, func(yield func(*contract.Request) error) error {
				return plan.Each(c.IncludeReference, yield)
			})
		}
		if plan.Study.Repairs == 0 {
			// no round could be due: the flag was left out
			return usageError("--repair-from: the study allows no repair round, so no repair request can be due: give --repairs N, the rounds the study allows (a study file's \"repairs\")")
		}
		run, err := study.New(plan)
		if err != nil {
			return err
		}
		defer run.Close()
		if err := readAll(env, run, c.RepairFrom, score.Options{}, c.given()); err != nil {
			return err
		}
		if err := c.checkRepairFrom(run); err != nil {
			return err
		}
		due, err := run.RepairsDue()
		if err != nil {
			return err
		}
		n := 0
		for _, k := range due {
			n += k
		}
		c.sayRepairs(env, run, n)
		// the template is run for every case and arm before a request
		// reaches a pipe, as for the first round's
		if err := plan.CheckPrompts(); err != nil {
			return err
		}
		if c.Format == "text" {
			return export.WriteRequestSummary(w, &plan.Study, n, c.IncludeReference)
		}
		// one repair request at a time: memory does not grow with the study
		return export.StreamRequests(w, &plan.Study, n, c.Format, func(yield func(*contract.Request) error) error {
			return run.EachRepair(func(r *export.Repair) error {
				req, err := plan.RepairRequest(r, c.IncludeReference)
				if err != nil {
					return err
				}
				return yield(&req)
			})
		})
	})
}

// maxRejectedNamed bounds the rejected lines of one response file named on
// stderr: a file of 900 lines past --max-line-bytes named each, with the same
// advice 900 times.
const maxRejectedNamed = 20

// readAll joins response files to a toolcall run and checks that they answer it
// (given: the study flags the user gave), then names their rejected lines on
// stderr. Nothing is written before an error, so an unreadable or wrong file is
// one line.
func readAll(env *Env, run *study.Run, paths []string, opts score.Options, given study.Given) error {
	srcs := make([]score.Source, len(paths))
	for i, p := range paths {
		srcs[i] = inputSource(env, p)
	}
	if err := run.ReadAll(srcs, opts); err != nil {
		return err
	}
	if err := run.CheckJoined(given); err != nil {
		return err
	}
	var files score.FileWarnings
	for _, st := range run.Inputs {
		var ws []string
		for _, rej := range st.Rejected[:min(len(st.Rejected), maxRejectedNamed)] {
			ws = append(ws, rej.Reason+" (line rejected)")
		}
		if left := st.RejectedCount - min(len(st.Rejected), maxRejectedNamed); left > 0 {
			listed := "them all"
			if st.RejectedCount > score.MaxListed {
				listed = fmt.Sprintf("the first %d", score.MaxListed)
			}
			ws = append(ws, fmt.Sprintf("%s: %s not named here (a JSON report, --format json, lists %s in its inputs)", st.Path, contract.Plural(left, "more rejected line is", "more rejected lines are"), listed))
		}
		files.Add(ws...)
	}
	for _, w := range files.Lines("the report's inputs") {
		env.warnf("%s", w)
	}
	return nil
}

// writeOutput runs write against standard output, or against a temporary file
// renamed over path once everything was written, so an interrupted run never
// leaves half a file.
func writeOutput(env *Env, path string, write func(*bufio.Writer) error) error {
	if path == "" || path == "-" {
		if err := env.stdoutNotInput(); err != nil {
			return err
		}
		w := bufio.NewWriterSize(env.Stdout, 64<<10)
		if err := write(w); err != nil {
			w.Flush()
			return err
		}
		return w.Flush()
	}
	return writeFileAtomic(env, path, write)
}

// checkRepairFrom refuses files given to --repair-from from which no round
// can be built: files that answer no request of the study's (an empty file,
// a runner that wrote nothing), and files that answer repair attempts only
// (the last round's responses given alone), as the round they would write is
// empty, before the rounds are built, whose first missing attempt would be
// named in place of the file missing.
func (c *ExportCmd) checkRepairFrom(run *study.Run) error {
	first, later := run.Answered()
	switch {
	case first == 0 && later == 0:
		return usageError("--repair-from %s: no record answers a request of this study: give the responses to its first round's requests (then every round's after them)", contract.FileList(c.RepairFrom))
	case first == 0:
		return usageError("--repair-from: the records given answer repair attempts only (%s), no first attempt: give the first attempts' responses too, then every round's after them (--repair-from first.jsonl --repair-from round2.jsonl)", contract.Plural(later, "record", "records"))
	}
	return nil
}

// sayRepairs says what the files given to --repair-from leave out of the next
// round: rows with no first attempt get no repair request; a round with no
// request says why.
func (c *ExportCmd) sayRepairs(env *Env, run *study.Run, n int) {
	first, _ := run.Answered()
	rows := run.Plan.RequestCount()
	switch {
	case first < rows:
		env.warnf("%s of %d %s no first-attempt response: %s no repair request (answer %s with the first round's requests)", contract.Plural(rows-first, "row", "rows"), rows, contract.Pick(rows-first, "has", "have"), contract.Pick(rows-first, "it gets", "they get"), contract.Pick(rows-first, "it", "them"))
	}
	if n == 0 {
		env.warnf("no repair request is due: every row succeeded, used its %s, or failed with no feedback the model may be shown (a provider error, a wrong value only the hidden answer shows); the request file is empty", contract.Pick(run.Plan.Study.Repairs, "repair round", "repair rounds"))
	}
}

// sayCogLangSampling says, for the requests of a CogLang study that sets
// max_tokens or temperature, that they do not carry them (a CogLang request
// is the reference's, which has no such members) and the runner must be
// given them; a toolcall request carries them itself.
func sayCogLangSampling(env *Env, s *contract.Study, format string) {
	if format == "text" || (s.MaxTokens == nil && s.Temperature == nil) {
		return
	}
	var set, flags []string
	if s.MaxTokens != nil {
		set = append(set, fmt.Sprintf("max_tokens %d", *s.MaxTokens))
		flags = append(flags, fmt.Sprintf("--max-tokens %d", *s.MaxTokens))
	}
	if s.Temperature != nil {
		t := strconv.FormatFloat(*s.Temperature, 'g', -1, 64)
		set = append(set, "temperature "+t)
		flags = append(flags, "--temperature "+t)
	}
	env.warnf("the study's %s %s not in the CogLang requests, which are the reference scorer's and have no such members: give the runner %s", strings.Join(set, " and "), contract.Pick(len(set), "is", "are"), strings.Join(flags, " "))
}
