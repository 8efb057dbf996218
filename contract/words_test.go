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
