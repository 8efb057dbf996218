package toolcall

import (
	"errors"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/fbeval/fbeval/schemas"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/fbeval/fbeval/contract/strictjson"
)

// HESchema validates with Python's jsonschema package, which reports every keyword
// that fails: this file counts errors as it does. (Formats and patterns are read
// the Python way by the one compiler configuration, schemas.NewCompiler.)

// Python's jsonschema reports every keyword that fails (iter_errors); jsonschema/v6
// stops at the first failing type, const, enum or format of a subschema. A value
// of the wrong type for {"type": "string", "enum": [...]}, or 50.5 for {"type":
// "integer", "maximum": 9}, is two errors in Python and one here. So after such an
// error the subschema is validated again without that keyword, and what else fails
// is added: the same errors, counted the same way. anyOf, oneOf and contains stay
// one error each, as Python reports them.

// maxRestDepth bounds the re-validations one error can start (each goes deeper
// into the instance or drops one more keyword).
const maxRestDepth = 64

// earlyKeyword returns the keyword of an error after which jsonschema/v6 skips the
// rest of the subschema ("" for other errors).
func earlyKeyword(k any) string {
	switch k.(type) {
	case *kind.Type:
		return "type"
	case *kind.Const:
		return "const"
	case *kind.Enum:
		return "enum"
	case *kind.Format:
		return "format"
	}
	return ""
}

// restKey names a subschema with some keywords dropped.
type restKey struct {
	fragment string
	dropped  string // sorted, comma-separated
}

// restErrors validates inst (at instance path path) against the subschema at
// fragment with the keywords dropped, and returns its errors, flattened.
func (s *Schema) restErrors(fragment string, dropped []string, inst strictjson.Value, path string, depth int) []SchemaError {
	if depth > maxRestDepth || s.exact {
		return nil
	}
	slices.Sort(dropped)
	key := restKey{fragment, strings.Join(dropped, ",")}
	var sub *jsonschema.Schema
	if c, ok := s.rest.Load(key); ok {
		sub, _ = c.(*jsonschema.Schema)
	} else {
		sub = s.compileWithout(fragment, dropped)
		s.rest.Store(key, sub) // nil too: do not try again
	}
	if sub == nil {
		return nil
	}
	err := sub.Validate(schemas.Instance(inst))
	var verr *jsonschema.ValidationError
	if err == nil || !errors.As(err, &verr) {
		return nil
	}
	return s.leaves(verr, path, inst, fragment, dropped, depth+1)
}

// compileWithout compiles the subschema at fragment of s's document with the
// keywords dropped there; nil when that fails (the error then stays alone).
func (s *Schema) compileWithout(fragment string, dropped []string) *jsonschema.Schema {
	var tokens []string
	if fragment != "" {
		if !strings.HasPrefix(fragment, "/") {
			return nil
		}
		// a JSON Pointer, URL-escaped (a / in a name is ~1, never %2F)
		ptr, err := url.PathUnescape(fragment)
		if err != nil {
			return nil
		}
		tokens = slices.Collect(jsontext.Pointer(ptr).Tokens())
	}
	doc, ok := withoutKeywords(schemas.Exact(s.doc), tokens, dropped)
	if !ok {
		return nil
	}
	c := schemas.NewCompiler()
	if err := c.AddResource(schemas.DocumentURL, doc); err != nil {
		return nil
	}
	sub, err := c.Compile(schemas.DocumentURL + "#" + fragment)
	if err != nil {
		return nil
	}
	return sub
}

// withoutKeywords returns doc with the keywords deleted from the schema object at
// tokens (a copy along that path; the rest is shared).
func withoutKeywords(doc any, tokens, keywords []string) (any, bool) {
	if len(tokens) == 0 {
		m, ok := doc.(map[string]any)
		if !ok {
			return nil, false
		}
		out := make(map[string]any, len(m))
		for k, v := range m {
			if !slices.Contains(keywords, k) {
				out[k] = v
			}
		}
		return out, true
	}
	switch d := doc.(type) {
	case map[string]any:
		child, ok := d[tokens[0]]
		if !ok {
			return nil, false
		}
		nc, ok := withoutKeywords(child, tokens[1:], keywords)
		if !ok {
			return nil, false
		}
		out := maps.Clone(d)
		out[tokens[0]] = nc
		return out, true
	case []any:
		i, err := strconv.Atoi(tokens[0])
		if err != nil || i < 0 || i >= len(d) {
			return nil, false
		}
		nc, ok := withoutKeywords(d[i], tokens[1:], keywords)
		if !ok {
			return nil, false
		}
		out := slices.Clone(d)
		out[i] = nc
		return out, true
	}
	return nil, false
}

// at returns the value at an instance location (tokens as the library gives them).
func at(v strictjson.Value, tokens []string) (strictjson.Value, bool) {
	for _, t := range tokens {
		switch v.Kind() {
		case strictjson.Object:
			var ok bool
			if v, ok = v.Get(t); !ok {
				return strictjson.Value{}, false
			}
		case strictjson.Array:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= v.Len() {
				return strictjson.Value{}, false
			}
			v = v.Index(i)
		default:
			return strictjson.Value{}, false
		}
	}
	return v, true
}
