package main

import (
	"bufio"
	"io"
	"os"
	"slices"
	"strconv"
	"sync"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/score/compare"
	"github.com/fbeval/fbeval/score/report"
)

// renderDoc writes a report document in any format of fbeval score and fbeval
// report: both commands call it with the same typed model, so they print the same
// bytes.
func renderDoc(w io.Writer, doc report.Doc, format string) error {
	switch format {
	case "json":
		return report.WriteJSON(w, doc)
	case "text":
		return report.WriteTextWidth(contract.NewPrintableWriter(w), doc, tableWidth())
	case "html":
		return report.WriteHTML(w, doc)
	case "markdown":
		return report.WriteMarkdown(contract.NewPrintableWriter(w), doc)
	case "junit":
		return report.WriteJUnit(w, doc)
	case "table":
		return report.WriteTableWidth(contract.NewPrintableWriter(w), doc, tableWidth())
	}
	return usageError("unknown format %q", format)
}

// ReportCmd re-renders a saved report.
type ReportCmd struct {
	File         string `arg:"" help:"A saved fbeval-report/v1 or CogLang result JSON (- for standard input)." placeholder:"REPORT.json"`
	Format       string `help:"table, text, json, markdown, html or junit: the bytes fbeval score writes in that format. Without it, -o's name decides (.html, .xml for junit, .md, .txt for text, .json), else table." enum:"table,text,json,markdown,html,junit" default:"table"`
	Output       string `short:"o" help:"Write to FILE instead of standard output: a file is replaced whole once the output is complete, never left half-written; a pipe or FIFO is written as it goes." placeholder:"FILE"`
	MaxLineBytes int64  `help:"Longest row of a toolcall report, or case of a CogLang result, read, in bytes (default 256 MiB: a row quotes each attempt's answer and its final one, so a 64 MiB response line scored can make a row of twice that or more; the rest of a report is bounded by --max-file-bytes)." default:"268435456" placeholder:"BYTES"`
}

func (c *ReportCmd) Run(env *Env) error {
	// JUnit XML counts each suite's tests before its first test case: the
	// reading that checks the lists keeps the counts, so they are read once
	// more, not twice.
	env.noteInput(c.File)
	if err := checkOutputs(env, c.Output); err != nil {
		return err
	}
	// JSON is the report again, of either suite
	what, writes := formatOutput(c.Format, map[string]string{"json": "a report"})
	if c.Format == "json" {
		writes = []string{contract.FileKind(contract.ReportV1), contract.FileKind(contract.CogLangResult)}
	}
	if err := notOtherKind("-o", c.Output, what, writes...); err != nil {
		return err
	}
	doc, done, err := openReport(env, c.File, report.OpenOptions{MaxRowBytes: c.MaxLineBytes, JUnitCounts: c.Format == "junit"})
	if err != nil {
		return err
	}
	defer done()
	return writeOutput(env, c.Output, func(w *bufio.Writer) error {
		if err := renderDoc(w, doc, c.Format); err != nil {
			return err
		}
		return rowsErr(doc)
	})
}

// noCaseResults refuses toolcall case results asked of fbeval report (what:
// the flag that asked), saying where they come from.
func noCaseResults(what string) string {
	return what + ": toolcall case results are written while scoring (fbeval score --format jsonl, or --cases-out FILE beside the report): a report does not hold every error of every attempt in full"
}

// openReport opens a saved report for rendering without holding its long
// lists (a toolcall report's rows, a CogLang result's cases): they are read
// again from the file (standard input is kept in a temporary file) as they are
// written. done releases the input.
func openReport(env *Env, path string, opts report.OpenOptions) (report.Doc, func(), error) {
	if opts.MaxRowBytes <= 0 {
		return report.Doc{}, nil, usageError("--max-line-bytes must be positive")
	}
	r, closeInput, err := openInput(env, path, false)
	if err != nil {
		return report.Doc{}, nil, err
	}
	sp, err := contract.NewSpool(path, r)
	if err != nil {
		closeInput()
		return report.Doc{}, nil, &exitError{code: 2, err: err}
	}
	done := func() { sp.Close(); closeInput() }
	if sp.Spooled() {
		opts.First = sp
	}
	doc, err := report.Open(path, sp, opts)
	if err != nil {
		done()
		return report.Doc{}, nil, &exitError{code: 2, err: err}
	}
	return doc, done, nil
}

// rowsErr is the error of reading a report's rows again, as an exit 2.
func rowsErr(doc report.Doc) error {
	if err := doc.Err(); err != nil {
		return &exitError{code: 2, err: err}
	}
	return nil
}

// CompareCmd compares the reports of two models on the same study.
type CompareCmd struct {
	A            string `arg:"" help:"The first report (e.g. the smaller model)." placeholder:"A.json"`
	B            string `arg:"" help:"The second report (e.g. the larger model)." placeholder:"B.json"`
	Format       string `help:"table, json, markdown or html. Without it, -o's name decides (.html, .md, .txt for table, .json), else table." enum:"table,json,markdown,html" default:"table"`
	LabelA       string `help:"Name of the first report in outputs (default: the models its responses name, else its responses file)."`
	LabelB       string `help:"Name of the second report in outputs (default: the models its responses name, else its responses file)."`
	Output       string `short:"o" help:"Write to FILE instead of standard output: a file is replaced whole once the output is complete, never left half-written; a pipe or FIFO is written as it goes." placeholder:"FILE"`
	MaxLineBytes int64  `help:"Longest row of a report read, in bytes (default 256 MiB, as fbeval report's; the rest of a report is bounded by --max-file-bytes)." default:"268435456" placeholder:"BYTES"`
}

func (c *CompareCmd) Run(env *Env) error {
	if env.readsStdin(c.A) && env.readsStdin(c.B) {
		return usageError("the two reports cannot both be standard input: save one to a file and name it")
	}
	same := false // said once both are known to be reports, not before an error
	if sa, err := os.Stat(c.A); err == nil && !contract.Stdin(c.A) {
		if sb, err := os.Stat(c.B); err == nil && !contract.Stdin(c.B) && os.SameFile(sa, sb) {
			same = true
		}
	}
	env.noteInput(c.A, c.B)
	if err := checkOutputs(env, c.Output); err != nil {
		return err
	}
	// a comparison is no file of fbeval's kinds: it replaces none of them
	what, _ := formatOutput(c.Format, map[string]string{"json": "a comparison"})
	if err := notOtherKind("-o", c.Output, what); err != nil {
		return err
	}
	// The two reports are read at once, on two goroutines; what is wrong with A
	// is said before what is wrong with B, as if they were read in turn.
	paths := [2]string{c.A, c.B}
	var opened [2]struct {
		doc  report.Doc
		done func()
		err  error
	}
	open := func(i int) {
		opened[i].doc, opened[i].done, opened[i].err = openReport(env, paths[i], report.OpenOptions{MaxRowBytes: c.MaxLineBytes})
	}
	var wg sync.WaitGroup
	wg.Go(func() { open(1) })
	open(0)
	wg.Wait()
	for _, o := range opened {
		if o.err == nil {
			defer o.done()
		}
	}
	var docs [2]report.Doc
	for i, o := range opened {
		if o.err != nil {
			return o.err
		}
		if o.doc.Toolcall == nil && !same && opened[0].doc.CogLang != nil && opened[1].doc.CogLang != nil {
			return usageError("%s and %s are CogLang results: compare takes two toolcall reports (fbeval-report/v1); CogLang results compare line by line as text: diff <(fbeval report %[1]s --format text) <(fbeval report %[2]s --format text)", paths[0], paths[1])
		}
		if o.doc.CogLang != nil {
			// the same file twice, or a result beside a report
			return usageError("%s: compare takes two toolcall reports (fbeval-report/v1), and this is a CogLang result; CogLang results compare line by line as text: diff <(fbeval report A.json --format text) <(fbeval report B.json --format text)", paths[i])
		}
		if o.doc.Toolcall == nil {
			return usageError("%s: compare takes two toolcall reports (fbeval-report/v1)", paths[i])
		}
		docs[i] = o.doc
	}
	if same {
		env.warnf("%s and %s are one file: both sides are the same responses, so every difference is 0", c.A, c.B)
	}
	res, err := compare.Compare(docs[0].Toolcall, docs[1].Toolcall, compare.Options{LabelA: c.LabelA, LabelB: c.LabelB, PathA: c.A, PathB: c.B})
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	for _, d := range docs {
		if err := rowsErr(d); err != nil {
			return err
		}
	}
	if ha, hb := sortedSet(res.A.ResponsesSHA256), sortedSet(res.B.ResponsesSHA256); !same && len(ha) > 0 && slices.Equal(ha, hb) {
		// one run scored twice: a copy, or the other model's name given the same file
		env.warnf("%s and %s score the same responses (their response files have the same sha256): both sides are one model's answers, so every difference is 0; score each model's own responses", c.A, c.B)
	}
	for _, s := range res.Warned() {
		for _, w := range s.Warnings {
			env.warnf("%s: %s", s.Name(), w)
		}
	}
	return writeOutput(env, c.Output, func(w *bufio.Writer) error {
		switch c.Format {
		case "json":
			return compare.WriteJSON(w, res)
		case "markdown":
			return compare.WriteMarkdown(contract.NewPrintableWriter(w), res)
		case "html":
			return compare.WriteHTML(w, res)
		}
		return compare.WriteTableWidth(contract.NewPrintableWriter(w), res, tableWidth())
	})
}

// tableWidth is the width tables must fit: $COLUMNS when it is set (0: no
// limit, as when the output goes to a file).
func tableWidth() int {
	n, err := strconv.Atoi(os.Getenv("COLUMNS"))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// sortedSet is xs sorted, each once.
func sortedSet(xs []string) []string {
	out := slices.Clone(xs)
	slices.Sort(out)
	return slices.Compact(out)
}
