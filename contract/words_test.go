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
