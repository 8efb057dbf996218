package main

import (
	"bufio"
	"io"
	"os"
	"strconv"

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
	File   string `arg:"" help:"A saved fbeval-report/v1 or CogLang result JSON (- for standard input)." placeholder:"REPORT.json"`
	Format string `help:"table, text, json, markdown, html or junit: the bytes fbeval score writes in that format." enum:"table,text,json,markdown,html,junit" default:"table"`
	Output string `short:"o" help:"Write to FILE (atomically) instead of standard output." placeholder:"FILE"`
}

func (c *ReportCmd) Run(env *Env) error {
	data, err := readInputFile(env, c.File)
	if err != nil {
		return err
	}
	doc, err := report.Load(c.File, data)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	return writeOutput(env, c.Output, func(w *bufio.Writer) error { return renderDoc(w, doc, c.Format) })
}

// CompareCmd compares the reports of two models on the same study.
type CompareCmd struct {
	A      string `arg:"" help:"The first report (e.g. the smaller model)." placeholder:"A.json"`
	B      string `arg:"" help:"The second report (e.g. the larger model)." placeholder:"B.json"`
	Format string `help:"table, json, markdown or html." enum:"table,json,markdown,html" default:"table"`
	LabelA string `help:"Name of the first report in outputs (default: the models its responses name, else its responses file)."`
	LabelB string `help:"Name of the second report in outputs (default: the models its responses name, else its responses file)."`
	Output string `short:"o" help:"Write to FILE (atomically) instead of standard output." placeholder:"FILE"`
}

func (c *CompareCmd) Run(env *Env) error {
	var docs [2]*report.ToolcallReport
	for i, p := range []string{c.A, c.B} {
		data, err := readInputFile(env, p)
		if err != nil {
			return err
		}
		doc, err := report.Load(p, data)
		if err != nil {
			return &exitError{code: 2, err: err}
		}
		if doc.Toolcall == nil {
			return usageError("%s: compare takes two toolcall reports (fbeval-report/v1)", p)
		}
		docs[i] = doc.Toolcall
	}
	res, err := compare.Compare(docs[0], docs[1], compare.Options{LabelA: c.LabelA, LabelB: c.LabelB, PathA: c.A, PathB: c.B})
	if err != nil {
		return &exitError{code: 2, err: err}
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

func readInputFile(env *Env, path string) ([]byte, error) {
	r, done, err := openInput(env, path)
	if err != nil {
		return nil, err
	}
	defer done()
	data, err := contract.ReadAll(path, r)
	if err != nil {
		return nil, &exitError{code: 2, err: cleanPathError(err)}
	}
	return data, nil
}
