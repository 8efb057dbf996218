package strictjson

import (
	"cmp"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fbeval/fbeval/contract"
)

// Equal reports whether a and b are the same JSON value under typed equality (the
// toolcall suite's and Python's ==, but for the types): object key order does not matter, types must match (1 != 1.0,
// true != 1), integers compare exactly and floats compare as Python's repr of them
// (so -0.0 != 0.0, 1.50 == 1.5, 1e2 == 100.0).
func Equal(a, b Value) bool {
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case Null:
		return true
	case Bool, Int, Float:
		// Floats from the parser are finite, so equal bits is equal repr.
		return a.n == b.n
	case String, BigInt:
		return a.s == b.s
	case Array:
		if len(a.kids) != len(b.kids) {
			return false
		}
		for i := range a.kids {
			if !Equal(a.kids[i].Value, b.kids[i].Value) {
				return false
			}
		}
		return true
	case Object:
		if len(a.kids) != len(b.kids) {
			return false
		}
		// Keys are unique in both, so each key of a found equal in b is enough.
		for i := range a.kids {
			bv, ok := b.Get(a.kids[i].Key)
			if !ok || !Equal(a.kids[i].Value, bv) {
				return false
			}
		}
		return true
	}
	return false
}

// AppendCanonical appends v as canonical JSON: compact, object keys sorted by code
// point, strings as Python's json.dumps writes them with ensure_ascii=False, floats as
// Python's repr. Parsing the result gives a value Equal to v.
func AppendCanonical(dst []byte, v Value) []byte {
	switch v.kind {
	case Null:
		return append(dst, "null"...)
	case Bool:
		if v.n == 1 {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case String:
		return AppendString(dst, v.s)
	case Int:
		return strconv.AppendInt(dst, int64(v.n), 10)
	case BigInt:
		return append(dst, v.s...)
	case Float:
		return contract.AppendPyFloat(dst, math.Float64frombits(v.n))
	case Array:
		dst = append(dst, '[')
		for i := range v.kids {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendCanonical(dst, v.kids[i].Value)
		}
		return append(dst, ']')
	case Object:
		order := make([]int, len(v.kids))
		for i := range order {
			order[i] = i
		}
		// Byte order of UTF-8 is code point order, which is what Python sorts by.
		slices.SortFunc(order, func(x, y int) int { return strings.Compare(v.kids[x].Key, v.kids[y].Key) })
		dst = append(dst, '{')
		for i, k := range order {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendString(dst, v.kids[k].Key)
			dst = append(dst, ':')
			dst = AppendCanonical(dst, v.kids[k].Value)
		}
		return append(dst, '}')
	}
	return dst
}

// AppendString appends s as a JSON string as AppendCanonical writes it: a string
// that holds lone surrogates (as the parser keeps them, three WTF-8 bytes each) gets
// each of them back as its \uXXXX escape, as Python's json.dumps writes them.
func AppendString(dst []byte, s string) []byte {
	if !utf8.ValidString(s) {
		return appendWTF8String(dst, s)
	}
	return contract.AppendString(dst, s)
}

// appendWTF8String writes a string that holds lone surrogates (as the parser keeps
// them: three WTF-8 bytes each) with each of them as its \uXXXX escape, the rest as
// contract.AppendString writes it.
func appendWTF8String(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if i+2 < len(s) && s[i] == 0xED && s[i+1] >= 0xA0 && s[i+1] <= 0xBF && s[i+2]&0xC0 == 0x80 {
			if start < i {
				q := contract.AppendString(nil, s[start:i])
				dst = append(dst, q[1:len(q)-1]...)
			}
			r := rune(s[i]&0x0F)<<12 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F)
			dst = append(dst, `\u`...)
			dst = append(dst, "0123456789abcdef"[r>>12], "0123456789abcdef"[r>>8&0xF],
				"0123456789abcdef"[r>>4&0xF], "0123456789abcdef"[r&0xF])
			i += 3
			start = i
			continue
		}
		i++
	}
	if start < len(s) {
		q := contract.AppendString(nil, s[start:])
		dst = append(dst, q[1:len(q)-1]...)
	}
	return append(dst, '"')
}

// Canonical returns v as canonical JSON text (see AppendCanonical).
func Canonical(v Value) string {
	return string(AppendCanonical(nil, v))
}

// JSONText is canonical JSON text carried in a record field (a judge's expected and
// actual values). It is written as the JSON value it holds, both by encoding/json and by contract.Marshal.
type JSONText string

// MarshalJSON returns the text itself.
func (t JSONText) MarshalJSON() ([]byte, error) { return []byte(t), nil }

// AppendJSON appends the text itself (contract.JSONAppender).
func (t JSONText) AppendJSON(dst []byte, _ contract.Style, _ int) ([]byte, error) {
	return append(dst, t...), nil
}

// String returns the text.
func (t JSONText) String() string { return string(t) }

// CanonicalText returns v's canonical JSON text as a JSONText.
func CanonicalText(v Value) JSONText { return JSONText(Canonical(v)) }

// Rat returns a number as an exact rational; false for any other kind.
func Rat(v Value) (*big.Rat, bool) {
	switch v.kind {
	case Int:
		return new(big.Rat).SetInt64(int64(v.n)), true
	case BigInt:
		return new(big.Rat).SetString(v.s)
	case Float:
		return new(big.Rat).SetFloat64(math.Float64frombits(v.n)), true
	}
	return nil, false
}

// CompareNumbers compares two numbers exactly, as Python compares int and float: -1,
// 0 or 1. It returns 0 when either value is not a number.
func CompareNumbers(a, b Value) int {
	if a.kind == Int && b.kind == Int {
		return cmp.Compare(int64(a.n), int64(b.n))
	}
	ra, _ := Rat(a)
	rb, _ := Rat(b)
	if ra == nil || rb == nil {
		return 0
	}
	return ra.Cmp(rb)
}
