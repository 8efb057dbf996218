package schemas

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// MaxExpansion bounds the subschemas one value of an instance can be checked
// against (Expansion). A tool's schema takes a handful, a large one (a chart
// grammar's, with hundreds of definitions) hundreds; a few hundred bytes of
// anyOf branches that each $ref the next level twice take 2^levels, and so
// do two allOf branches that each send a property of the value back to the
// schema (2^depth at the value's depth): a validator walks them for every
// value checked (24 levels, 1.7 KB: minutes and gigabytes for one output),
// and no pattern or reference cycle check sees them.
const MaxExpansion = 20_000

// expansionDepth is how deep below the document's value Expansion follows
// the subschemas a value's members and items are checked against: growth
// that doubles a level passes any bound well before it.
const expansionDepth = 64

// Expansion counts, for the compiled schema s, subschemas one value of an
// instance can be checked against, at any depth to expansionDepth: all those
// applied at the value's own place (allOf, anyOf, oneOf, not, if/then/else,
// dependent schemas and every reference, $anchor, $id and $dynamicRef ones
// too, as the compiler resolved them; a reference back into one being
// counted counts once), and, below, the most that one subschema its
// parent's members and items send there (properties, patternProperties,
// additionalProperties, items, prefixItems, contains and the unevaluated
// ones) takes, times how often the parent's subschemas send it there: a
// member that two branches each send back to the schema doubles a level.
// It stops counting past limit, and says where: the location of the
// subschema whose count passed it, and the depth below the document's value
// ("" and 0 when none did).
func Expansion(s *jsonschema.Schema, limit int) (count int, at string, depth int) {
	e := &expansion{limit: limit, n: map[*jsonschema.Schema]int{}, closures: map[*jsonschema.Schema]map[*jsonschema.Schema]int{}}
	n := e.inPlace(s)
	if n > limit {
		return n, e.over, 0
	}
	// W_d(S): the most subschemas a value up to d levels below one S is
	// applied to is checked against, along one subschema a level (a member
	// sent to the same subschema by two of the value's subschemas counts
	// twice): a count some value of that shape takes, never more (summing
	// the subschemas a child is sent to, each at its own worst below, would
	// join paths no one value has, and refuse a chart grammar's schema)
	states := []*jsonschema.Schema{s}
	index := map[*jsonschema.Schema]int{s: 0}
	var edges [][]map[int]int // per state: per key, the states sent there and how often
	for i := 0; i < len(states); i++ {
		var perKey []map[int]int
		for _, child := range e.children(states[i]) {
			m := map[int]int{}
			for t, c := range child {
				j, ok := index[t]
				if !ok {
					j = len(states)
					index[t] = j
					states = append(states, t)
				}
				m[j] += c
			}
			perKey = append(perKey, m)
		}
		edges = append(edges, perKey)
	}
	w := make([]int, len(states))
	for i, st := range states {
		w[i] = e.inPlace(st)
	}
	next := make([]int, len(states))
	for d := 1; d <= expansionDepth; d++ {
		changed := false
		for i := range states {
			best := 0
			for _, m := range edges[i] {
				for j, c := range m {
					best = max(best, min(c*w[j], limit+1))
				}
			}
			next[i] = max(e.n[states[i]], best)
			changed = changed || next[i] != w[i]
		}
		w, next = next, w
		if w[0] > limit {
			return w[0], s.Location, d
		}
		if !changed {
			break
		}
	}
	return max(n, w[0]), "", 0
}

type expansion struct {
	limit    int
	n        map[*jsonschema.Schema]int // a subschema's count at its place, -1 while counting it
	over     string
	closures map[*jsonschema.Schema]map[*jsonschema.Schema]int
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

// closure is the subschemas applied at a value's place when s is, each with
// how often; nil when there are more than the limit (inPlace says so).
func (e *expansion) closure(s *jsonschema.Schema, times int, out map[*jsonschema.Schema]int, seen map[*jsonschema.Schema]bool) {
	if s == nil || seen[s] {
		if s != nil {
			out[s] += times // a reference back: counted once more, not followed
		}
		return
	}
	out[s] += times
	seen[s] = true
	for _, c := range inPlaceChildren(s) {
		e.closure(c, times, out, seen)
	}
	delete(seen, s)
}

// children are, for each kind of member or item a value's child can be (a
// property name the subschemas name, any other name, an item, a property
// name itself), the subschemas applied at the child when s is applied at the
// value, each with how often.
func (e *expansion) children(s *jsonschema.Schema) []map[*jsonschema.Schema]int {
	if e.inPlace(s) > e.limit {
		return nil
	}
	here := map[*jsonschema.Schema]int{}
	e.closure(s, 1, here, map[*jsonschema.Schema]bool{})
	names := map[string]bool{}
	for u := range here {
		for k := range u.Properties {
			names[k] = true
		}
	}
	add := func(m map[*jsonschema.Schema]int, c *jsonschema.Schema, times int) {
		if c != nil {
			m[c] += times
		}
	}
	other := map[*jsonschema.Schema]int{}
	items := map[*jsonschema.Schema]int{}
	keyNames := map[*jsonschema.Schema]int{}
	byName := map[string]map[*jsonschema.Schema]int{}
	for k := range names {
		byName[k] = map[*jsonschema.Schema]int{}
	}
	for u, times := range here {
		extra, _ := u.AdditionalProperties.(*jsonschema.Schema)
		var patterns []*jsonschema.Schema
		for _, p := range u.PatternProperties {
			patterns = append(patterns, p) // a pattern may match any name
		}
		for k, m := range byName {
			if p, ok := u.Properties[k]; ok {
				add(m, p, times)
			} else {
				add(m, extra, times)
			}
			for _, p := range patterns {
				add(m, p, times)
			}
			add(m, u.UnevaluatedProperties, times)
		}
		add(other, extra, times)
		for _, p := range patterns {
			add(other, p, times)
		}
		add(other, u.UnevaluatedProperties, times)
		add(keyNames, u.PropertyNames, times)
		switch it := u.Items.(type) {
		case *jsonschema.Schema:
			add(items, it, times)
		case []*jsonschema.Schema:
			for _, c := range it {
				add(items, c, times)
			}
		}
		if c, ok := u.AdditionalItems.(*jsonschema.Schema); ok {
			add(items, c, times)
		}
		for _, c := range u.PrefixItems {
			add(items, c, times)
		}
		add(items, u.Items2020, times)
		add(items, u.Contains, times)
		add(items, u.UnevaluatedItems, times)
	}
	out := []map[*jsonschema.Schema]int{e.spread(other), e.spread(items), e.spread(keyNames)}
	for _, m := range byName {
		out = append(out, e.spread(m))
	}
	return out
}

// spread is m with each subschema's place-mates added (its closure, each as
// often as it is applied): a member that two subschemas send to two
// wrappers of one reference ({"$ref": "#/$defs/d"} written twice) is sent to
// that definition twice.
func (e *expansion) spread(m map[*jsonschema.Schema]int) map[*jsonschema.Schema]int {
	out := map[*jsonschema.Schema]int{}
	for t, c := range m {
		if e.inPlace(t) > e.limit {
			out[t] += c // counted as it is: over the limit already
			continue
		}
		cl, ok := e.closures[t]
		if !ok {
			cl = map[*jsonschema.Schema]int{}
			e.closure(t, 1, cl, map[*jsonschema.Schema]bool{})
			e.closures[t] = cl
		}
		for u, k := range cl {
			out[u] = min(out[u]+c*k, e.limit+1)
		}
	}
	return out
}

// ExpansionError refuses a compiled schema one value could be checked
// against more than MaxExpansion subschemas of, at the subschema that passes
// it (its pointer in the document the compiler knew as doc).
func ExpansionError(s *jsonschema.Schema, doc string) error {
	n, at, depth := Expansion(s, MaxExpansion)
	if n <= MaxExpansion {
		return nil
	}
	where := "one value"
	if depth > 0 {
		where = fmt.Sprintf("a value %d levels deep", depth)
	}
	return &MetaschemaError{Pointer: locationPointer(at, doc), Msg: fmt.Sprintf("checking %s against it would visit more than %d subschemas (anyOf, oneOf, allOf or references that apply a subschema more than once at a place, or send a value's members back to it more than once, double the work each level): a schema that large is refused, as its checking takes minutes and gigabytes", where, MaxExpansion)}
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
