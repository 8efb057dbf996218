package export

import (
	"errors"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/contract"
)

func FuzzParseStudy(f *testing.F) {
	for _, s := range []string{
		`{"schema_version":"fbeval-study/v1","suite":"toolcall","arms":["no_schema","input_schema"],"schemas":{"input_schema":"rich"},"filter":{"domains":["hotels"],"limit":2},"repeats":2,"seed":7,"repairs":1,"decoding":"native_schema","prices":{"input_per_million_usd":1.5,"output_per_million_usd":2},"gates":["input_schema.first_pass_success_percent>=90"]}`,
		`{"schema_version":"fbeval-study/v1","suite":"coglang","strict":true}`,
		"{\"schema_version\":\"fbeval-study/v1\",\n \"suite\":\"toolcall\",\n \"bogus\":1}",
		`{"schema_version":"fbeval-study/v1","suite":"toolcall","suite":"coglang"}`,
		`{"schema_version":"fbeval-study/v1","repeats":1e999}`,
		`{"schema_version":"fbeval-study/v2"}`,
		`[]`, ``, "\ufeff{}", `{"schema_version":"fbeval-study/v1","seed":-1,"arms":["x","x"]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		s, err := ParseStudy("study.json", []byte(data))
		if err != nil {
			var ie *contract.InputError
			if !errors.As(err, &ie) || ie.File != "study.json" || ie.Line < 1 || ie.Col < 1 {
				t.Fatalf("error not located in the file: %v", err)
			}
			if lines := strings.Count(data, "\n") + 1; ie.Line > lines {
				t.Fatalf("error line %d past the file's %d lines: %v", ie.Line, lines, err)
			}
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("error is not one line: %q", err)
			}
			return
		}
		if s.SchemaVersion != contract.StudyV1 {
			t.Fatalf("accepted schema_version %q", s.SchemaVersion)
		}
		// resolving any parsed study is an answer or a clean error, never a crash
		r, err := Resolve(s, Overrides{})
		if err != nil {
			var ie *contract.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("resolve error %T is not an *InputError: %v", err, err)
			}
			return
		}
		if r.Suite == contract.SuiteToolcall && (r.Repeats < 1 || r.Repeats > 100 || len(r.Arms) == 0) {
			t.Fatalf("resolved a study out of range: %+v", r)
		}
	})
}

// TestParseStudyErrors: every study problem is one line at its line and column.
func TestParseStudyErrors(t *testing.T) {
	tests := []struct{ name, data, err string }{
		{"unknown field", "{\"schema_version\":\"fbeval-study/v1\",\n \"suite\":\"toolcall\",\n \"bogus\":1}", "s.json:3:2: unknown field at /bogus"},
		{"unknown nested field", `{"schema_version":"fbeval-study/v1","filter":{"limt":1}}`, "s.json:1:47: unknown field at /filter/limt; did you mean limit"},
		{"unknown field, a typo", "{\"schema_version\":\"fbeval-study/v1\",\n \"repeat\":3}", "s.json:2:2: unknown field at /repeat; did you mean repeats"},
		{"unknown field, a case apart", `{"schema_version":"fbeval-study/v1","Seed":3}`, "s.json:1:37: unknown field at /Seed; did you mean seed"},
		{"duplicate key", "{\"schema_version\":\"fbeval-study/v1\",\n \"suite\":\"toolcall\", \"suite\":\"coglang\"}", "s.json:2:22: invalid JSON: duplicate object member name"},
		{"wrong version", `{"schema_version":"fbeval-study/v2","suite":"toolcall"}`, `s.json:1:19: schema_version must be "fbeval-study/v1", got "fbeval-study/v2": another version of the format than this fbeval reads (fbeval-study/v1): read it with the tool of its version, or make it again with this fbeval and its runners`},
		{"no version", `{"suite":"toolcall"}`, `s.json:1:1: schema_version must be "fbeval-study/v1", got ""`},
		{"wrong type", `{"schema_version":"fbeval-study/v1","repeats":"2"}`, "s.json:1:47: want an integer, got a JSON string at /repeats"},
		// a value the flag refuses is refused in the file too: repeats 0 was 1
		{"repeats 0", `{"schema_version":"fbeval-study/v1","suite":"toolcall","repeats":0}`, "s.json:1:66: study: repeats must be from 1 to 100000000, got 0"},
		// a value that says nothing of the other suite's fields is let be,
		// one that says something is refused
		{"coglang with a toolcall field set", `{"schema_version":"fbeval-study/v1","suite":"coglang","repeats":3}`, "s.json:1:65: study: repeats is for toolcall studies: a CogLang study is its fixture's cases, each asked once (its fields: dataset, strict, max_tokens, temperature): remove it"},
		{"no arms", `{"schema_version":"fbeval-study/v1","suite":"toolcall","arms":[]}`, "s.json:1:63: study: arms lists no arm: list one or more of no_schema, minimal_schema, input_schema, or leave it out for all three"},
		{"builtin typo", `{"schema_version":"fbeval-study/v1","suite":"toolcall","dataset":"builtin:toolcal"}`, `s.json:1:66: study: unknown built-in dataset "builtin:toolcal": the built-in ones are builtin:toolcall and builtin:coglang; did you mean builtin:toolcall`},
		// sampling settings every request would carry, and fbeval's own schemas refuse
		{"max_tokens 0", `{"schema_version":"fbeval-study/v1","suite":"toolcall","max_tokens":0}`, "s.json:1:69: study: max_tokens must be at least 1, got 0 (null or left out: the runner's default)"},
		{"temperature -1", `{"schema_version":"fbeval-study/v1","suite":"coglang","temperature":-1}`, "s.json:1:69: study: temperature must not be negative, got -1 (null or left out: the runner's default)"},
		// the other suite's fields, which were left unused
		{"coglang repairs", `{"schema_version":"fbeval-study/v1","suite":"coglang","repairs":2}`, "s.json:1:65: study: repairs is for toolcall studies: a CogLang study is its fixture's cases, each asked once (its fields: dataset, strict, max_tokens, temperature): remove it"},
		{"coglang filter", `{"schema_version":"fbeval-study/v1","suite":"coglang","filter":{"domains":["hotels"]}}`, "s.json:1:64: study: filter is for toolcall studies: a CogLang study is its fixture's cases, each asked once (its fields: dataset, strict, max_tokens, temperature): remove it"},
		{"toolcall strict", `{"schema_version":"fbeval-study/v1","suite":"toolcall","strict":true}`, "s.json:1:65: study: strict is for coglang studies (the strict CogLang profile), and toolcall scoring is strict already: remove it"},
		{"coglang with the toolcall dataset", `{"schema_version":"fbeval-study/v1","suite":"coglang","dataset":"builtin:toolcall"}`, "s.json:1:65: study: builtin:toolcall is the toolcall dataset: a CogLang study's dataset is builtin:coglang or a CogLang fixture file"},
		{"toolcall with the coglang fixture", `{"schema_version":"fbeval-study/v1","suite":"toolcall","dataset":"builtin:coglang"}`, "s.json:1:66: study: builtin:coglang is the CogLang fixture: a toolcall study's dataset is builtin:toolcall or a dataset file in HESchema's case format"},
		{"huge number", `{"schema_version":"fbeval-study/v1","seed":1` + strings.Repeat("0", 10000) + `}`, "s.json:1:44: number out of range for an integer at /seed"},
		{"unknown field with a newline", "{\"a\\nb\":1}", `s.json:1:2: unknown field at "/a\nb"`},
		{"unknown field, long", `{"` + strings.Repeat("x", 200) + `":1}`, "s.json:1:2: unknown field at /" + strings.Repeat("x", 79) + "..."},
		{"truncated", "{\"schema_version\":\"fbeval-study/v1\",\n\"suite\":", "s.json:2:9: invalid JSON: the record ends inside a JSON value"},
		{"scalar", `"coglang"`, "s.json:1:1: want a JSON object, got a JSON string"},
		{"bad utf-8", "{\"schema_version\":\"fbeval-study/v1\",\"name\":\"\xff\"}", "s.json:1:45: invalid JSON: invalid UTF-8"},
		{"deep", `{"schema_version":"fbeval-study/v1","gates":` + strings.Repeat("[", 100000), "s.json:1:10044: invalid JSON: exceeded max depth"},
		// a file fbeval writes, given where the study goes, is named
		{"empty", " \n", "s.json:1:1: the study file is empty: a study file is one JSON object (fbeval study init prints one to edit)"},
		{"response file", "{\"schema_version\":\"fbeval-response/v1\",\"request_id\":\"a\",\"output\":\"{}\"}\n{\"schema_version\":\"fbeval-response/v1\"}\n",
			"s.json:1:1: this is a response file (fbeval-response/v1), not a study: name a built-in study (fbeval fixtures list) or a study file (fbeval-study/v1; fbeval study init prints one)"},
		{"report", `{"schema_version":"fbeval-report/v1","suite":"toolcall"}`, "s.json:1:1: this is an fbeval report (fbeval-report/v1), not a study: name a built-in study (fbeval fixtures list) or a study file (fbeval-study/v1; fbeval study init prints one)"},
		{"JSON Schema", "{\n  \"$schema\": \"https://json-schema.org/draft/2020-12/schema\",\n  \"type\": \"object\",\n  \"properties\": {}\n}", "s.json:1:1: this is a JSON Schema, not a study: a candidate schema goes to --schema FILE (of fbeval export, score and check) or --minimal-schema FILE"},
		{"HESchema config", `{"datasetHash": "ab", "schemaHashes": {}, "repeats": 3}`, "s.json:1:1: this is HESchema's config.json (a run's configuration), not a study: convert the run log beside it with fbeval-batch from-heschema DIR and score what it writes"},
		{"CogLang fixture", `{"schema_version":"coglang-generation-eval-fixture/v0.1","cases":[]}`, "s.json:1:1: this is a CogLang fixture (coglang-generation-eval-fixture/v0.1), not a study: give it to the coglang study as --fixture s.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseStudy("s.json", []byte(tt.data))
			if err == nil || err.Error() != tt.err {
				t.Errorf("err = %v\nwant %s", err, tt.err)
			}
		})
	}
}

// TestNotSchemaKeys: a schema file that is an object with no JSON Schema
// keyword at its top level (a model's output, a dataset case) is named, as it
// would compile and pass anything; a schema, {}, true, and one of only an
// extension's keywords are not.
func TestNotSchemaKeys(t *testing.T) {
	for _, tt := range []struct{ data, want string }{
		{`{"city":"Pune","guests":2}`, "city, guests"},
		{`{"d":1,"c":2,"b":3,"a":4}`, "a, b, c, ..."},
		{`{}`, ""},
		{`true`, ""},
		{`{"type":"object","properites":{}}`, ""},
		{`{"$schema":"https://json-schema.org/draft/2020-12/schema"}`, ""},
		{`{"x-sum":{"of":"/a"}}`, ""},
		{`[1]`, ""},
	} {
		if got := notSchemaKeys([]byte(tt.data)); got != tt.want {
			t.Errorf("notSchemaKeys(%s) = %q, want %q", tt.data, got, tt.want)
		}
	}
}

// TestOtherSuiteFieldsThatSayNothing: a CogLang study file whose toolcall
// fields hold the values that say nothing (written by a tool that writes
// every field) is read, as is a toolcall one with strict false.
func TestOtherSuiteFieldsThatSayNothing(t *testing.T) {
	for _, text := range []string{
		`{"schema_version":"fbeval-study/v1","suite":"coglang","repeats":1,"seed":0,"repairs":0,"arms":[],"schemas":{},"filter":{},"prices":{},"prompt_template":"","gates":[]}`,
		`{"schema_version":"fbeval-study/v1","suite":"toolcall","strict":false}`,
	} {
		if _, err := ParseStudy("s.json", []byte(text)); err != nil {
			t.Errorf("%s: %v", text, err)
		}
	}
}
