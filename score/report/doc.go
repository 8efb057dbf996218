// Package report holds fbeval's one typed report model and every rendering of it:
// JSON (the saved report), HTML (one self-contained page with SVG charts),
// GitHub-flavoured Markdown, JUnit XML and plain-text tables.
//
// The model (model.go) is one set of types: ToolcallReport (fbeval-report/v1,
// with its Rows), CogLangResult (coglang-generation-eval-result/v0.1 with fbeval's
// additions) and CaseResult (fbeval-case-result/v1 lines). Their json tags are the
// one definition of the saved form: contract's writer writes them (struct order is
// key order, floats as Python writes them) and Load reads them back with
// go-json-experiment/json, so re-rendering a saved file and rendering straight
// after scoring give the same bytes. The rows of a toolcall report are written one
// at a time.
//
//	data, err := os.ReadFile("report.json")
//	if err != nil {
//		return err
//	}
//	doc, err := report.Load("report.json", data)
//	if err != nil {
//		return err
//	}
//	return report.WriteMarkdown(os.Stdout, doc) // or WriteJSON, WriteHTML, WriteJUnit, WriteTable
//
// docs/reports.md describes what each format shows and how to use it in CI.
package report
