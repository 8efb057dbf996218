package schemas

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/contract/strictjson"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// bomb is a schema whose anyOf branches each $ref the next level twice: a
// few bytes a level, 2^levels subschemas a value. ref writes the reference
// to level i (a pointer, an anchor, ...) and def adds to level i's schema.
func bomb(levels int, ref func(i int) string, def func(i int, d map[string]any)) string {
	defs := map[string]any{}
	for i := range levels {
		next := map[string]any{"$ref": ref(i + 1)}
		d := map[string]any{"anyOf": []any{next, next}}
		def(i, d)
		defs[fmt.Sprintf("d%d", i)] = d
	}
	last := map[string]any{"not": map[string]any{}}
	def(levels, last)
	defs[fmt.Sprintf("d%d", levels)] = last
	out, _ := json.Marshal(map[string]any{"$defs": defs, "$ref": ref(0)})
	return string(out)
}

func pointerBomb(levels int) string {
	return bomb(levels, func(i int) string { return fmt.Sprintf("#/$defs/d%d", i) }, func(int, map[string]any) {})
}

func compileForTest(t *testing.T, schema string) *jsonschema.Schema {
	t.Helper()
	doc, err := strictjson.Parse(schema)
	if err != nil {
		t.Fatal(err)
	}
	c := NewCompiler()
	if err := c.AddResource(DocumentURL, Exact(doc)); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(DocumentURL)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestExpansion(t *testing.T) {
	for _, tc := range []struct {
		name, schema string
		want         int
	}{
		{"leaf", `{"type": "string"}`, 1},
		// properties go to the value's members, not its place
		{"properties", `{"type": "object", "properties": {"a": {"type": "string"}, "b": {"anyOf": [{"type": "integer"}, {"type": "null"}]}}}`, 1},
		{"a definition twice", `{"properties": {"a": {"$ref": "#/$defs/x"}, "b": {"$ref": "#/$defs/x"}}, "$defs": {"x": {"properties": {"c": {}}}}}`, 1},
		{"recursion", `{"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#"}}}}`, 1},
		{"tree", `{"$defs": {"n": {"properties": {"left": {"$ref": "#/$defs/n"}, "right": {"$ref": "#/$defs/n"}}}}, "$ref": "#/$defs/n"}`, 2},
		{"a reference back", `{"$defs": {"n": {"anyOf": [{"$ref": "#/$defs/n"}, {"type": "null"}]}}, "$ref": "#/$defs/n"}`, 5},
		{"unused definitions", `{"$defs": {"x": {"anyOf": [{}, {}, {}]}}}`, 1},
		{"bomb of 4", pointerBomb(4), 78}, // 1 + (1 + 2(1 + (1 + 2(...))))
	} {
		if n, at := Expansion(compileForTest(t, tc.schema), MaxExpansion); n != tc.want || at != "" {
			t.Errorf("%s: %d at %q, want %d", tc.name, n, at, tc.want)
		}
	}
}

// TestExpansionRefused: the shape that makes one value's checking
// exponential is refused however its references are written; reuse of
// definitions (many properties each a $ref to a shared one) and recursive
// unions (an expression tree, whose work grows with the output's depth, not
// at one place) are not.
func TestExpansionRefused(t *testing.T) {
	for name, schema := range map[string]string{
		"pointers": pointerBomb(24),
		"anchors":  bomb(24, func(i int) string { return fmt.Sprintf("#a%d", i) }, func(i int, d map[string]any) { d["$anchor"] = fmt.Sprintf("a%d", i) }),
		"ids": bomb(24, func(i int) string { return fmt.Sprintf("https://example.com/d%d.json", i) }, func(i int, d map[string]any) {
			d["$id"] = fmt.Sprintf("https://example.com/d%d.json", i)
		}),
		"dynamic": strings.ReplaceAll(bomb(24, func(i int) string { return fmt.Sprintf("#a%d", i) }, func(i int, d map[string]any) { d["$dynamicAnchor"] = fmt.Sprintf("a%d", i) }), `"$ref"`, `"$dynamicRef"`),
	} {
		if n, _ := Expansion(compileForTest(t, schema), MaxExpansion); n <= MaxExpansion {
			t.Errorf("%s: %d subschemas, want more than %d", name, n, MaxExpansion)
		}
	}
	// 4 environments × 40 sections × 25 settings, each a $ref: 4,000
	// properties in all, one subschema at each place
	settings := `{"type": "object", "properties": {"environments": {"type": "object", "properties": {"e": {"$ref": "#/$defs/env"}}}},
		"$defs": {"env": {"type": "object", "properties": {` + props("s", 40, "#/$defs/section") + `}},
		"section": {"type": "object", "properties": {` + props("o", 25, "#/$defs/setting") + `}},
		"setting": {"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"}, {"type": "null"}]}}}`
	// an expression tree as Pydantic writes one: a discriminated union whose
	// operators each refer back to it
	var ops []string
	for _, op := range []string{"Add", "Sub", "Mul", "Div"} {
		ops = append(ops, fmt.Sprintf(`"%s": {"type": "object", "properties": {"op": {"const": %q}, "left": {"$ref": "#/$defs/Expr"}, "right": {"$ref": "#/$defs/Expr"}}, "required": ["op", "left", "right"]}`, op, strings.ToLower(op)))
	}
	ast := `{"$defs": {` + strings.Join(ops, ", ") + `, "Num": {"type": "object", "properties": {"op": {"const": "num"}, "value": {"type": "number"}}},
		"Expr": {"oneOf": [{"$ref": "#/$defs/Add"}, {"$ref": "#/$defs/Sub"}, {"$ref": "#/$defs/Mul"}, {"$ref": "#/$defs/Div"}, {"$ref": "#/$defs/Num"}], "discriminator": {"propertyName": "op"}}},
		"$ref": "#/$defs/Expr"}`
	for name, schema := range map[string]string{"settings": settings, "expression tree": ast} {
		if n, at := Expansion(compileForTest(t, schema), MaxExpansion); n > 20 {
			t.Errorf("%s: %d at %q", name, n, at)
		}
	}
}

func props(prefix string, n int, ref string) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"%s%d": {"$ref": %q}`, prefix, i, ref)
	}
	return b.String()
}

// TestCompileRefusesExpansion: a 1.7 KB schema that took minutes and
// gigabytes to check one value against is refused at compile, at its line
// and column, in a moment.
func TestCompileRefusesExpansion(t *testing.T) {
	_, _, err := Compile([]byte(pointerBomb(24)))
	if err == nil || !strings.Contains(err.Error(), ": checking one value against it would visit more than 20000 subschemas") {
		t.Fatalf("%v", err)
	}
	if _, _, err := Compile([]byte(pointerBomb(10))); err != nil {
		t.Errorf("10 levels: %v", err)
	}
}
