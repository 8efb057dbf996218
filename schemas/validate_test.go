package schemas

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/fixtures/fixturetest"
)

func interopDir(t testing.TB, sub string) string {
	t.Helper()
	return fixturetest.Interop(t, sub)
}

func mustValidator(t testing.TB) *Validator {
	t.Helper()
	v, err := NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func problemLines(ps []Problem) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.String())
		b.WriteByte('\n')
	}
	return b.String()
}

func TestCogLangInterop(t *testing.T) {
	dir := interopDir(t, "coglang")
	v := mustValidator(t)
	tests := []struct {
		file   string
		schema string // Options.Schema
		want   string // problems, one per line
	}{
		{file: "generation_eval_minimal_v0_1.json"},
		{file: "generation_eval_three_case_v0_1.json"},
		{file: "exported_requests.jsonl"},
		{file: "exported_requests_with_reference.jsonl"},
		{file: "exported_request_batch.json"},
		{file: "mock_responses.jsonl"},
		// line 37 has no schema_version (the reference accepts that); it needs the schema named
		{file: "mixed_responses.jsonl", schema: "coglang-generation-eval-response"},
		{file: "mixed_responses.jsonl", want: "mixed_responses.jsonl:37:1: (root): no schema_version: name the schema with --schema NAME (this looks like a CogLang response: --schema coglang-generation-eval-response; fbeval schema lists them)"},
		{file: "reference_answers_result.json"},
		{file: "mixed_responses_result_failures_only.json"},
		{file: "reference_answers_result.json", schema: "coglang-generation-eval-fixture",
			want: "reference_answers_result.json:2:21: /schema_version: value must be \"coglang-generation-eval-fixture/v0.1\", got \"coglang-generation-eval-result/v0.1\""},
	}
	for _, tt := range tests {
		t.Run(tt.file+"/"+tt.schema, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			got := problemLines(v.ValidateFile(tt.file, data, Options{Schema: tt.schema}))
			if tt.want == "" {
				if got != "" {
					t.Errorf("problems:\n%s", got)
				}
				return
			}
			if !strings.Contains(got, tt.want) {
				t.Errorf("problems:\n%s\nwant a line starting %q", got, tt.want)
			}
		})
	}
}

func TestHESchemaCasesInterop(t *testing.T) {
	dir := interopDir(t, "heschema")
	data, err := os.ReadFile(filepath.Join(dir, "cases.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	v := mustValidator(t)
	var ps []Problem
	st := v.Validate("cases.jsonl", bytes.NewReader(data), Options{Schema: "fbeval-toolcall-case"}, func(p Problem) { ps = append(ps, p) })
	if len(ps) > 0 {
		t.Errorf("problems:\n%s", problemLines(ps))
	}
	if st.Records != 480 || st.Invalid != 0 {
		t.Errorf("stats %+v, want 480 records, none invalid", st)
	}
}

// TestContractRecords checks the records the contract package writes against their
// schemas.
func TestContractRecords(t *testing.T) {
	ref := "Equal[1, 1]"
	req := contract.Request{
		SchemaVersion: contract.RequestV1, RequestID: "toolcall/flights-000/input_schema/r0/a1",
		CaseID: "flights-000", Suite: contract.SuiteToolcall, Arm: contract.ArmInputSchema,
		Repeat: 0, Attempt: 1, Seed: -42, Instructions: "sys", Prompt: "user",
		Messages:        []contract.Message{{Role: "system", Content: "sys"}, {Role: "user", Content: "user"}},
		ResponseFormat:  &contract.ResponseFormat{Type: "json_schema", JSONSchema: contract.JSONSchema{Name: "envelope", Schema: []byte(`{"type":"object"}`), Strict: true}},
		Tools:           []contract.ToolDefinition{{Name: "search_flights", Description: "Search flights.", Parameters: []byte(`{}`)}},
		ReferenceOutput: &ref,
	}
	maxTokens, temp := 512, 0.0
	req.MaxTokens, req.Temperature = &maxTokens, &temp // a study's sampling settings
	studies := []contract.Study{
		{SchemaVersion: contract.StudyV1, Name: "t", Suite: contract.SuiteToolcall, Dataset: "builtin:toolcall",
			Arms:    contract.Arms,
			Schemas: map[string]string{contract.ArmMinimalSchema: "minimal", contract.ArmInputSchema: "reference"},
			Filter:  contract.Filter{Domains: []string{"flights"}, Limit: 2}, Repeats: 1, Seed: 7, Repairs: 2,
			Decoding: contract.DecodingPromptOnly, Prices: &contract.Prices{InputPerMillionUSD: 0.15, OutputPerMillionUSD: 0.6},
			Gates: []string{"input_schema.first_pass_success_percent>=90"}, MaxTokens: &maxTokens, Temperature: &temp},
		{SchemaVersion: contract.StudyV1, Suite: contract.SuiteToolcall, Dataset: "cases.jsonl", Repeats: 3,
			Decoding: contract.DecodingNativeSchema},
		{SchemaVersion: contract.StudyV1, Suite: contract.SuiteToolcall, Dataset: "cases.jsonl", Repeats: 1, Decoding: contract.DecodingNativeTools},
		{SchemaVersion: contract.StudyV1, Suite: contract.SuiteCogLang, Dataset: "builtin:coglang", Strict: true},
	}
	docs := []any{req.Object()}
	for i := range studies {
		docs = append(docs, studies[i].Object())
	}
	batch := contract.Object{
		{Key: "schema_version", Value: contract.RequestBatchV1},
		{Key: "suite", Value: contract.SuiteToolcall},
		{Key: "study", Value: studies[0].Object()},
		{Key: "request_count", Value: 1},
		{Key: "requests", Value: []contract.Object{req.Object()}},
	}
	docs = append(docs, batch)
	v := mustValidator(t)
	for i, d := range docs {
		data, err := contract.Marshal(d, contract.PythonIndent)
		if err != nil {
			t.Fatal(err)
		}
		if ps := v.ValidateFile(fmt.Sprintf("doc%d.json", i), data, Options{}); len(ps) > 0 {
			t.Errorf("%s\n%s", data, problemLines(ps))
		}
	}
}

func TestProblemsSortedAndDeterministic(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "invalid.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	v := mustValidator(t)
	first := v.ValidateFile("invalid.jsonl", data, Options{})
	if !slices.IsSortedFunc(first, func(a, b Problem) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Col - b.Col
	}) {
		t.Errorf("problems not in position order:\n%s", problemLines(first))
	}
	for i := 0; i < 20; i++ {
		again := v.ValidateFile("invalid.jsonl", data, Options{})
		if !slices.Equal(first, again) {
			t.Fatalf("run %d differs:\n%s\nvs\n%s", i, problemLines(first), problemLines(again))
		}
	}
}

// TestGolden validates each testdata/*.jsonl and *.json input and compares the
// problems with its .golden file (-update rewrites them).
func TestGolden(t *testing.T) {
	inputs, _ := filepath.Glob(filepath.Join("testdata", "*.json*"))
	if len(inputs) == 0 {
		t.Fatal("no testdata inputs")
	}
	v := mustValidator(t)
	for _, in := range inputs {
		if strings.HasSuffix(in, ".golden") {
			continue
		}
		t.Run(filepath.Base(in), func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			got := problemLines(v.ValidateFile(filepath.Base(in), data, Options{}))
			golden := strings.TrimSuffix(in, filepath.Ext(in)) + ".golden"
			fixturetest.Golden(t, golden, []byte(got))
		})
	}
}

func TestPositions(t *testing.T) {
	v := mustValidator(t)
	tests := []struct {
		name, data, schema string
		want               []string
	}{
		{
			name: "jsonl columns count from the line start, leading blanks included",
			data: "{\"schema_version\": \"fbeval-response/v1\", \"request_id\": \"a\", \"output\": \"x\"}\n" +
				"  {\"schema_version\": \"fbeval-response/v1\", \"request_id\": \"b\", \"output\": \"x\", \"latency_ms\": -1}\n",
			want: []string{"f:2:92: /latency_ms: minimum: got -1, want 0"},
		},
		{
			name: "a whole document counts lines",
			data: "{\n  \"schema_version\": \"fbeval-response-batch/v1\",\n  \"responses\": [\n    {\"request_id\": \"a\"},\n    {\"request_id\": \"b\", \"text\": \"t\", \"model\": 3}\n  ]\n}\n",
			want: []string{
				"f:4:5: /responses/0: missing one of the properties 'output', 'text', 'completion', 'error'",
				"f:5:47: /responses/1/model: got number, want null or string",
			},
		},
		{
			// one line for one mistake: the branches of an anyOf that only want
			// a member said at once, or the branch whose member is there alone
			name: "anyOf branches",
			data: `{"schema_version":"fbeval-response/v1","request_id":"x","output":null}
{"schema_version":"fbeval-response/v1","output":"a"}
{"schema_version":"fbeval-response/v1","request_id":"x","error":"boom"}
{"schema_version":"fbeval-response/v1","request_id":3,"output":"a"}
{"schema_version":"fbeval-response/v1","case_id":"c","text":null,"output":null}
`,
			want: []string{
				"f:1:1: (root): missing one of the properties 'output', 'text', 'completion', 'error' ('output' is null)",
				"f:2:1: (root): missing one of the properties 'request_id', 'case_id'",
				"f:3:65: /error: got string, want null or object",
				"f:4:53: /request_id: got number, want null or string",
				"f:5:1: (root): missing one of the properties 'output', 'text', 'completion', 'error' ('output' and 'text' are null)",
			},
		},
		{
			name: "a JSON list is one record per element",
			data: "[\n {\"schema_version\": \"fbeval-study/v1\", \"suite\": \"toolcall\", \"repairs\": 6},\n {\"schema_version\": \"nope/v9\"}\n]",
			want: []string{
				"f:2:72: /repairs: maximum: got 6, want 5",
				"f:3:21: /schema_version: unknown schema_version \"nope/v9\"",
			},
		},
		{
			name:   "escaped pointer tokens are found",
			data:   `{"arms": {"a/b~c": {"runs": -1}}}`,
			schema: "fbeval-report",
			want: []string{
				"f:1:1: (root): missing properties",
				"f:1:20: /arms/a~1b~0c: missing properties",
				"f:1:29: /arms/a~1b~0c/runs: minimum: got -1, want 0",
			},
		},
		{
			name: "bad JSON is a read problem at its position",
			data: "{\"schema_version\": \"fbeval-response/v1\", \"request_id\": \"a\", \"output\": \"x\"}\n{\"request_id\": \"b\", \"request_id\": \"c\"}\n{\"output\": tru}\n",
			want: []string{
				"f:2:21: invalid JSON: duplicate object member name at /request_id",
				"f:3:",
			},
		},
		{
			name:   "an explicit schema wins over schema_version",
			data:   `{"schema_version": "fbeval-request/v1", "request_id": "a", "output": "x"}`,
			schema: "fbeval-response",
			want:   []string{"f:1:20: /schema_version: value must be one of \"fbeval-response/v1\", null"},
		},
		{
			name:   "an unknown explicit schema",
			data:   `{}`,
			schema: "nope",
			want:   []string{"f: unknown schema \"nope\""},
		},
		{
			name: "a record that is not an object",
			data: "[1]",
			want: []string{"f:1:2: (root): a record must be a JSON object"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := problemLines(v.ValidateFile("f", []byte(tt.data), Options{Schema: tt.schema}))
			lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
			if len(lines) != len(tt.want) {
				t.Fatalf("got %d problems, want %d:\n%s", len(lines), len(tt.want), got)
			}
			for i, w := range tt.want {
				if !strings.HasPrefix(lines[i], w) {
					t.Errorf("problem %d:\n got %s\nwant %s...", i, lines[i], w)
				}
			}
		})
	}
}

func TestValidateStats(t *testing.T) {
	v := mustValidator(t)
	data := "{\"request_id\": \"a\", \"output\": 1}\n\n{\"request_id\": \"b\"}\n{oops}\n"
	n := 0
	st := v.Validate("f", strings.NewReader(data), Options{Schema: "fbeval-response"}, func(Problem) { n++ })
	if st.Records != 3 || st.Invalid != 2 {
		t.Errorf("stats %+v, want 3 records, 2 invalid", st)
	}
	if n < 2 {
		t.Errorf("%d problems, want at least 2", n)
	}
	// an empty file is no pass: a CI step that validates what a failed runner
	// left must fail
	var empty []Problem
	if st := v.Validate("empty", strings.NewReader(" \n"), Options{}, func(p Problem) { empty = append(empty, p) }); st.Records != 0 || st.Invalid != 1 ||
		len(empty) != 1 || empty[0].String() != "empty:1:1: the file holds no records: nothing to check (an export, a runner or a score that failed before it wrote leaves it empty)" {
		t.Errorf("empty file: %+v, %v", st, empty)
	}
	// a provider's own file is named once, as its one problem, and every
	// line counts as invalid
	batch := strings.Repeat(`{"id":"b","custom_id":"x","response":{"status_code":200,"body":{}},"error":null}`+"\n", 3)
	var named []Problem
	if st := v.Validate("out.jsonl", strings.NewReader(batch), Options{}, func(p Problem) { named = append(named, p) }); st.Records != 3 || st.Invalid != 3 ||
		len(named) != 1 || !strings.HasPrefix(named[0].String(), "out.jsonl:1:1: this is an OpenAI Batch output line (custom_id, response), not a record of fbeval's: convert the file with fbeval-batch from-openai") {
		t.Errorf("batch output: %+v, %v", st, named)
	}
}

// TestValidateWorkers: the same problems, in the same order, with the same
// counts, at 1, 2 and 4 workers, on a file of thousands of records, good and
// bad, read quickly and the long way, spread over many batches.
func TestValidateWorkers(t *testing.T) {
	v := mustValidator(t)
	var b strings.Builder
	for i := range 3000 {
		switch i % 6 {
		case 0:
			fmt.Fprintf(&b, `{"schema_version": "fbeval-response/v1", "request_id": "r%d", "output": "x"}`+"\n", i)
		case 1:
			fmt.Fprintf(&b, `{"schema_version": "fbeval-response/v1", "request_id": %d}`+"\n", i) // two problems
		case 2:
			fmt.Fprintf(&b, `{"schema_version": "fbeval-response/v1", "request_id": "r%d", "output": "x", "output": "y"}`+"\n", i) // a duplicate: the long way
		case 3:
			b.WriteString("{oops\n")
		case 4:
			fmt.Fprintf(&b, `{"request_id": "r%d", "output": "\u00e9"}`+"\n", i) // no schema_version
		case 5:
			fmt.Fprintf(&b, "  {\"schema_version\": \"fbeval-response/v1\", \"case_id\": \"c%d\", \"latency_ms\": \"slow\", \"output\": null, \"error\": {}}\n", i)
		}
	}
	data := []byte(b.String())
	var want string
	var wantStats Stats
	for _, w := range []int{1, 2, 4} {
		var got strings.Builder
		st := v.Validate("f.jsonl", bytes.NewReader(data), Options{Workers: w}, func(p Problem) { got.WriteString(p.String() + "\n") })
		if w == 1 {
			want, wantStats = got.String(), st
			if st.Records != 3000 || st.Invalid != 2500 || strings.Count(want, "\n") < 3000 {
				t.Fatalf("1 worker: %+v, %d problems:\n%.2000s", st, strings.Count(want, "\n"), want)
			}
			continue
		}
		if got.String() != want || st != wantStats {
			t.Errorf("%d workers: %+v, the problems differ from one worker's", w, st)
		}
	}
}

func FuzzValidateFile(f *testing.F) {
	seeds := []string{
		"", "{}", "[]", "[1, {}]", "{\"schema_version\": \"fbeval-response/v1\"}\n{\"a\":",
		`{"schema_version": "fbeval-report/v1", "arms": {"x": {"runs": -1}}}`,
		`{"schema_version": "coglang-generation-eval-response-batch/v0.1", "responses": [{"case_id": 1, "output": null}]}`,
		"\xef\xbb\xbf{\"schema_version\": \"fbeval-study/v1\", \"suite\": \"toolcall\"}",
		`{"schema_version": "fbeval-study/v1", "schemas": {"~0/~1": 1}}`,
	}
	if files, err := filepath.Glob(filepath.Join("testdata", "*.json*")); err == nil {
		for _, file := range files {
			if data, err := os.ReadFile(file); err == nil && !strings.HasSuffix(file, ".golden") {
				seeds = append(seeds, string(data))
			}
		}
	}
	for _, s := range seeds {
		f.Add([]byte(s), "")
	}
	f.Add([]byte(`{"id": "x"}`), "fbeval-toolcall-case")
	v := mustValidator(f)
	f.Fuzz(func(t *testing.T, data []byte, schema string) {
		ps := v.ValidateFile("fuzz", data, Options{Schema: schema})
		for i, p := range ps {
			if p.File != "fuzz" || strings.Contains(p.String(), "\n") {
				t.Fatalf("bad problem %q", p.String())
			}
			if i > 0 && ps[i-1].Line > p.Line {
				t.Fatalf("problems out of order:\n%s", problemLines(ps))
			}
		}
	})
}

func BenchmarkValidateResponsesJSONL(b *testing.B) {
	var buf bytes.Buffer
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&buf, `{"schema_version": "fbeval-response/v1", "request_id": "toolcall/case-%04d/input_schema/r0/a1", "output": "{\"action\": \"refuse\"}", "provider": "mock", "model": "m", "latency_ms": 12.5, "input_token_count": 100, "output_token_count": 20, "finish_reason": "stop"}`+"\n", i)
	}
	data := buf.Bytes()
	v := mustValidator(b)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if ps := v.ValidateFile("r.jsonl", data, Options{}); len(ps) != 0 {
			b.Fatal(problemLines(ps))
		}
	}
}

// FuzzQuickInstance: a record quickInstance reads, the long way reads too, to
// the same value; anything else quickInstance leaves to the long way.
func FuzzQuickInstance(f *testing.F) {
	for _, s := range []string{
		`{"schema_version": "fbeval-response/v1", "request_id": "a", "output": "x\u00e9\n", "n": -1.5e3, "l": [1, true, null, {}], "e": []}`,
		`{"a": 1, "a": 2}`, `{"\u0061": 1}`, `"\ud800"`, "\"\xff\"", `[1,]`, `1 2`, ` {"x": 0} `, `01`, `-0.0e-0`,
		`{"a":[[[[[[[[[[]]]]]]]]]]}`, `NaN`, "\"\u2028\"", `1e400`, "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		quick, ok := quickInstance(data)
		if !ok {
			return
		}
		rec := contract.Record{File: "f", Line: 1, Col: 1, Raw: data}
		slow, p := slowInstance(&rec)
		if p != nil {
			t.Fatalf("%q: read quickly, but the long way says %s", data, p)
		}
		if !reflect.DeepEqual(quick, slow) {
			t.Fatalf("%q: quickly %#v, the long way %#v", data, quick, slow)
		}
	})
}

// TestQuickInstance: the records runners and fbeval write are read in one
// walk; what the long way must explain is left to it.
func TestQuickInstance(t *testing.T) {
	deep := strings.Repeat("[", maxQuickDepth+1) + strings.Repeat("]", maxQuickDepth+1)
	for _, tt := range []struct {
		raw   string
		quick bool
	}{
		{`{"schema_version": "fbeval-response/v1", "request_id": "a.r1.a1", "output": "{\"action\": \"refuse\"}", "latency_ms": 12.5, "run": {"model": "m"}}`, true},
		{` [1, -2.50, 3e2, "\u00e9", null, true, false, {}, []] `, true},
		{strings.Repeat("[", maxQuickDepth) + strings.Repeat("]", maxQuickDepth), true},
		{deep, false},
		{`{"a": 1, "a": 2}`, false}, // the long way names the duplicate
		{`{"\u0061": 1}`, false},    // an escaped name
		{`"\ud800"`, false},         // a lone surrogate
		{"\"\xff\"", false},         // invalid UTF-8
		{`{"a": 1} x`, false},       // data after the value
		{`{"a": 01}`, false},        // no JSON number
		{``, false},
	} {
		if _, ok := quickInstance([]byte(tt.raw)); ok != tt.quick {
			t.Errorf("%.40q: quick %v, want %v", tt.raw, ok, tt.quick)
		}
	}
}

// TestContractEmbeddedSchema: fbeval validate checks a contract's schema
// against the Draft 2020-12 metaschema, as fbeval check --contract does (a
// contract whose schema could never compile passed validate); the relation
// keywords stay allowed.
func TestContractEmbeddedSchema(t *testing.T) {
	v := mustValidator(t)
	head := `{"schema_version": "fbeval-contract/v1", "id": "t", "version": "1",` + "\n"
	good := head + ` "schema": {"type": "object", "x-sum": {"target": "/t", "of": "/l", "field": "/a"}}}`
	if ps := v.ValidateFile("c.json", []byte(good), Options{}); len(ps) > 0 {
		t.Errorf("relation keywords: %s", problemLines(ps))
	}
	bad := head + ` "schema": {"properties": {"t": {"type": "nubmer"}}}}`
	want := `c.json:2:42: /schema/properties/t/type: value must be one of "array", "boolean", "integer", "null", "number", "object", "string"; got "nubmer"; did you mean "number"` + "\n"
	if got := problemLines(v.ValidateFile("c.json", []byte(bad), Options{})); got != want {
		t.Errorf("got  %swant %s", got, want)
	}
}

// fbeval compare's JSON is named for what it is, with no schema to check it
// against (it was "unknown schema_version").
func TestValidateCompareOutput(t *testing.T) {
	ps := ValidateFile("c.json", []byte(`{"schema_version": "fbeval-compare/v1", "x": 1}`), Options{})
	if len(ps) != 1 || !strings.Contains(ps[0].Message, "this is fbeval compare's JSON (fbeval-compare/v1)") {
		t.Errorf("%+v", ps)
	}
}

// TestValidateMixedKinds: a record of another kind than the file's first (a
// request appended to responses) is a problem, as the command reading the
// file rejects it (it passed: each record was checked against its own
// version's schema); responses of both families are not (the CogLang scorer
// reads fbeval-response/v1 records beside its own), but a CogLang response
// among toolcall responses is.
func TestValidateMixedKinds(t *testing.T) {
	resp := `{"schema_version":"fbeval-response/v1","request_id":"a.no_schema.r1.a1","case_id":"a","output":"x"}`
	req := `{"schema_version":"fbeval-request/v1","request_id":"a.no_schema.r1.a1","case_id":"a","suite":"toolcall","arm":"no_schema","repeat":1,"attempt":1,"seed":1,"prompt":"p","messages":[{"role":"user","content":"p"}]}`
	cog := `{"schema_version":"coglang-generation-eval-response/v0.1","case_id":"c","output":"x"}`
	ps := ValidateFile("m.jsonl", []byte(resp+"\n"+req+"\n"), Options{})
	if !slices.ContainsFunc(ps, func(p Problem) bool {
		return p.Line == 2 && p.Message == "this record is a request file's (fbeval-request/v1) in a response file (its first record: fbeval-response/v1): the command that reads the file takes one kind of record, and rejects this one (keep each kind in a file of its own)"
	}) {
		t.Errorf("%+v", ps)
	}
	cogV1 := `{"schema_version":"fbeval-response/v1","case_id":"c","output":"x"}`
	for _, file := range []string{cog + "\n" + cog + "\n" + resp + "\n", cogV1 + "\n" + cog + "\n"} {
		if ps := ValidateFile("m.jsonl", []byte(file), Options{}); len(ps) != 0 {
			t.Errorf("%s: %+v", file, ps)
		}
	}
	// a CogLang response among toolcall responses, which the toolcall scorer
	// rejects (it passed as the other family of one kind)
	ps = ValidateFile("m.jsonl", []byte(resp+"\n"+cog+"\n"), Options{})
	if len(ps) != 1 || ps[0].Line != 2 || ps[0].Message != "this record is a CogLang response (coglang-generation-eval-response/v0.1) in a toolcall response file (its first record: fbeval-response/v1 with a request_id): fbeval score toolcall rejects it (keep each suite's responses in a file of its own)" {
		t.Errorf("%+v", ps)
	}
}

// TestValidateUnversioned: a toolcall dataset and a context, the files fbeval
// reads whose records carry no schema_version, are checked against their
// schemas without --schema (the dataset was "a toolcall dataset case ...;
// fbeval validate checks the contract files fbeval reads and writes", every
// line invalid; the context asked for --schema).
func TestValidateUnversioned(t *testing.T) {
	data, err := os.ReadFile("../docs/examples/toolcall-invoices.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if ps := ValidateFile("cases.jsonl", data, Options{}); len(ps) != 0 {
		t.Errorf("dataset: %+v", ps)
	}
	bad := strings.Replace(string(data), `"domain":"invoices"`, `"domain":7`, 1)
	if ps := ValidateFile("cases.jsonl", []byte(bad), Options{}); len(ps) != 1 || ps[0].Pointer != "/domain" {
		t.Errorf("dataset, a domain no string: %+v", ps)
	}
	if ps := ValidateFile("ctx.json", []byte(`{"version": 7, "approved": true, "facts": {"customer": {"id": "C-1042"}}}`), Options{}); len(ps) != 0 {
		t.Errorf("context: %+v", ps)
	}
	if ps := ValidateFile("ctx.json", []byte(`{"version": 7, "approved": "yes", "facts": {}}`), Options{}); len(ps) != 1 || ps[0].Pointer != "/approved" {
		t.Errorf("context, approved no boolean: %+v", ps)
	}
}

// TestValidateTwoOnALine: data after a record's value is named where it
// starts, as the scorer names it (it was a column past it), and another
// record there in the scorer's words (files joined with cat).
func TestValidateTwoOnALine(t *testing.T) {
	for _, tt := range []struct{ file, want string }{
		{`{"a":1}{"b":2}`, "r.jsonl:1:8: " + contract.TwoRecordsOnALine + "\n"},
		{`{"a":1}  {"b":2}`, "r.jsonl:1:10: " + contract.TwoRecordsOnALine + "\n"},
		{`{"a":1} x`, "r.jsonl:1:9: invalid JSON: unexpected data after the value\n"},
	} {
		if got := problemLines(ValidateFile("r.jsonl", []byte(tt.file+"\n"), Options{Schema: "fbeval-response"})); got != tt.want {
			t.Errorf("%s: got %swant %s", tt.file, got, tt.want)
		}
	}
}

// TestValidateRun: a record's run is checked as fbeval's runners write it (a
// run that was no object, or a recipe in another form, which scoring refuses,
// passed: run was in no schema).
func TestValidateRun(t *testing.T) {
	head := `{"schema_version":"fbeval-response/v1","request_id":"a.no_schema.r1.a1","output":"x","run":`
	for _, tt := range []struct{ run, want string }{
		{`{"runner":"r","provider":"p","model":"m","study":"sha256:0123456789abcdef","recipe":"sha256:0123456789abcdef","settings":"seed=0"}`, ""},
		{`{"study":"sha256:0123456789abcdef","recipe":"crc32c:682c51ad"}`, ""},
		// null, a dataframe's missing value: as scoring takes it
		{`null`, ""},
		{`{"model":null,"study":null}`, ""},
		{`"fbeval-mock"`, "/run: got string, want null or object"},
		{`{"recipe":"0123456789abcdef"}`, "/run/recipe: '0123456789abcdef' does not match pattern"},
		{`{"recipe":"SHA256:0123456789ABCDEF"}`, "/run/recipe: 'SHA256:0123456789ABCDEF' does not match pattern"},
		{`{"study":{"name":"s"}}`, "/run/study: got object, want null or string"},
	} {
		ps := ValidateFile("r.jsonl", []byte(head+tt.run+"}\n"), Options{})
		switch {
		case tt.want == "" && len(ps) != 0:
			t.Errorf("%s: %+v", tt.run, ps)
		case tt.want != "" && (len(ps) != 1 || !strings.Contains(ps[0].Pointer+": "+ps[0].Message, tt.want)):
			t.Errorf("%s: %+v, want %q", tt.run, ps, tt.want)
		}
	}
}
