package contract

import "testing"

func TestRecordFollows(t *testing.T) {
	for _, tt := range []struct {
		raw  string
		off  int64
		want bool
	}{
		{`{"a":1}{"b":2}`, 7, true},
		{`{"a":1} {"b":2}`, 7, true},
		{`{"a":1} {"b":2}`, 8, true},
		{`{"a":1}x`, 7, false},
		{`{"a":1}[1]`, 7, false},
		{`{"a":{"b":1}`, 6, false}, // inside the first record
		{`{"a":1}`, 7, false},
		{`{"a":1}{`, 0, false},
		{`{"a":1}{`, 99, false},
	} {
		if got := RecordFollows([]byte(tt.raw), tt.off); got != tt.want {
			t.Errorf("RecordFollows(%s, %d) = %v, want %v", tt.raw, tt.off, got, tt.want)
		}
	}
}
