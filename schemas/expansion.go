package schemas

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// MaxExpansion bounds the subschemas one value of an instance is checked
// against at its own place (Expansion). The built-in variants take at most
// 21, and a chart grammar's 1.9 MB schema, hundreds of definitions, passes;
// a few hundred bytes of anyOf branches that each $ref the next level twice
// take 2^levels, which a validator walks for every value checked (24
// levels, 1.7 KB: minutes and gigabytes for one output), and which no
// pattern or reference cycle check sees.
const MaxExpansion = 20_000

// Expansion counts the subschemas a value the compiled schema s is applied to
// is checked against at its own place: s, and every subschema applied there
// (allOf, anyOf, oneOf, not, if/then/else, dependent schemas and every
// reference, $anchor, $id and $dynamicRef ones too, as the compiler resolved
// them; a reference back into one being counted counts once), each as often
// as it is applied. It stops counting past limit, and gives the location of
// the subschema whose count passed it ("" when none did). Work that grows
// with the value's nesting (a recursive union whose branches each send a
// member back to it: 2^depth) is not counted here: how deep a value goes is
// the output's, not the schema's, and the usual recursive unions (an
// expression tree) cost little at the depths outputs have.
func Expansion(s *jsonschema.Schema, limit int) (count int, at string) {
	e := &expansion{limit: limit, n: map[*jsonschema.Schema]int{}}
	return e.inPlace(s), e.over
}

type expansion struct {
	limit int
	n     map[*jsonschema.Schema]int // a subschema's count at its place, -1 while counting it
	over  string
}

// inPlace counts the subschemas a value s is applied to is checked against
// at its own place, s included.
func (e *expansion) inPlace(s *jsonschema.Schema) int {
	if s == nil {
		return 0
	}
	if n, ok := e.n[s]; ok {
		if n < 0 {
			return 1 // a reference back into a subschema being counted
		}
		return n
	}
	e.n[s] = -1
	n := 1
	for _, c := range inPlaceChildren(s) {
		n = min(n+e.inPlace(c), e.limit+1)
	}
	if n > e.limit && e.over == "" {
		e.over = s.Location
	}
	e.n[s] = n
	return n
}

// inPlaceChildren are the subschemas s applies at the value's own place.
func inPlaceChildren(s *jsonschema.Schema) []*jsonschema.Schema {
	out := []*jsonschema.Schema{s.Ref, s.RecursiveRef, s.Not, s.If, s.Then, s.Else}
	if s.DynamicRef != nil {
		out = append(out, s.DynamicRef.Ref)
	}
	out = append(out, s.AllOf...)
	out = append(out, s.AnyOf...)
	out = append(out, s.OneOf...)
	for _, d := range s.DependentSchemas {
		out = append(out, d)
	}
	for _, d := range s.Dependencies {
		if c, ok := d.(*jsonschema.Schema); ok {
			out = append(out, c)
		}
	}
	return out
}

// ExpansionError refuses a compiled schema one value could be checked
// against more than MaxExpansion subschemas of, at the subschema that passes
// it (its pointer in the document the compiler knew as doc).
func ExpansionError(s *jsonschema.Schema, doc string) error {
	n, at := Expansion(s, MaxExpansion)
	if n <= MaxExpansion {
		return nil
	}
	return &MetaschemaError{Pointer: locationPointer(at, doc), Msg: fmt.Sprintf("checking one value against it would visit more than %d subschemas (anyOf, oneOf, allOf or references that apply a subschema more than once at a place double the work each level): a schema that large is refused, as its checking takes minutes and gigabytes", MaxExpansion)}
}

// locationPointer is the JSON Pointer in the document doc of a compiled
// subschema's location (doc#/ptr); "" (the document) for one the compiler
// placed under an $id of its own.
func locationPointer(loc, doc string) string {
	ptr, ok := strings.CutPrefix(loc, doc+"#")
	if !ok {
		return ""
	}
	if p, err := url.PathUnescape(ptr); err == nil {
		return p
	}
	return ptr
}
