package toolcall

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/fbeval/fbeval/contract/strictjson"
	"github.com/fbeval/fbeval/schemas"
	"github.com/fbeval/fbeval/score/relations"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// Schema is a compiled JSON Schema (Draft 2020-12 unless it says otherwise) with
// format assertions on and no way to reach files or networks.
type Schema struct {
	compiled *jsonschema.Schema
	fast     *schemas.Fast    // nil when the schema uses keywords the fast path lacks
	doc      strictjson.Value // the schema document, for probes
	// exact: the relation keywords do exact decimal arithmetic, so every number
	// reaches them as its JSON text
	exact bool
	// rest caches subschemas compiled with keywords left out (pycompat.go):
	// restKey -> *jsonschema.Schema, nil when that could not be compiled
	rest sync.Map
}

// instance converts v for the compiled validator.
func (s *Schema) instance(v strictjson.Value) any {
	if s.exact {
		return schemas.Exact(v)
	}
	return schemas.Instance(v)
}

// SchemaError is one leaf failure of a validation: where in the instance (RFC 6901
// pointer), which keyword (the last segment of its keyword location) and why.
type SchemaError struct {
	Path    string
	Keyword string
	Message string
}

// CompileSchema compiles a JSON Schema document with the one configuration of
// package schemas. The text is read strictly (strictjson.Parse); any $ref to
// something outside the document is an error naming it.
func CompileSchema(data []byte) (*Schema, error) {
	doc, err := strictjson.Parse(string(data))
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	return compileValue(doc)
}

func compileValue(doc strictjson.Value) (*Schema, error) {
	// fbeval's relation keywords (x-sum, x-compare, ...) compute with exact
	// decimals: only a schema that declares them gets them
	exact := doc.Kind() == strictjson.Object && relations.Declares(schemas.Exact(doc))
	var exts []schemas.Extension
	if exact {
		exts = append(exts, relations.Vocabulary)
	}
	sch, err := schemas.CompileValue(doc, exts...)
	if err != nil {
		return nil, err
	}
	var fast *schemas.Fast
	if !exact {
		fast = schemas.NewFast(sch)
	}
	return &Schema{compiled: sch, fast: fast, doc: doc, exact: exact}, nil
}

// Valid reports whether v satisfies the schema, without naming errors.
func (s *Schema) Valid(v strictjson.Value) bool {
	if s.fast != nil {
		return s.fast.Valid(v)
	}
	return s.compiled.Validate(s.instance(v)) == nil
}

// Validate validates v and returns its leaf errors, sorted by path, keyword and
// message; nil when v is valid.
func (s *Schema) Validate(v strictjson.Value) []SchemaError {
	return s.validate(v, "")
}

// validate is Validate with every path prefixed by prefix (a JSON Pointer). The
// fast path names the errors of the schemas it covers (schemas.Fast.Failures),
// the same leaves validateLib finds in the library's error tree, in one walk
// instead of a validation and a re-validation per early keyword.
func (s *Schema) validate(v strictjson.Value, prefix string) []SchemaError {
	if s.fast != nil {
		if s.fast.Valid(v) {
			return nil
		}
		if fs, ok := s.fast.Failures(v, nil); ok {
			out := make([]SchemaError, 0, len(fs))
			for _, f := range fs {
				out = appendLeaf(out, string(schemas.AppendPointer(jsontext.Pointer(prefix), f.Tokens)), f.Kind)
			}
			sortSchemaErrors(out)
			return out
		}
	}
	return s.validateLib(v, prefix)
}

// validateLib is validate by the library alone: what Fast.Failures must agree with.
func (s *Schema) validateLib(v strictjson.Value, prefix string) []SchemaError {
	err := s.compiled.Validate(s.instance(v))
	if err == nil {
		return nil
	}
	var verr *jsonschema.ValidationError
	if !errors.As(err, &verr) {
		return []SchemaError{{Path: prefix, Keyword: "", Message: strings.Join(strings.Fields(err.Error()), " ")}}
	}
	return s.flatten(verr, prefix, v)
}

// flatten turns jsonschema/v6's error tree for instance v into its leaves, as
// Python's jsonschema counts them (see pycompat.go), sorted.
func (s *Schema) flatten(root *jsonschema.ValidationError, prefix string, v strictjson.Value) []SchemaError {
	out := s.leaves(root, prefix, v, "", nil, 0)
	sortSchemaErrors(out)
	return out
}

// leaves walks an error tree with an explicit stack. A required error naming
// several properties becomes one error per property, and anyOf, oneOf and contains
// stay one error each, as Python's jsonschema reports them; after an error that
// made the library skip the rest of its subschema, what else fails there is added.
// inst is the instance the tree is about, at path prefix; fragment and dropped say
// which subschema (with which keywords left out) validated it, when depth > 0.
func (s *Schema) leaves(root *jsonschema.ValidationError, prefix string, inst strictjson.Value, fragment string, dropped []string, depth int) []SchemaError {
	var out []SchemaError
	for l := range schemas.Leaves(root, pyOneError) {
		e := l.ValidationError
		path := string(schemas.AppendPointer(jsontext.Pointer(prefix), e.InstanceLocation))
		// an anyOf whose branches each wanted another type: the types
		out = appendLeaf(out, path, schemas.AlternativesKind(e))
		if early := earlyKeyword(e.ErrorKind); early != "" {
			url, frag, ok := strings.Cut(e.SchemaURL, "#")
			sub, found := at(inst, e.InstanceLocation)
			if !ok || url != schemas.DocumentURL || !found {
				continue
			}
			drop := []string{early}
			if depth > 0 && frag == fragment && len(e.InstanceLocation) == 0 {
				drop = append(slices.Clone(dropped), early)
			}
			out = append(out, s.restErrors(frag, drop, sub, path, depth)...)
		}
	}
	return out
}

// appendLeaf appends the errors of one leaf of kind k at path: a required error
// naming several properties is one error per property, as Python's jsonschema
// reports it.
func appendLeaf(out []SchemaError, path string, k jsonschema.ErrorKind) []SchemaError {
	kw := keywordOf(k)
	switch k := k.(type) {
	case *kind.AdditionalProperties:
		if len(k.Properties) > 1 {
			// The library lists them in map order.
			sorted := &kind.AdditionalProperties{Properties: slices.Sorted(slices.Values(k.Properties))}
			return append(out, SchemaError{Path: path, Keyword: kw, Message: schemas.Message(sorted)})
		}
	case *kind.Required:
		for _, m := range k.Missing {
			out = append(out, SchemaError{Path: path, Keyword: kw, Message: requiredMessage(m)})
		}
		return out
	}
	return append(out, SchemaError{Path: path, Keyword: kw, Message: message(k)})
}

// keywordOf is the last keyword of k's keyword path ("" when it has none), for the
// kinds wrong answers make most without the library's allocation of the path.
func keywordOf(k jsonschema.ErrorKind) string {
	switch k.(type) {
	case *kind.Type:
		return "type"
	case *kind.Required:
		return "required"
	case *kind.AdditionalProperties:
		return "additionalProperties"
	case *kind.Enum:
		return "enum"
	case *kind.Const:
		return "const"
	case *kind.Format:
		return "format"
	case *kind.Minimum:
		return "minimum"
	case *kind.Maximum:
		return "maximum"
	case *kind.ExclusiveMinimum:
		return "exclusiveMinimum"
	case *kind.ExclusiveMaximum:
		return "exclusiveMaximum"
	case *kind.MinLength:
		return "minLength"
	case *kind.MaxLength:
		return "maxLength"
	case *kind.Pattern:
		return "pattern"
	}
	if kp := k.KeywordPath(); len(kp) > 0 {
		return kp[len(kp)-1]
	}
	return ""
}

// pyOneError reports whether Python's jsonschema reports an error of this kind as
// one error, however many subschemas failed under it.
func pyOneError(k jsonschema.ErrorKind) bool {
	switch k.(type) {
	case *kind.AnyOf, *kind.OneOf, *kind.Contains:
		return true
	}
	return false
}

// messages holds the library's message for each error met so far whose message
// depends on a few values only (the type found and wanted, a missing or an extra
// property's name, the number found and the bound, ...): wrong answers make the
// same few messages over and over, and the library's printer is slow. The values
// come from schemas and from what outputs got wrong, so the set stays small for a
// study; past maxMessages it is not added to.
var (
	messages    sync.Map // messageKey -> message
	messagesLen atomic.Int32
)

const maxMessages = 4096

// messageKey is what one message depends on: its kind and up to two strings and
// two numbers.
type messageKey struct {
	kind   string
	s1, s2 string
	n1, n2 uint64
}

// message is schemas.Message(k), from the cache where k's message has a key.
func message(k jsonschema.ErrorKind) string {
	key, ok := keyOf(k)
	if !ok {
		return schemas.Message(k)
	}
	if m, ok := messages.Load(key); ok {
		return m.(string)
	}
	msg := schemas.Message(k)
	if messagesLen.Add(1) <= maxMessages {
		key.s1, key.s2 = strings.Clone(key.s1), strings.Clone(key.s2)
		messages.Store(key, msg)
	}
	return msg
}

// keyOf returns the values k's message is made of (see kind's LocalizedString
// methods), or false for kinds whose message is not cached.
func keyOf(k jsonschema.ErrorKind) (messageKey, bool) {
	bound := func(name string, got, want *big.Rat) (messageKey, bool) {
		g, _ := got.Float64()
		w, _ := want.Float64()
		return messageKey{kind: name, n1: math.Float64bits(g), n2: math.Float64bits(w)}, true
	}
	switch k := k.(type) {
	case *kind.Required:
		if len(k.Missing) == 1 {
			return messageKey{kind: "required", s1: k.Missing[0]}, true
		}
	case *kind.AdditionalProperties:
		if len(k.Properties) == 1 {
			return messageKey{kind: "additionalProperties", s1: k.Properties[0]}, true
		}
	case *kind.Type:
		if len(k.Want) == 1 {
			return messageKey{kind: "type", s1: k.Got, s2: k.Want[0]}, true
		}
	case *kind.Minimum:
		return bound("minimum", k.Got, k.Want)
	case *kind.Maximum:
		return bound("maximum", k.Got, k.Want)
	case *kind.ExclusiveMinimum:
		return bound("exclusiveMinimum", k.Got, k.Want)
	case *kind.ExclusiveMaximum:
		return bound("exclusiveMaximum", k.Got, k.Want)
	case *kind.MinLength:
		return messageKey{kind: "minLength", n1: uint64(k.Got), n2: uint64(k.Want)}, true
	case *kind.MaxLength:
		return messageKey{kind: "maxLength", n1: uint64(k.Got), n2: uint64(k.Want)}, true
	}
	return messageKey{}, false
}

// requiredMessage is the library's message for one missing property.
func requiredMessage(name string) string {
	return message(&kind.Required{Missing: []string{name}})
}

func sortSchemaErrors(errs []SchemaError) {
	slices.SortFunc(errs, func(a, b SchemaError) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		if c := strings.Compare(a.Keyword, b.Keyword); c != 0 {
			return c
		}
		return strings.Compare(a.Message, b.Message)
	})
}
