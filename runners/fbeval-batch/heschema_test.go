package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/contract"
)

// hesLine is a HESchema run log line as its benchmark writes it (canonical
// JSON: sorted keys, compact), with the given case, repeat, arm, status,
// provider error and attempt texts.
func hesLine(caseID string, repeat int, arm, status, providerError string, texts ...string) string {
	var attempts []string
	for _, t := range texts {
		text, _ := contract.Marshal(t, contract.Compact)
		attempts = append(attempts, `{"evaluation":{"errors":[],"success":false},"generation":{"input_tokens":310,"latency_ms":412.5,"metadata":{"resolvedModelConfirmed":true},"model":"m-2026","output_tokens":42,"text":`+string(text)+`,"transport_retries":0}}`)
	}
	pe := "null"
	if providerError != "" {
		pe = `"` + providerError + `"`
	}
	return `{"arm":"` + arm + `","attempts":[` + strings.Join(attempts, ",") + `],"caseId":"` + caseID + `","category":"complete","cluster":"c","costUsd":null,"domain":"hotels","expectedAction":"call_tool","finalSuccess":false,"firstEvaluation":{"errors":[],"success":false},"firstPassSuccess":false,"inputTokens":null,"latencyMs":900.1,"outputTokens":null,"providerError":` + pe + `,"repairAttempts":0,"repeat":` + string(rune('0'+repeat)) + `,"status":"` + status + `","transportRetries":0}`
}

// A run log becomes one record per attempt of each case, repeat and arm's
// last line, named as fbeval names the request (repeats from 1), with the
// generation's model, tokens and latency, and a provider error after the
// attempts of a row that ended in one; the folder's config.json gives the
// provider and the command that scores them.
func TestFromHESchema(t *testing.T) {
	dir := t.TempDir()
	lines := []string{
		hesLine("hotels-000", 0, "no_schema", "ok", "", `{"action":"refuse"}`),
		hesLine("hotels-000", 1, "input_schema", "provider_error", "openrouter: HTTP 429; check credentials, model and account limits", `{"action":`),
		hesLine("hotels-010", 0, "minimal_schema", "provider_error", "openrouter: network request failed"),
		hesLine("hotels-010", 0, "minimal_schema", "ok", "", "first", "second"), // asked again: replaces the line before
	}
	os.WriteFile(filepath.Join(dir, "runs.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"datasetHash": "ab", "schemaHashes": {}, "provider": "openrouter", "requestedModel": "m", "repeats": 2, "repairs": 2, "seed": 42, "inputPricePerMillion": 0.15, "outputPricePerMillion": null}`), 0o644)
	code, out, errs := runBatch(t, "", "from-heschema", dir)
	want := `{"schema_version":"fbeval-response/v1","request_id":"hotels-000.no_schema.r1.a1","case_id":"hotels-000","output":"{\"action\":\"refuse\"}","provider":"openrouter","model":"m-2026","latency_ms":412.5,"input_token_count":310,"output_token_count":42,"run":{"runner":"fbeval-batch","provider":"openrouter","model":"m"}}
{"schema_version":"fbeval-response/v1","request_id":"hotels-000.input_schema.r2.a1","case_id":"hotels-000","output":"{\"action\":","provider":"openrouter","model":"m-2026","latency_ms":412.5,"input_token_count":310,"output_token_count":42,"run":{"runner":"fbeval-batch","provider":"openrouter","model":"m"}}
{"schema_version":"fbeval-response/v1","request_id":"hotels-000.input_schema.r2.a2","case_id":"hotels-000","provider":"openrouter","error":{"code":"provider_error","message":"openrouter: HTTP 429; check credentials, model and account limits"},"run":{"runner":"fbeval-batch","provider":"openrouter","model":"m"}}
{"schema_version":"fbeval-response/v1","request_id":"hotels-010.minimal_schema.r1.a1","case_id":"hotels-010","output":"first","provider":"openrouter","model":"m-2026","latency_ms":412.5,"input_token_count":310,"output_token_count":42,"run":{"runner":"fbeval-batch","provider":"openrouter","model":"m"}}
{"schema_version":"fbeval-response/v1","request_id":"hotels-010.minimal_schema.r1.a2","case_id":"hotels-010","output":"second","provider":"openrouter","model":"m-2026","latency_ms":412.5,"input_token_count":310,"output_token_count":42,"run":{"runner":"fbeval-batch","provider":"openrouter","model":"m"}}
`
	if code != 1 || out != want {
		t.Fatalf("exit %d\n%s\nwant\n%s\n%s", code, out, want, errs)
	}
	for _, w := range []string{
		"fbeval-batch: 3 rows of 4 lines (1 replaced by a later line): 4 answers, 1 provider error\n",
		"fbeval-batch: score them with fbeval score toolcall --dataset HESCHEMA/benchmarks/cases.jsonl (or the --dataset the run read) --repeats 2 --repairs 2 (from config.json)\n",
	} {
		if !strings.Contains(errs, w) {
			t.Errorf("stderr lacks %q:\n%s", w, errs)
		}
	}

	// -o resumes: what the file answers is skipped, a provider error asked again
	outFile := filepath.Join(t.TempDir(), "r.jsonl")
	if code, _, errs = runBatch(t, "", "from-heschema", filepath.Join(dir, "runs.jsonl"), "-o", outFile); code != 1 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if code, _, errs = runBatch(t, "", "from-heschema", dir, "-o", outFile); code != 1 || !strings.Contains(errs, "4 requests already answered, skipped") {
		t.Fatalf("resume: exit %d: %s", code, errs)
	}

	// a config.json of something else beside a log copied into a project is
	// none of HESchema's: not read
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "runs.jsonl"), []byte(lines[0]+"\n"), 0o644)
	os.WriteFile(filepath.Join(other, "config.json"), []byte(`{"name": "my project", "repeats": 9}`), 0o644)
	if code, out, errs = runBatch(t, "", "from-heschema", filepath.Join(other, "runs.jsonl")); code != 0 || strings.Contains(out, `"provider"`) || !strings.Contains(errs, "--repeats R --repairs N") {
		t.Fatalf("another config.json: exit %d\n%s%s", code, out, errs)
	}

	// standard input: no config.json to read, the flags are the user's
	code, out, errs = runBatch(t, lines[0]+"\n", "from-heschema", "-")
	if code != 0 || strings.Count(out, "\n") != 1 || strings.Contains(out, `"provider"`) ||
		!strings.Contains(errs, "--repeats R --repairs N (HESchema's config.json has them; these rows reach repeat 1 and attempt 1)") {
		t.Fatalf("stdin: exit %d\n%s%s", code, out, errs)
	}
}

// Whatever is not a run log line is said at its file:line:col, exit 2:
// HESchema's other files, fbeval's records, a provider's, a row of no arm.
func TestFromHESchemaRefuses(t *testing.T) {
	for _, tt := range []struct{ name, data, want string }{
		{"report", `{"config": {}, "cases": 480, "completedRuns": 4320, "complete": true, "arms": {}, "effects": {}}`, "r.jsonl:1:1: this is HESchema's report (config, arms, effects), not a record of fbeval's: convert the run log beside it with fbeval-batch from-heschema DIR"},
		{"config", `{"datasetHash": "ab", "schemaHashes": {}, "repeats": 3, "repairs": 2}`, "r.jsonl:1:1: this is HESchema's config.json (a run's configuration)"},
		{"fbeval responses", `{"request_id": "hotels-000.no_schema.r1.a1", "output": "x"}`, "r.jsonl:1:1: this is a record of fbeval's, not a HESchema run log line: fbeval score reads it as it is"},
		{"OpenAI Batch output", `{"id": "b", "custom_id": "x", "response": {"status_code": 200, "body": {}}, "error": null}`, "r.jsonl:1:1: this is an OpenAI Batch output line"},
		{"other", `{"a": 1}`, "r.jsonl:1:1: not a HESchema run log line (caseId, arm, repeat, status, attempts)"},
		{"arm", strings.Replace(hesLine("hotels-000", 0, "no_schema", "ok", "", "x"), `"no_schema"`, `"schema"`, 1), `arm "schema" is none of HESchema's`},
		{"status", hesLine("hotels-000", 0, "no_schema", "done", "", "x"), `status "done" is neither of HESchema's (ok, provider_error)`},
		{"no text", strings.Replace(hesLine("hotels-000", 0, "no_schema", "ok", "", "x"), `"text":"x",`, "", 1), "r.jsonl:1:1: attempt 1 has no generation text"},
		{"repeat as a string", `{"caseId":"a","arm":"no_schema","repeat":"1","status":"ok","attempts":[]}`, "r.jsonl:1:42: want an integer, got a JSON string at /repeat"},
		{"repeated member", `{"caseId":"a","caseId":"b","arm":"no_schema","repeat":1,"status":"ok","attempts":[]}`, "r.jsonl:1:15: invalid JSON: duplicate object member name"},
		{"empty", "", "r.jsonl: no run log line"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			os.WriteFile("r.jsonl", []byte(tt.data+"\n"), 0o644)
			code, out, errs := runBatch(t, "", "from-heschema", "r.jsonl")
			if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, tt.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %q", code, out, errs, tt.want)
			}
		})
	}
}

// FuzzReadHESchemaRow: any line is a row or an error at its place, never a
// panic.
func FuzzReadHESchemaRow(f *testing.F) {
	f.Add([]byte(hesLine("hotels-000", 0, "no_schema", "ok", "", "x")))
	f.Add([]byte(hesLine("hotels-000", 2, "input_schema", "provider_error", "boom")))
	f.Add([]byte(`{"caseId":"a","arm":"no_schema","repeat":-1}`))
	f.Add([]byte(`{"caseId":null,"attempts":[{}]}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		rec := &contract.Record{File: "r.jsonl", Line: 1, Col: 1, Raw: raw}
		row, err := readHESchemaRow(rec)
		if err == nil && (row.CaseID == nil || row.Arm == nil || row.Repeat == nil || *row.Repeat < 0) {
			t.Fatalf("%q read as a row without its case, arm or repeat", raw)
		}
		if err == nil {
			for i := range row.Attempts {
				if row.Attempts[i].Generation == nil || row.Attempts[i].Generation.Text == nil {
					t.Fatalf("%q: an attempt without text", raw)
				}
			}
		}
	})
}

// TestFromHESchemaBadCount: a count the scorer would refuse is left out of
// the record and said in its metadata, the answer kept, as the live runners
// read a provider's counts (it was written, and the scorer refused the line).
func TestFromHESchemaBadCount(t *testing.T) {
	t.Chdir(t.TempDir())
	os.WriteFile("r.jsonl", []byte(strings.Replace(hesLine("hotels-000", 0, "no_schema", "ok", "", "x", "y"), `"output_tokens":42,"text":"y"`, `"output_tokens":-4,"text":"y"`, 1)+"\n"), 0o644)
	code, out, errs := runBatch(t, "", "from-heschema", "r.jsonl")
	if code != 0 || !strings.Contains(out, `"output":"y","model":"m-2026","latency_ms":412.5,"input_token_count":310,"metadata":{"usage_left_out":"output_tokens -4: not a whole number of tokens from 0, left out of the record"}`) {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
