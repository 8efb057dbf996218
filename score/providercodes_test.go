package score

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"
)

func TestProviderCodesString(t *testing.T) {
	long := strings.Repeat("é", 30)
	for _, tc := range []struct {
		codes ProviderCodes
		want  string
	}{
		{ProviderCodes{"http_401": 252}, "http_401 in 252 records"},
		{ProviderCodes{"http_500": 1, "rate_limited": 1}, "http_500 in 1 record, rate_limited in 1"},
		{ProviderCodes{"a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6, "g": 6}, "f in 6 records, g in 6, e in 5, d in 4, c in 3, 2 more codes"},
		{ProviderCodes{long: 2, "x\ny": 1}, strings.Repeat("é", 20) + "... in 2 records, x\\ny in 1"},
	} {
		if got := tc.codes.String(); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.codes, got, tc.want)
		}
	}
}

// Add names a record without a code, keeps MaxProviderCodes codes apart and
// counts the rest as "other", and keeps no key in the caller's bytes.
func TestProviderCodesAdd(t *testing.T) {
	var p ProviderCodes
	p.Add("")
	for i := range MaxProviderCodes + 5 {
		p.Add(fmt.Sprintf("c%d", i))
	}
	// "no code" and c0 to c98 are kept apart, c99 to c104 are "other"
	if len(p) != MaxProviderCodes+1 || p["no code"] != 1 || p["c98"] != 1 || p["c99"] != 0 || p["other"] != 6 {
		t.Errorf("%d codes, no code %d, other %d", len(p), p["no code"], p["other"])
	}
	var q ProviderCodes
	buf := []byte("http_401")
	q.Add(unsafe.String(&buf[0], len(buf))) // a code in a batch's bytes, which are read into again
	copy(buf, "xxxxxxxx")
	if q["http_401"] != 1 || len(q) != 1 {
		t.Errorf("%v", q)
	}
}

// FilterNote speaks only when a provider's safety filter blocked a prompt.
func TestProviderCodesFilterNote(t *testing.T) {
	if n := (ProviderCodes{"http_500": 3}).FilterNote(); n != "" {
		t.Errorf("no filter: %q", n)
	}
	if n := (ProviderCodes{"http_500": 3, "content_filter": 1}).FilterNote(); !strings.Contains(n, "asking again does not change") {
		t.Errorf("content_filter: %q", n)
	}
}
