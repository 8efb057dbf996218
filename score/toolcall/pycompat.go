package toolcall

import (
	"errors"
	"regexp"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
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
