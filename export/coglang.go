package export

import (
	"fmt"
	"io"
	"strings"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/fixtures"
)

// CogLangInstructions is the reference tool's instruction text, sent unchanged so
// that runners see identical prompts.
const CogLangInstructions = "Return exactly one CogLang M-expression as the output for this case. Do not include Markdown fences, prose, or multiple alternatives."

// cogLangRequest returns one CogLang request record with its members in the given
// order: the reference's batch order, or sorted (JSONL).
func cogLangRequest(c *fixtures.CogLangCase, includeRef, sorted bool) contract.Object {
	heads := c.ExpectedTopLevelHeads
	if heads == nil {
		heads = []string{}
	}
	if sorted {
		o := contract.Object{
			{Key: "case_id", Value: c.CaseID},
			{Key: "expected_top_level_heads", Value: heads},
			{Key: "instructions", Value: CogLangInstructions},
			{Key: "level", Value: c.Level},
			{Key: "prompt", Value: c.Prompt},
		}
		if includeRef {
			o = append(o, contract.Member{Key: "reference_expr", Value: c.ReferenceExpr})
		}
		return append(o, contract.Member{Key: "schema_version", Value: contract.CogLangRequest})
	}
	o := contract.Object{
		{Key: "schema_version", Value: contract.CogLangRequest},
		{Key: "case_id", Value: c.CaseID},
		{Key: "level", Value: c.Level},
		{Key: "prompt", Value: c.Prompt},
		{Key: "instructions", Value: CogLangInstructions},
		{Key: "expected_top_level_heads", Value: heads},
	}
	if includeRef {
		o = append(o, contract.Member{Key: "reference_expr", Value: c.ReferenceExpr})
	}
	return o
}

// CogLangCases yields the cases of a fixture in order, one at a time, each
// (strings included) valid until yield returns; the first error of the fixture
// or of yield ends it.
type CogLangCases func(yield func(*fixtures.CogLangCase) error) error

// CogLangCasesOf returns the cases of a fixture read from src, one at a time.
func CogLangCasesOf(src fixtures.CogLangSource) CogLangCases {
	return func(yield func(*fixtures.CogLangCase) error) error {
		_, err := src.Each(func(_ int, c *fixtures.CogLangCase) error { return yield(c) })
		return err
	}
}

// WriteCogLangJSONL writes one request per line with sorted keys and Python's
// separators, as the reference tool does (a fixture without cases is one empty
// line, as there). A fixture error after the first case leaves what is written;
// CheckCogLangFixture first when nothing may be written then.
func WriteCogLangJSONL(w io.Writer, cases CogLangCases, includeRef bool) error {
	var buf []byte
	n := 0
	err := cases(func(c *fixtures.CogLangCase) error {
		n++
		var err error
		buf, err = contract.AppendJSON(buf[:0], cogLangRequest(c, includeRef, true), contract.PythonLine, 0)
		if err != nil {
			return err
		}
		buf = append(buf, '\n')
		_, err = w.Write(buf)
		return err
	})
	if err == nil && n == 0 {
		// the reference prints the records joined by newlines: one empty line
		_, err = io.WriteString(w, "\n")
	}
	return err
}

// WriteCogLangBatch writes the request batch object of the reference tool (with
// tool "fbeval"), indented by two spaces, for a fixture of count cases.
func WriteCogLangBatch(w io.Writer, cases CogLangCases, count int, fixturePath string, includeRef bool) error {
	// one request object at a time
	return writeBatch(w, cogLangBatchHead(count, fixturePath, includeRef), func(yield func(contract.Object) error) error {
		return cases(func(c *fixtures.CogLangCase) error { return yield(cogLangRequest(c, includeRef, false)) })
	})
}

// WriteCogLangSummary writes what the reference tool prints of its request batch
// with --format text: the batch's head, one "key: value" line a member, the
// response contract's format and field lists joined by ", ".
func WriteCogLangSummary(w io.Writer, count int, fixturePath string, includeRef bool) error {
	var b strings.Builder
	for _, m := range cogLangBatchHead(count, fixturePath, includeRef) {
		switch v := m.Value.(type) {
		case contract.Object:
			for _, rm := range v {
				switch rm.Key {
				case "format":
					fmt.Fprintf(&b, "response_format: %s\n", rm.Value)
				case "required_fields":
					fmt.Fprintf(&b, "response_required_fields: %s\n", strings.Join(rm.Value.([]string), ", "))
				case "accepted_output_fields":
					fmt.Fprintf(&b, "response_output_fields: %s\n", strings.Join(rm.Value.([]string), ", "))
				}
			}
		case contract.Raw: // the requests
		default:
			fmt.Fprintf(&b, "%s: %v\n", m.Key, v)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cogLangBatchHead is the request batch object of the reference tool (with tool
// "fbeval") but for its requests, which it holds as Raw(batchMark).
func cogLangBatchHead(count int, fixturePath string, includeRef bool) contract.Object {
	return contract.Object{
		{Key: "schema_version", Value: contract.CogLangRequestBatch},
		{Key: "tool", Value: "fbeval"},
		{Key: "fixture_schema_version", Value: contract.CogLangFixture},
		{Key: "fixture_path", Value: fixturePath},
		{Key: "case_count", Value: count},
		{Key: "include_reference", Value: includeRef},
		{Key: "response_schema_version", Value: contract.CogLangResponseBatch},
		{Key: "request_record_schema_version", Value: contract.CogLangRequest},
		{Key: "response_record_schema_version", Value: contract.CogLangResponse},
		{Key: "response_contract", Value: contract.Object{
			{Key: "format", Value: "json_or_jsonl"},
			{Key: "required_fields", Value: []string{"schema_version", "case_id"}},
			{Key: "optional_fields", Value: []string{"model", "provider", "latency_ms", "raw_response_id"}},
			{Key: "preferred_output_field", Value: "output"},
			{Key: "accepted_output_fields", Value: []string{"output", "text", "completion"}},
			{Key: "output_instructions", Value: CogLangInstructions},
		}},
		{Key: "requests", Value: contract.Raw(batchMark)},
	}
}

// CogLangSourceOf returns the fixture a study names, to be read one case at a
// time: the embedded default or a file, with its path for reports.
func CogLangSourceOf(dataset string) (src fixtures.CogLangSource, path string) {
	if dataset == "" || dataset == fixtures.CogLangDefaultPath {
		return fixtures.DefaultCogLangSource(), fixtures.CogLangDefaultPath
	}
	path = PythonPath(dataset)
	return fixtures.NewCogLangSource(path), path
}

// CheckCogLangFixture reads a fixture through once, holding one case at a
// time, and returns its number of cases and what to warn of it (a byte order
// mark, a case id given twice: fixtures.CogLangSource.Warnings), or its first
// error: the first pass of an export that must refuse a bad fixture before
// writing a byte.
func CheckCogLangFixture(src fixtures.CogLangSource) (int, []string, error) {
	n := 0
	var ids contract.IDSet // 16 bytes a case: a case id given twice is named
	h, err := src.Each(func(i int, c *fixtures.CogLangCase) error {
		n++
		ids = append(ids, contract.IDEntry{ID: contract.IDOf(c.CaseID), N: uint32(i)})
		return nil
	})
	if err != nil {
		return 0, nil, err
	}
	warnings, _, err := src.Warnings(h, ids)
	if err != nil {
		return 0, nil, err
	}
	return n, warnings, nil
}

// PythonPath returns p as Python's str(pathlib.Path(p)) writes it, which is how
// the reference names the fixture it read (and opens it): repeated and trailing
// slashes and "." components dropped ("./fixtures//x.json/" -> "fixtures/x.json"),
// a leading "//" kept, "" -> ".".
func PythonPath(p string) string {
	prefix := ""
	rest := p
	if strings.HasPrefix(p, "/") {
		prefix = "/"
		if strings.HasPrefix(p, "//") && !strings.HasPrefix(p, "///") {
			prefix = "//"
		}
		rest = strings.TrimLeft(p, "/")
	}
	var parts []string
	for _, part := range strings.Split(rest, "/") {
		if part != "" && part != "." {
			parts = append(parts, part)
		}
	}
	out := prefix + strings.Join(parts, "/")
	if out == "" {
		return "."
	}
	return out
}
