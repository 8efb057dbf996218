package export

import (
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

// WriteCogLangJSONL writes one request per line with sorted keys and Python's
// separators, as the reference tool does (a fixture without cases is one empty
// line, as there).
func WriteCogLangJSONL(w io.Writer, fx *fixtures.CogLangFixture, includeRef bool) error {
	if len(fx.Cases) == 0 {
		// the reference prints the records joined by newlines: one empty line
		_, err := io.WriteString(w, "\n")
		return err
	}
	var buf []byte
	for i := range fx.Cases {
		var err error
		buf, err = contract.AppendJSON(buf[:0], cogLangRequest(&fx.Cases[i], includeRef, true), contract.PythonLine, 0)
		if err != nil {
			return err
		}
		buf = append(buf, '\n')
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

// WriteCogLangBatch writes the request batch object of the reference tool (with
// tool "fbeval"), indented by two spaces.
func WriteCogLangBatch(w io.Writer, fx *fixtures.CogLangFixture, fixturePath string, includeRef bool) error {
	batch := contract.Object{
		{Key: "schema_version", Value: contract.CogLangRequestBatch},
		{Key: "tool", Value: "fbeval"},
		{Key: "fixture_schema_version", Value: contract.CogLangFixture},
		{Key: "fixture_path", Value: fixturePath},
		{Key: "case_count", Value: len(fx.Cases)},
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
	// one request object at a time
	return writeBatch(w, batch, func(yield func(contract.Object) error) error {
		for i := range fx.Cases {
			if err := yield(cogLangRequest(&fx.Cases[i], includeRef, false)); err != nil {
				return err
			}
		}
		return nil
	})
}

// LoadCogLangFixture returns the fixture a study names: the embedded default or a
// file, with its path for reports.
func LoadCogLangFixture(dataset string) (*fixtures.CogLangFixture, string, error) {
	if dataset == "" || dataset == fixtures.CogLangDefaultPath {
		return fixtures.DefaultCogLangFixture(), fixtures.CogLangDefaultPath, nil
	}
	path := PythonPath(dataset)
	fx, err := fixtures.LoadCogLangFixture(path)
	return fx, path, err
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
