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
