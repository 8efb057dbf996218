package contract

import "testing"

func TestPlural(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, "0 records"}, {1, "1 record"}, {2, "2 records"}, {-1, "-1 records"}} {
		if got := Plural(c.n, "record", "records"); got != c.want {
			t.Errorf("Plural(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

func TestPick(t *testing.T) {
	for n, want := range map[int]string{0: "them", 1: "it", 2: "them"} {
		if got := Pick(n, "it", "them"); got != want {
			t.Errorf("Pick(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestFileList: a summary line names up to three response files, else the
// first two and how many more.
func TestFileList(t *testing.T) {
	for _, tt := range []struct {
		names []string
		want  string
	}{
		{[]string{"a.jsonl"}, "a.jsonl"},
		{[]string{"a", "b", "c"}, "a, b, c"},
		{[]string{"a", "b", "c", "d"}, "a, b and 2 more files"},
	} {
		if got := FileList(tt.names); got != tt.want {
			t.Errorf("%v: %q, want %q", tt.names, got, tt.want)
		}
	}
}

func TestJoinWords(t *testing.T) {
	for _, tt := range []struct {
		words []string
		want  string
	}{{nil, ""}, {[]string{"a"}, "a"}, {[]string{"a", "b"}, "a and b"}, {[]string{"a", "b", "c"}, "a, b and c"}} {
		if got := JoinWords(tt.words); got != tt.want {
			t.Errorf("JoinWords(%q) = %q, want %q", tt.words, got, tt.want)
		}
	}
}
