package contract

import "testing"

// KindOf names one of fbeval's files by its first object's schema_version,
// so that a loader of another kind of file can say what it was given.
func TestKindOf(t *testing.T) {
	for _, tt := range []struct {
		data, kind, version string
	}{
		{`{"schema_version":"fbeval-response/v1","request_id":"r"}` + "\n{}\n", "a response file", ResponseV1},
		{`{"schema_version": "fbeval-report/v1", "suite": "toolcall"}`, "an fbeval report", ReportV1},
		{`{"schema_version":"coglang-generation-eval-fixture/v0.1","cases":[]}`, "a CogLang fixture", CogLangFixture},
		{`{"type":"object","properties":{}}`, "", ""},                    // a JSON Schema
		{`{"schema_version":"someone-else/v1"}`, "", ""},                 // not fbeval's
		{`{{define "system"}}You call tools.{{end}}`, "", ""},            // a template
		{`{"id":"s-1","domain":"search","schema_version":null}`, "", ""}, // a case
		{``, "", ""},
	} {
		if kind, version := KindOf([]byte(tt.data)); kind != tt.kind || version != tt.version {
			t.Errorf("KindOf(%.40q) = %q, %q; want %q, %q", tt.data, kind, version, tt.kind, tt.version)
		}
	}
}

func TestKindOfHead(t *testing.T) {
	for _, tt := range []struct{ head, kind string }{
		{"{\n  \"schema_version\": \"coglang-generation-eval-fixture/v0.1\",\n  \"cases\": [\n    {\"case_id\": ", "a CogLang fixture"},
		{`{"name": "x", "schema_version": "fbeval-study/v1", "suite": "tool`, "a study file"},
		{`{"name": "x", "cases": [{"schema_version": "fbeval-study/v1"}]`, ""}, // not at the top level
		{`{"schema_version": "other/v1"}`, ""},
		{`{"schema_version": 1}`, ""},
		{`{"id": "s-1", "domain": "search"`, ""},
		{`[{"schema_version": "fbeval-study/v1"}]`, ""},
		{``, ""},
	} {
		if kind, _ := KindOfHead([]byte(tt.head)); kind != tt.kind {
			t.Errorf("KindOfHead(%q) = %q, want %q", tt.head, kind, tt.kind)
		}
	}
}

// The summary export writes with --format text (and the CogLang reference tool
// with --export-requests --format text) is known by its first line; a text
// result or another file that starts with schema_version is not.
func TestIsRequestSummary(t *testing.T) {
	for _, tt := range []struct {
		head string
		want bool
	}{
		{"schema_version: fbeval-request-batch/v1\nsuite: toolcall\n", true},
		{"schema_version: coglang-generation-eval-request-batch/v0.1\ntool: coglang\n", true},
		{"\ufeffschema_version: coglang-generation-eval-request-batch/v0.1\r\ntool: coglang\r\n", true}, // Notepad's
		{"schema_version: coglang-generation-eval/v0.1\ntool: fbeval\n", false},                         // a text result
		{"schema_version: fbeval-request-batch/v10\n", false},
		{"schema_version: fbeval-request-batch/v1", false}, // no end of line: not a summary
		{`{"schema_version": "fbeval-request-batch/v1"}`, false},
		{"", false},
	} {
		if got := IsRequestSummary([]byte(tt.head)); got != tt.want {
			t.Errorf("IsRequestSummary(%q) = %v, want %v", tt.head, got, tt.want)
		}
	}
}

// OtherVersion names a version of a format read in another version, and
// nothing else.
func TestOtherVersion(t *testing.T) {
	const advice = ": another version of the format than this fbeval reads (fbeval-response/v1): read it with the tool of its version, or make it again with this fbeval and its runners"
	for _, tt := range []struct {
		got  string
		want string
	}{
		{"fbeval-response/v2", advice},
		{"fbeval-response/v1.1", advice},
		{"fbeval-response/v1", ""},
		{"fbeval-response/", ""},
		{"fbeval-request/v1", ""},
		{"", ""},
		{"coglang-generation-eval-response/v0.2", ": another version of the format than this fbeval reads (coglang-generation-eval-response/v0.1): read it with the tool of its version, or make it again with this fbeval and its runners"},
	} {
		if got := OtherVersion(tt.got, ResponseV1, CogLangResponse); got != tt.want {
			t.Errorf("OtherVersion(%q) = %q, want %q", tt.got, got, tt.want)
		}
	}
}
