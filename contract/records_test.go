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
