package coglang

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/contract/strictjson"
)

// maxValueDepth bounds the nesting of a non-string output value.
const maxValueDepth = 1000

// outputFields are the accepted output fields, in the order they are tried.
var outputFields = [...]string{"output", "text", "completion"}

// DecodeResponse interprets one response record (the raw JSON object of one record,
// as the contract reader hands it over) the way the reference does:
//
//   - case_id is required; a string is used as is, anything else as Python's str()
//     of the parsed value prints it (7 -> "7", 7.0 -> "7.0", 1e400 -> "inf",
//     null -> "None", true -> "True", [1] -> "[1]");
//   - schema_version may be absent or null; otherwise it must be the CogLang
//     response-record version (or fbeval's own response version);
//   - the output is the first of output, text, completion whose value is not null:
//     a string as is, anything else as Python's str() of the parsed value
//     (42 -> "42", true -> "True", [1, null] -> "[1, None]").
//
// A member name given twice keeps its last value, as Python's json module does.
// File and Line of the returned Response are left for the caller to set.
func DecodeResponse(raw []byte) (Response, error) {
	var f recordFields
	if !scanRecord(raw, &f) {
		if err := decodeFields(raw, &f); err != nil {
			return Response{}, err
		}
	}
	var r Response
	var err error
	if r.CaseID, err = f.caseIDText(); err != nil {
		return r, err
	}
	if err := f.checkVersion(); err != nil {
		return r, err
	}
	if len(f.model) > 0 && f.model[0] == '"' {
		r.Model = unquoteJSON(f.model) // a lone surrogate escape kept
	}
	if code, ok := f.providerError(); ok {
		r.ProviderError, r.ErrorCode = true, code
		return r, nil
	}
	s, err := f.outputText()
	if err != nil {
		return r, fmt.Errorf("%w%s", err, contract.NoAnswerNote(raw))
	}
	r.Output = &s
	return r, nil
}

// decodeFields is the full decoder: jsontext, with its error messages, for the
// records scanRecord refuses. It reads what scanRecord reads, but lone surrogate
// escapes, which it refuses.
func decodeFields(raw []byte, f *recordFields) error {
	*f = recordFields{}
	dec := jsontext.NewDecoder(bytes.NewReader(raw), jsontext.AllowDuplicateNames(true))
	tok, err := dec.ReadToken()
	if err != nil {
		return recordErr(raw, err)
	}
	if tok.Kind() != '{' {
		return errNotObject
	}
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return recordErr(raw, err)
		}
		key := name.String()
		val, err := dec.ReadValue()
		if err != nil {
			return recordErr(raw, err)
		}
		switch key {
		case "case_id":
			f.caseID = bytes.Clone(val)
		case "schema_version":
			f.version = bytes.Clone(val)
		case "error":
			f.err = bytes.Clone(val)
		case "run":
			f.run = bytes.Clone(val)
		case "model":
			f.model = bytes.Clone(val)
		case "finish_reason":
			f.finish = bytes.Clone(val)
		default:
			for i, name := range outputFields {
				if key == name {
					f.outputs[i] = bytes.Clone(val)
				}
			}
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return recordErr(raw, err)
	}
	end := dec.InputOffset()
	if _, err := dec.ReadToken(); err != io.EOF {
		if at, ok := contract.RecordFollows(raw, end); ok {
			return &OffsetError{Offset: at, Msg: contract.TwoRecordsOnALine}
		}
		at := end
		for at < int64(len(raw)) && strings.IndexByte(" \t\r\n", raw[at]) >= 0 {
			at++
		}
		msg := "text after the record"
		if hint := contract.NotJSON(raw, at); hint != "" {
			msg = hint // a DOS end-of-file mark, a comment
		}
		return &OffsetError{Offset: at, Msg: "invalid JSON: " + msg}
	}
	return nil
}

// errNotObject is decodeFields' error for a record that is no JSON object.
var errNotObject = errors.New("a response record must be a JSON object")

// caseIDText returns the case id: a string as is, anything else as Python's str()
// of it, as the reference reads it (7 -> "7", null -> "None", true -> "True",
// [1] -> "[1]"), so such an id is most likely unknown and the record ignored.
func (f *recordFields) caseIDText() (string, error) {
	switch v := f.caseID; {
	case len(v) == 0 && string(f.version) == `"`+contract.ResponseV1+`"`:
		// what fbeval-batch from-* writes without the request file
		return "", errors.New("a response record needs case_id, and fbeval-response/v1 records name only their request_id when fbeval-batch from-* converted them without --requests: convert the results again with --requests REQUESTS")
	case len(v) == 0:
		return "", errors.New("a response record needs case_id")
	case v.Kind() == '"':
		return f.unquote(v), nil
	case v.Kind() == '0':
		return string(appendPyNumber(nil, string(v))), nil
	default:
		b, err := appendPyStr(nil, v)
		if err != nil {
			return "", fmt.Errorf("case_id %s: %v", shortJSON(v), err)
		}
		return string(b), nil
	}
}

func (f *recordFields) checkVersion() error {
	version := f.version
	if len(version) == 0 || version.Kind() == 'n' {
		return nil
	}
	var v []byte
	if version.Kind() == '"' {
		v = version[1 : len(version)-1]
		if bytes.IndexByte(v, '\\') >= 0 {
			v = []byte(unquoteJSON(version))
		}
		if string(v) == contract.CogLangResponse || string(v) == contract.ResponseV1 {
			return nil
		}
	}
	return fmt.Errorf("unsupported schema_version %s: want %q (or none, or %q)%s", shortJSON(version), contract.CogLangResponse, contract.ResponseV1, contract.OtherVersion(string(v), contract.CogLangResponse, contract.ResponseV1))
}

// outputValue returns the first output value that is not null, as JSON.
func (f *recordFields) outputValue() jsontext.Value {
	for _, v := range f.outputs {
		if len(v) > 0 && v.Kind() != 'n' {
			return v
		}
	}
	return nil
}

// outputText returns the first output value that is not null: a string as is,
// anything else as Python's str() of it.
func (f *recordFields) outputText() (string, error) {
	for _, v := range f.outputs {
		if len(v) == 0 || v.Kind() == 'n' {
			continue
		}
		if v.Kind() == '"' {
			return f.unquote(v), nil
		}
		b, err := appendPyStr(nil, v)
		if err != nil {
			return "", err
		}
		return string(b), nil
	}
	return "", errors.New("a response record needs one of output, text, completion (not null), or an error")
}

// providerError reports whether the record is a provider error record: an error
// member that is not null and no output (a record with an output is read for its
// output, as the reference reads it). code is the error's code: the string value
// of its "code" member, or the error itself when it is a string; "" otherwise.
func (f *recordFields) providerError() (code string, ok bool) {
	if len(f.err) == 0 || f.err.Kind() == 'n' {
		return "", false
	}
	for _, v := range f.outputs {
		if len(v) > 0 && v.Kind() != 'n' {
			return "", false
		}
	}
	switch f.err.Kind() {
	case '"':
		return unquoteJSON(f.err), true
	case '{':
		dec := jsontext.NewDecoder(bytes.NewReader(f.err), jsontext.AllowDuplicateNames(true))
		if _, err := dec.ReadToken(); err != nil {
			return "", true
		}
		for dec.PeekKind() != '}' {
			name, err := dec.ReadToken()
			if err != nil {
				return code, true
			}
			key := name.String()
			val, err := dec.ReadValue()
			if err != nil {
				return code, true
			}
			if key == "code" && val.Kind() == '"' {
				code = unquoteJSON(val)
			}
		}
	}
	return code, true
}

// recordErr is jsonErr of an error met reading the record raw, naming what
// raw holds there that JSON does not allow (contract.NotJSON).
func recordErr(raw []byte, err error) error {
	if len(raw) > 0 && raw[0] == 0 {
		return &OffsetError{Offset: 0, Msg: contract.ZeroBytes(raw, "response")}
	}
	e := jsonErr(err)
	if oe, ok := e.(*OffsetError); ok {
		if hint := contract.NotJSON(raw, oe.Offset); hint != "" {
			oe.Msg = "invalid JSON: " + hint
		} else if contract.TextLine(raw) {
			// a line of text (a CSV's), where JSON stops at its second letter
			return &OffsetError{Offset: 0, Msg: contract.TextNotJSON(raw, "response")}
		}
	}
	return e
}

func jsonErr(err error) error {
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		msg := strings.TrimPrefix(se.Err.Error(), "jsontext: ")
		if errors.Is(se.Err, io.ErrUnexpectedEOF) {
			msg = "the record ends inside a JSON value"
		}
		return &OffsetError{Offset: se.ByteOffset, Msg: "invalid JSON: " + msg}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("invalid JSON: the record ends inside a JSON value")
	}
	return fmt.Errorf("invalid JSON: %v", err)
}

// unquote is unquoteJSON, sharing v's bytes when it can and f.borrow says so.
func (f *recordFields) unquote(v jsontext.Value) string {
	if f.borrow && len(v) > 2 && bytes.IndexByte(v[1:len(v)-1], '\\') < 0 {
		return unsafe.String(&v[1], len(v)-2)
	}
	return unquoteJSON(v)
}

func unquoteJSON(v jsontext.Value) string {
	if len(v) >= 2 && bytes.IndexByte(v[1:len(v)-1], '\\') < 0 {
		return string(v[1 : len(v)-1])
	}
	var buf [256]byte
	_, b, _, err := strictjson.ReadString(v, 0, buf[:0], strictjson.KeepSurrogates)
	if err != strictjson.LexOK {
		return string(v)
	}
	return string(b)
}

func shortJSON(v jsontext.Value) string {
	s := string(v)
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return s
}

// NaNLiteral is the JSON number a reader writes for Python's NaN literal, which
// JSON lacks: appendPyNumber prints it as Python prints float('nan'). Its digits
// make a clash with a number a file means improbable.
const NaNLiteral = "-0.0e-27182818284590452353602874713526624977"

// appendPyNumber writes Python's str() of a JSON number: integers exactly, other
// numbers as Python's float repr (with "inf" for overflow, "nan" for NaNLiteral).
func appendPyNumber(dst []byte, text string) []byte {
	if text == NaNLiteral {
		return append(dst, "nan"...)
	}
	if !strings.ContainsAny(text, ".eE") {
		return append(dst, normalizeInt(text)...)
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil && !math.IsInf(f, 0) {
		return append(dst, text...)
	}
	return appendPyFloatRepr(dst, f)
}

// appendPyStr writes Python's str() of a parsed JSON value that is not a string:
// numbers and literals as str() prints them, lists and objects as repr() does.
func appendPyStr(dst []byte, v jsontext.Value) ([]byte, error) {
	// Lone surrogate escapes are read as Python reads them: strings are read raw and
	// unquoted by the one lexer, which keeps them.
	dec := jsontext.NewDecoder(bytes.NewReader(v), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	return appendPyValue(dst, dec, 0)
}

// appendPyValue writes the next value of dec as Python's repr(). The depth bound
// keeps the recursion shallow on hostile input.
func appendPyValue(dst []byte, dec *jsontext.Decoder, depth int) ([]byte, error) {
	if depth > maxValueDepth {
		return dst, errors.New("output value nested too deeply")
	}
	if dec.PeekKind() == '"' {
		raw, err := dec.ReadValue()
		if err != nil {
			return dst, jsonErr(err)
		}
		return appendPyRepr(dst, unquoteJSON(raw)), nil
	}
	tok, err := dec.ReadToken()
	if err != nil {
		return dst, jsonErr(err)
	}
	switch tok.Kind() {
	case 'n':
		return append(dst, "None"...), nil
	case 't':
		return append(dst, "True"...), nil
	case 'f':
		return append(dst, "False"...), nil
	case '0':
		return appendPyNumber(dst, tok.String()), nil
	case '[':
		dst = append(dst, '[')
		for i := 0; dec.PeekKind() != ']'; i++ {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			if dst, err = appendPyValue(dst, dec, depth+1); err != nil {
				return dst, err
			}
		}
		if _, err := dec.ReadToken(); err != nil {
			return dst, jsonErr(err)
		}
		return append(dst, ']'), nil
	case '{':
		// Python keeps a repeated key at its first position with its last value.
		type entry struct {
			key string
			val []byte
		}
		var entries []entry
		index := map[string]int{}
		for dec.PeekKind() != '}' {
			name, err := dec.ReadValue()
			if err != nil {
				return dst, jsonErr(err)
			}
			key := unquoteJSON(name)
			val, err := appendPyValue(nil, dec, depth+1)
			if err != nil {
				return dst, err
			}
			if i, ok := index[key]; ok {
				entries[i].val = val
			} else {
				index[key] = len(entries)
				entries = append(entries, entry{key, val})
			}
		}
		if _, err := dec.ReadToken(); err != nil {
			return dst, jsonErr(err)
		}
		dst = append(dst, '{')
		for i, e := range entries {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = appendPyRepr(dst, e.key)
			dst = append(dst, ": "...)
			dst = append(dst, e.val...)
		}
		return append(dst, '}'), nil
	}
	return dst, fmt.Errorf("unexpected JSON token %s", tok.Kind())
}

// OffsetError is a problem at a byte offset of a response record, so the caller can
// report its line and column in the file.
type OffsetError struct {
	Offset int64
	Msg    string
}

func (e *OffsetError) Error() string {
	return fmt.Sprintf("%s (at byte %d of the record)", e.Msg, e.Offset)
}
