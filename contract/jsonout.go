package contract

import (
	"encoding/json"
	"math"
	"math/big"
	"math/bits"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"unicode/utf8"
)

// Object is a JSON object whose members are written in the order given. Reports and
// results use it so that key order is part of the output contract, not an accident of
// a map.
type Object []Member

// Get returns the value of the member named key, and whether there is one.
func (o Object) Get(key string) (any, bool) {
	for _, m := range o {
		if m.Key == key {
			return m.Value, true
		}
	}
	return nil, false
}

// Member is one key and value of an Object.
type Member struct {
	Key   string
	Value any
}

// Raw is JSON text written verbatim. It must already be valid JSON.
type Raw []byte

// Style says how JSON is laid out. The zero value is compact JSON ("," and ":").
type Style struct {
	Indent string // one level of indentation; empty writes everything on one line
	Sep    string // between members and items on one line
	Colon  string // between a key and its value
}

// The layouts fbeval writes. PythonLine is Python's json.dumps default (", ", ": "),
// PythonIndent is json.dumps(indent=2); both keep non-ASCII characters as they are.
var (
	Compact      = Style{Sep: ",", Colon: ":"}
	PythonLine   = Style{Sep: ", ", Colon: ": "}
	PythonIndent = Style{Indent: "  ", Sep: ",", Colon: ": "}
)

// JSONAppender is implemented by types that write themselves as JSON.
type JSONAppender interface {
	AppendJSON(dst []byte, s Style, depth int) ([]byte, error)
}

// Marshal returns v as JSON in style s. Values may be nil, bool, string, the integer
// types, float64 (written as Python's repr writes floats), json.Number, *big.Int, Raw,
// Object, map[string]any (keys sorted), []any, []string, []Object, a JSONAppender,
// or a typed value: a struct (its json tags name its members, in field order), a
// slice, an array, a map with string keys or a pointer to one of these.
func Marshal(v any, s Style) ([]byte, error) {
	return AppendJSON(nil, v, s, 0)
}

// AppendJSON appends v as JSON in style s at nesting depth depth.
func AppendJSON(dst []byte, v any, s Style, depth int) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case string:
		return AppendString(dst, x), nil
	case int:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(dst, x, 10), nil
	case int32:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case uint64:
		return strconv.AppendUint(dst, x, 10), nil
	case float64:
		return AppendPyFloat(dst, x), nil
	case json.Number:
		return append(dst, x...), nil
	case *big.Int:
		return x.Append(dst, 10), nil
	case Raw:
		return append(dst, x...), nil
	case *int:
		if x == nil {
			return append(dst, "null"...), nil
		}
		return strconv.AppendInt(dst, int64(*x), 10), nil
	case *float64:
		if x == nil {
			return append(dst, "null"...), nil
		}
		return AppendPyFloat(dst, *x), nil
	case *string:
		if x == nil {
			return append(dst, "null"...), nil
		}
		return AppendString(dst, *x), nil
	case Object:
		return appendObject(dst, x, s, depth)
	case map[string]any:
		return appendObject(dst, sortedObject(x), s, depth)
	case map[string]int:
		return appendObject(dst, sortedObject(x), s, depth)
	case []any:
		return appendList(dst, len(x), func(dst []byte, i int) ([]byte, error) { return AppendJSON(dst, x[i], s, depth+1) }, s, depth)
	case []string:
		return appendList(dst, len(x), func(dst []byte, i int) ([]byte, error) { return AppendString(dst, x[i]), nil }, s, depth)
	case []Object:
		return appendList(dst, len(x), func(dst []byte, i int) ([]byte, error) { return appendObject(dst, x[i], s, depth+1) }, s, depth)
	case JSONAppender:
		return x.AppendJSON(dst, s, depth)
	}
	return appendValue(dst, reflect.ValueOf(v), s, depth, false)
}

func appendObject(dst []byte, obj Object, s Style, depth int) ([]byte, error) {
	return appendMembers(dst, len(obj), func(dst []byte, i int) ([]byte, error) {
		dst = AppendString(dst, obj[i].Key)
		dst = append(dst, s.Colon...)
		return AppendJSON(dst, obj[i].Value, s, depth+1)
	}, s, depth)
}

// appendMembers writes an object of n members; member appends the i-th key, colon
// and value.
func appendMembers(dst []byte, n int, member func([]byte, int) ([]byte, error), s Style, depth int) ([]byte, error) {
	if n == 0 {
		return append(dst, "{}"...), nil
	}
	dst = append(dst, '{')
	var err error
	for i := 0; i < n; i++ {
		if i > 0 {
			dst = append(dst, s.Sep...)
		}
		dst = newline(dst, s, depth+1)
		if dst, err = member(dst, i); err != nil {
			return dst, err
		}
	}
	dst = newline(dst, s, depth)
	return append(dst, '}'), nil
}

func appendList(dst []byte, n int, item func([]byte, int) ([]byte, error), s Style, depth int) ([]byte, error) {
	if n == 0 {
		return append(dst, "[]"...), nil
	}
	dst = append(dst, '[')
	var err error
	for i := 0; i < n; i++ {
		if i > 0 {
			dst = append(dst, s.Sep...)
		}
		dst = newline(dst, s, depth+1)
		if dst, err = item(dst, i); err != nil {
			return dst, err
		}
	}
	dst = newline(dst, s, depth)
	return append(dst, ']'), nil
}

func newline(dst []byte, s Style, depth int) []byte {
	if s.Indent == "" {
		return dst
	}
	dst = append(dst, '\n')
	if n := depth * len(s.Indent); s.Indent == "  " && n <= len(spaces) {
		return append(dst, spaces[:n]...)
	}
	for i := 0; i < depth; i++ {
		dst = append(dst, s.Indent...)
	}
	return dst
}

// spaces is the indentation of PythonIndent up to 32 levels deep, written at once.
const spaces = "                                                                "

// AppendString appends s as a JSON string the way Python's json.dumps does with
// ensure_ascii=False: quotes, backslashes and control characters escaped, everything
// else (including non-ASCII) kept. A lone UTF-16 surrogate, which the JSON readers
// keep as its three WTF-8 bytes (as Python keeps it in a str), is written back as
// its \uXXXX escape, as Python writes it with ensure_ascii=True; any other invalid
// UTF-8 byte becomes U+FFFD.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		// up to the first byte to escape or decode
		i = PlainRun(s, i)
		if i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			// a control character, '"' or '\\'
			dst = append(dst, s[start:i]...)
			switch c {
			case '"':
				dst = append(dst, `\"`...)
			case '\\':
				dst = append(dst, `\\`...)
			case '\n':
				dst = append(dst, `\n`...)
			case '\r':
				dst = append(dst, `\r`...)
			case '\t':
				dst = append(dst, `\t`...)
			case '\b':
				dst = append(dst, `\b`...)
			case '\f':
				dst = append(dst, `\f`...)
			default:
				dst = append(dst, `\u00`...)
				dst = append(dst, hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			if i+2 < len(s) && c == 0xED && s[i+1] >= 0xA0 && s[i+1] <= 0xBF && s[i+2]&0xC0 == 0x80 {
				// a lone surrogate as the JSON readers keep it (WTF-8)
				r = rune(c&0x0F)<<12 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F)
				dst = append(dst, '\\', 'u', hexDigits[r>>12], hexDigits[r>>8&0xF], hexDigits[r>>4&0xF], hexDigits[r&0xF])
				i += 3
			} else {
				dst = append(dst, "\ufffd"...)
				i++
			}
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// PlainRun returns the index of the first byte of d from i on that a JSON
// string cannot hold as it is (a control character, '"' or '\\') or that is not
// ASCII, or len(d): eight bytes at a time, then one at a time. The string
// writers use it to copy what needs no escape in one piece.
func PlainRun[T ~string | ~[]byte](d T, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for i+8 <= len(d) {
		// one bounds check for the eight bytes, and one load
		w := d[i : i+8]
		x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
		// the high bit of each byte that is a control character, '"', '\\' or
		// not ASCII; higher marks may be false, the lowest is exact
		ctrl := (x - 0x20*ones) &^ x
		q := x ^ ('"' * ones)
		q = (q - ones) &^ q
		b := x ^ ('\\' * ones)
		b = (b - ones) &^ b
		if m := (ctrl | q | b | x) & highs; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
	for i < len(d) && PlainByte(d[i]) {
		i++
	}
	return i
}

// PlainByte reports whether a JSON string holds c as it is: ASCII from the
// space up (DEL too) but the quote and the backslash.
func PlainByte(c byte) bool { return plainByte[c] }

var plainByte = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// AppendPyFloat appends f as Python's repr(float) writes it: the shortest digits that
// round-trip, positional notation for exponents from -4 to 15 with at least one
// fractional digit ("1.0"), scientific notation otherwise with a signed exponent of at
// least two digits ("1e+16", "1e-05"). NaN and infinities are written as Python's json
// module writes them.
func AppendPyFloat(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	}
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, 64) // like -1.2345e+06
	neg := e[0] == '-'
	if neg {
		e = e[1:]
		dst = append(dst, '-')
	}
	epos := 0
	for epos < len(e) && e[epos] != 'e' {
		epos++
	}
	mant := e[:epos]
	exp, _ := strconv.Atoi(string(e[epos+1:]))
	digits := make([]byte, 0, 20)
	for _, c := range mant {
		if c != '.' {
			digits = append(digits, c)
		}
	}
	if exp < -4 || exp >= 16 {
		dst = append(dst, digits[0])
		if len(digits) > 1 {
			dst = append(dst, '.')
			dst = append(dst, digits[1:]...)
		}
		dst = append(dst, 'e')
		if exp < 0 {
			dst = append(dst, '-')
			exp = -exp
		} else {
			dst = append(dst, '+')
		}
		if exp < 10 {
			dst = append(dst, '0')
		}
		return strconv.AppendInt(dst, int64(exp), 10)
	}
	if exp < 0 {
		dst = append(dst, "0."...)
		for i := 0; i < -exp-1; i++ {
			dst = append(dst, '0')
		}
		return append(dst, digits...)
	}
	intLen := exp + 1
	if len(digits) <= intLen {
		dst = append(dst, digits...)
		for i := len(digits); i < intLen; i++ {
			dst = append(dst, '0')
		}
		return append(dst, ".0"...)
	}
	dst = append(dst, digits[:intLen]...)
	dst = append(dst, '.')
	return append(dst, digits[intLen:]...)
}

// sortedObject turns a map into an Object with its keys sorted.
func sortedObject[V any](m map[string]V) Object {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	obj := make(Object, len(keys))
	for i, k := range keys {
		obj[i] = Member{k, m[k]}
	}
	return obj
}

const hexDigits = "0123456789abcdef"

// Hand-written AppendJSON methods lay their values out with AppendMember,
// AppendItem and AppendClose, so they write exactly the bytes the reflection
// writer writes for the same value.

// AppendMember appends what comes before the i-th (0-based) member's value in an
// object at nesting depth depth: "{" before the first member or s.Sep before a
// later one, the line break and indentation of style s, the key and s.Colon.
func AppendMember(dst []byte, s Style, depth, i int, key string) []byte {
	if i == 0 {
		dst = append(dst, '{')
	} else {
		dst = append(dst, s.Sep...)
	}
	dst = newline(dst, s, depth+1)
	dst = AppendString(dst, key)
	return append(dst, s.Colon...)
}

// AppendItem appends what comes before the i-th (0-based) item of a list at
// nesting depth depth: "[" before the first item or s.Sep before a later one,
// and the line break and indentation of style s.
func AppendItem(dst []byte, s Style, depth, i int) []byte {
	if i == 0 {
		dst = append(dst, '[')
	} else {
		dst = append(dst, s.Sep...)
	}
	return newline(dst, s, depth+1)
}

// AppendClose appends the end of an object (end '}') or a list (end ']') of n
// members or items at nesting depth depth, begun with AppendMember or AppendItem:
// "{}" or "[]" when n is 0.
func AppendClose(dst []byte, s Style, depth, n int, end byte) []byte {
	if n == 0 {
		return append(dst, end-2, end) // '{' is '}'-2, '[' is ']'-2
	}
	dst = newline(dst, s, depth)
	return append(dst, end)
}

// AppendStrings appends a list of strings at nesting depth depth; nil is [].
func AppendStrings(dst []byte, xs []string, s Style, depth int) []byte {
	for i, x := range xs {
		dst = AppendItem(dst, s, depth, i)
		dst = AppendString(dst, x)
	}
	return AppendClose(dst, s, depth, len(xs), ']')
}

// AppendStringForHTML appends s as AppendString does, with <, > and & also
// written as \u003c, \u003e and \u0026, and U+2028 and U+2029 as \u2028 and
// \u2029: the JSON can then sit inside an HTML script element and be read as
// JavaScript, and it is what jsontext writes with EscapeForHTML and EscapeForJS.
// DEL and the C1 controls (U+007F to U+009F), which HTML's parser calls an
// error in a page's text, are written as their escapes too.
func AppendStringForHTML(dst []byte, s string) []byte {
	start := len(dst)
	dst = AppendString(dst, s)
	q := dst[start:]
	extra := 0
	for i, c := range q {
		switch c {
		case '<', '>', '&':
			extra += 5
		case 0xA8, 0xA9: // the last byte of U+2028 or U+2029 (E2 80 A8/A9)
			if i >= 2 && q[i-1] == 0x80 && q[i-2] == 0xE2 {
				extra += 3
			}
		case 0x7F:
			extra += 5
		}
		if c >= 0x80 && c <= 0x9F && i >= 1 && q[i-1] == 0xC2 { // U+0080 to U+009F
			extra += 4
		}
	}
	if extra == 0 {
		return dst
	}
	// Widen in place from the end: AppendString wrote valid UTF-8, so E2 80 A8
	// is always U+2028.
	n := len(dst)
	dst = slices.Grow(dst, extra)[:n+extra]
	j := len(dst)
	for i := n - 1; i >= start; i-- {
		switch c := dst[i]; {
		case c == '<' || c == '>' || c == '&':
			j -= 6
			copy(dst[j:], `\u00`)
			dst[j+4], dst[j+5] = hexDigits[c>>4], hexDigits[c&0xf]
		case (c == 0xA8 || c == 0xA9) && i-2 >= start && dst[i-1] == 0x80 && dst[i-2] == 0xE2:
			j -= 6
			copy(dst[j:], `\u202`)
			dst[j+5] = '8' + (c - 0xA8)
			i -= 2
		case c == 0x7F || c >= 0x80 && c <= 0x9F && i-1 >= start && dst[i-1] == 0xC2:
			// DEL, or a C1 control: its code point is its last byte
			j -= 6
			copy(dst[j:], `\u00`)
			dst[j+4], dst[j+5] = hexDigits[c>>4], hexDigits[c&0xf]
			if c != 0x7F {
				i--
			}
		default:
			j--
			dst[j] = c
		}
	}
	return dst
}
