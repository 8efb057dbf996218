package contract

import (
	"strings"
	"testing"
)

// Strings made one after another keep their bytes, whatever is made after
// them and whatever happens to the bytes they were made from.
func TestStrings(t *testing.T) {
	var a Strings
	var got, want []string
	src := make([]byte, 0, stringsBlock)
	for i := range 20000 {
		n := i % 97
		if i%1000 == 0 {
			n = stringsBlock/4 + i // a long one, made on its own
		}
		src = src[:0]
		for j := range n {
			src = append(src, byte('a'+(i+j)%26))
		}
		got = append(got, a.Of(src))
		want = append(want, string(src))
		for j := range src {
			src[j] = '!' // the source is reused: the string must not see it
		}
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("string %d is %q, want %q", i, got[i][:min(20, len(got[i]))], want[i][:min(20, len(want[i]))])
		}
	}
	if a.Of(nil) != "" || strings.Contains(strings.Join(got, ""), "!") {
		t.Error("empty or overwritten strings")
	}
}
