package schemas

import (
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
