package score

import (
	"fmt"
	"regexp"
	"slices"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/score/report"
)

// A response file is recognised by its first record, so that a file that is not
// what the study reads (a request file, the other suite's responses) is one
// error that says what it is, rather than one error per line or a report with
// every row missing.

// recordShape is what the top level of one record says about it.
type recordShape struct {
	version   string
	requestID string
	caseID    string
	hasOutput bool // output, text, completion or error
	hasPrompt bool // messages or prompt
}

// toolcallID matches the request ids of toolcall studies (CASE.ARM.rN.aN).
var toolcallID = regexp.MustCompile(`\.(no_schema|minimal_schema|input_schema)\.r[0-9]+\.a[0-9]+$`)

func shapeOf(keys map[string]bool, strs map[string]string) (recordShape, bool) {
	if keys == nil {
		return recordShape{}, false
	}
	return recordShape{
		version:   strs["schema_version"],
		requestID: strs["request_id"],
		caseID:    strs["case_id"],
		hasOutput: keys["output"] || keys["text"] || keys["completion"] || keys["error"],
		hasPrompt: keys["messages"] || keys["prompt"],
	}, true
}

// SniffRecord checks the first record of a response file read for a study of
// suite, and returns an error naming what the file is when it cannot be one of
// the study's response files.
func SniffRecord(rec *contract.Record, suite string) error {
	if rec.Err != nil {
		return nil
	}
	keys, strs := contract.TopLevel(rec.Raw)
	if what := contract.ProviderRecordOf(keys, strs); what != "" {
		return rec.Errorf(0, "this is %s", what).Of(contract.ErrWrongFile)
	}
	sh, ok := shapeOf(keys, strs)
	if !ok {
		return nil
	}
	if slices.Contains([]string{contract.RequestV1, contract.RequestBatchV1, contract.CogLangRequest, contract.CogLangRequestBatch}, sh.version) || (sh.hasPrompt && !sh.hasOutput) {
		what := "a request file"
		if sh.version != "" {
			what += " (" + sh.version + ")"
		}
		if sh.hasOutput && sh.version != "" {
			// the requests' columns kept and an output added (a dataframe
			// merge): answers, under the requests' version
			want := contract.ResponseV1
			if sh.version == contract.CogLangRequest || sh.version == contract.CogLangRequestBatch {
				want = contract.CogLangResponse
			}
			return rec.Errorf(contract.PointerOffset(rec.Raw, "/schema_version"), "these records hold answers but carry the requests' schema_version %s (the request file's columns kept and an output added?): write %s there, or leave schema_version out", sh.version, want).Of(contract.ErrWrongFile)
		}
		return rec.Errorf(0, "this is %s, not responses: run it through a runner first (fbeval-mock, fbeval-openai, fbeval-anthropic or your own) and score the file it writes", what).Of(contract.ErrWrongFile)
	}
	if kind := contract.FileKind(sh.version); kind != "" && !contract.RecordVersion(sh.version) {
		return rec.Errorf(0, "this is %s (%s), not responses: give the file a runner wrote", kind, sh.version).Of(contract.ErrWrongFile)
	}
	switch suite {
	case contract.SuiteToolcall:
		if sh.version == contract.CogLangResponse || (sh.requestID == "" && isCogLangCaseID(sh.caseID)) {
			return rec.Errorf(0, "these are coglang responses; the study is a toolcall study: score them with fbeval score coglang").Of(contract.ErrWrongFile)
		}
	case contract.SuiteCogLang:
		id := sh.requestID
		if id == "" {
			id = sh.caseID
		}
		if toolcallID.MatchString(id) {
			return rec.Errorf(0, "these are toolcall responses; the study is coglang: score them with the toolcall study they answer (e.g. fbeval score toolcall-quick)").Of(contract.ErrWrongFile)
		}
	}
	return nil
}

var cogLangCaseID = regexp.MustCompile(`^FB-L[0-9]+-[0-9]+$`)

func isCogLangCaseID(id string) bool { return cogLangCaseID.MatchString(id) }

// WrongFileHint says what to do with a file fbeval reads or writes that was
// given as responses (contract.ReadOptions.WrongFileHint).
func WrongFileHint(name, version string) string {
	switch version {
	case contract.CogLangFixture:
		return "give it to --fixture, and the response file a runner wrote to --responses"
	case contract.StudyV1:
		return fmt.Sprintf("it names the study: give it first (fbeval score %s --responses FILE)", name)
	case contract.ReportV1, contract.CogLangResult:
		return fmt.Sprintf("fbeval score wrote it; fbeval report %s renders it again", name)
	case contract.CaseResultV1:
		return "fbeval score --cases-out wrote it; --responses takes the response file a runner wrote"
	}
	return ""
}

// TextHint names one of fbeval's outputs other than JSON (JUnit XML, an HTML
// page, Markdown, a table or text) given as responses, from the file's first
// bytes (contract.ReadOptions.TextHint); "" for any other file.
func TextHint(head []byte) string {
	if what := report.WrittenName(head); what != "" {
		return "this is " + what + ", not responses: --responses takes the file a runner wrote (JSONL, a JSON list or a batch object of response records)"
	}
	return ""
}
