package study

import "testing"

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
