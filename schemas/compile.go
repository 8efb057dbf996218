package schemas

import (
	"errors"
	"regexp"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// This file holds the one compiler configuration of the project: every schema
// fbeval compiles (the embedded contract schemas, a study's candidate schemas, the
// tool contracts of the built-in datasets, relation contracts) is compiled by
// NewCompiler, so they all read keywords, formats and patterns alike.
//
// HESchema validates with Python's jsonschema package. Where that package and
// jsonschema/v6 read a schema differently, fbeval follows Python, so both tools call
// the same outputs valid: formats "date", "email" and "idn-email", and the
// anchors of regular expressions.

// An Extension adds a vocabulary to the configuration: it registers the vocabulary
// and adds the meta-schema that declares it (score/relations provides one for the
// relation keywords). The vocabulary's keywords apply only to schemas whose $schema
// names that meta-schema.
type Extension func(*jsonschema.Compiler)

// errRefused is why a reference outside the compiled documents is not followed
// (the library keeps its text, not the error).
var errRefused = errors.New("refused: schemas must be self-contained (no remote or file references)")

// refusingLoader is every compiler's only loader: a schema reaches nothing but the
// documents added to its compiler, never a file or the network.
type refusingLoader struct{}

func (refusingLoader) Load(string) (any, error) { return nil, errRefused }

// NewCompiler returns a compiler with the one configuration: Draft 2020-12 unless a
// schema says otherwise, formats asserted, every reference outside the added
// documents refused, format "date" and regular expressions read as Python's
// jsonschema reads them, and the vocabularies of exts.
func NewCompiler(exts ...Extension) *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseLoader(refusingLoader{})
	c.RegisterFormat(DateFormat)
	c.RegisterFormat(EmailFormat)
	c.RegisterFormat(IDNEmailFormat)
	c.UseRegexpEngine(compilePyRegexp)
	for _, ext := range exts {
		ext(c)
	}
	return c
}

// errNotEmail is the reason a string fails format "email" or "idn-email".
var errNotEmail = errors.New(`not an e-mail address: it has no "@"`)

// EmailFormat is format "email" as Python's jsonschema checks it: a string
// holding "@" passes ("a@b@c" and "@example.com" too, where jsonschema/v6
// asks for RFC 5321's form), so both tools call the same answers valid.
// Other values pass.
var EmailFormat = &jsonschema.Format{Name: "email", Validate: pyEmail}

// IDNEmailFormat is format "idn-email" as Python's jsonschema checks it: as
// EmailFormat.
var IDNEmailFormat = &jsonschema.Format{Name: "idn-email", Validate: pyEmail}

func pyEmail(v any) error {
	if s, ok := v.(string); ok && !strings.Contains(s, "@") {
		return errNotEmail
	}
	return nil
}

// errNotDate is the reason a string fails format "date".
var errNotDate = errors.New("not a calendar date YYYY-MM-DD (years 0001 to 9999)")

// DateFormat is format "date" as Python's jsonschema checks it: the string matches
// ^\d{4}-\d{2}-\d{2}$ (ASCII digits) and datetime.date.fromisoformat accepts it, so
// year 0000 is refused (Go's time.Parse takes it). Other values pass.
var DateFormat = &jsonschema.Format{Name: "date", Validate: func(v any) error {
	if s, ok := v.(string); ok && !IsDate(s) {
		return errNotDate
	}
	return nil
}}

// IsDate reports whether s is a date Python's date.fromisoformat reads from the
// YYYY-MM-DD form: year 1 to 9999, month 1 to 12, a day of that month (Gregorian
// leap years).
func IsDate(s string) bool {
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
	expr   string // as the schema writes it
	dollar bool
}

func (p pyRegexp) String() string { return p.expr }

// MatchString reports whether s contains a match, as re.search would.
func (p pyRegexp) MatchString(s string) bool {
	if p.re.MatchString(s) {
		return true
	}
	return p.dollar && strings.HasSuffix(s, "\n") && p.re.MatchString(s[:len(s)-1])
}

// compilePyRegexp is the compilers' regexp engine.
func compilePyRegexp(expr string) (jsonschema.Regexp, error) {
	re, err := regexp.Compile(unicodeEscapes(expr))
	if err != nil {
		return nil, err
	}
	return pyRegexp{re: re, expr: expr, dollar: strings.Contains(expr, "$")}, nil
}

// unicodeEscapes writes the \uXXXX and \UXXXXXXXX escapes Python's re and
// ECMA-262 take (Pydantic's and Zod's patterns carry them: [\u4e00-\u9fa5])
// as Go's \x{...}, which Go's regexp reads and they mean; every other escape
// as it is.
func unicodeEscapes(expr string) string {
	if !strings.Contains(expr, `\u`) && !strings.Contains(expr, `\U`) {
		return expr
	}
	var b strings.Builder
	for i := 0; i < len(expr); i++ {
		if expr[i] != '\\' || i+1 == len(expr) {
			b.WriteByte(expr[i])
			continue
		}
		n := map[byte]int{'u': 4, 'U': 8}[expr[i+1]]
		if n > 0 && i+2+n <= len(expr) && isHex(expr[i+2:i+2+n]) {
			b.WriteString(`\x{` + expr[i+2:i+2+n] + `}`)
			i += 1 + n
			continue
		}
		b.WriteString(expr[i : i+2]) // an escape pair, kept whole
		i++
	}
	return b.String()
}

// isHex reports whether s is hexadecimal digits.
func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}
