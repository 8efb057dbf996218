package report

import (
	"reflect"

	"github.com/fbeval/fbeval/contract"
)

// Number returns the number at a dotted path of member names in the report, as
// its JSON would be read ("arms", "input_schema", "first_pass_success_percent"),
// and whether there is one: a null or a missing member is none, a boolean is 1 or
// 0. Gates are checked with it.
func (r *ToolcallReport) Number(path []string) (float64, bool) {
	v := reflect.ValueOf(r)
	for _, key := range path {
		var ok bool
		if v, ok = member(v, key); !ok {
			return 0, false
		}
	}
	v, ok := deref(v)
	if !ok {
		return 0, false
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(v.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return float64(v.Uint()), true
	case reflect.Float32, reflect.Float64:
		return v.Float(), true
	case reflect.Bool:
		if v.Bool() {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// NumberKeys returns the member names of a report type whose values are numbers
// (or null where a number may be missing), in order: the fields a gate can name.
// Lists, objects and strings are left out.
func NumberKeys(v any) []string {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var out []string
	for _, f := range contract.StructFields(t) {
		ft := t.FieldByIndex(f.Index).Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch ft.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
			reflect.Float32, reflect.Float64:
			out = append(out, f.Key)
		}
	}
	return out
}

// orderedMember is implemented by Ordered objects.
type orderedMember interface {
	member(key string) (any, bool)
}

func (o Ordered[T]) member(key string) (any, bool) {
	for i := range o {
		if o[i].Key == key {
			return &o[i].Value, true
		}
	}
	return nil, false
}

// member returns the member key of the object v holds.
func member(v reflect.Value, key string) (reflect.Value, bool) {
	v, ok := deref(v)
	if !ok {
		return v, false
	}
	if o, isOrdered := v.Interface().(orderedMember); isOrdered {
		m, found := o.member(key)
		return reflect.ValueOf(m), found
	}
	if v.Kind() != reflect.Struct {
		return v, false
	}
	for _, f := range contract.StructFields(v.Type()) {
		if f.Key == key {
			fv, err := v.FieldByIndexErr(f.Index)
			return fv, err == nil
		}
	}
	return v, false
}

func deref(v reflect.Value) (reflect.Value, bool) {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return v, false
		}
		v = v.Elem()
	}
	return v, v.IsValid()
}
