package schemas

import (
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

func TestResolve(t *testing.T) {
	doc := map[string]any{
		"a":   []any{"x", map[string]any{"b": 1.0}},
		"c/d": "slash",
		"e~f": "tilde",
		"":    "empty",
		"n":   nil,
	}
	for _, tc := range []struct {
		ptr  string
		want any
		ok   bool
	}{
		{"", doc, true},
		{"/a/0", "x", true},
		{"/a/1/b", 1.0, true},
		{"/c~1d", "slash", true},
		{"/e~0f", "tilde", true},
		{"/", "empty", true},
		{"/n", nil, true},
		{"/a/2", nil, false},
		{"/a/-1", nil, false},
		{"/a/01", nil, false},
		{"/a/+1", nil, false},
		{"/a/-", nil, false},
		{"/missing", nil, false},
		{"/a/0/x", nil, false},
		{"/n/x", nil, false},
	} {
		got, ok := Resolve(doc, jsontext.Pointer(tc.ptr))
		if ok != tc.ok {
			t.Errorf("Resolve(%q) ok = %v, want %v", tc.ptr, ok, tc.ok)
			continue
		}
		if tc.ptr == "" {
			continue
		}
		if ok && got != tc.want {
			t.Errorf("Resolve(%q) = %v, want %v", tc.ptr, got, tc.want)
		}
	}
}
