package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/export"
	"github.com/fbeval/fbeval/score"
	"github.com/fbeval/fbeval/score/coglang"
)

// ScoreCmd scores response files against a study.
type ScoreCmd struct {
	StudyFlags   `embed:""`
	Responses    []string `help:"Response file (JSONL, JSON list or batch object; - for standard input). Repeat for more files: later records win." placeholder:"FILE"`
	Format       string   `help:"Output format: json, text, table, markdown, html, junit, or jsonl (toolcall case results)." enum:"json,text,table,markdown,html,junit,jsonl" default:"json"`
	SummaryOnly  bool     `help:"CogLang: leave the per-case results out."`
	FailuresOnly bool     `help:"CogLang: keep only failing cases in the per-case results."`
	CasesOut     string   `help:"Toolcall: write one fbeval-case-result/v1 line per case, arm and repeat to FILE." placeholder:"FILE"`
	Output       string   `short:"o" help:"Write the report to FILE (atomically) instead of standard output." placeholder:"FILE"`
	InputPrice   *float64 `help:"Toolcall: USD per million input tokens." placeholder:"USD"`
	OutputPrice  *float64 `help:"Toolcall: USD per million output tokens." placeholder:"USD"`
	Gate         []string `help:"Toolcall: a threshold on a report field, e.g. input_schema.first_pass_success_percent>=90; exit 1 when unmet." placeholder:"EXPR"`
	MaxLineBytes int      `help:"Longest response line read." default:"67108864"`
	Workers      int      `help:"Goroutines that decode and judge records (0: one per core); results are the same whatever the number." default:"0"`
	Profile      string   `help:"Write a CPU profile of the scoring to FILE (for go tool pprof)." placeholder:"FILE"`
}

func (c *ScoreCmd) Run(env *Env) error {
	if c.SummaryOnly && c.FailuresOnly {
		return usageError("--summary-only and --failures-only exclude each other")
	}
	if c.Workers < 0 {
		return usageError("--workers must not be negative")
	}
	if c.MaxLineBytes <= 0 {
		return usageError("--max-line-bytes must be positive")
	}
	s, err := c.resolve()
	if err != nil {
		return err
	}
	if os.Getenv("GOGC") == "" {
		// Scoring allocates little that lives long, and the live heap stays small
		// (flat at tens of MB): collecting less often buys throughput cheaply.
		debug.SetGCPercent(400)
	}
	if c.Profile != "" {
		stop, err := startProfile(c.Profile)
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

func (c *ScoreCmd) options() score.Options {
	return score.Options{MaxLineBytes: c.MaxLineBytes, Workers: c.Workers}
}

func (c *ScoreCmd) sources(env *Env) ([]score.Source, func(), error) {
	var srcs []score.Source
	var closers []func()
	closeAll := func() {
		for _, f := range closers {
			f()
		}
	}
	stdin := 0
	for _, p := range c.Responses {
		if p == "-" {
			if stdin++; stdin > 1 {
				closeAll()
				return nil, nil, usageError("--responses - can be given once")
			}
		}
		r, done, err := openInput(env, p)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		closers = append(closers, done)
		srcs = append(srcs, score.Source{Name: p, R: r})
	}
	return srcs, closeAll, nil
}

func (c *ScoreCmd) runCogLang(env *Env, s contract.Study) error {
	if c.CasesOut != "" || c.Format == "jsonl" || len(c.Gate) > 0 || c.InputPrice != nil || c.OutputPrice != nil {
		return usageError("--cases-out, --format jsonl, --gate and prices are for toolcall studies")
	}
	fx, path, err := export.LoadCogLangFixture(s.Dataset)
	if err != nil {
		return err
	}
	opts := coglang.Options{Strict: s.Strict, FixturePath: path, Workers: c.Workers}
	var res *coglang.Result
	if len(c.Responses) > 0 {
		srcs, done, err := c.sources(env)
		if err != nil {
			return err
		}
		defer done()
		opts.AnswerSource = strings.Join(c.Responses, ", ")
		var loaded *score.CogLangResponses
		res, loaded, err = score.ScoreCogLang(fx, srcs, c.options(), opts)
		if err != nil {
			return err
		}
		for _, w := range loaded.Warnings {
			env.warnf("%s", w)
		}
	} else {
		res = coglang.Score(fx, nil, opts)
	}
	mode := coglang.ModeFull
	switch {
	case c.SummaryOnly:
		mode = coglang.ModeSummaryOnly
	case c.FailuresOnly:
		mode = coglang.ModeFailuresOnly
	}
	err = writeOutput(env, c.Output, func(w *bufio.Writer) error {
		switch c.Format {
		case "text":
			return res.WriteText(w, mode)
		case "table":
			return res.WriteTable(w)
		case "markdown", "html", "junit":
			return renderReport(w, res.Object(coglang.ModeFull), c.Format)
		}
		return res.WriteJSON(w, mode)
	})
	if err != nil {
		return err
	}
	if !res.OK() {
		return &exitError{code: 1}
	}
	return nil
}

func (c *ScoreCmd) runToolcall(env *Env, s contract.Study) error {
	if c.SummaryOnly || c.FailuresOnly {
		return usageError("--summary-only and --failures-only are for coglang studies")
	}
	if len(c.Responses) == 0 {
		return usageError("a toolcall study needs --responses FILE")
	}
	if c.InputPrice != nil || c.OutputPrice != nil {
		p := contract.Prices{}
		if s.Prices != nil {
			p = *s.Prices
		}
		if c.InputPrice != nil {
			p.InputPerMillionUSD = *c.InputPrice
		}
		if c.OutputPrice != nil {
			p.OutputPerMillionUSD = *c.OutputPrice
		}
		s.Prices = &p
	}
	s.Gates = append(s.Gates, c.Gate...)
	if _, err := score.ParseGates(s.Gates); err != nil {
		return usageError("%v", err)
	}
	plan, err := export.PlanToolcall(s)
	if err != nil {
		return err
	}
	run, err := score.NewToolcallRun(plan)
	if err != nil {
		return err
	}
	if err := readAll(env, run, c.Responses, c.options()); err != nil {
		return err
	}
	rep, err := run.Report()
	if err != nil {
		return err
	}
	if c.CasesOut != "" {
		if err := writeFileAtomic(c.CasesOut, func(w *bufio.Writer) error { return writeJSONL(w, run.CaseResults()) }); err != nil {
			return err
		}
	}
	err = writeOutput(env, c.Output, func(w *bufio.Writer) error {
		switch c.Format {
		case "jsonl":
			return writeJSONL(w, run.CaseResults())
		case "text", "table":
			return renderReport(w, rep.Object(), "table")
		case "markdown", "html", "junit":
			return renderReport(w, rep.Object(), c.Format)
		}
		out, err := contract.Marshal(rep.Object(), contract.PythonIndent)
		if err != nil {
			return err
		}
		_, err = w.Write(append(out, '\n'))
		return err
	})
	if err != nil {
		return err
	}
	for _, w := range rep.Warnings {
		env.warnf("%s", w)
	}
	failed := 0
	for _, g := range rep.Gates {
		if !g.Passed {
			failed++
			actual := "null"
			if g.Actual != nil {
				actual = fmt.Sprint(*g.Actual)
			}
			env.warnf("gate failed: %s (actual %s)", g.Gate.Text, actual)
		}
	}
	if !rep.OK() {
		if !rep.Complete {
			env.warnf("the report is incomplete: some rows have no response")
		}
		return &exitError{code: 1}
	}
	return nil
}

func writeJSONL(w io.Writer, objs []contract.Object) error {
	var buf []byte
	for _, o := range objs {
		var err error
		if buf, err = contract.AppendJSON(buf[:0], o, contract.Compact, 0); err != nil {
			return err
		}
		if _, err := w.Write(append(buf, '\n')); err != nil {
			return err
		}
	}
	return nil
}
