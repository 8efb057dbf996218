package report

import (
	"strconv"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/fbeval/fbeval/contract"
)

// Rows, case results and CogLang cases are written by these hand-written
// AppendJSON methods (contract.JSONAppender) instead of by reflection: they are
// the bulk of a study's output. Each writes exactly what contract's reflection
// writer writes from the type's json tags, in both styles and at any depth; a
// property test holds them to it (TestAppendJSONMatchesReflection), so a field
// added to one of these types must be added here too.

// AppendJSON writes the row (contract.JSONAppender).
func (r *Row) AppendJSON(dst []byte, s contract.Style, depth int) ([]byte, error) {
	d := depth + 1
	set := rowMembers.At(s, depth)
	dst = set.Member(dst, 0, rowKeyCaseID)
	dst = contract.AppendString(dst, r.CaseID)
	dst = set.Member(dst, 1, rowKeyDomain)
	dst = contract.AppendString(dst, r.Domain)
	dst = set.Member(dst, 2, rowKeyCategory)
	dst = contract.AppendString(dst, r.Category)
	dst = set.Member(dst, 3, rowKeyCluster)
	dst = contract.AppendString(dst, r.Cluster)
	dst = set.Member(dst, 4, rowKeyArm)
	dst = contract.AppendString(dst, r.Arm)
	dst = set.Member(dst, 5, rowKeyRepeat)
	dst = strconv.AppendInt(dst, int64(r.Repeat), 10)
	dst = set.Member(dst, 6, rowKeyFirstPassSuccess)
	dst = strconv.AppendBool(dst, r.FirstPassSuccess)
	dst = set.Member(dst, 7, rowKeyFinalSuccess)
	dst = strconv.AppendBool(dst, r.FinalSuccess)
	dst = set.Member(dst, 8, rowKeyAttempts)
	dst = strconv.AppendInt(dst, int64(r.Attempts), 10)
	dst = set.Member(dst, 9, rowKeyProviderError)
	dst = strconv.AppendBool(dst, r.ProviderError)
	dst = set.Member(dst, 10, rowKeyMissing)
	dst = strconv.AppendBool(dst, r.Missing)
	dst = set.Member(dst, 11, rowKeyCodes)
	dst = contract.AppendStrings(dst, r.Codes, s, d)
	dst = set.Member(dst, 12, rowKeyFinalCodes)
	dst = contract.AppendStrings(dst, r.FinalCodes, s, d)
	n := 13
	// the final output, quoted once: the last attempt's result quotes it again
	from, to := 0, 0
	if r.Output != nil {
		dst = set.Member(dst, n, rowKeyOutput)
		from = len(dst)
		dst = contract.AppendString(dst, *r.Output)
		to = len(dst)
		n++
	}
	dst = set.Member(dst, n, rowKeyAttemptResults)
	for i := range r.AttemptResults {
		a := &r.AttemptResults[i]
		dst = contract.AppendItem(dst, s, d, i)
		if to > from && a.Output != nil && *a.Output == *r.Output {
			dst = a.appendQuoted(dst, s, d+1, dst[from:to])
			continue
		}
		dst = a.appendJSON(dst, s, d+1)
	}
	dst = contract.AppendClose(dst, s, d, len(r.AttemptResults), ']')
	return contract.AppendClose(dst, s, depth, n+1, '}'), nil
}

// AppendJSON writes the attempt result (contract.JSONAppender).
func (a *AttemptResult) AppendJSON(dst []byte, s contract.Style, depth int) ([]byte, error) {
	return a.appendJSON(dst, s, depth), nil
}

func (a *AttemptResult) appendJSON(dst []byte, s contract.Style, depth int) []byte {
	return a.appendQuoted(dst, s, depth, nil)
}

// appendQuoted writes the attempt result with its output already quoted as
// JSON, or quoted here when quoted is nil.
func (a *AttemptResult) appendQuoted(dst []byte, s contract.Style, depth int, quoted []byte) []byte {
	d := depth + 1
	set := attemptResultMembers.At(s, depth)
	dst = set.Member(dst, 0, attemptResultKeyAttempt)
	dst = strconv.AppendInt(dst, int64(a.Attempt), 10)
	dst = set.Member(dst, 1, attemptResultKeyOutput)
	if quoted != nil {
		dst = append(dst, quoted...)
	} else {
		dst = appendStringPtr(dst, a.Output)
	}
	dst = set.Member(dst, 2, attemptResultKeyErrors)
	for i := range a.Errors {
		dst = contract.AppendItem(dst, s, d, i)
		dst = a.Errors[i].appendJSON(dst, s, d+1)
	}
	dst = contract.AppendClose(dst, s, d, len(a.Errors), ']')
	return contract.AppendClose(dst, s, depth, 3, '}')
}

// AppendJSON writes the attempt error (contract.JSONAppender).
func (e *AttemptError) AppendJSON(dst []byte, s contract.Style, depth int) ([]byte, error) {
	return e.appendJSON(dst, s, depth), nil
}

func (e *AttemptError) appendJSON(dst []byte, s contract.Style, depth int) []byte {
	set := attemptErrorMembers.At(s, depth)
	dst = set.Member(dst, 0, attemptErrorKeyCode)
	dst = contract.AppendString(dst, e.Code)
	dst = set.Member(dst, 1, attemptErrorKeyPath)
	dst = contract.AppendString(dst, e.Path)
	dst = set.Member(dst, 2, attemptErrorKeyMessage)
	dst = contract.AppendString(dst, e.Message)
	return contract.AppendClose(dst, s, depth, 3, '}')
}

// AppendJSON writes the case result (contract.JSONAppender).
func (r *CaseResult) AppendJSON(dst []byte, s contract.Style, depth int) ([]byte, error) {
	d := depth + 1
	set := caseResultMembers.At(s, depth)
	dst = set.Member(dst, 0, caseResultKeySchemaVersion)
	dst = contract.AppendString(dst, r.SchemaVersion)
	dst = set.Member(dst, 1, caseResultKeyCaseID)
	dst = contract.AppendString(dst, r.CaseID)
	dst = set.Member(dst, 2, caseResultKeyDomain)
	dst = contract.AppendString(dst, r.Domain)
	dst = set.Member(dst, 3, caseResultKeyCategory)
	dst = contract.AppendString(dst, r.Category)
	dst = set.Member(dst, 4, caseResultKeyCluster)
	dst = contract.AppendString(dst, r.Cluster)
	dst = set.Member(dst, 5, caseResultKeyArm)
	dst = contract.AppendString(dst, r.Arm)
	dst = set.Member(dst, 6, caseResultKeyRepeat)
	dst = strconv.AppendInt(dst, int64(r.Repeat), 10)
	dst = set.Member(dst, 7, caseResultKeyRequestIDs)
	dst = contract.AppendStrings(dst, r.RequestIDs, s, d)
	dst = set.Member(dst, 8, caseResultKeyFirstPassSuccess)
	dst = strconv.AppendBool(dst, r.FirstPassSuccess)
	dst = set.Member(dst, 9, caseResultKeyFinalSuccess)
	dst = strconv.AppendBool(dst, r.FinalSuccess)
	dst = set.Member(dst, 10, caseResultKeyProviderError)
	dst = strconv.AppendBool(dst, r.ProviderError)
	dst = set.Member(dst, 11, caseResultKeyMissing)
	dst = strconv.AppendBool(dst, r.Missing)
	if r.MissingRequestID != "" {
		dst = set.Member(dst, 12, caseResultKeyMissingRequestID)
		dst = contract.AppendString(dst, r.MissingRequestID)
	}
	dst = set.Member(dst, 12, caseResultKeyAttempts)
	for i := range r.Attempts {
		dst = contract.AppendItem(dst, s, d, i)
		dst = r.Attempts[i].appendJSON(dst, s, d+1)
	}
	dst = contract.AppendClose(dst, s, d, len(r.Attempts), ']')
	return contract.AppendClose(dst, s, depth, 13, '}'), nil
}

// AppendJSON writes the case attempt (contract.JSONAppender).
func (a *CaseAttempt) AppendJSON(dst []byte, s contract.Style, depth int) ([]byte, error) {
	return a.appendJSON(dst, s, depth), nil
}

func (a *CaseAttempt) appendJSON(dst []byte, s contract.Style, depth int) []byte {
	d := depth + 1
	set := caseAttemptMembers.At(s, depth)
	dst = set.Member(dst, 0, caseAttemptKeyAttempt)
	dst = strconv.AppendInt(dst, int64(a.Attempt), 10)
	dst = set.Member(dst, 1, caseAttemptKeySuccess)
	dst = strconv.AppendBool(dst, a.Success)
	dst = set.Member(dst, 2, caseAttemptKeyCodes)
	dst = contract.AppendStrings(dst, a.Codes, s, d)
	dst = set.Member(dst, 3, caseAttemptKeyErrors)
	dst = appendErrorInfos(dst, a.Errors, s, d)
	return contract.AppendClose(dst, s, depth, 4, '}')
}

// AppendJSON writes the error (contract.JSONAppender).
func (e *ErrorInfo) AppendJSON(dst []byte, s contract.Style, depth int) ([]byte, error) {
	return e.appendJSON(dst, s, depth), nil
}

func (e *ErrorInfo) appendJSON(dst []byte, s contract.Style, depth int) []byte {
	set := errorInfoMembers.At(s, depth)
	dst = set.Member(dst, 0, errorInfoKeyCode)
	dst = contract.AppendString(dst, e.Code)
	n := 1
	if e.Path != nil {
		dst = set.Member(dst, n, errorInfoKeyPath)
		dst = contract.AppendString(dst, *e.Path)
		n++
	}
	if e.Keyword != nil {
		dst = set.Member(dst, n, errorInfoKeyKeyword)
		dst = contract.AppendString(dst, *e.Keyword)
		n++
	}
	dst = set.Member(dst, n, errorInfoKeyMessage)
	dst = contract.AppendString(dst, e.Message)
	n++
	if e.Expected != nil {
		dst = set.Member(dst, n, errorInfoKeyExpected)
		dst = appendJSONText(dst, e.Expected)
		n++
	}
	if e.Actual != nil {
		dst = set.Member(dst, n, errorInfoKeyActual)
		dst = appendJSONText(dst, e.Actual)
		n++
	}
	if e.Details != nil {
		dst = set.Member(dst, n, errorInfoKeyDetails)
		dst = appendErrorInfos(dst, e.Details, s, depth+1)
		n++
	}
	return contract.AppendClose(dst, s, depth, n, '}')
}

func appendErrorInfos(dst []byte, list []ErrorInfo, s contract.Style, depth int) []byte {
	for i := range list {
		dst = contract.AppendItem(dst, s, depth, i)
		dst = list[i].appendJSON(dst, s, depth+1)
	}
	return contract.AppendClose(dst, s, depth, len(list), ']')
}

// AppendJSON writes the CogLang case (contract.JSONAppender).
func (c *CogLangCase) AppendJSON(dst []byte, s contract.Style, depth int) ([]byte, error) {
	d := depth + 1
	set := cogLangCaseMembers.At(s, depth)
	dst = set.Member(dst, 0, cogLangCaseKeyCaseID)
	dst = contract.AppendString(dst, c.CaseID)
	dst = set.Member(dst, 1, cogLangCaseKeyLevel)
	dst = contract.AppendString(dst, c.Level)
	dst = set.Member(dst, 2, cogLangCaseKeyPrompt)
	dst = contract.AppendString(dst, c.Prompt)
	dst = set.Member(dst, 3, cogLangCaseKeyOutput)
	dst = appendStringPtr(dst, c.Output)
	dst = set.Member(dst, 4, cogLangCaseKeyParseOK)
	dst = strconv.AppendBool(dst, c.ParseOK)
	dst = set.Member(dst, 5, cogLangCaseKeyCanonicalizeOK)
	dst = strconv.AppendBool(dst, c.CanonicalizeOK)
	dst = set.Member(dst, 6, cogLangCaseKeyValidateOK)
	dst = strconv.AppendBool(dst, c.ValidateOK)
	dst = set.Member(dst, 7, cogLangCaseKeyExpectedTopLevelHeadOK)
	dst = strconv.AppendBool(dst, c.ExpectedTopLevelHeadOK)
	dst = set.Member(dst, 8, cogLangCaseKeyHallucinatedHeads)
	dst = contract.AppendStrings(dst, c.HallucinatedHeads, s, d)
	dst = set.Member(dst, 9, cogLangCaseKeyFailureCategories)
	dst = contract.AppendStrings(dst, c.FailureCategories, s, d)
	dst = set.Member(dst, 10, cogLangCaseKeyPreflightDecision)
	dst = appendStringPtr(dst, c.PreflightDecision)
	dst = set.Member(dst, 11, cogLangCaseKeyCanonical)
	dst = appendStringPtr(dst, c.Canonical)
	dst = set.Member(dst, 12, cogLangCaseKeyParseError)
	dst = appendStringPtr(dst, c.ParseError)
	return contract.AppendClose(dst, s, depth, 13, '}'), nil
}

// AppendJSON writes the failure case (contract.JSONAppender).
func (f *FailureCase) AppendJSON(dst []byte, s contract.Style, depth int) ([]byte, error) {
	d := depth + 1
	set := failureCaseMembers.At(s, depth)
	dst = set.Member(dst, 0, failureCaseKeyCaseID)
	dst = contract.AppendString(dst, f.CaseID)
	dst = set.Member(dst, 1, failureCaseKeyLevel)
	dst = contract.AppendString(dst, f.Level)
	dst = set.Member(dst, 2, failureCaseKeyFailureCategories)
	dst = contract.AppendStrings(dst, f.FailureCategories, s, d)
	dst = set.Member(dst, 3, failureCaseKeyHallucinatedHeads)
	dst = contract.AppendStrings(dst, f.HallucinatedHeads, s, d)
	dst = set.Member(dst, 4, failureCaseKeyParseError)
	dst = appendStringPtr(dst, f.ParseError)
	return contract.AppendClose(dst, s, depth, 5, '}'), nil
}

func appendStringPtr(dst []byte, p *string) []byte {
	if p == nil {
		return append(dst, "null"...)
	}
	return contract.AppendString(dst, *p)
}

// appendJSONText writes JSON text taken from an input as it is (empty is null),
// as the reflection writer writes a jsontext.Value.
func appendJSONText(dst []byte, v jsontext.Value) []byte {
	if len(v) == 0 {
		return append(dst, "null"...)
	}
	return append(dst, v...)
}

// The members of the objects above, as their writers write them.
var (
	rowMembers           = contract.NewMembers("case_id", "domain", "category", "cluster", "arm", "repeat", "first_pass_success", "final_success", "attempts", "provider_error", "missing", "codes", "final_codes", "output", "attempt_results")
	attemptResultMembers = contract.NewMembers("attempt", "output", "errors")
	attemptErrorMembers  = contract.NewMembers("code", "path", "message")
	caseResultMembers    = contract.NewMembers("schema_version", "case_id", "domain", "category", "cluster", "arm", "repeat", "request_ids", "first_pass_success", "final_success", "provider_error", "missing", "missing_request_id", "attempts")
	caseAttemptMembers   = contract.NewMembers("attempt", "success", "codes", "errors")
	errorInfoMembers     = contract.NewMembers("code", "path", "keyword", "message", "expected", "actual", "details")
	cogLangCaseMembers   = contract.NewMembers("case_id", "level", "prompt", "output", "parse_ok", "canonicalize_ok", "validate_ok", "expected_top_level_head_ok", "hallucinated_heads", "failure_categories", "preflight_decision", "canonical", "parse_error")
	failureCaseMembers   = contract.NewMembers("case_id", "level", "failure_categories", "hallucinated_heads", "parse_error")
)

// The members of row, in the order of rowMembers.
const (
	rowKeyCaseID = iota
	rowKeyDomain
	rowKeyCategory
	rowKeyCluster
	rowKeyArm
	rowKeyRepeat
	rowKeyFirstPassSuccess
	rowKeyFinalSuccess
	rowKeyAttempts
	rowKeyProviderError
	rowKeyMissing
	rowKeyCodes
	rowKeyFinalCodes
	rowKeyOutput
	rowKeyAttemptResults
)

// The members of attemptResult, in the order of attemptResultMembers.
const (
	attemptResultKeyAttempt = iota
	attemptResultKeyOutput
	attemptResultKeyErrors
)

// The members of attemptError, in the order of attemptErrorMembers.
const (
	attemptErrorKeyCode = iota
	attemptErrorKeyPath
	attemptErrorKeyMessage
)

// The members of caseResult, in the order of caseResultMembers.
const (
	caseResultKeySchemaVersion = iota
	caseResultKeyCaseID
	caseResultKeyDomain
	caseResultKeyCategory
	caseResultKeyCluster
	caseResultKeyArm
	caseResultKeyRepeat
	caseResultKeyRequestIDs
	caseResultKeyFirstPassSuccess
	caseResultKeyFinalSuccess
	caseResultKeyProviderError
	caseResultKeyMissing
	caseResultKeyMissingRequestID
	caseResultKeyAttempts
)

// The members of caseAttempt, in the order of caseAttemptMembers.
const (
	caseAttemptKeyAttempt = iota
	caseAttemptKeySuccess
	caseAttemptKeyCodes
	caseAttemptKeyErrors
)

// The members of errorInfo, in the order of errorInfoMembers.
const (
	errorInfoKeyCode = iota
	errorInfoKeyPath
	errorInfoKeyKeyword
	errorInfoKeyMessage
	errorInfoKeyExpected
	errorInfoKeyActual
	errorInfoKeyDetails
)

// The members of cogLangCase, in the order of cogLangCaseMembers.
const (
	cogLangCaseKeyCaseID = iota
	cogLangCaseKeyLevel
	cogLangCaseKeyPrompt
	cogLangCaseKeyOutput
	cogLangCaseKeyParseOK
	cogLangCaseKeyCanonicalizeOK
	cogLangCaseKeyValidateOK
	cogLangCaseKeyExpectedTopLevelHeadOK
	cogLangCaseKeyHallucinatedHeads
	cogLangCaseKeyFailureCategories
	cogLangCaseKeyPreflightDecision
	cogLangCaseKeyCanonical
	cogLangCaseKeyParseError
)

// The members of failureCase, in the order of failureCaseMembers.
const (
	failureCaseKeyCaseID = iota
	failureCaseKeyLevel
	failureCaseKeyFailureCategories
	failureCaseKeyHallucinatedHeads
	failureCaseKeyParseError
)
