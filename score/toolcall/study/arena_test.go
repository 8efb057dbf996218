package study

import (
	"fmt"
	"slices"
	"testing"

	"github.com/fbeval/fbeval/export"
)

// Slices taken from an arena do not overlap: filling one, or appending past its
// room, leaves the others as they were.
func TestArenaTake(t *testing.T) {
	var a arena[int]
	var got [][]int
	for i := range 3000 {
		n := i % 7
		s := a.take(n)
		if len(s) != 0 || cap(s) != n || s == nil {
			t.Fatalf("take(%d) gave len %d cap %d", n, len(s), cap(s))
		}
		for k := range n + i%2 { // one past the room for odd i
			s = append(s, i*10+k)
		}
		got = append(got, s)
	}
	for i, s := range got {
		if len(s) != i%7+i%2 {
			t.Fatalf("slice %d has %d elements", i, len(s))
		}
		for k, v := range s {
			if v != i*10+k {
				t.Fatalf("slice %d element %d is %d, want %d", i, k, v, i*10+k)
			}
		}
	}
}

// After reset an arena hands out its last array again, cleared, and a range
// that needs no more room than that takes no new one.
func TestArenaReset(t *testing.T) {
	var a arena[string]
	a.reserve(10)
	s := append(a.take(10), "a", "b", "c")
	first := &s[0]
	a.reset()
	if a.hint != 0 || len(a.buf) != 0 {
		t.Fatalf("after reset: len %d, hint %d", len(a.buf), a.hint)
	}
	r := a.take(10)
	if &r[:1][0] != first {
		t.Fatal("reset did not hand out the same array again")
	}
	for i, v := range r[:3] {
		if v != "" {
			t.Fatalf("element %d is %q after reset, want it cleared", i, v)
		}
	}
}

// The request ids a range's arenas hand out are export.RequestID's, and stay
// as they were while the arenas make new arrays for later ones.
func TestArenaRequestID(t *testing.T) {
	var ar rowArenas
	var got, want []string
	for i := range 2000 {
		caseID := fmt.Sprintf("case-%0*d", i%40, i)
		arm := []string{"", "no_schema", "input_schema"}[i%3]
		repeat, attempt := i%1000+1, i%4+1
		got = append(got, ar.requestID(caseID, arm, repeat, attempt))
		want = append(want, export.RequestID(caseID, arm, repeat, attempt))
	}
	if !slices.Equal(got, want) {
		t.Fatal("request ids differ from export.RequestID")
	}
	ar.reset()
	if id := ar.requestID("c", "a", 1, 2); id != "c.a.r1.a2" || len(ar.text) != len(id) {
		t.Errorf("after reset: %q, %d bytes held", id, len(ar.text))
	}
}
