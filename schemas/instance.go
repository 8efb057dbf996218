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
