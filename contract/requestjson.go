package contract

import "strconv"

// AppendCompact appends the request as one compact JSON object: the bytes
// AppendJSON(dst, r.Object(), Compact, 0) appends, written straight from the
// fields. memo (nil for none) remembers the long strings written last, so that
// a text written again (the instructions and prompt in the messages, the same
// prompts in every repeat of a case) is copied, not escaped again.
func (r *Request) AppendCompact(dst []byte, memo *StringMemo) []byte {
	dst = append(dst, `{"schema_version":`...)
	dst = AppendString(dst, r.SchemaVersion)
	dst = append(dst, `,"request_id":`...)
	dst = AppendString(dst, r.RequestID)
	dst = append(dst, `,"case_id":`...)
	dst = AppendString(dst, r.CaseID)
	dst = append(dst, `,"suite":`...)
	dst = AppendString(dst, r.Suite)
	if r.Study != "" {
		dst = append(dst, `,"study":`...)
		dst = AppendString(dst, r.Study)
	}
	if r.Recipe != "" {
		dst = append(dst, `,"recipe":`...)
		dst = AppendString(dst, r.Recipe)
	}
	if r.Arm != "" {
		dst = append(dst, `,"arm":`...)
		dst = AppendString(dst, r.Arm)
	}
	dst = append(dst, `,"repeat":`...)
	dst = strconv.AppendInt(dst, int64(r.Repeat), 10)
	dst = append(dst, `,"attempt":`...)
	dst = strconv.AppendInt(dst, int64(r.Attempt), 10)
	dst = append(dst, `,"seed":`...)
	dst = strconv.AppendInt(dst, r.Seed, 10)
	if r.MaxTokens != nil {
		dst = append(dst, `,"max_tokens":`...)
		dst = strconv.AppendInt(dst, int64(*r.MaxTokens), 10)
	}
	if r.Temperature != nil {
		dst = append(dst, `,"temperature":`...)
		dst = AppendPyFloat(dst, *r.Temperature)
	}
	dst = append(dst, `,"instructions":`...)
	dst = memo.append(dst, r.Instructions)
	dst = append(dst, `,"prompt":`...)
	dst = memo.append(dst, r.Prompt)
	dst = append(dst, `,"messages":[`...)
	for i, m := range r.Messages {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"role":`...)
		dst = AppendString(dst, m.Role)
		dst = append(dst, `,"content":`...)
		dst = memo.append(dst, m.Content)
		dst = append(dst, '}')
	}
	dst = append(dst, ']')
	if rf := r.ResponseFormat; rf != nil {
		dst = append(dst, `,"response_format":{"type":`...)
		dst = AppendString(dst, rf.Type)
		dst = append(dst, `,"json_schema":{"name":`...)
		dst = AppendString(dst, rf.JSONSchema.Name)
		dst = append(dst, `,"schema":`...)
		dst = append(dst, rf.JSONSchema.Schema...)
		dst = append(dst, `,"strict":`...)
		dst = strconv.AppendBool(dst, rf.JSONSchema.Strict)
		dst = append(dst, "}}"...)
	}
	if len(r.Tools) > 0 {
		dst = append(dst, `,"tools":[`...)
		for i, t := range r.Tools {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"name":`...)
			dst = AppendString(dst, t.Name)
			dst = append(dst, `,"description":`...)
			dst = memo.append(dst, t.Description)
			dst = append(dst, `,"parameters":`...)
			dst = append(dst, t.Parameters...)
			dst = append(dst, `,"strict":`...)
			dst = strconv.AppendBool(dst, t.Strict)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	if r.ReferenceOutput != nil {
		dst = append(dst, `,"reference_output":`...)
		dst = AppendString(dst, *r.ReferenceOutput)
	}
	return append(dst, '}')
}

// StringMemo remembers the JSON text of the last few long strings AppendCompact
// wrote. Its zero value is ready; it is for one goroutine.
type StringMemo struct {
	texts [memoTexts]struct {
		s    string
		json []byte
	}
	next int
}

const (
	memoTexts = 8   // the instructions and prompt of the three arms of a case, and room
	memoMin   = 256 // shorter strings are escaped each time
)

// append appends s as AppendString does, from the memo when s is one of its
// strings (the same string, or an equal one).
func (m *StringMemo) append(dst []byte, s string) []byte {
	if m == nil || len(s) < memoMin {
		return AppendString(dst, s)
	}
	for k := range m.texts {
		if t := &m.texts[k]; len(t.s) == len(s) && t.s == s {
			return append(dst, t.json...)
		}
	}
	start := len(dst)
	dst = AppendString(dst, s)
	t := &m.texts[m.next]
	m.next = (m.next + 1) % memoTexts
	t.s, t.json = s, append(t.json[:0], dst[start:]...)
	return dst
}
