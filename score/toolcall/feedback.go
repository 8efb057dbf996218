package toolcall

import (
	"strings"
)

// PublicFeedback returns the errors of r that may be shown to a model in a repair
// turn (spec section 8): JSON_INVALID, envelope and schema errors (SCHEMA_INVALID,
// CANDIDATE_SCHEMA_INVALID, which only restate public schemas against the output),
// and STATE_MISMATCH when c has a confirmed state (the state is in the prompt's
// context). Everything that would reveal the hidden answer is left out:
// GROUND_TRUTH_MISMATCH, WRONG_ACTION, WRONG_TOOL, CONTROL_MISMATCH (it names the
// expected missing fields), UNEXPECTED_MISSING_FIELDS and, without confirmed state,
// STATE_MISMATCH (its bindings are then the expected arguments). POLICY_* errors are
// left out too: the spec's list of public feedback does not name them, and keeping to
// it means a run repairs exactly when HESchema would.
func (r Result) PublicFeedback(c *Case) []Error {
	var out []Error
	for _, e := range r.Errors {
		if PublicCode(e.Code, c) {
			out = append(out, e)
		}
	}
	return out
}

// PublicCode reports whether an error of the code is public feedback on case
// c (PublicFeedback): a JSON or schema error, a relation keyword of the public
// schema, or a state mismatch where the case has confirmed state.
func PublicCode(code string, c *Case) bool {
	switch code {
	case CodeJSONInvalid, CodeSchemaInvalid, CodeCandidateSchemaInvalid:
		return true
	case CodeStateMismatch:
		return c != nil && c.hasState
	}
	// a relation keyword of the public schema failed: a schema error
	_, rel := relationCodes[code]
	return rel
}

// FeedbackText renders errors as a stable message for a model or a person: one line
// per error ("- CODE at PATH (keyword): message"); a candidate schema error is
// followed by those of its details no SCHEMA_INVALID error already gave, indented,
// and left out when there are none. It returns "" for no errors.
func FeedbackText(errs []Error) string {
	if len(errs) == 0 {
		return ""
	}
	// A candidate schema error repeats what the reference already said when both
	// schemas agree; list only what is new.
	type key struct{ path, keyword, message string }
	shown := map[key]bool{}
	for _, e := range errs {
		if e.Code == CodeSchemaInvalid {
			shown[key{e.Path, e.Keyword, e.Message}] = true
		}
	}
	var sb strings.Builder
	sb.WriteString("The previous output was rejected:\n")
	for _, e := range errs {
		if e.Code != CodeCandidateSchemaInvalid || len(e.Details) == 0 {
			writeFeedbackLine(&sb, "- ", e)
			continue
		}
		var fresh []Error
		for _, d := range e.Details {
			if !shown[key{d.Path, d.Keyword, d.Message}] {
				fresh = append(fresh, d)
			}
		}
		if len(fresh) == 0 {
			continue
		}
		writeFeedbackLine(&sb, "- ", Error{Code: e.Code, Path: e.Path, Message: "the arguments also fail the schema under test:"})
		for _, d := range fresh {
			writeFeedbackLine(&sb, "  - ", d)
		}
	}
	return sb.String()
}

func writeFeedbackLine(sb *strings.Builder, bullet string, e Error) {
	sb.WriteString(bullet)
	sb.WriteString(e.Code)
	if e.Path != "" {
		sb.WriteString(" at ")
		sb.WriteString(e.Path)
	} else if e.Code != CodeJSONInvalid {
		sb.WriteString(" at the top level")
	}
	if e.Keyword != "" {
		sb.WriteString(" (")
		sb.WriteString(e.Keyword)
		sb.WriteString(")")
	}
	sb.WriteString(": ")
	// Messages are one line already; make sure a stray newline cannot break the list.
	sb.WriteString(strings.Join(strings.Fields(e.Message), " "))
	sb.WriteByte('\n')
}
