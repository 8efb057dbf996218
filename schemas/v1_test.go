package schemas

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// deleted marks a member to remove in a mutation.
var deleted = &struct{}{}

// mutate returns doc (decoded JSON with json.Number) with the value at ptr set to
// value, or removed when value is deleted.
func mutate(t *testing.T, doc any, ptr string, value any) any {
	t.Helper()
	doc = clone(t, doc)
	segs := strings.Split(ptr[1:], "/")
	cur := doc
	for i, seg := range segs {
		last := i == len(segs)-1
		switch c := cur.(type) {
		case map[string]any:
			if last {
				if value == deleted {
					delete(c, seg)
				} else {
					c[seg] = value
				}
				return doc
			}
			cur = c[seg]
		case []any:
			n, err := strconv.Atoi(seg)
			if err != nil || n >= len(c) {
				t.Fatalf("bad pointer %s", ptr)
			}
			if last {
				c[n] = value
				return doc
			}
			cur = c[n]
		default:
			t.Fatalf("bad pointer %s", ptr)
		}
	}
	return doc
}

func clone(t *testing.T, doc any) any {
	t.Helper()
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return decode(t, data)
}

func decode(t *testing.T, data []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestV1Examples checks a handwritten valid example of each fbeval v1 schema
// (testdata/v1/NAME.json), then one rule at a time by breaking it.
func TestV1Examples(t *testing.T) {
	v := mustValidator(t)
	examples := map[string]any{}
	files, _ := filepath.Glob(filepath.Join("testdata", "v1", "*.json"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		examples[name] = decode(t, data)
		t.Run("valid/"+name, func(t *testing.T) {
			opts := Options{}
			if name == "fbeval-toolcall-case" {
				opts.Schema = name
			}
			if ps := v.ValidateFile(f, data, opts); len(ps) > 0 {
				t.Errorf("problems:\n%s", problemLines(ps))
			}
		})
	}
	for _, name := range published {
		if strings.HasPrefix(name, "fbeval-") && examples[name] == nil {
			t.Errorf("no valid example for %s", name)
		}
	}

	tests := []struct {
		schema string
		ptr    string
		value  any
		want   string // "" when the mutation keeps the record valid
	}{
		// study
		{"fbeval-study", "/schema_version", "fbeval-study/v2", "/schema_version: value must be \"fbeval-study/v1\""},
		{"fbeval-study", "/suite", deleted, "(root): missing property 'suite'"},
		{"fbeval-study", "/suite", "other", "/suite: value must be one of"},
		{"fbeval-study", "/arms", []any{"no_schema", "no_schema"}, "/arms: items at 0 and 1 are equal"},
		{"fbeval-study", "/arms", []any{"json_mode"}, "/arms/0: value must be one of"},
		{"fbeval-study", "/schemas", map[string]any{"other_arm": "rich"}, "/schemas: additional properties 'other_arm' not allowed"},
		{"fbeval-study", "/filter/limit", -1, "/filter/limit: minimum: got -1, want 0"},
		{"fbeval-study", "/filter/typo", 1, "/filter: additional properties 'typo' not allowed"},
		{"fbeval-study", "/repeats", 0, "/repeats: minimum: got 0, want 1"},
		{"fbeval-study", "/seed", json.Number("1.5"), "/seed: got number, want integer"},
		{"fbeval-study", "/seed", json.Number("9223372036854775808"), "/seed: maximum: got "},
		{"fbeval-study", "/repairs", 6, "/repairs: maximum: got 6, want 5"},
		{"fbeval-study", "/decoding", "json_mode", "/decoding: value must be one of \"prompt_only\", \"native_schema\", \"native_tools\""},
		{"fbeval-study", "/decoding", "native_tools", ""},
		{"fbeval-study", "/prices", nil, ""},
		{"fbeval-study", "/prices/input_per_million_usd", -1, "/prices/input_per_million_usd: minimum: got -1, want 0"},
		{"fbeval-study", "/gates/0", "first_pass_success_percent at least 90", "/gates/0: 'first_pass_success_percent at least 90' does not match pattern"},
		{"fbeval-study", "/gates/0", "effects.input_schema_vs_no_schema.absolute_uplift_points >= -5", ""},
		{"fbeval-study", "/gates/0", "final_success_percent>=1e1", ""},
		{"fbeval-study", "/gates/0", "final success>=90", "/gates/0: 'final success>=90' does not match pattern"},
		{"fbeval-study", "/max_tokens", 0, "/max_tokens: minimum: got 0, want 1"},
		{"fbeval-study", "/temperature", nil, ""},
		{"fbeval-study", "/arm", "input_schema", "(root): additional properties 'arm' not allowed"},
		// request
		{"fbeval-request", "/request_id", "", "/request_id: minLength: got 0, want 1"},
		{"fbeval-request", "/messages", []any{}, "/messages: minItems: got 0, want 1"},
		{"fbeval-request", "/messages/0/role", "tool", "/messages/0/role: value must be one of"},
		{"fbeval-request", "/attempt", 0, "/attempt: minimum: got 0, want 1"},
		{"fbeval-request", "/arm", deleted, ""},
		{"fbeval-request", "/response_format/type", "json_object", "/response_format/type: value must be \"json_schema\""},
		{"fbeval-request", "/response_format/json_schema/strict", deleted, "/response_format/json_schema: missing property 'strict'"},
		{"fbeval-request", "/tools", []any{}, "/tools: minItems: got 0, want 1"},
		{"fbeval-request", "/tools", []any{map[string]any{"name": "t", "description": "", "parameters": map[string]any{}, "strict": false}}, ""},
		{"fbeval-request", "/tools", []any{map[string]any{"name": "t", "description": "", "parameters": map[string]any{}}}, "/tools/0: missing property 'strict'"},
		{"fbeval-request", "/reference_output", nil, "/reference_output: got null, want string"},
		{"fbeval-request", "/extra", 1, "(root): additional properties 'extra' not allowed"},
		// request batch
		{"fbeval-request-batch", "/request_count", -1, "/request_count: minimum: got -1, want 0"},
		{"fbeval-request-batch", "/study/repairs", 9, "/study/repairs: maximum: got 9, want 5"},
		{"fbeval-request-batch", "/requests/0/seed", "0", "/requests/0/seed: got string, want integer"},
		// response
		{"fbeval-response", "/schema_version", nil, ""},
		{"fbeval-response", "/schema_version", "fbeval-response/v2", "/schema_version: value must be one of \"fbeval-response/v1\", null"},
		{"fbeval-response", "/request_id", deleted, "(root): missing one of the properties 'request_id', 'case_id'"},
		{"fbeval-response", "/output", nil, "(root): missing one of the properties 'output', 'text', 'completion', 'error' ('output' and 'error' are null)"},
		{"fbeval-response", "/latency_ms", "fast", "/latency_ms: got string, want null or number"},
		{"fbeval-response", "/input_token_count", json.Number("1.5"), "/input_token_count: got number, want null or integer"},
		{"fbeval-response", "/error", map[string]any{"code": "timeout"}, "/error: missing property 'message'"},
		{"fbeval-response", "/metadata", "note", "/metadata: got string, want null or object"},
		// response batch
		{"fbeval-response-batch", "/responses", deleted, "(root): missing property 'responses'"},
		{"fbeval-response-batch", "/schema_version", "fbeval-response/v1", "/schema_version: value must be \"fbeval-response-batch/v1\""},
		{"fbeval-response-batch", "/responses/1/case_id", "", "/responses/1/case_id: minLength: got 0, want 1"},
		{"fbeval-response-batch", "/responses/2/error", nil, "/responses/2: missing one of the properties 'output', 'text', 'completion', 'error' ('error' is null)"},
		// case result
		{"fbeval-case-result", "/first_pass_success", deleted, "(root): missing property 'first_pass_success'"},
		{"fbeval-case-result", "/attempts/0/codes/0", "schema_invalid", "/attempts/0/codes/0: 'schema_invalid' does not match pattern"},
		{"fbeval-case-result", "/attempts/0/attempt", 0, "/attempts/0/attempt: minimum: got 0, want 1"},
		{"fbeval-case-result", "/provider_error", true, ""},
		{"fbeval-case-result", "/provider_error", nil, "/provider_error: got null, want boolean"},
		{"fbeval-case-result", "/score", 1, "(root): additional properties 'score' not allowed"},
		// report
		{"fbeval-report", "/gates", deleted, "(root): missing property 'gates'"},
		{"fbeval-report", "/inputs/0/sha256", "abc", "/inputs/0/sha256: 'abc' does not match pattern"},
		{"fbeval-report", "/inputs/0/lines", 3, ""},
		{"fbeval-report", "/inputs/2/lines", deleted, "/inputs/2: missing property 'lines'"},
		{"fbeval-report", "/inputs/2/shape", "csv", "/inputs/2/shape: value must be one of"},
		{"fbeval-report", "/inputs/2/rejected/0/line", deleted, "/inputs/2/rejected/0: missing property 'line'"},
		{"fbeval-report", "/gates/0/actual", nil, ""},
		{"fbeval-report", "/gates/0/value", 1, "/gates/0: additional properties 'value' not allowed"},
		{"fbeval-report", "/rows/0/final_success", "yes", "/rows/0/final_success: got string, want boolean"},
		{"fbeval-report", "/arms/no_schema/first_pass_success_percent", 101, "/arms/no_schema/first_pass_success_percent: maximum: got 101, want 100"},
		{"fbeval-report", "/arms/no_schema/first_pass_wilson95", []any{1}, "/arms/no_schema/first_pass_wilson95: minItems: got 1, want 2"},
		{"fbeval-report", "/arms/no_schema/first_pass_wilson95", nil, ""},
		{"fbeval-report", "/arms/no_schema/latency_p95_ms", deleted, "/arms/no_schema: missing property 'latency_p95_ms'"},
		{"fbeval-report", "/arms/no_schema/error_counts", map[string]any{"bad code": 1}, "/arms/no_schema/error_counts: additional properties 'bad code' not allowed"},
		{"fbeval-report", "/subsets/domain/flights/no_schema/runs", nil, "/subsets/domain/flights/no_schema/runs: got null, want integer"},
		{"fbeval-report", "/subsets/category", deleted, "/subsets: missing property 'category'"},
		{"fbeval-report", "/effects/input_schema_vs_no_schema/effect", "better", "/effects/input_schema_vs_no_schema/effect: value must be one of"},
		{"fbeval-report", "/effects/input_schema_vs_no_schema/bootstrap/seed", deleted, "/effects/input_schema_vs_no_schema/bootstrap: missing property 'seed'"},
		{"fbeval-report", "/classification/0", "great", "/classification/0: value must be one of"},
		{"fbeval-report", "/custom_fitness_percent", 88.5, ""},
		{"fbeval-report", "/study/schema_version", deleted, "/study: missing property 'schema_version'"},
		// toolcall case
		{"fbeval-toolcall-case", "/category", "triage", ""},
		{"fbeval-toolcall-case", "/category", "", "/category: value must be one of"},
		{"fbeval-toolcall-case", "/cluster", "", "/cluster: minLength: got 0, want 1"},
		{"fbeval-toolcall-case", "/toolName", deleted, "(root): missing property 'toolName'"},
		{"fbeval-toolcall-case", "/domain", "flights", ""},
		{"fbeval-toolcall-case", "/expected/tool", nil, "/expected/tool: got null, want string"},
		{"fbeval-toolcall-case", "/expected/missingFields", []any{"city"}, "/expected/missingFields: maxItems: got 1, want 0"},
		{"fbeval-toolcall-case", "/expected/action", "refuse", "/expected/arguments: maxProperties: got 2, want 0"},
		{"fbeval-toolcall-case", "/expected/extra", 1, "/expected: additional properties 'extra' not allowed"},
		{"fbeval-toolcall-case", "/notes", "a field of the dataset's own", ""},
		{"fbeval-toolcall-case", "/provenance", deleted, ""},
		{"fbeval-toolcall-case", "/policy/ordered/0", []any{"checkIn"}, "/policy/ordered/0: minItems: got 1, want 2"},
		{"fbeval-toolcall-case", "/humanReviewed", "yes", "/humanReviewed: got string, want boolean"},
	}
	for _, tt := range tests {
		t.Run(tt.schema+tt.ptr, func(t *testing.T) {
			base, ok := examples[tt.schema]
			if !ok {
				t.Fatalf("no example for %s", tt.schema)
			}
			doc := mutate(t, base, tt.ptr, tt.value)
			data, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			// named explicitly, so that a broken schema_version is reported by the schema
			got := problemLines(v.ValidateFile("f", data, Options{Schema: tt.schema}))
			if tt.want == "" {
				if got != "" {
					t.Errorf("want valid, got:\n%s", got)
				}
				return
			}
			if !strings.Contains(got, ": "+tt.want) {
				t.Errorf("problems:\n%s\nwant one containing %q", got, tt.want)
			}
		})
	}
}

// TestCogLangResultAdditions checks fbeval's optional additions to a CogLang result
// on the reference scorer's own result file.
func TestCogLangResultAdditions(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(interopDir(t, "coglang"), "mixed_responses_result_failures_only.json"))
	if err != nil {
		t.Fatal(err)
	}
	base := decode(t, data)
	block := map[string]any{
		"files":              []any{map[string]any{"path": "r.jsonl", "sha256": strings.Repeat("ab", 32), "shape": "jsonl", "lines": 50, "records": 50}},
		"records_read":       50,
		"records_accepted":   49,
		"duplicate_case_ids": []any{},
		"unknown_case_ids":   []any{"X-1"},
		"warnings":           []any{},
	}
	single := map[string]any{"path": "r.jsonl", "sha256": strings.Repeat("ab", 32), "shape": "list"}
	for k, v := range block {
		if k != "files" {
			single[k] = v
		}
	}
	v := mustValidator(t)
	tests := []struct {
		ptr   string
		value any
		want  string
	}{
		{"/scoring_profile", "strict", ""},
		{"/scoring_profile", "lenient", "/scoring_profile: value must be one of"},
		{"/preflight_summary", map[string]any{"accepted": 40, "rejected": 4}, ""},
		{"/preflight_summary", map[string]any{"Accepted": 1}, "/preflight_summary: additional properties 'Accepted' not allowed"},
		{"/response_file", block, ""},
		{"/response_file", single, ""},
		{"/response_file", nil, ""},
		{"/response_file", map[string]any{"records_read": 1, "records_accepted": 1, "duplicate_case_ids": []any{}, "unknown_case_ids": []any{}, "warnings": []any{}},
			"/response_file: missing property 'files', or properties 'path', 'sha256' and 'shape'"},
		{"/response_file/records_read", -1, "/response_file/records_read: minimum: got -1, want 0"},
		{"/cases/0/preflight_decision", "maybe", "/cases/0/preflight_decision: value must be one of"},
		{"/summary/failure_category_counts/typo", 1, "/summary/failure_category_counts: additional properties 'typo' not allowed"},
		{"/level_summary/L1/failure_category_counts", map[string]any{}, "/level_summary/L1: additional properties 'failure_category_counts' not allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.ptr, func(t *testing.T) {
			doc := base
			if tt.ptr == "/response_file/records_read" {
				doc = mutate(t, doc, "/response_file", block)
			}
			doc = mutate(t, doc, tt.ptr, tt.value)
			out, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			got := problemLines(v.ValidateFile("f", out, Options{}))
			if tt.want == "" {
				if got != "" {
					t.Errorf("want valid, got:\n%s", got)
				}
				return
			}
			if !strings.Contains(got, ": "+tt.want) {
				t.Errorf("problems:\n%s\nwant one containing %q", got, tt.want)
			}
		})
	}
}
