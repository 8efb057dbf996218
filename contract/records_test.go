package contract

import "testing"

func TestRecordFollows(t *testing.T) {
	for _, tt := range []struct {
		raw  string
		off  int64
		want int64 // where the second record begins; -1: none follows
	}{
		{`{"a":1}{"b":2}`, 7, 7},
		{`{"a":1} {"b":2}`, 7, 8},
		{`{"a":1} {"b":2}`, 8, 8},
		{`{"a":1}x`, 7, -1},
		{`{"a":1}[1]`, 7, -1},
		{`{"a":{"b":1}`, 6, -1}, // inside the first record
		{`{"a":1}`, 7, -1},
		{`{"a":1}{`, 0, -1},
		{`{"a":1}{`, 99, -1},
	} {
		at, ok := RecordFollows([]byte(tt.raw), tt.off)
		if !ok {
			at = -1
		}
		if at != tt.want {
			t.Errorf("RecordFollows(%s, %d) = %d, want %d", tt.raw, tt.off, at, tt.want)
		}
	}
}

func TestNotJSON(t *testing.T) {
	for _, tt := range []struct {
		raw  string
		off  int64
		want string
	}{
		{`{"a": 1, // note` + "\n}", 9, "a comment, which JSON does not have: remove it"},
		{`{"a": 1 /* note */}`, 8, "a comment, which JSON does not have: remove it"},
		{`{"a": 1,}`, 7, "a comma before the closing '}', which JSON does not allow: remove it"},
		{"[1, 2,\n ]", 5, "a comma before the closing ']', which JSON does not allow: remove it"},
		{`{'a': 1}`, 1, "a string in single quotes, as Python's str() of a dict writes it: JSON strings take double quotes (json.dumps writes them)"},
		{"\ufeff{\"a\": 1}", 0, "a UTF-8 byte order mark, as Notepad and PowerShell's UTF8 encoding save one: save the file as UTF-8 without it"},
		{`{"a": 1,, "b": 2}`, 7, ""},
		{`{"a": x}`, 6, ""},
		{`{"a": 1}`, 99, ""},
		{`{"a": 1}`, -1, ""},
	} {
		if got := NotJSON([]byte(tt.raw), tt.off); got != tt.want {
			t.Errorf("NotJSON(%q, %d) = %q, want %q", tt.raw, tt.off, got, tt.want)
		}
	}
}

// FuzzNotJSON: any text and offset is named or not, without a panic.
func FuzzNotJSON(f *testing.F) {
	for _, s := range []string{`{"a":1,}`, `{'a':1}`, `// c`, `[1,]`, `{"a":1}{"b":2}`} {
		f.Add(s, int64(3))
	}
	f.Fuzz(func(t *testing.T, s string, off int64) {
		NotJSON([]byte(s), off)
		RecordFollows([]byte(s), off)
	})
}

func TestParseCount(t *testing.T) {
	for _, tc := range []struct {
		num  string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"10", 10, true},
		{"10.0", 10, true},
		{"1e1", 10, true},
		{"1E+1", 10, true},
		{"1.5e1", 15, true},
		{"-0", 0, true},
		{"-0.0", 0, true},
		{"1e16", 10000000000000000, true}, // past 2^53, exact
		{"9007199254740993.0", 9007199254740993, true}, // 2^53+1, which a float64 is not
		{"9223372036854775807", 9223372036854775807, true},
		{"9.223372036854775807e18", 9223372036854775807, true},
		{"9223372036854775808", 0, false},
		{"1e19", 0, false},
		{"1e300", 0, false},
		{"1e999999999", 0, false},
		{"0e999", 0, true}, // zero, whatever its exponent
		{"-0.0e-500", 0, true},
		{"0.0E+99999999999999999999", 0, true},
		{"-1", 0, false},
		{"-1.0", 0, false},
		{"1.5", 0, false},
		{"1e-1", 0, false},
		{"", 0, false},
	} {
		got, ok := ParseCount(tc.num)
		if ok != tc.ok || got != tc.want {
			t.Errorf("ParseCount(%q) = %d, %v; want %d, %v", tc.num, got, ok, tc.want, tc.ok)
		}
	}
}
