package contract

import "testing"

// TestHiddenMatch: a pattern's * and ? leave names that start with a dot, in
// any part they match, as a shell's do; a part that starts with a dot names them.
func TestHiddenMatch(t *testing.T) {
	for _, tc := range []struct {
		pattern, match string
		hidden         bool
	}{
		{"out/*", "out/a.jsonl", false},
		{"out/*", "out/.a.jsonl.tmp", true},
		{"out/*.jsonl", "out/.a.jsonl", true},
		{"out/.*", "out/.a.jsonl", false},
		{"*/a.jsonl", ".git/a.jsonl", true},
		{"out/*/a.jsonl", "out/x/a.jsonl", false},
		{".cache/*.jsonl", ".cache/a.jsonl", false},
		{"./out/*.jsonl", "out/a.jsonl", false},
	} {
		if got := hiddenMatch(tc.pattern, tc.match); got != tc.hidden {
			t.Errorf("hiddenMatch(%q, %q) = %v, want %v", tc.pattern, tc.match, got, tc.hidden)
		}
	}
}
