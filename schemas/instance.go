package schemas

import (
	"encoding/json"

	"github.com/fbeval/fbeval/contract/strictjson"
)

// Instance converts v to the Go values jsonschema/v6 validates: int64 and float64
// for numbers that fit them and json.Number for larger integers, so every number keeps
// the value Python's json would give it. (jsonschema/v6 reads numbers through their
// decimal text, so 1.0 counts as an integer, as in Python's jsonschema.)
func Instance(v strictjson.Value) any { return toAny(v, false) }

// Exact converts a value to the form jsonschema/v6 reads with every number as a
// json.Number holding its canonical text: for schema documents, and for instances
// checked by validators that compute with exact decimals (the relation keywords).
func Exact(v strictjson.Value) any { return toAny(v, true) }

func toAny(v strictjson.Value, exact bool) any {
	switch v.Kind() {
	case strictjson.Null:
		return nil
	case strictjson.Bool:
		return v.Bool()
	case strictjson.String:
		return v.Str()
	case strictjson.Int, strictjson.BigInt, strictjson.Float:
		switch {
		case exact:
			return json.Number(strictjson.Canonical(v))
		case v.Kind() == strictjson.Int:
			return v.Int()
		case v.Kind() == strictjson.BigInt:
			return json.Number(v.Str())
		}
		return v.Float()
	case strictjson.Array:
		out := make([]any, v.Len())
		for i := range out {
			out[i] = toAny(v.Index(i), exact)
		}
		return out
	case strictjson.Object:
		ms := v.Members()
		out := make(map[string]any, len(ms))
		for i := range ms {
			out[ms[i].Key] = toAny(ms[i].Value, exact)
		}
		return out
	}
	return nil
}

// maxQuickDepth is the deepest nesting quickInstance reads (a recursion a
// level); a deeper record is read the long way.
const maxQuickDepth = 512

// quickInstance reads raw, one strict JSON value, into the Go values
// jsonschema.UnmarshalJSON gives (json.Number for every number, its literal
// as written), in one walk. It gives up (false) on anything that way would
// have to explain: invalid or trailing JSON, a name given twice, invalid UTF-8,
// a lone surrogate escape, nesting past maxQuickDepth. A record it reads is one
// the long way reads, to the same value.
func quickInstance(raw []byte) (any, bool) {
	var buf []byte
	var value func(i, depth int) (any, int, bool)
	value = func(i, depth int) (any, int, bool) {
		if i >= len(raw) {
			return nil, i, false
		}
		switch c := raw[i]; {
		case c == '"':
			end, out, escaped, err := strictjson.ReadString(raw, i, buf[:0], strictjson.RejectSurrogates)
			if err != strictjson.LexOK {
				return nil, i, false
			}
			if escaped {
				buf = out
				return string(out), end, true
			}
			return string(raw[i+1 : end-1]), end, true
		case c == '{':
			if depth >= maxQuickDepth {
				return nil, i, false
			}
			m := map[string]any{}
			ok := true
			end := strictjson.Members(raw, i, func(name []byte, j int) (int, bool) {
				if _, dup := m[string(name)]; dup {
					ok = false
					return j, false
				}
				v, k, good := value(j, depth+1)
				if !good {
					ok = false
					return k, false
				}
				m[string(name)] = v
				return k, true
			})
			// Members stops at a name with an escape: the long way reads it
			return m, end, ok && end >= 0
		case c == '[':
			if depth >= maxQuickDepth {
				return nil, i, false
			}
			items := []any{}
			ok := true
			end := strictjson.Items(raw, i, func(j int) (int, bool) {
				v, k, good := value(j, depth+1)
				if !good {
					ok = false
					return k, false
				}
				items = append(items, v)
				return k, true
			})
			return items, end, ok && end >= 0
		case c == 't':
			end, err := strictjson.ScanLiteral(raw, i, "true")
			return true, end, err == strictjson.LexOK
		case c == 'f':
			end, err := strictjson.ScanLiteral(raw, i, "false")
			return false, end, err == strictjson.LexOK
		case c == 'n':
			end, err := strictjson.ScanLiteral(raw, i, "null")
			return nil, end, err == strictjson.LexOK
		default:
			end, _, err := strictjson.ScanNumber(raw, i)
			if err != strictjson.LexOK {
				return nil, i, false
			}
			return json.Number(raw[i:end]), end, true
		}
	}
	v, end, ok := value(strictjson.SkipSpace(raw, 0), 0)
	if !ok || strictjson.SkipSpace(raw, end) != len(raw) {
		return nil, false
	}
	return v, true
}
