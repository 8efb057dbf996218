// Package report renders saved fbeval reports for people and CI systems: HTML (one
// self-contained page with SVG charts), GitHub-flavoured Markdown, JUnit XML and
// plain-text tables.
//
// Renderers work from the saved JSON only, so re-rendering a report file and
// rendering straight after scoring give the same bytes. Two kinds are read, told
// apart by schema_version: toolcall reports (fbeval-report/v1) and CogLang results
// (coglang-generation-eval-result/v0.1, with fbeval's optional additions).
//
//	data, err := os.ReadFile("report.json")
//	if err != nil {
//		return err
//	}
//	doc, err := report.Load("report.json", data)
//	if err != nil {
//		return err
//	}
//	return report.WriteMarkdown(os.Stdout, doc) // or WriteHTML, WriteJUnit, WriteTable
//
// docs/reports.md describes what each format shows and how to use it in CI.
package report
