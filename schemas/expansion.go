package schemas

import (
	"fmt"

	"github.com/fbeval/fbeval/contract/strictjson"
	"github.com/go-json-experiment/json/jsontext"
)

// MaxExpansion bounds the subschemas one value of an instance can be checked
// against (Expansion): a schema's tools take hundreds; a few hundred bytes of
// anyOf branches that each $ref the next level twice take 2^levels, which a
// validator walks for every value checked (24 levels, 1.7 KB: minutes and
// gigabytes for one output), and which no pattern or reference cycle check
// sees.
const MaxExpansion = 20_000

// Expansion counts the subschemas that checking one value against the schema
// document doc can visit, each $ref (and $dynamicRef) to a place in doc
// followed every time it is met, a reference back into one being counted
// (recursion, bounded by the instance's depth) once: the work of one instance
// value, before its own members and items multiply it. It stops counting past
// limit, and returns the pointer of the first subschema whose count passed it
// ("" when none did).
func Expansion(doc strictjson.Value, limit int) (count int, at string) {
	e := &expansion{doc: doc, limit: limit, memo: map[string]int{}}
	n := e.walk(doc, "")
	return n, e.over
}

type expansion struct {
	doc   strictjson.Value
	limit int
	memo  map[string]int // by pointer: a subschema's count, -1 while counting it
	over  string
}

// subschemaKeywords are the keywords whose value is one subschema, a list of
// them or an object of them; $defs and definitions hold subschemas that are
// reached only by reference, and count where referred to.
var (
	oneSubschema  = []string{"not", "if", "then", "else", "items", "additionalItems", "additionalProperties", "propertyNames", "contains", "unevaluatedItems", "unevaluatedProperties", "contentSchema"}
	listSubschema = []string{"allOf", "anyOf", "oneOf", "prefixItems", "items"}
	mapSubschema  = []string{"properties", "patternProperties", "dependentSchemas", "dependencies"}
)

func (e *expansion) walk(v strictjson.Value, ptr string) int {
	if v.Kind() != strictjson.Object {
		return 1
	}
	if n, ok := e.memo[ptr]; ok {
		if n < 0 {
			return 1 // a reference back into a subschema being counted
		}
		return n
	}
	e.memo[ptr] = -1
	n := 1
	add := func(k int) {
		n = min(n+k, e.limit+1)
	}
	for _, kw := range []string{"$ref", "$dynamicRef"} {
		if ref, ok := v.Get(kw); ok && ref.Kind() == strictjson.String {
			if target, ok := LocalRef(ref.Str()); ok {
				if t, ok := resolve(e.doc, target); ok {
					add(e.walk(t, string(target)))
				}
			} else if ref.Str() == "#" {
				add(e.walk(e.doc, ""))
			}
		}
	}
	for _, kw := range oneSubschema {
		if s, ok := v.Get(kw); ok && s.Kind() == strictjson.Object {
			add(e.walk(s, ptr+"/"+kw))
		}
	}
	for _, kw := range listSubschema {
		if l, ok := v.Get(kw); ok && l.Kind() == strictjson.Array {
			for i := range l.Len() {
				add(e.walk(l.Index(i), fmt.Sprintf("%s/%s/%d", ptr, kw, i)))
			}
		}
	}
	for _, kw := range mapSubschema {
		if m, ok := v.Get(kw); ok && m.Kind() == strictjson.Object {
			for _, mem := range m.Members() {
				add(e.walk(mem.Value, string(jsontext.Pointer(ptr+"/"+kw).AppendToken(mem.Key))))
			}
		}
	}
	if n > e.limit && e.over == "" {
		e.over = ptr
	}
	e.memo[ptr] = n
	return n
}

// ExpansionError refuses a schema document one value could be checked against
// more than MaxExpansion subschemas of, at the first subschema that passes it.
func ExpansionError(doc strictjson.Value) error {
	n, at := Expansion(doc, MaxExpansion)
	if n <= MaxExpansion {
		return nil
	}
	return &MetaschemaError{Pointer: at, Msg: fmt.Sprintf("checking one value against it would visit more than %d subschemas (its anyOf, oneOf, allOf and $ref nest so that each level multiplies the work): a schema that large is refused, as its checking would take minutes and gigabytes; write the branches once, in $defs each level refers to once", MaxExpansion)}
}
