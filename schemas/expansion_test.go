package schemas

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/contract/strictjson"
)

// bomb is a schema whose anyOf branches each $ref the next level twice: a
// few bytes a level, 2^levels subschemas a value.
func bomb(levels int) string {
	defs := map[string]any{}
	for i := range levels {
		next := map[string]any{"$ref": fmt.Sprintf("#/$defs/d%d", i+1)}
		defs[fmt.Sprintf("d%d", i)] = map[string]any{"anyOf": []any{next, next}}
	}
	defs[fmt.Sprintf("d%d", levels)] = map[string]any{"not": map[string]any{}}
	out, _ := json.Marshal(map[string]any{"$defs": defs, "$ref": "#/$defs/d0"})
	return string(out)
}

func TestExpansion(t *testing.T) {
	for _, tc := range []struct {
		name, schema string
		want         int
	}{
		{"leaf", `{"type": "string"}`, 1},
		{"properties", `{"type": "object", "properties": {"a": {"type": "string"}, "b": {"anyOf": [{"type": "integer"}, {"type": "null"}]}}}`, 5},
		{"a definition twice", `{"properties": {"a": {"$ref": "#/$defs/x"}, "b": {"$ref": "#/$defs/x"}}, "$defs": {"x": {"properties": {"c": {}}}}}`, 7},
		{"recursion", `{"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#"}}}}`, 4},
		{"unused definitions", `{"$defs": {"x": {"anyOf": [{}, {}, {}]}}}`, 1},
		{"bomb of 4", bomb(4), 78}, // 1 + (1 + 2(1 + (1 + 2(...))))
	} {
		doc, err := strictjson.Parse(tc.schema)
		if err != nil {
			t.Fatal(err)
		}
		if n, at := Expansion(doc, MaxExpansion); n != tc.want || at != "" {
			t.Errorf("%s: %d at %q, want %d", tc.name, n, at, tc.want)
		}
	}
}

// TestCompileRefusesExpansion: a 1.7 KB schema that took minutes and
// gigabytes to check one value against is refused at compile, at the first
// level past the bound, in a moment.
func TestCompileRefusesExpansion(t *testing.T) {
	_, _, err := Compile([]byte(bomb(24)))
	if err == nil || !strings.Contains(err.Error(), "schema: /$defs/d12: checking one value against it would visit more than 20000 subschemas") {
		t.Fatalf("%v", err)
	}
	if _, _, err := Compile([]byte(bomb(10))); err != nil {
		t.Errorf("10 levels: %v", err)
	}
}
