// Package contract holds fbeval's file contract: the record types and version strings
// of every file the toolkit reads or writes, the reader that loads response and
// request files (JSONL, a JSON list or a JSON batch object) with every bad line
// reported by file:line:col, and the deterministic JSON writer used for all output.
// The writer takes ordered Objects and typed values alike: a struct is written
// member by member in field order under its json tags (the tags
// go-json-experiment/json reads it back with), floats as Python's repr writes
// them, and JSON text held as jsontext.Value or Raw verbatim.
//
// Runner authors: docs/contract.md describes the same contract in prose.
package contract

import (
	"bytes"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// Version strings of the fbeval v1 contract.
const (
	StudyV1         = "fbeval-study/v1"
	RequestV1       = "fbeval-request/v1"
	RequestBatchV1  = "fbeval-request-batch/v1"
	ResponseV1      = "fbeval-response/v1"
	ResponseBatchV1 = "fbeval-response-batch/v1"
	CaseResultV1    = "fbeval-case-result/v1"
	ReportV1        = "fbeval-report/v1"
	ContractV1      = "fbeval-contract/v1"
	CompareV1       = "fbeval-compare/v1" // fbeval compare's JSON: written, read by no command
)

// Version strings of the CogLang generation-eval v0.1 contract, spoken exactly.
const (
	CogLangFixture       = "coglang-generation-eval-fixture/v0.1"
	CogLangResult        = "coglang-generation-eval-result/v0.1"
	CogLangRequestBatch  = "coglang-generation-eval-request-batch/v0.1"
	CogLangRequest       = "coglang-generation-eval-request/v0.1"
	CogLangResponseBatch = "coglang-generation-eval-response-batch/v0.1"
	CogLangResponse      = "coglang-generation-eval-response/v0.1"
)

// Suite names.
const (
	SuiteCogLang  = "coglang"
	SuiteToolcall = "toolcall"
)

// FileKind names the file whose schema_version is version ("an fbeval report",
// "a CogLang fixture"), for messages that say what a file given in the wrong
// place is; "" for a version fbeval does not write or read.
func FileKind(version string) string {
	switch version {
	case StudyV1:
		return "a study file"
	case RequestV1, RequestBatchV1, CogLangRequest, CogLangRequestBatch:
		return "a request file"
	case ResponseV1, ResponseBatchV1, CogLangResponse, CogLangResponseBatch:
		return "a response file"
	case CaseResultV1:
		return "a case-results file"
	case ReportV1:
		return "an fbeval report"
	case ContractV1:
		return "an fbeval contract"
	case CompareV1:
		return "fbeval compare's JSON"
	case CogLangFixture:
		return "a CogLang fixture"
	case CogLangResult:
		return "a CogLang result"
	}
	return ""
}

// KindOf names the file data is by the schema_version of its first JSON
// object, when that is one of fbeval's ("a response file"), with the
// version; "" when it is none (a file of another kind, or not JSON). Loaders
// of other files (a dataset, a schema, a prompt template) name a file of
// fbeval's given to them by mistake with it.
func KindOf(data []byte) (kind, version string) {
	_, strs := TopLevel(data)
	version = strs["schema_version"]
	if kind = FileKind(version); kind == "" {
		return "", ""
	}
	return kind, version
}

// KindOfHead is KindOf of a file's first bytes, which may end anywhere: the
// schema_version of the object they begin with, read from its top-level
// members up to where the text is cut. A file of one JSON document, printed on
// many lines, is named so from its head.
func KindOfHead(head []byte) (kind, version string) {
	d := jsontext.NewDecoder(bytes.NewReader(head), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if tok, err := d.ReadToken(); err != nil || tok.Kind() != '{' {
		return "", ""
	}
	for d.PeekKind() == '"' {
		name, err := d.ReadToken()
		if err != nil {
			return "", ""
		}
		if name.String() == "schema_version" {
			tok, err := d.ReadToken()
			if err != nil || tok.Kind() != '"' {
				return "", ""
			}
			version = tok.String()
			if kind = FileKind(version); kind == "" {
				return "", ""
			}
			return kind, version
		}
		if d.SkipValue() != nil {
			return "", ""
		}
	}
	return "", ""
}

// RecordVersion reports whether version is that of a request or response
// record or batch: a file of records.
func RecordVersion(version string) bool {
	switch version {
	case RequestV1, RequestBatchV1, CogLangRequest, CogLangRequestBatch,
		ResponseV1, ResponseBatchV1, CogLangResponse, CogLangResponseBatch:
		return true
	}
	return false
}

// BatchVersion reports whether version is that of a request or response
// batch object: a file that is one object holding its records' list.
func BatchVersion(version string) bool {
	switch version {
	case RequestBatchV1, CogLangRequestBatch, ResponseBatchV1, CogLangResponseBatch:
		return true
	}
	return false
}

// VersionOf is the schema_version of the first object in data (the file's
// own object, the first element of its list or its first line), read as far
// as data goes: a pretty-printed report cut off after its first lines still
// names itself; "" when that object has none, or data starts as no object.
// With FileKind it says what a file given in the wrong place is (a response
// file given as a study, say).
func VersionOf(data []byte) string {
	_, strs := headMembers(data)
	return strs["schema_version"]
}

// headMembers reads the top-level members of the first object in head: the
// file's own object, the first element of its list or its first line. A value
// cut off by the end of head ends the reading; its name and what was read
// before it stand. Both are nil when head starts as no object.
func headMembers(head []byte) (names map[string]bool, strs map[string]string) {
	head = bytes.TrimPrefix(head, []byte("\ufeff"))
	d := jsontext.NewDecoder(bytes.NewReader(head), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	tok, err := d.ReadToken()
	if err == nil && tok.Kind() == '[' {
		tok, err = d.ReadToken()
	}
	if err != nil || tok.Kind() != '{' {
		return nil, nil
	}
	names, strs = map[string]bool{}, map[string]string{}
	for {
		name, err := d.ReadToken()
		if err != nil || name.Kind() != '"' {
			return names, strs
		}
		n := name.String()
		names[n] = true
		v, err := d.ReadValue()
		if err != nil {
			return names, strs
		}
		if s, ok := stringOf(v); ok {
			strs[n] = s
		}
	}
}

// IsRequestSummary reports whether head (a file's first bytes) starts as the
// summary of a request file that fbeval export writes with --format text, and
// the CogLang reference tool with --export-requests --format text: its first
// line names the request batch's schema_version.
func IsRequestSummary(head []byte) bool {
	head = bytes.TrimLeft(head, "\ufeff \t\r\n")
	for _, v := range []string{RequestBatchV1, CogLangRequestBatch} {
		if bytes.HasPrefix(head, []byte("schema_version: "+v+"\n")) || bytes.HasPrefix(head, []byte("schema_version: "+v+"\r\n")) {
			return true
		}
	}
	return false
}

// otherVersionAdvice begins what OtherVersion says.
const otherVersionAdvice = "another version of the format than this fbeval reads"

// OtherVersion says, for a schema_version got that is another version of the
// format of one of wants (fbeval-response/v2 where fbeval-response/v1 is
// read), that the file is of another version and what to do, as a clause
// to add to a message (": ..."); "" for any other value.
func OtherVersion(got string, wants ...string) string {
	for _, want := range wants {
		i := strings.LastIndexByte(want, '/')
		if got != want && i > 0 && strings.HasPrefix(got, want[:i+1]) && len(got) > i+1 {
			return ": " + otherVersionAdvice + " (" + want + "): read it with the tool of its version, or make it again with this fbeval and its runners"
		}
	}
	return ""
}
