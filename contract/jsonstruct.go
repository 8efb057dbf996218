package contract

import (
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
)

// Typed values (structs, slices, maps and pointers) are written by the same writer
// as Objects, so one writer decides every byte fbeval writes: a struct is an object
// whose members are its exported fields in declaration order, named by their json
// tags, the tags go-json-experiment/json reads the same types back with. The tag
// options understood are "-", omitzero (leave out the zero value: a nil slice, a nil
// pointer, "", 0, false), omitempty (leave out nil, "", an empty list or object)
// and inline.
// Unlike go-json-experiment/json, a jsontext.Value is written verbatim, not
// re-indented, so JSON text taken from an input keeps its bytes. Nil slices are
// written as [] and nil maps as {}, as go-json-experiment/json writes them.

var (
	appenderType = reflect.TypeFor[JSONAppender]()
	valueType    = reflect.TypeFor[jsontext.Value]()
	// types AppendJSON writes itself, wherever they are held
	known = map[reflect.Type]bool{
		reflect.TypeFor[Object]():      true,
		reflect.TypeFor[Raw]():         true,
		reflect.TypeFor[json.Number](): true,
		reflect.TypeFor[*big.Int]():    true,
	}
)

// field is how one struct field is written.
type field struct {
	index     []int
	key       string
	omitZero  bool
	omitEmpty bool
}

var fieldCache sync.Map // reflect.Type -> []field

// fieldsOf returns the members a struct type writes, in declaration order, with
// untagged embedded structs and fields tagged inline (a struct or a pointer to one;
// nil leaves its members out) inlined as go-json-experiment/json inlines them.
func fieldsOf(t reflect.Type) []field {
	if f, ok := fieldCache.Load(t); ok {
		return f.([]field)
	}
	var out []field
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag, hasTag := sf.Tag.Lookup("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := sf.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		inline := sf.Anonymous && !hasTag || slices.Contains(strings.Split(opts, ","), "inline")
		if inline && ft.Kind() == reflect.Struct {
			for _, f := range fieldsOf(ft) {
				f.index = append([]int{i}, f.index...)
				out = append(out, f)
			}
			continue
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		f := field{index: []int{i}, key: name}
		for _, o := range strings.Split(opts, ",") {
			switch o {
			case "omitzero":
				f.omitZero = true
			case "omitempty":
				f.omitEmpty = true
			}
		}
		out = append(out, f)
	}
	fieldCache.Store(t, out)
	return out
}

// AppendJSONReflect appends v as AppendJSON does, but writes every struct by
// reflection from its json tags even where its type has an AppendJSON method:
// the reference that hand-written AppendJSON methods are tested against.
func AppendJSONReflect(dst []byte, v any, s Style, depth int) ([]byte, error) {
	return appendValue(dst, reflect.ValueOf(v), s, depth, true)
}

// appendValue writes a typed value by reflection: the fallback of AppendJSON.
// With plain, struct types are written from their fields even when they have an
// AppendJSON method.
func appendValue(dst []byte, v reflect.Value, s Style, depth int, plain bool) ([]byte, error) {
	if !v.IsValid() {
		return append(dst, "null"...), nil
	}
	t := v.Type()
	if known[t] {
		return AppendJSON(dst, v.Interface(), s, depth)
	}
	if t == valueType {
		if v.Len() == 0 {
			return append(dst, "null"...), nil
		}
		return append(dst, v.Bytes()...), nil
	}
	if plain && (t.Kind() == reflect.Struct || t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct) {
		// written from its fields below
	} else if t.Implements(appenderType) {
		if t.Kind() == reflect.Pointer && v.IsNil() {
			return append(dst, "null"...), nil
		}
		return v.Interface().(JSONAppender).AppendJSON(dst, s, depth)
	} else if t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(appenderType) {
		if v.CanAddr() {
			return v.Addr().Interface().(JSONAppender).AppendJSON(dst, s, depth)
		}
		p := reflect.New(t)
		p.Elem().Set(v)
		return p.Interface().(JSONAppender).AppendJSON(dst, s, depth)
	}
	switch t.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			return append(dst, "null"...), nil
		}
		if plain {
			return appendValue(dst, v.Elem(), s, depth, plain)
		}
		return AppendJSON(dst, v.Elem().Interface(), s, depth)
	case reflect.Pointer:
		if v.IsNil() {
			return append(dst, "null"...), nil
		}
		return appendValue(dst, v.Elem(), s, depth, plain)
	case reflect.String:
		return AppendString(dst, v.String()), nil
	case reflect.Bool:
		return strconv.AppendBool(dst, v.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.AppendInt(dst, v.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.AppendUint(dst, v.Uint(), 10), nil
	case reflect.Float64, reflect.Float32:
		return AppendPyFloat(dst, v.Float()), nil
	case reflect.Slice, reflect.Array:
		return appendList(dst, v.Len(), func(dst []byte, i int) ([]byte, error) { return appendValue(dst, v.Index(i), s, depth+1, plain) }, s, depth)
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			break
		}
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
		return appendMembers(dst, len(keys), func(dst []byte, i int) ([]byte, error) {
			dst = AppendString(dst, keys[i].String())
			dst = append(dst, s.Colon...)
			return appendValue(dst, v.MapIndex(keys[i]), s, depth+1, plain)
		}, s, depth)
	case reflect.Struct:
		fields := fieldsOf(t)
		written := make([]int, 0, len(fields))
		for i, f := range fields {
			fv, err := v.FieldByIndexErr(f.index)
			if err != nil {
				continue // a member of an inlined struct a nil pointer leaves out
			}
			if f.omitZero && fv.IsZero() || f.omitEmpty && isEmpty(fv) {
				continue
			}
			written = append(written, i)
		}
		return appendMembers(dst, len(written), func(dst []byte, i int) ([]byte, error) {
			f := &fields[written[i]]
			dst = AppendString(dst, f.key)
			dst = append(dst, s.Colon...)
			return appendValue(dst, v.FieldByIndex(f.index), s, depth+1, plain)
		}, s, depth)
	}
	return dst, fmt.Errorf("contract: cannot write %s as JSON", t)
}

// isEmpty reports whether omitempty leaves v out: it would be written as null,
// "", [] or {}.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		return v.IsNil()
	case reflect.String, reflect.Slice, reflect.Map, reflect.Array:
		return v.Len() == 0
	}
	return false
}

// StructField is one member a struct type writes: its key and the field's index
// path (through inlined structs).
type StructField struct {
	Key   string
	Index []int
}

// StructFields returns the members struct type t writes, in order, as the writer
// names them from their json tags.
func StructFields(t reflect.Type) []StructField {
	fields := fieldsOf(t)
	out := make([]StructField, len(fields))
	for i, f := range fields {
		out[i] = StructField{Key: f.key, Index: f.index}
	}
	return out
}
