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
	dst = contract.AppendMember(dst, s, depth, 0, "case_id")
	dst = contract.AppendString(dst, r.CaseID)
	dst = contract.AppendMember(dst, s, depth, 1, "domain")
	dst = contract.AppendString(dst, r.Domain)
	dst = contract.AppendMember(dst, s, depth, 2, "category")
	dst = contract.AppendString(dst, r.Category)
	dst = contract.AppendMember(dst, s, depth, 3, "cluster")
	dst = contract.AppendString(dst, r.Cluster)
	dst = contract.AppendMember(dst, s, depth, 4, "arm")
	dst = contract.AppendString(dst, r.Arm)
	dst = contract.AppendMember(dst, s, depth, 5, "repeat")
	dst = strconv.AppendInt(dst, int64(r.Repeat), 10)
	dst = contract.AppendMember(dst, s, depth, 6, "first_pass_success")
	dst = strconv.AppendBool(dst, r.FirstPassSuccess)
	dst = contract.AppendMember(dst, s, depth, 7, "final_success")
	dst = strconv.AppendBool(dst, r.FinalSuccess)
	dst = contract.AppendMember(dst, s, depth, 8, "attempts")
	dst = strconv.AppendInt(dst, int64(r.Attempts), 10)
	dst = contract.AppendMember(dst, s, depth, 9, "provider_error")
	dst = strconv.AppendBool(dst, r.ProviderError)
	dst = contract.AppendMember(dst, s, depth, 10, "missing")
	dst = strconv.AppendBool(dst, r.Missing)
	dst = contract.AppendMember(dst, s, depth, 11, "codes")
	dst = contract.AppendStrings(dst, r.Codes, s, d)
	dst = contract.AppendMember(dst, s, depth, 12, "final_codes")
	dst = contract.AppendStrings(dst, r.FinalCodes, s, d)
	n := 13
	// the final output, quoted once: the last attempt's result quotes it again
	from, to := 0, 0
	if r.Output != nil {
		dst = contract.AppendMember(dst, s, depth, n, "output")
		from = len(dst)
		dst = contract.AppendString(dst, *r.Output)
		to = len(dst)
		n++
	}
	dst = contract.AppendMember(dst, s, depth, n, "attempt_results")
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
	dst = contract.AppendMember(dst, s, depth, 0, "attempt")
	dst = strconv.AppendInt(dst, int64(a.Attempt), 10)
	dst = contract.AppendMember(dst, s, depth, 1, "output")
	if quoted != nil {
		dst = append(dst, quoted...)
	} else {
		dst = appendStringPtr(dst, a.Output)
	}
	dst = contract.AppendMember(dst, s, depth, 2, "errors")
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
	dst = contract.AppendMember(dst, s, depth, 0, "code")
	dst = contract.AppendString(dst, e.Code)
	dst = contract.AppendMember(dst, s, depth, 1, "path")
	dst = contract.AppendString(dst, e.Path)
	dst = contract.AppendMember(dst, s, depth, 2, "message")
	dst = contract.AppendString(dst, e.Message)
	return contract.AppendClose(dst, s, depth, 3, '}')
}

// AppendJSON writes the case result (contract.JSONAppender).
func (r *CaseResult) AppendJSON(dst []byte, s contract.Style, depth int) ([]byte, error) {
	d := depth + 1
	dst = contract.AppendMember(dst, s, depth, 0, "schema_version")
	dst = contract.AppendString(dst, r.SchemaVersion)
	dst = contract.AppendMember(dst, s, depth, 1, "case_id")
	dst = contract.AppendString(dst, r.CaseID)
	dst = contract.AppendMember(dst, s, depth, 2, "domain")
	dst = contract.AppendString(dst, r.Domain)
	dst = contract.AppendMember(dst, s, depth, 3, "category")
	dst = contract.AppendString(dst, r.Category)
	dst = contract.AppendMember(dst, s, depth, 4, "arm")
	dst = contract.AppendString(dst, r.Arm)
	dst = contract.AppendMember(dst, s, depth, 5, "repeat")
	dst = strconv.AppendInt(dst, int64(r.Repeat), 10)
	dst = contract.AppendMember(dst, s, depth, 6, "request_ids")
	dst = contract.AppendStrings(dst, r.RequestIDs, s, d)
	dst = contract.AppendMember(dst, s, depth, 7, "first_pass_success")
	dst = strconv.AppendBool(dst, r.FirstPassSuccess)
	dst = contract.AppendMember(dst, s, depth, 8, "final_success")
	dst = strconv.AppendBool(dst, r.FinalSuccess)
	dst = contract.AppendMember(dst, s, depth, 9, "provider_error")
	dst = strconv.AppendBool(dst, r.ProviderError)
	dst = contract.AppendMember(dst, s, depth, 10, "missing")
	dst = strconv.AppendBool(dst, r.Missing)
	dst = contract.AppendMember(dst, s, depth, 11, "attempts")
	for i := range r.Attempts {
		dst = contract.AppendItem(dst, s, d, i)
		dst = r.Attempts[i].appendJSON(dst, s, d+1)
	}
	dst = contract.AppendClose(dst, s, d, len(r.Attempts), ']')
	return contract.AppendClose(dst, s, depth, 12, '}'), nil
}

// AppendJSON writes the case attempt (contract.JSONAppender).
func (a *CaseAttempt) AppendJSON(dst []byte, s contract.Style, depth int) ([]byte, error) {
	return a.appendJSON(dst, s, depth), nil
}

func (a *CaseAttempt) appendJSON(dst []byte, s contract.Style, depth int) []byte {
	d := depth + 1
	dst = contract.AppendMember(dst, s, depth, 0, "attempt")
	dst = strconv.AppendInt(dst, int64(a.Attempt), 10)
	dst = contract.AppendMember(dst, s, depth, 1, "success")
	dst = strconv.AppendBool(dst, a.Success)
	dst = contract.AppendMember(dst, s, depth, 2, "codes")
	dst = contract.AppendStrings(dst, a.Codes, s, d)
	dst = contract.AppendMember(dst, s, depth, 3, "errors")
	dst = appendErrorInfos(dst, a.Errors, s, d)
	return contract.AppendClose(dst, s, depth, 4, '}')
}

// AppendJSON writes the error (contract.JSONAppender).
func (e *ErrorInfo) AppendJSON(dst []byte, s contract.Style, depth int) ([]byte, error) {
	return e.appendJSON(dst, s, depth), nil
}

func (e *ErrorInfo) appendJSON(dst []byte, s contract.Style, depth int) []byte {
	dst = contract.AppendMember(dst, s, depth, 0, "code")
	dst = contract.AppendString(dst, e.Code)
	n := 1
	if e.Path != nil {
		dst = contract.AppendMember(dst, s, depth, n, "path")
		dst = contract.AppendString(dst, *e.Path)
		n++
	}
	if e.Keyword != nil {
		dst = contract.AppendMember(dst, s, depth, n, "keyword")
		dst = contract.AppendString(dst, *e.Keyword)
		n++
	}
	dst = contract.AppendMember(dst, s, depth, n, "message")
	dst = contract.AppendString(dst, e.Message)
	n++
	if e.Expected != nil {
		dst = contract.AppendMember(dst, s, depth, n, "expected")
		dst = appendJSONText(dst, e.Expected)
		n++
	}
	if e.Actual != nil {
		dst = contract.AppendMember(dst, s, depth, n, "actual")
		dst = appendJSONText(dst, e.Actual)
		n++
	}
	if e.Details != nil {
		dst = contract.AppendMember(dst, s, depth, n, "details")
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
	dst = contract.AppendMember(dst, s, depth, 0, "case_id")
	dst = contract.AppendString(dst, c.CaseID)
	dst = contract.AppendMember(dst, s, depth, 1, "level")
	dst = contract.AppendString(dst, c.Level)
	dst = contract.AppendMember(dst, s, depth, 2, "prompt")
	dst = contract.AppendString(dst, c.Prompt)
	dst = contract.AppendMember(dst, s, depth, 3, "output")
	dst = appendStringPtr(dst, c.Output)
	dst = contract.AppendMember(dst, s, depth, 4, "parse_ok")
	dst = strconv.AppendBool(dst, c.ParseOK)
	dst = contract.AppendMember(dst, s, depth, 5, "canonicalize_ok")
	dst = strconv.AppendBool(dst, c.CanonicalizeOK)
	dst = contract.AppendMember(dst, s, depth, 6, "validate_ok")
	dst = strconv.AppendBool(dst, c.ValidateOK)
	dst = contract.AppendMember(dst, s, depth, 7, "expected_top_level_head_ok")
	dst = strconv.AppendBool(dst, c.ExpectedTopLevelHeadOK)
	dst = contract.AppendMember(dst, s, depth, 8, "hallucinated_heads")
	dst = contract.AppendStrings(dst, c.HallucinatedHeads, s, d)
	dst = contract.AppendMember(dst, s, depth, 9, "failure_categories")
	dst = contract.AppendStrings(dst, c.FailureCategories, s, d)
	dst = contract.AppendMember(dst, s, depth, 10, "preflight_decision")
	dst = appendStringPtr(dst, c.PreflightDecision)
	dst = contract.AppendMember(dst, s, depth, 11, "canonical")
	dst = appendStringPtr(dst, c.Canonical)
	dst = contract.AppendMember(dst, s, depth, 12, "parse_error")
	dst = appendStringPtr(dst, c.ParseError)
	return contract.AppendClose(dst, s, depth, 13, '}'), nil
}

// AppendJSON writes the failure case (contract.JSONAppender).
func (f *FailureCase) AppendJSON(dst []byte, s contract.Style, depth int) ([]byte, error) {
	d := depth + 1
	dst = contract.AppendMember(dst, s, depth, 0, "case_id")
	dst = contract.AppendString(dst, f.CaseID)
	dst = contract.AppendMember(dst, s, depth, 1, "level")
	dst = contract.AppendString(dst, f.Level)
	dst = contract.AppendMember(dst, s, depth, 2, "failure_categories")
	dst = contract.AppendStrings(dst, f.FailureCategories, s, d)
	dst = contract.AppendMember(dst, s, depth, 3, "hallucinated_heads")
	dst = contract.AppendStrings(dst, f.HallucinatedHeads, s, d)
	dst = contract.AppendMember(dst, s, depth, 4, "parse_error")
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
