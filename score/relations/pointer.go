package relations

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fbeval/fbeval/schemas"
	"github.com/go-json-experiment/json/jsontext"
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
	if strings.Count(s, "/") > maxPointerTokens {
		return pointer{}, fmt.Errorf("pointer %q has more than %d tokens", s, maxPointerTokens)
	}
	p := jsontext.Pointer(s)
	if !p.IsValid() {
		return pointer{}, fmt.Errorf("pointer %q has a bad ~ escape", s)
	}
	var toks []string
	for t := range p.Tokens() {
		if t == "*" && !wild {
			return pointer{}, fmt.Errorf("pointer %q may not use the * wildcard here", s)
		}
		toks = append(toks, t)
	}
	return pointer{text: s, tokens: toks}, nil
}

// locationPointer turns a validator value location into a pointer string.
func locationPointer(loc []string) string {
	return string(schemas.Pointer(loc))
}

// resolve returns the value at p below v; p must hold no wildcards.
func (p pointer) resolve(v any) (any, bool) {
	for _, t := range p.tokens {
		var ok bool
		if v, ok = schemas.Step(v, t); !ok {
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
			if c, ok := schemas.Step(l.val, t); ok {
				next = append(next, located{string(jsontext.Pointer(l.ptr).AppendToken(t)), c})
			}
		}
		out = next
	}
	return out
}
