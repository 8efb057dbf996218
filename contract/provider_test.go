package contract

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// TestProviderRecord: the replies and batch lines of the providers, as their
// SDKs define them (the runners' recorded bodies, and the batch lines
// fbeval-synth writes in the recorded shapes), are named with the step that
// turns them into response records; response records and other objects are not.
func TestProviderRecord(t *testing.T) {
	read := func(path string) string {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	firstLine := func(s string) string { return strings.SplitN(s, "\n", 2)[0] }
	for _, tc := range []struct{ name, raw, want string }{
		{"chat completion", read("../runners/internal/openai/testdata/chat_text.json"), "an OpenAI chat completion"},
		{"chat tool call", read("../runners/internal/openai/testdata/chat_tool_call_null_content.json"), "an OpenAI chat completion"},
		{"responses", read("../runners/internal/openai/testdata/responses_text.json"), "an OpenAI Responses API reply"},
		{"messages", read("../runners/internal/anthropic/testdata/message_text.json"), "an Anthropic Messages API reply"},
		{"openai batch output", firstLine(read("../runners/fbeval-batch/testdata/openai_output.jsonl")), "an OpenAI Batch output line"},
		{"openai batch errors", firstLine(read("../runners/fbeval-batch/testdata/openai_errors.jsonl")), "an OpenAI Batch output line"},
		{"openai batch input", `{"custom_id":"a","method":"POST","url":"/v1/chat/completions","body":{"model":"m","messages":[]}}`, "an OpenAI Batch input line"},
		{"anthropic batch result", `{"custom_id":"a","result":{"type":"succeeded","message":{"id":"msg_1","type":"message","role":"assistant","content":[]}}}`, "an Anthropic Message Batches result line"},
		{"anthropic batch request", `{"custom_id":"a","params":{"model":"m","max_tokens":1,"messages":[]}}`, "an Anthropic Message Batches request"},
		{"dataset case", `{"category":"complete","cluster":"flights-complete-9","context":{},"domain":"flights","expected":{"action":"call_tool"},"humanReviewed":false,"id":"flights-900","prompt":"p"}`, "a toolcall dataset case"},
		{"openai batch object", read("testdata/providers/openai_batch_object.json"), "an OpenAI Batch object (the batch's status, as GET /v1/batches/ID returns it), not a record of fbeval's: download the file its output_file_id names"},
		{"anthropic message batch", read("testdata/providers/anthropic_message_batch.json"), "an Anthropic Message Batch object (the batch's status), not a record of fbeval's: download the file its results_url names"},
		{"gemini reply", read("testdata/providers/gemini_generate_content.json"), "a Gemini API reply"},
		{"gemini batch output", firstLine(read("testdata/providers/gemini_batch_output.jsonl")), "a Gemini Batch API output line"},
		{"gemini batch error", strings.Split(read("testdata/providers/gemini_batch_output.jsonl"), "\n")[1], "a Gemini Batch API output line"},
		{"gemini batch input", firstLine(read("testdata/providers/gemini_batch_input.jsonl")), "a Gemini Batch API input line"},
		{"ollama chat", firstLine(read("testdata/providers/ollama_native.jsonl")), "an Ollama API reply"},
		{"ollama generate", strings.Split(read("testdata/providers/ollama_native.jsonl"), "\n")[1], "an Ollama API reply"},
		{"bedrock batch output", firstLine(read("testdata/providers/bedrock_batch_output.jsonl")), "an Amazon Bedrock batch inference line"},
		{"bedrock batch error", strings.Split(read("testdata/providers/bedrock_batch_output.jsonl"), "\n")[1], "an Amazon Bedrock batch inference line"},
		{"heschema run log", firstLine(read("../runners/internal/e2e/testdata/heschema_run/runs.jsonl")), "a line of HESchema's run log (caseId, arm, repeat, attempts), not a record of fbeval's: convert the file with fbeval-batch from-heschema FILE"},
		{"json schema", `{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"}`, "a JSON Schema, not a record of fbeval's"},
		{"json schema without $schema", `{"type": "object", "properties": {}, "required": []}`, "a JSON Schema, not a record of fbeval's"},
		{"anthropic error body", `{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}`, ""}, // a type is no schema
		{"heschema config", `{"datasetHash": "2f66", "schemaHashes": {}, "minimalSchemaHashes": {}, "provider": "mock", "repeats": 3, "repairs": 2}`, "HESchema's config.json (a run's configuration)"},
		{"heschema manifest", `{"version": 1, "cases": 480, "sha256": "2f66", "domains": {}, "categories": {}, "provenance": "x"}`, "HESchema's benchmark manifest (cases, sha256, domains, categories)"},
		{"heschema report", `{"config": {"repeats": 3}, "cases": 480, "completedRuns": 4320, "complete": true, "arms": {}, "effects": {}}`, "HESchema's report (config, arms, effects)"},
		{"response record", `{"schema_version":"fbeval-response/v1","request_id":"a","output":"x"}`, ""},
		{"response record with a key and a response", `{"request_id":"a","key":"k","response":"x","output":"x"}`, ""},
		{"coglang record with candidates", `{"case_id":"FB-L1-001","candidates":[],"output":"Equal[1, 1]"}`, ""},
		{"coglang record", `{"case_id":"FB-L1-001","output":"Equal[1, 1]"}`, ""},
		{"record with a model and choices field", `{"request_id":"a","model":"m","choices":[],"output":"x"}`, ""},
		{"not an object", `[1]`, ""},
		{"broken", `{"custom_id":`, ""},
	} {
		got := ProviderRecord([]byte(tc.raw))
		if tc.want == "" && got != "" || !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: %q, want %q...", tc.name, got, tc.want)
		}
	}
}

// FuzzProviderRecord: any input is named or not, without a panic.
func FuzzProviderRecord(f *testing.F) {
	for _, s := range []string{`{"custom_id":"a","response":{}}`, `{"object":"chat.completion"}`, `{"type":"message","role":"assistant","content":[]}`, `{`, ``} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got := ProviderRecord([]byte(s)); got != "" && !strings.HasPrefix(got, "a ") && !strings.HasPrefix(got, "an ") {
			t.Fatalf("%q", got)
		}
	})
}

// FuzzStringOf: a JSON string without escapes is read as its bytes, as the
// decoder reads it (invalid UTF-8 goes to the decoder, which replaces it).
func FuzzStringOf(f *testing.F) {
	for _, s := range []string{`"a"`, `""`, `"\u00e9"`, "\"\xff\"", `"é"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := jsontext.Value(s)
		if v.Kind() != '"' || jsontext.Value(s).IsValid(jsontext.AllowInvalidUTF8(true)) == false {
			return
		}
		got, ok := stringOf(v)
		tok, err := jsontext.NewDecoder(strings.NewReader(s), jsontext.AllowInvalidUTF8(true)).ReadToken()
		if !ok || err != nil || got != tok.String() {
			t.Fatalf("stringOf(%q) = %q, %v; the decoder: %q, %v", s, got, ok, tok.String(), err)
		}
	})
}

// TestRunStudy: the study identity of a record's run member, as the runners
// write it, and nothing from elsewhere in the record.
func TestRunStudy(t *testing.T) {
	for _, tc := range []struct{ raw, want string }{
		{`{"schema_version":"fbeval-response/v1","request_id":"a","output":"x","run":{"runner":"fbeval-mock","provider":"p","model":"m","study":"sha256:a34b5ee9a97267b9"}}`, "sha256:a34b5ee9a97267b9"},
		{`{"run":{"study":"s"},"run":{"study":"t"}}`, "t"}, // the last, as TopLevel (the scorer rejects the record anyway)
		{`{"request_id":"a","output":"x"}`, ""},
		{`{"study":"sha256:0","run":{"model":"m"}}`, ""},
		{`{"run":{"study":1}}`, ""},
		{`{"run":"x","output":{"run":{"study":"inner"}}}`, ""},
		{`[]`, ""},
		{`{"run":{"study":`, ""},
	} {
		if got := RunStudy([]byte(tc.raw)); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.raw, got, tc.want)
		}
	}
}

// TestTopLevel: every top-level name, the text of its string value (the
// last, when a name repeats), but not of a string longer than
// maxTopLevelString (an answer's text), which is named only; nil for what is
// no whole object.
func TestTopLevel(t *testing.T) {
	long := `"` + strings.Repeat("x", maxTopLevelString) + `"`
	for _, tc := range []struct {
		raw        string
		keys, strs string // sorted names; name=value pairs
	}{
		{`{"schema_version":"fbeval-response/v1","request_id":"a\u0062","n":1,"o":{"p":"q"}}`, "n o request_id schema_version", "request_id=ab schema_version=fbeval-response/v1"},
		{`{"a":"x","a":2}`, "a", ""},
		{`{"a":2,"a":"x"}`, "a", "a=x"},
		{`{"output":` + long + `,"case_id":"c"}`, "case_id output", "case_id=c"},
		{` {"a":"b"} `, "a", "a=b"},
		{`{"a":"b"`, "", ""},
		{`[{"a":"b"}]`, "", ""},
		{``, "", ""},
	} {
		keys, strs := TopLevel([]byte(tc.raw))
		var ks, ss []string
		for k := range keys {
			ks = append(ks, k)
		}
		for k, v := range strs {
			ss = append(ss, k+"="+v)
		}
		slices.Sort(ks)
		slices.Sort(ss)
		if strings.Join(ks, " ") != tc.keys || strings.Join(ss, " ") != tc.strs {
			t.Errorf("%.60s: keys %v, strings %v; want %q, %q", tc.raw, ks, ss, tc.keys, tc.strs)
		}
	}
}

// TestFindMember: the top-level members are walked in order, a nested one is
// not theirs, and text cut short ends the walk at the member it ends inside.
func TestFindMember(t *testing.T) {
	isList := func(name string, kind jsontext.Kind) bool { return name == "responses" && kind == '[' }
	for _, tt := range []struct {
		text string
		want bool
	}{
		{`{"schema_version": "v", "responses": [{"a": 1}]}`, true},
		{`{"schema_version": "v", "responses": [{"a": 1`, true}, // cut short in the list
		{`{"x": {"responses": []}, "y": 1}`, false},             // nested
		{`{"responses": 3}`, false},
		{`{"a": "cut sho`, false},
		{`{"a": 1, "a": 2, "responses": []}`, true}, // names may repeat
		{`["responses"]`, false},
		{``, false},
	} {
		if got := FindMember([]byte(tt.text), isList); got != tt.want {
			t.Errorf("%q: %v, want %v", tt.text, got, tt.want)
		}
	}
}

// TableForm names the tables dataframe tools write where records were meant,
// and nothing else: a record, a batch object, a list.
func TestTableForm(t *testing.T) {
	for _, tt := range []struct{ raw, want string }{
		{`{"request_id":{"0":"a","1":"b"},"output":{"0":"x","1":"y"}}`, `orient="columns"`},
		{`{"case_id":["a","b"],"output":["x","y"]}`, `dataframe="columns"`},
		// a record of jsonlite's toJSON without auto_unbox: each value boxed
		{`{"request_id":["a"],"output":["x"]}`, ""},
		{`{"columns":["request_id","output"],"index":[0,1],"data":[["a","x"],["b","y"]]}`, `orient="split"`},
		{`{"schema":{"fields":[]},"data":[{"request_id":"a"}]}`, `orient="table"`},
		{`{"0":{"request_id":"a","output":"x"},"1":{"request_id":"b","output":"y"}}`, `orient="index"`},
		{`{"columns":[{"name":"request_id","values":["a"]}]}`, `polars' write_json`},
		// a table indexed by its ids (set_index("request_id")), by columns and by rows
		{`{"case_id":{"a.no_schema.r1.a1":"a"},"output":{"a.no_schema.r1.a1":"x"}}`, `indexed by its ids`},
		{`{"a.no_schema.r1.a1":{"case_id":"a","output":"x"}}`, `orient="index" (a record under each row's index`},
		// a record's own members, whatever they are named
		{`{"request_id":"a","output":"x","schema":{},"data":[]}`, ""},
		{`{"request_id":"a","output":"x","columns":[],"index":[],"data":[]}`, ""},
		{`{"request_id":"a","output":"x"}`, ""},
		{`{"request_id":"a","output":{"action":"call_tool"}}`, ""},
		{`{"request_id":"a","output":{"0":"x"}}`, ""},
		{`{"responses":[{"request_id":"a","output":"x"}]}`, ""},
		{`[{"request_id":"a"}]`, ""},
		{`{}`, ""},
		// a CogLang record whose id is a list, read as Python's str() of it
		{`{"case_id":["FB-L1-001"],"output":"Equal[1, 1]"}`, ""},
	} {
		got := TableForm([]byte(tt.raw))
		if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
			t.Errorf("TableForm(%s) = %q, want one naming %q", tt.raw, got, tt.want)
		}
	}
}
