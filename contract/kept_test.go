package contract

import (
	"bytes"
	"strings"
	"testing"
)

func TestKept(t *testing.T) {
	long := strings.Repeat("x", KeptHeadBytes)
	for _, tc := range []struct{ head, want string }{
		// what no fbeval command writes
		{`{"schema_version": "fbeval-response/v1", "request_id": "a", "output": "{}"}` + "\n{}", "a response file (fbeval-response/v1)"},
		{"\ufeff\n" + `{"schema_version": "coglang-generation-eval-response/v0.1", "case_id": "L1-001", "output": "Equal[1, 1]"}`, "a response file (coglang-generation-eval-response/v0.1)"},
		{`{"schema_version": "fbeval-response-batch/v1", "responses": [{"request_id": "a", "output": "` + long, "a response file (fbeval-response-batch/v1)"},
		{`[{"request_id": "a", "output": "{}"}, {"request_id": "b"`, "response records (request_id or case_id, with output, text, completion or error)"},
		{`{"case_id": "L1-001", "text": "Equal[1, 1]"}`, "response records (request_id or case_id, with output, text, completion or error)"},
		{`{"request_id": "a", "error": {"code": "http_500", "message": "x"}}`, "response records (request_id or case_id, with output, text, completion or error)"},
		{`{"responses": [` + long, "a batch of responses"},
		{`{"id": "batch_req_1", "custom_id": "r1", "response": {"status_code": 200}}`, "an OpenAI Batch output file (custom_id, response)"},
		{`{"custom_id": "r1", "result": {"type": "succeeded"}}`, "Anthropic Message Batches results (custom_id, result)"},
		{"{\n  \"schema_version\": \"fbeval-study/v1\",\n  \"suite\": \"toolcall\"\n}\n", "a study file (fbeval-study/v1)"},
		{`{"schema_version": "coglang-generation-eval-fixture/v0.1", "cases": [` + long, "a CogLang fixture (coglang-generation-eval-fixture/v0.1)"},
		{`{"schema_version": "fbeval-contract/v1"}`, "an fbeval contract (fbeval-contract/v1)"},
		// made by hand, or another tool's: a dataset, a schema, HESchema's files, a reply
		{`{"category":"complete","cluster":"c","context":{},"domain":"flights","expected":{},"id":"flights-900","prompt":"p"}` + "\n", "a toolcall dataset case (id, domain, prompt, expected: HESchema's case format)"},
		{"{\n  \"$schema\": \"https://json-schema.org/draft/2020-12/schema\",\n  \"type\": \"object\"\n}\n", "a JSON Schema"},
		{`{"caseId": "flights-000", "arm": "no_schema", "repeat": 0, "attempts": []}`, "a line of HESchema's run log (caseId, arm, repeat, attempts)"},
		{`{"id":"chatcmpl-1","object":"chat.completion","model":"m","choices":[]}`, "an OpenAI chat completion (the API's reply)"},
		// what fbeval writes again, or what it cannot tell
		{`{"schema_version": "fbeval-request/v1", "request_id": "a", "messages": []}`, ""},
		{`{"request_id": "a", "prompt": "p", "output": "o"}`, ""},
		{`{"schema_version": "fbeval-report/v1", "rows": [`, ""},
		{`{"schema_version": "coglang-generation-eval-result/v0.1"}`, ""},
		{`{"schema_version": "fbeval-case-result/v1", "case_id": "a", "attempts": []}`, ""},
		{`{"schema_version": "fbeval-response/v2", "request_id": "a", "output": "{}"}`, ""},
		{`{"custom_id": "r1", "method": "POST", "url": "/v1/chat/completions", "body": {}}`, ""},
		{`{"custom_id": "r1", "params": {"model": "m"}}`, ""},
		{`{"note": "` + long, ""},
		{"<?xml version=\"1.0\"?>\n<testsuites>", ""},
		{"plain text", ""},
		{"[1, 2]", ""},
		{"", ""},
	} {
		if got := Kept([]byte(tc.head)); got != tc.want {
			t.Errorf("Kept(%.70q) = %q, want %q", tc.head, got, tc.want)
		}
	}
}

func TestVersionOf(t *testing.T) {
	for _, tc := range []struct{ head, want string }{
		{"{\n  \"schema_version\": \"fbeval-report/v1\",\n  \"rows\": [\n    {\"case_id\": \"x", "fbeval-report/v1"},
		{`[{"schema_version": "fbeval-response/v1", "request_id": "a"}, {`, "fbeval-response/v1"},
		{"{\"request_id\": \"a\"}\n{\"schema_version\": \"fbeval-response/v1\"}", ""},
		{`{"schema_version": 1}`, ""},
		{"<?xml", ""},
	} {
		if got := VersionOf([]byte(tc.head)); got != tc.want {
			t.Errorf("VersionOf(%.50q) = %q, want %q", tc.head, got, tc.want)
		}
	}
}

func FuzzKept(f *testing.F) {
	for _, s := range []string{`{"schema_version": "fbeval-response/v1"}`, `[{"request_id": "a", "output": 1}]`, `{"custom_id": 1, "result": {`, "\ufeff{", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, head []byte) {
		// a file is kept only when its first record is an object it can read
		// the members of: nothing that starts otherwise is ever named
		got := Kept(head)
		trimmed := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\ufeff")), " \t\r\n")
		if got != "" && (len(trimmed) == 0 || trimmed[0] != '{' && trimmed[0] != '[') {
			t.Errorf("Kept(%q) = %q, from a head that starts as no object or list", head, got)
		}
		if v := VersionOf(head); v != "" && got == "" && (v == ResponseV1 || v == StudyV1 || v == CogLangFixture) {
			t.Errorf("Kept(%q) = \"\", but its version is %s", head, v)
		}
	})
}
