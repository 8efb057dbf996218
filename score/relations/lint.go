package relations

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/fbeval/fbeval/schemas"
	"github.com/go-json-experiment/json/jsontext"
)

// LintFinding is one problem Lint found in a contract.
type LintFinding struct {
	Severity string // "error" or "warning"
	Code     string // e.g. UNRESOLVED_POINTER
	Location string // schema location, "#/properties/lines"
	Message  string
}

// maxLintDepth bounds the schema walk; deeper schemas are reported, not walked.
const maxLintDepth = 64

// Lint checks a contract statically: relation pointers that cannot resolve through
// the schema's properties and items, x-compare between incompatible declared types,
// computed targets that the schema also requires, unknown x- keywords and bindings
// that point nowhere. Findings are sorted by location, then code.
func Lint(c *Contract) []LintFinding {
	var out []LintFinding
	add := func(sev, code, loc, format string, args ...any) {
		out = append(out, LintFinding{sev, code, loc, fmt.Sprintf(format, args...)})
	}
	root, _ := c.Schema.(map[string]any)
	type frame struct {
		obj   map[string]any
		loc   string
		depth int
		inst  []string // the instance path the schema is of ("*": each item); nil where none is known ($defs)
	}
	stack := []frame{}
	if root != nil {
		stack = append(stack, frame{root, "#", 0, []string{}})
	}
	var computed []computedRel
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if f.depth > maxLintDepth {
			add("warning", "TOO_DEEP", f.loc, "schema nested deeper than %d: not linted below", maxLintDepth)
			continue
		}
		lintObject(root, f.obj, f.loc, add)
		if f.inst != nil {
			computed = append(computed, computedRels(f.obj, f.loc, f.inst)...)
		}
		// the instance path of a subschema: a property's, an item's ("*"),
		// or the same (allOf and the like); none for the rest ($defs)
		sub := func(extra ...string) []string {
			if f.inst == nil {
				return nil
			}
			return append(slices.Clone(f.inst), extra...)
		}
		for _, key := range []string{"properties", "$defs", "patternProperties", "dependentSchemas"} {
			if m, ok := f.obj[key].(map[string]any); ok {
				for _, k := range sortedKeys(m) {
					if s, ok := m[k].(map[string]any); ok {
						var inst []string
						if key == "properties" {
							inst = sub(k)
						}
						stack = append(stack, frame{s, string(jsontext.Pointer(f.loc + "/" + key).AppendToken(k)), f.depth + 1, inst})
					}
				}
			}
		}
		for _, key := range []string{"items", "additionalProperties", "not", "if", "then", "else", "contains"} {
			if s, ok := f.obj[key].(map[string]any); ok {
				var inst []string
				switch key {
				case "items":
					inst = sub("*")
				case "if", "then", "else":
					inst = sub()
				}
				stack = append(stack, frame{s, f.loc + "/" + key, f.depth + 1, inst})
			}
		}
		for _, key := range []string{"allOf", "anyOf", "oneOf", "prefixItems"} {
			if l, ok := f.obj[key].([]any); ok {
				for i, s := range l {
					if s, ok := s.(map[string]any); ok {
						var inst []string
						if key != "prefixItems" {
							inst = sub()
						}
						stack = append(stack, frame{s, f.loc + "/" + key + "/" + strconv.Itoa(i), f.depth + 1, inst})
					}
				}
			}
		}
	}
	if loc, path := computedCycle(computed); loc != "" {
		add("error", "COMPUTED_CYCLE", loc, "computed targets depend on each other (%s): none can be computed, and --assemble leaves them out", path)
	}
	for _, b := range c.bindings {
		if root != nil && subschemaAt(root, root, b.out.tokens) == nil {
			add("warning", "UNRESOLVED_POINTER", "#/bindings", "binding %s does not resolve through the schema's properties", b.out.text)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Location != out[j].Location {
			return out[i].Location < out[j].Location
		}
		if out[i].Code != out[j].Code {
			return out[i].Code < out[j].Code
		}
		return out[i].Message < out[j].Message
	})
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// lintObject checks the relation keywords of one schema object.
func lintObject(root, obj map[string]any, loc string, add func(sev, code, loc, format string, args ...any)) {
	for _, k := range sortedKeys(obj) {
		if strings.HasPrefix(k, "x-") && !slices.Contains(Keywords, k) {
			add("error", "UNKNOWN_KEYWORD", string(jsontext.Pointer(loc).AppendToken(k)), "unknown keyword %s: it is ignored by validators", k)
		}
	}
	items, _ := obj["items"].(map[string]any)
	resolves := func(base map[string]any, kwLoc, s string) {
		p, err := parsePointer(s, true)
		if err != nil || base == nil {
			return // compile already refused bad pointers
		}
		if len(p.tokens) > 0 && subschemaAt(root, base, p.tokens) == nil {
			add("warning", "UNRESOLVED_POINTER", kwLoc, "pointer %s does not resolve through the schema's properties and items", s)
		}
	}
	for _, kw := range Keywords {
		raw, ok := obj[kw]
		if !ok {
			continue
		}
		list := asList(raw)
		_, isList := raw.([]any)
		for i, entry := range list {
			kwLoc := loc + "/" + kw
			if isList {
				kwLoc += "/" + strconv.Itoa(i)
			}
			m, _ := entry.(map[string]any)
			switch kw {
			case "x-uniqueKeys":
				keys, _ := entry.([]any)
				for _, k := range keys {
					if s, ok := k.(string); ok {
						resolves(items, kwLoc, s)
					}
				}
			case "x-ordered", "x-nonOverlapping":
				for _, f := range []string{"by", "start", "end"} {
					if s, ok := m[f].(string); ok {
						resolves(items, kwLoc, s)
					}
				}
			case "x-compare":
				var kinds, declared [2]string
				for j, side := range []string{"left", "right"} {
					if s, ok := m[side].(string); ok {
						resolves(obj, kwLoc, s)
						if p, err := parsePointer(s, false); err == nil {
							kinds[j], declared[j] = declaredKind(subschemaAt(root, obj, p.tokens))
						}
					}
				}
				if as, _ := m["as"].(string); as != "" {
					// as reads a string side as a decimal or an instant
					asKind := map[string]string{"decimal": "number", "date": "instant", "date-time": "instant"}[as]
					for j := range kinds {
						if kinds[j] == "string" && asKind != "" {
							kinds[j] = asKind
						}
					}
				}
				if kinds[0] != "" && kinds[1] != "" && kinds[0] != kinds[1] {
					add("error", "INCOMPATIBLE_COMPARE", kwLoc, "x-compare %v with %v: declared %s vs %s always fails",
						m["left"], m["right"], declared[0], declared[1])
				}
			case "x-count", "x-sum", "x-product", "x-references", "x-decimal":
				for _, f := range []string{"target", "of", "from", "to"} {
					if s, ok := m[f].(string); ok {
						resolves(obj, kwLoc, s)
					}
				}
				if of, ok := m["of"].(string); ok {
					// x-sum's field is into each item of the list of
					if f, ok := m["field"].(string); ok {
						if p, err := parsePointer(of, false); err == nil {
							if list := subschemaAt(root, obj, p.tokens); list != nil {
								its, _ := list["items"].(map[string]any)
								resolves(its, kwLoc, f)
							}
						}
					}
				}
				if fs, ok := m["factors"].([]any); ok {
					for _, f := range fs {
						if s, ok := f.(string); ok {
							resolves(obj, kwLoc, s)
						}
					}
				}
				if s, ok := m["expr"].(string); ok {
					if e, err := parseExpr(s); err == nil {
						for _, p := range e.pointers(nil) {
							resolves(obj, kwLoc, p.text)
						}
					}
				}
				if m["compute"] == "application" {
					if s, ok := m["target"].(string); ok {
						if p, err := parsePointer(s, false); err == nil && len(p.tokens) > 0 {
							parent := subschemaAt(root, obj, p.tokens[:len(p.tokens)-1])
							if req, ok := parent["required"].([]any); ok && slices.Contains(req, any(p.tokens[len(p.tokens)-1])) {
								add("error", "COMPUTED_REQUIRED", kwLoc, "target %s is computed by the application but the schema requires it: raw outputs that omit it fail", s)
							}
						}
					}
				}
			}
		}
	}
}

// declaredKind is the comparison kind a schema declares: number (decimal strings
// included), string, instant (for date and date-time), boolean, or "" when it
// does not say; and what it declares, in the schema's words, for a message.
func declaredKind(s map[string]any) (kind, declared string) {
	if s == nil {
		return "", ""
	}
	if f, _ := s["format"].(string); f == "date" || f == "date-time" {
		return "instant", f
	}
	if isDecimalSchema(s) {
		return "number", "decimal string" // compares with numbers by value
	}
	switch t, _ := s["type"].(string); t {
	case "integer", "number", "string", "boolean", "null", "array", "object":
		kind := t
		if t == "integer" {
			kind = "number"
		}
		return kind, t
	}
	return "", ""
}

// computedRel is a target the application computes (compute: application)
// and the instance paths its value is computed from, "*" for each item.
type computedRel struct {
	loc    string
	target []string
	from   [][]string
}

// computedRels are the computed targets of one schema object, of the instance
// at inst.
func computedRels(obj map[string]any, loc string, inst []string) []computedRel {
	var out []computedRel
	abs := func(s string) []string {
		p, err := parsePointer(s, true)
		if err != nil {
			return nil
		}
		return append(slices.Clone(inst), p.tokens...)
	}
	for _, kw := range []string{"x-count", "x-sum", "x-product"} {
		for _, entry := range asList(obj[kw]) {
			m, _ := entry.(map[string]any)
			t, _ := m["target"].(string)
			if m == nil || m["compute"] != "application" || t == "" {
				continue
			}
			rel := computedRel{loc: loc + "/" + kw, target: abs(t)}
			if of, ok := m["of"].(string); ok {
				from := abs(of)
				if f, ok := m["field"].(string); ok {
					if p, err := parsePointer(f, true); err == nil {
						from = append(append(from, "*"), p.tokens...)
					}
				}
				rel.from = append(rel.from, from)
			}
			if fs, ok := m["factors"].([]any); ok {
				for _, f := range fs {
					if s, ok := f.(string); ok {
						rel.from = append(rel.from, abs(s))
					}
				}
			}
			out = append(out, rel)
		}
	}
	return out
}

// computedCycle finds computed targets that depend on each other: the first
// one's location and the path of targets ("/a <- /b <- /a"), "" when none do.
// A target depends on another when a path it is computed from holds it (the
// same path, or one above it; "*" matches any item).
func computedCycle(rels []computedRel) (loc, path string) {
	holds := func(from, target []string) bool {
		if len(from) > len(target) {
			return false
		}
		for i, t := range from {
			if t != target[i] && t != "*" && target[i] != "*" {
				return false
			}
		}
		return true
	}
	text := func(toks []string) string { return string(schemas.Pointer(toks)) }
	state := make([]int, len(rels)) // 0 unseen, 1 on the path, 2 done
	var stack []int
	var visit func(i int) bool
	visit = func(i int) bool {
		state[i] = 1
		stack = append(stack, i)
		for _, from := range rels[i].from {
			for j := range rels {
				if !holds(from, rels[j].target) {
					continue
				}
				if state[j] == 1 {
					k := slices.Index(stack, j)
					names := []string{}
					for _, n := range stack[k:] {
						names = append(names, text(rels[n].target))
					}
					loc, path = rels[j].loc, strings.Join(append(names, text(rels[j].target)), " <- ")
					return true
				}
				if state[j] == 0 && visit(j) {
					return true
				}
			}
		}
		stack = stack[:len(stack)-1]
		state[i] = 2
		return false
	}
	for i := range rels {
		if state[i] == 0 && visit(i) {
			return loc, path
		}
	}
	return "", ""
}
