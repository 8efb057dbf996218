package strictjson

import (
	"cmp"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"

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
		return contract.AppendString(dst, v.s)
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
			dst = contract.AppendString(dst, v.kids[k].Key)
			dst = append(dst, ':')
			dst = AppendCanonical(dst, v.kids[k].Value)
		}
		return append(dst, '}')
	}
	return dst
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
