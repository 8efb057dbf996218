package schemas

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/fbeval/fbeval/contract/strictjson"
	"github.com/go-json-experiment/json/jsontext"
)

// maxRefHops bounds how many top-level $refs FieldsAt follows, so a ring of
// definitions that name each other ends.
const maxRefHops = 8

// FieldsAt finds the schema that names a tool's fields in a schema document:
// the document itself, or, where its top level names no properties of its own
// but a "$ref" to a definition of the same document ("#/definitions/book_room",
// as zod-to-json-schema writes a named schema; "#/$defs/Args"), that
// definition, through at most maxRefHops such refs. It returns the schema's
// JSON Pointer in the document ("" for the document itself) and the schema. A
// $ref beside other composition (allOf, if/then, ...) is composition, a $ref
// to another document or to an anchor names no place here, and a definition
// with an $id of its own resolves its refs against that: each leaves the
// schema where it is.
func FieldsAt(doc strictjson.Value) (jsontext.Pointer, strictjson.Value) {
	var at jsontext.Pointer
	cur := doc
	for range maxRefHops {
		next, ptr, ok := follow(doc, cur, at != "")
		if !ok {
			return at, cur
		}
		at, cur = ptr, next
	}
	return "", doc // a ring of refs
}

// follow takes one step of FieldsAt from cur, a schema of doc (a definition
// when inner).
func follow(doc, cur strictjson.Value, inner bool) (strictjson.Value, jsontext.Pointer, bool) {
	if cur.Kind() != strictjson.Object {
		return cur, "", false
	}
	if _, ok := cur.Get("properties"); ok {
		return cur, "", false
	}
	if _, ok := cur.Get("$id"); ok && inner {
		return cur, "", false
	}
	ref, ok := cur.Get("$ref")
	if !ok || ref.Kind() != strictjson.String || composedBeside(cur, "$ref") {
		return cur, "", false
	}
	ptr, ok := LocalRef(ref.Str())
	if !ok {
		return cur, "", false
	}
	next, ok := resolve(doc, ptr)
	if !ok || next.Kind() != strictjson.Object {
		return cur, "", false
	}
	return next, ptr, true
}

// composedBeside reports whether obj takes fields by composition other than
// by the keyword but.
func composedBeside(obj strictjson.Value, but string) bool {
	for _, k := range composing {
		if k == but {
			continue
		}
		if _, ok := obj.Get(k); ok {
			return true
		}
	}
	return false
}

// LocalRef reads a $ref that names a place in its own document by a JSON
// Pointer in the URI fragment ("#/$defs/Args", percent-encoded as a URI
// fragment may be): false for another document, an anchor, or the document
// itself.
func LocalRef(ref string) (jsontext.Pointer, bool) {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok || !strings.HasPrefix(frag, "/") {
		return "", false
	}
	frag, err := url.PathUnescape(frag)
	if err != nil {
		return "", false
	}
	p := jsontext.Pointer(frag)
	return p, p.IsValid()
}

// resolve finds the value at ptr in doc.
func resolve(doc strictjson.Value, ptr jsontext.Pointer) (strictjson.Value, bool) {
	cur := doc
	for tok := range ptr.Tokens() {
		switch cur.Kind() {
		case strictjson.Object:
			next, ok := cur.Get(tok)
			if !ok {
				return strictjson.Value{}, false
			}
			cur = next
		case strictjson.Array:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= cur.Len() || strconv.Itoa(i) != tok {
				return strictjson.Value{}, false
			}
			cur = cur.Index(i)
		default:
			return strictjson.Value{}, false
		}
	}
	return cur, true
}

// ArgumentNames lists the names of a tool's arguments in a schema document,
// in the order written: the properties of the schema that names its fields
// (FieldsAt), or, where that names none but is a union (oneOf, anyOf: a
// discriminated union, as Pydantic and Zod write one), the properties of its
// branches, each once, in the order the branches name them. Nil for a tool of
// no arguments.
func ArgumentNames(doc strictjson.Value) []string {
	_, fields := FieldsAt(doc)
	var names []string
	add := func(schema strictjson.Value) {
		props, _ := schema.Get("properties")
		if props.Kind() != strictjson.Object {
			return
		}
		for _, m := range props.Members() {
			if !slices.Contains(names, m.Key) {
				names = append(names, m.Key)
			}
		}
	}
	add(fields)
	if len(names) > 0 {
		return names
	}
	for _, union := range []string{"oneOf", "anyOf"} {
		branches, _ := fields.Get(union)
		if branches.Kind() != strictjson.Array {
			continue
		}
		for i := range branches.Len() {
			b := branches.Index(i)
			if ref, ok := b.Get("$ref"); ok && ref.Kind() == strictjson.String {
				if ptr, ok := LocalRef(ref.Str()); ok {
					if def, ok := resolve(doc, ptr); ok {
						b = def
					}
				}
			}
			add(b)
		}
	}
	return names
}
