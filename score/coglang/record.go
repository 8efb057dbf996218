package coglang

import (
	"bytes"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// recordFields are the raw JSON values of the members a response record is read
// for (empty when absent). With duplicate names the last value is kept.
type recordFields struct {
	caseID, version, err jsontext.Value
	outputs              [len(outputFields)]jsontext.Value
}

// fastMaxDepth bounds the nesting scanRecord follows before leaving the record to
// the full decoder.
const fastMaxDepth = 64

// scanRecord reads a response record's members in one pass without allocating:
// strict JSON (what jsontext accepts with duplicate names allowed), the values
// returned as slices of raw. It reports false when the record is not plain
// enough to be sure of (a \u escape, deep nesting) or is not valid: the caller
// then runs the full decoder, which accepts the same records and words the
// errors. So for any input, scanRecord either agrees with the full decoder or
// declines (FuzzScanRecord checks this).
func scanRecord(raw []byte, f *recordFields) bool {
	*f = recordFields{}
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return false
	}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return skipSpace(raw, i+1) == len(raw)
	}
	for {
		ks := i
		ke, ok := scanString(raw, i)
		if !ok {
			return false
		}
		i = skipSpace(raw, ke)
		if i >= len(raw) || raw[i] != ':' {
			return false
		}
		vs := skipSpace(raw, i+1)
		ve, ok := scanValue(raw, vs)
		if !ok {
			return false
		}
		// Names with escapes never match: "out\u0070ut" was declined above and
		// the short escapes cannot spell a name we look for.
		switch string(raw[ks+1 : ke-1]) {
		case "case_id":
			f.caseID = raw[vs:ve]
		case "schema_version":
			f.version = raw[vs:ve]
		case "error":
			f.err = raw[vs:ve]
		case "output":
			f.outputs[0] = raw[vs:ve]
		case "text":
			f.outputs[1] = raw[vs:ve]
		case "completion":
			f.outputs[2] = raw[vs:ve]
		}
		i = skipSpace(raw, ve)
		if i >= len(raw) {
			return false
		}
		switch raw[i] {
		case ',':
			i = skipSpace(raw, i+1)
			continue
		case '}':
			return skipSpace(raw, i+1) == len(raw)
		}
		return false
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
			continue
		}
		break
	}
	return i
}

// scanString returns the end of the JSON string starting at b[i]. It declines
// \u escapes (surrogates are the full decoder's business), control characters
// and invalid UTF-8.
func scanString(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return 0, false
	}
	start := i + 1
	ascii := true
	for i = start; i < len(b); i++ {
		// skip the plain bytes, which are most of them
		for i < len(b) && !stringSpecial[b[i]] {
			i++
		}
		if i >= len(b) {
			break
		}
		c := b[i]
		switch {
		case c == '"':
			if !ascii && !utf8.Valid(b[start:i]) {
				return 0, false
			}
			return i + 1, true
		case c == '\\':
			i++
			if i >= len(b) {
				return 0, false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			default:
				return 0, false
			}
		case c < 0x20:
			return 0, false
		default: // c >= utf8.RuneSelf
			ascii = false
		}
	}
	return 0, false
}

// stringSpecial marks the bytes scanString must look at: the quote, the
// backslash, control characters and the bytes of non-ASCII characters.
var stringSpecial = func() (t [256]bool) {
	for c := range t {
		t[c] = c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf
	}
	return t
}()

// unescapeShort appends the text of the JSON string v (quotes included, already
// validated) when it holds only the short escapes; false when it holds a \u one.
func unescapeShort(dst, v []byte) ([]byte, bool) {
	v = v[1 : len(v)-1]
	for {
		k := bytes.IndexByte(v, '\\')
		if k < 0 {
			return append(dst, v...), true
		}
		dst = append(dst, v[:k]...)
		var c byte
		switch v[k+1] {
		case '"', '\\', '/':
			c = v[k+1]
		case 'b':
			c = '\b'
		case 'f':
			c = '\f'
		case 'n':
			c = '\n'
		case 'r':
			c = '\r'
		case 't':
			c = '\t'
		default:
			return dst, false
		}
		dst = append(dst, c)
		v = v[k+2:]
	}
}

// scanNumber returns the end of the JSON number starting at b[i].
func scanNumber(b []byte, i int) (int, bool) {
	digits := func(i int) int {
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(i + 1)
	default:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(i + 1)
		if j == i+1 {
			return 0, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(i)
		if j == i {
			return 0, false
		}
		i = j
	}
	return i, true
}

// scanValue returns the end of the JSON value starting at b[i], following arrays
// and objects with an explicit stack of up to fastMaxDepth levels.
func scanValue(b []byte, i int) (int, bool) {
	var stack [fastMaxDepth]byte // the closing byte of each open container
	depth := 0
	for {
		// a value at b[i]
		if i >= len(b) {
			return 0, false
		}
		var ok bool
		switch c := b[i]; {
		case c == '"':
			i, ok = scanString(b, i)
		case c == '-' || (c >= '0' && c <= '9'):
			i, ok = scanNumber(b, i)
		case c == 't':
			i, ok = scanLiteral(b, i, "true")
		case c == 'f':
			i, ok = scanLiteral(b, i, "false")
		case c == 'n':
			i, ok = scanLiteral(b, i, "null")
		case c == '[' || c == '{':
			if depth == fastMaxDepth {
				return 0, false
			}
			closer := byte(']')
			if c == '{' {
				closer = '}'
			}
			stack[depth] = closer
			depth++
			i = skipSpace(b, i+1)
			if i < len(b) && b[i] == closer {
				depth--
				i++
				ok = true
				break
			}
			if closer == '}' {
				if i, ok = scanMemberName(b, i); !ok {
					return 0, false
				}
			}
			continue
		}
		if !ok {
			return 0, false
		}
		// after a value: close containers or move to the next element
		for {
			if depth == 0 {
				return i, true
			}
			i = skipSpace(b, i)
			if i >= len(b) {
				return 0, false
			}
			closer := stack[depth-1]
			if b[i] == closer {
				depth--
				i++
				continue
			}
			if b[i] != ',' {
				return 0, false
			}
			i = skipSpace(b, i+1)
			if closer == '}' {
				if i, ok = scanMemberName(b, i); !ok {
					return 0, false
				}
			}
			break
		}
	}
}

// scanMemberName reads `"name" :` and returns the start of the member's value.
func scanMemberName(b []byte, i int) (int, bool) {
	i, ok := scanString(b, i)
	if !ok {
		return 0, false
	}
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return 0, false
	}
	return skipSpace(b, i+1), true
}

func scanLiteral(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return 0, false
	}
	return i + len(lit), true
}
