package relations

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/go-json-experiment/json/jsontext"
	"golang.org/x/text/unicode/norm"
)

// maxDigits bounds the coefficient of any exact result. Exact decimal arithmetic has
// no rounding, so hostile exponents (1e99999 + 1e-99999) would otherwise build huge
// numbers; past this bound a relation fails with a clear message instead.
const maxDigits = 10000

// exact is the context for exact arithmetic: precision 0 means no rounding.
var exact = apd.BaseContext

// decimalOf returns the exact decimal value of a JSON number.
func decimalOf(v any) (*apd.Decimal, error) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, fmt.Errorf("%s is not a number", describe(v))
	}
	d, _, err := apd.NewFromString(string(n))
	if err != nil {
		return nil, fmt.Errorf("number %s is out of range", n)
	}
	return d, nil
}

// decimalLiteral is the grammar of a decimal string: a JSON number, nothing else
// (no sign +, no leading zeros, no spaces, no NaN or Infinity).
var decimalLiteral = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$`)

// numberOf returns the exact decimal value a keyword reads at p: a JSON number, or
// a string holding a decimal literal when the schema declares the value at p a
// decimal string ("type": "string", "format": "decimal").
func numberOf(v any, p pointer) (*apd.Decimal, error) {
	if s, ok := v.(string); ok && p.decimal {
		return decimalString(s)
	}
	return decimalOf(v)
}

// decimalString returns the exact value of a decimal string.
func decimalString(s string) (*apd.Decimal, error) {
	if !decimalLiteral.MatchString(s) {
		return nil, fmt.Errorf("%q is not a decimal literal", s)
	}
	d, _, err := apd.NewFromString(s)
	if err != nil {
		return nil, fmt.Errorf("decimal %s is out of range", s)
	}
	return d, nil
}

// isDecimalSchema reports whether a schema object declares a decimal string.
func isDecimalSchema(s map[string]any) bool {
	if f, _ := s["format"].(string); f != "decimal" {
		return false
	}
	switch t := s["type"].(type) {
	case string:
		return t == "string"
	case []any:
		return slices.Contains(t, any("string"))
	}
	return false
}

// checkDigits refuses results that grew beyond maxDigits.
func checkDigits(d *apd.Decimal) error {
	if d.NumDigits() > maxDigits {
		return fmt.Errorf("exact result needs more than %d digits", maxDigits)
	}
	return nil
}

// jsonType names the JSON type of a decoded value.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "unknown"
}

// describe renders a value briefly for messages.
func describe(v any) string {
	switch x := v.(type) {
	case json.Number:
		return string(x)
	case string:
		return fmt.Sprintf("%q", x)
	case nil:
		return "null"
	case bool:
		return fmt.Sprint(x)
	}
	return jsonType(v)
}

// mismatchText says how the output's value got at out differs from the fact
// want at fact: two strings that read alike are told apart by their Unicode
// form, two arrays or objects at the first place they differ (where each
// alone reads "array", "object").
func mismatchText(out string, got any, fact string, want any) string {
	msg := fmt.Sprintf("%s is %s, the fact at %s is %s", pointerName(out, "the output"), describe(got), pointerName(fact, "the facts"), describe(want))
	switch g := got.(type) {
	case string:
		if w, ok := want.(string); ok && norm.NFC.String(g) == norm.NFC.String(w) {
			msg += " (the same text in another Unicode normalization form, NFC against NFD: normalize both to compare them as equal)"
		}
	case []any, map[string]any:
		if at, detail := firstDifference(got, want, ""); at != "" || detail != "" {
			msg += fmt.Sprintf(": they differ first at %s, %s", pointerName(out+at, "the output"), detail)
		}
	}
	return msg
}

// firstDifference is where in a and b (which differ) they first differ, as a
// pointer below them, and how: the values there, or the lengths or members
// that differ. Arrays are compared item by item, objects member by member in
// the sorted order of their names.
func firstDifference(a, b any, at string) (string, string) {
	switch x := a.(type) {
	case []any:
		y, ok := b.([]any)
		if !ok {
			break
		}
		for i := range min(len(x), len(y)) {
			if !equalJSON(x[i], y[i]) || jsonType(x[i]) != jsonType(y[i]) {
				return firstDifference(x[i], y[i], string(jsontext.Pointer(at).AppendToken(strconv.Itoa(i))))
			}
		}
		return at, fmt.Sprintf("%d items, the fact's %d", len(x), len(y))
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			break
		}
		names := make([]string, 0, len(x)+len(y))
		for k := range x {
			names = append(names, k)
		}
		for k := range y {
			if _, ok := x[k]; !ok {
				names = append(names, k)
			}
		}
		slices.Sort(names)
		for _, k := range names {
			xv, inX := x[k]
			yv, inY := y[k]
			p := string(jsontext.Pointer(at).AppendToken(k))
			switch {
			case !inY:
				return p, fmt.Sprintf("%s, which the fact lacks", describe(xv))
			case !inX:
				return p, fmt.Sprintf("missing, the fact's %s", describe(yv))
			case !equalJSON(xv, yv) || jsonType(xv) != jsonType(yv):
				return firstDifference(xv, yv, p)
			}
		}
	}
	return at, fmt.Sprintf("%s, the fact's %s", describe(a), describe(b))
}

// pointerName is pointer p, or whole for the root ("").
func pointerName(p, whole string) string {
	if p == "" {
		return whole
	}
	return p
}

// equalJSON reports whether a and b are the same JSON value; numbers are equal when
// their exact values are (1.0 equals 1), as in JSON Schema's const.
func equalJSON(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		dx, err1 := decimalOf(x)
		dy, err2 := decimalOf(y)
		if err1 != nil || err2 != nil {
			return x == y
		}
		return dx.Cmp(dy) == 0
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equalJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !equalJSON(xv, yv) {
				return false
			}
		}
		return true
	default:
		return a == b
	}
}

// parseInstant reads an RFC 3339 date-time or a full date (taken as midnight UTC).
func parseInstant(s string) (time.Time, bool) {
	// RFC 3339 takes t and z in lower case, which Go's parser does not
	s = strings.Map(func(r rune) rune {
		if r == 't' || r == 'z' {
			return r - 'a' + 'A'
		}
		return r
	}, s)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, true
	}
	if len(s) >= 19 && s[10] == 'T' && s[16:19] == ":60" {
		// a leap second, which RFC 3339 (and the format check) takes and
		// Go's parser does not: the instant after :59
		if t, err := time.Parse(time.RFC3339Nano, s[:17]+"59"+s[19:]); err == nil {
			return t.Add(time.Second), true
		}
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, true
	}
	return time.Time{}, false
}

// compareValues orders a and b: numbers exactly, strings by code point, strings
// read as instants when as is "date" or "date-time", and decimal strings and
// numbers by exact value when as is "decimal". Values of different types, or
// of types without an order, are an error.
func compareValues(a, b any, as string) (int, error) {
	if as == "decimal" {
		// decimal strings and numbers alike, by exact value
		da, err := numberOf(a, pointer{decimal: true})
		if err != nil {
			return 0, err
		}
		db, err := numberOf(b, pointer{decimal: true})
		if err != nil {
			return 0, err
		}
		return da.Cmp(db), nil
	}
	ta, tb := jsonType(a), jsonType(b)
	if ta != tb {
		return 0, fmt.Errorf("cannot compare %s with %s", ta, tb)
	}
	switch ta {
	case "number":
		da, err := decimalOf(a)
		if err != nil {
			return 0, err
		}
		db, err := decimalOf(b)
		if err != nil {
			return 0, err
		}
		return da.Cmp(db), nil
	case "string":
		sa, sb := a.(string), b.(string)
		if as == "date" || as == "date-time" {
			ia, ok := parseInstant(sa)
			if !ok {
				return 0, fmt.Errorf("%q is not a %s", sa, as)
			}
			ib, ok := parseInstant(sb)
			if !ok {
				return 0, fmt.Errorf("%q is not a %s", sb, as)
			}
			return ia.Compare(ib), nil
		}
		// Go compares strings bytewise; UTF-8 byte order is code point order.
		switch {
		case sa < sb:
			return -1, nil
		case sa > sb:
			return 1, nil
		}
		return 0, nil
	}
	return 0, fmt.Errorf("cannot order %s values", ta)
}
