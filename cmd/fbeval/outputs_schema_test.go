package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/schemas"
)

// Every contract file the tool writes validates against its published schema:
// request files of both suites and shapes, results, reports, case results, and
// study templates.
func TestOutputsValidate(t *testing.T) {
	v, err := schemas.NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	out := func(args ...string) string {
		code, stdout, stderr := runMain(t, nil, args...)
		if code > 1 {
			t.Fatalf("fbeval %s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
		return stdout
	}
	// responses made from the exported references, some of them refused
	refs := out("export", "toolcall-quick", "--include-reference", "--repairs", "1")
	var resp strings.Builder
	for i, line := range strings.Split(strings.TrimSpace(refs), "\n") {
		id := line[strings.Index(line, `"request_id":"`)+len(`"request_id":"`):]
		id = id[:strings.IndexByte(id, '"')]
		output := `"{\"action\":\"refuse\",\"tool\":null,\"arguments\":{},\"missingFields\":[],\"reason\":\"\"}"`
		if i%3 == 0 {
			output = `"not json"`
		}
		resp.WriteString(`{"schema_version":"fbeval-response/v1","request_id":"` + id + `","output":` + output + `,"input_token_count":10,"output_token_count":5,"latency_ms":12.5}` + "\n")
	}
	responses := write("responses.jsonl", resp.String())
	var cog strings.Builder
	for i, line := range strings.Split(strings.TrimSpace(out("export", "coglang", "--include-reference")), "\n") {
		var req struct {
			CaseID        string `json:"case_id"`
			ReferenceExpr string `json:"reference_expr"`
		}
		if err := json.Unmarshal([]byte(line), &req); err != nil {
			t.Fatal(err)
		}
		if i%4 == 0 {
			req.ReferenceExpr = "Equal[1"
		}
		rec, _ := json.Marshal(map[string]string{"schema_version": "coglang-generation-eval-response/v0.1", "case_id": req.CaseID, "output": req.ReferenceExpr})
		cog.Write(append(rec, '\n'))
	}
	cogResp := write("cog.jsonl", cog.String())
	files := map[string]string{
		"coglang-requests.jsonl":  out("export", "coglang"),
		"coglang-requests.json":   out("export", "coglang", "--format", "json", "--include-reference"),
		"coglang-result.json":     out("score", "coglang", "--responses", cogResp, "--failures-only"),
		"coglang-reference.json":  out("score", "coglang", "--strict", "--reference-answers"),
		"toolcall-requests.jsonl": refs,
		"toolcall-requests.json":  out("export", "toolcall-quick", "--format", "json", "--decoding", "native_schema"),
		"repairs.jsonl":           out("export", "toolcall-quick", "--repairs", "1", "--repair-from", responses),
		"report.json":             out("score", "toolcall-quick", "--repairs", "1", "--responses", responses, "--input-price", "0.5", "--output-price", "1.5", "--gate", "input_schema.first_pass_success_percent>=0"),
		"cases.jsonl":             out("score", "toolcall-quick", "--repairs", "1", "--responses", responses, "--format", "jsonl"),
		"study.json":              out("study", "init"),
		"coglang-study.json":      out("study", "init", "coglang"),
	}
	// a report written before fbeval counted records_without_tokens, written
	// again by fbeval report: the member null, as the schema allows (it was
	// refused, the report fbeval wrote then valid)
	old := strings.ReplaceAll(files["report.json"], `"records_without_tokens": 0,`, "")
	if old == files["report.json"] {
		t.Fatal("the report has no records_without_tokens to leave out")
	}
	files["report-rewritten.json"] = out("report", write("old-report.json", old), "--format", "json")
	for name, text := range files {
		if strings.TrimSpace(text) == "" {
			t.Errorf("%s: nothing written", name)
			continue
		}
		problems := v.ValidateFile(name, []byte(text), schemas.Options{})
		for _, p := range problems {
			t.Errorf("%s", p)
		}
	}
}
