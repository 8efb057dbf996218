package schemas

import (
	"testing"
)

func TestPyDate(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"2027-01-11", true},
		{"2028-02-29", true},  // leap year
		{"2000-02-29", true},  // divisible by 400
		{"1900-02-29", false}, // divisible by 100 only
		{"2027-02-29", false},
		{"2027-04-31", false},
		{"2027-13-01", false},
		{"2027-00-10", false},
		{"2027-01-00", false},
		{"0000-01-01", false}, // Python has no year 0; Go's time.Parse has
		{"0001-01-01", true},
		{"9999-12-31", true},
		{"2027-1-11", false},
		{"2027-01-11\n", false}, // the regex's $ lets it through, fromisoformat does not
		{"2027-01-11T00:00:00", false},
		{"20270111", false},
		{"２０２７-01-11", false}, // fullwidth digits: the check is ASCII
		{"", false},
	}
	for _, tt := range tests {
		if got := IsDate(tt.in); got != tt.want {
			t.Errorf("IsDate(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// TestPyEmail: formats "email" and "idn-email" as Python's jsonschema checks
// them (a string holding "@"), through a compiled schema; values of another
// type pass.
func TestPyEmail(t *testing.T) {
	for _, format := range []string{"email", "idn-email"} {
		s, _, err := Compile([]byte(`{"format": "` + format + `"}`))
		if err != nil {
			t.Fatal(err)
		}
		for _, tt := range []struct {
			in   any
			want bool
		}{
			{"ada@example.com", true},
			{"@example.com", true}, // Python's check; RFC 5321 has no empty local part
			{"a@b@c", true},
			{"ada at example.com", false},
			{"", false},
			{7.0, true},
		} {
			if got := s.Validate(tt.in) == nil; got != tt.want {
				t.Errorf("%s %q: valid %v, want %v", format, tt.in, got, tt.want)
			}
		}
	}
}

func TestPyRegexp(t *testing.T) {
	const hhmm = `^([01][0-9]|2[0-3]):[0-5][0-9]$`
	tests := []struct {
		pattern, in string
		want        bool
	}{
		{hhmm, "09:30", true},
		{hhmm, "09:30\n", true}, // Python's $ matches before a final newline
		{hhmm, "09:30\n\n", false},
		{hhmm, "\n09:30", false},
		{hhmm, "09:30 ", false},
		{hhmm, "24:00", false},
		{`^a\n$`, "a\n\n", true},
		{`^.*$`, "x\n\n", false},
		{`abc`, "xabcx", true}, // a search, not a full match
		{`^abc`, "abc\n", true},
		{`\$$`, "cost$\n", true},
		{`^[^$]+x`, "abx\n", true},
	}
	for _, tt := range tests {
		re, err := compilePyRegexp(tt.pattern)
		if err != nil {
			t.Fatal(err)
		}
		if got := re.MatchString(tt.in); got != tt.want {
			t.Errorf("%s matches %q = %v, want %v", tt.pattern, tt.in, got, tt.want)
		}
	}
	if _, err := compilePyRegexp(`(`); err == nil {
		t.Error("a broken pattern compiled")
	}
}
