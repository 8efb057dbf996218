package schemas

import (
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// Pointer returns the JSON Pointer (RFC 6901) of a validator's instance location:
// reference tokens as jsonschema/v6 gives them, escaped by jsontext.
func Pointer(tokens []string) jsontext.Pointer {
	return AppendPointer("", tokens)
}

// AppendPointer returns p followed by tokens.
func AppendPointer(p jsontext.Pointer, tokens []string) jsontext.Pointer {
	if len(tokens) == 0 {
		return p
	}
	// One allocation for the usual tokens; jsontext escapes the rest.
	n := len(p)
	plain := true
	for _, t := range tokens {
		n += 1 + len(t)
		plain = plain && !strings.ContainsAny(t, "~/")
	}
	if !plain {
		for _, t := range tokens {
			p = p.AppendToken(t)
		}
		return p
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(string(p))
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(t)
	}
	return jsontext.Pointer(b.String())
}

// Step returns the child of a decoded JSON value (map[string]any, []any) named
// by one reference token: an object's member, or an array's item where the
// token is an index as RFC 6901 writes one (no sign, no leading zero).
func Step(v any, tok string) (any, bool) {
	switch x := v.(type) {
	case map[string]any:
		c, ok := x[tok]
		return c, ok
	case []any:
		i, err := strconv.Atoi(tok)
		if err != nil || i < 0 || i >= len(x) || strconv.Itoa(i) != tok {
			return nil, false
		}
		return x[i], true
	}
	return nil, false
}

// Resolve returns the value at ptr below a decoded JSON value.
func Resolve(v any, ptr jsontext.Pointer) (any, bool) {
	for tok := range ptr.Tokens() {
		var ok bool
		if v, ok = Step(v, tok); !ok {
			return nil, false
		}
	}
	return v, true
}
