package toolcall

import (
	"errors"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/fbeval/fbeval/contract/strictjson"
)

// HESchema validates with Python's jsonschema package. Where that package and
// jsonschema/v6 read a schema differently, the scorer follows Python, so both tools
// call the same outputs reference-valid: this file holds those points.

// errNotDate is the reason a string fails format "date".
var errNotDate = errors.New("not a calendar date YYYY-MM-DD (years 0001 to 9999)")

// pyDateFormat is format "date" as Python's jsonschema checks it: the string matches
// ^\d{4}-\d{2}-\d{2}$ (ASCII digits) and datetime.date.fromisoformat accepts it, so
// year 0000 is refused (Go's time.Parse takes it). Other values pass.
var pyDateFormat = &jsonschema.Format{Name: "date", Validate: func(v any) error {
	if s, ok := v.(string); ok && !isPyDate(s) {
		return errNotDate
	}
	return nil
}}

// isPyDate reports whether s is a date Python's date.fromisoformat reads from the
// YYYY-MM-DD form: year 1 to 9999, month 1 to 12, a day of that month (Gregorian
// leap years).
func isPyDate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	num := func(a, b int) (int, bool) {
		n := 0
		for i := a; i < b; i++ {
			c := s[i]
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	y, ok1 := num(0, 4)
	m, ok2 := num(5, 7)
	d, ok3 := num(8, 10)
	if !ok1 || !ok2 || !ok3 || y < 1 || m < 1 || m > 12 || d < 1 {
		return false
	}
	days := [...]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[m-1]
	if m == 2 && y%4 == 0 && (y%100 != 0 || y%400 == 0) {
		days = 29
	}
	return d <= days
}

// pyRegexp is a Go regexp that matches as Python's re.search does where the two
// differ on anchors: without the MULTILINE flag Python's $ also matches just before
// a newline that ends the string, so "09:30\n" matches ^...$ there. A pattern with
// a $ therefore also matches a string ending in "\n" when it matches the string
// without that newline. (A match found in the shorter string is a match in the
// longer one at every other position: only end-of-text anchors see the difference.)
type pyRegexp struct {
	re     *regexp.Regexp
	dollar bool
}

func (p pyRegexp) String() string { return p.re.String() }

// MatchString reports whether s contains a match, as re.search would.
func (p pyRegexp) MatchString(s string) bool {
	if p.re.MatchString(s) {
		return true
	}
	return p.dollar && strings.HasSuffix(s, "\n") && p.re.MatchString(s[:len(s)-1])
}

// compilePyRegexp is the compilers' regexp engine.
func compilePyRegexp(expr string) (jsonschema.Regexp, error) {
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	return pyRegexp{re: re, dollar: strings.Contains(expr, "$")}, nil
}

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
	err := sub.Validate(toInstance(inst))
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
		for _, t := range strings.Split(fragment[1:], "/") {
			t, err := url.PathUnescape(t)
			if err != nil {
				return nil
			}
			tokens = append(tokens, strings.NewReplacer("~1", "/", "~0", "~").Replace(t))
		}
	}
	doc, ok := withoutKeywords(toExact(s.doc), tokens, dropped)
	if !ok {
		return nil
	}
	c := newCompiler()
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil
	}
	sub, err := c.Compile(schemaURL + "#" + fragment)
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
