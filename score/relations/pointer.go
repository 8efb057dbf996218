package relations

import (
	"fmt"
	"strconv"
	"strings"
)

// maxPointerTokens bounds pointer length so that a hostile contract cannot make
// resolution walk without end.
const maxPointerTokens = 64

// pointer is a parsed JSON Pointer (RFC 6901). A token "*" means every item of an
// array where the pointer allows wildcards.
type pointer struct {
	text   string
	tokens []string
	// decimal: the schema declares the value a decimal string ("type": "string",
	// "format": "decimal"), so a keyword that reads a number reads such a string.
	decimal bool
}

// parsePointer parses s as a JSON Pointer; wild says whether "*" tokens are allowed.
func parsePointer(s string, wild bool) (pointer, error) {
	if s == "" {
		return pointer{}, nil
	}
	if s[0] != '/' {
		return pointer{}, fmt.Errorf("pointer %q must be empty or start with /", s)
	}
	parts := strings.Split(s[1:], "/")
	if len(parts) > maxPointerTokens {
		return pointer{}, fmt.Errorf("pointer %q has more than %d tokens", s, maxPointerTokens)
	}
	toks := make([]string, len(parts))
	for i, p := range parts {
		if strings.Contains(strings.ReplaceAll(strings.ReplaceAll(p, "~0", ""), "~1", ""), "~") {
			return pointer{}, fmt.Errorf("pointer %q has a bad ~ escape", s)
		}
		t := strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
		if p == "*" && !wild {
			return pointer{}, fmt.Errorf("pointer %q may not use the * wildcard here", s)
		}
		toks[i] = t
	}
	return pointer{text: s, tokens: toks}, nil
}

// escapeToken escapes one reference token for a JSON Pointer.
func escapeToken(t string) string {
	return strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
}

// joinPointer appends tokens to a base pointer written as text.
func joinPointer(base string, toks ...string) string {
	var b strings.Builder
	b.WriteString(base)
	for _, t := range toks {
		b.WriteByte('/')
		b.WriteString(escapeToken(t))
	}
	return b.String()
}

// locationPointer turns a validator value location into a pointer string.
func locationPointer(loc []string) string {
	return joinPointer("", loc...)
}

// step returns the child of v named by token t.
func step(v any, t string) (any, bool) {
	switch x := v.(type) {
	case map[string]any:
		c, ok := x[t]
		return c, ok
	case []any:
		i, err := strconv.Atoi(t)
		if err != nil || i < 0 || i >= len(x) || (len(t) > 1 && t[0] == '0') || t[0] == '+' {
			return nil, false
		}
		return x[i], true
	}
	return nil, false
}

// resolve returns the value at p below v; p must hold no wildcards.
func (p pointer) resolve(v any) (any, bool) {
	for _, t := range p.tokens {
		var ok bool
		if v, ok = step(v, t); !ok {
			return nil, false
		}
	}
	return v, true
}

// located is a value found by a wildcard pointer, with its concrete pointer.
type located struct {
	ptr string // relative to the value the pointer was resolved against
	val any
}

// resolveAll expands "*" tokens over array items and returns every value found, in
// document order.
func (p pointer) resolveAll(v any) []located {
	out := []located{{"", v}}
	for _, t := range p.tokens {
		var next []located
		for _, l := range out {
			if t == "*" {
				arr, ok := l.val.([]any)
				if !ok {
					continue
				}
				for j, item := range arr {
					next = append(next, located{l.ptr + "/" + strconv.Itoa(j), item})
				}
				continue
			}
			if c, ok := step(l.val, t); ok {
				next = append(next, located{l.ptr + "/" + escapeToken(t), c})
			}
		}
		out = next
	}
	return out
}
