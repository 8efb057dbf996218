package contract

import "testing"

func TestIDSet(t *testing.T) {
	var s IDSet
	for i, id := range []string{"c", "a", "b", "a", "d", "c"} {
		s.Add(IDOf(id), i+1)
	}
	first, again, ok := s.Seal()
	if !ok || first != 2 || again != 4 {
		t.Errorf("first repeat %d %d %v, want lines 2 and 4 (a)", first, again, ok)
	}
	i, ok := s.Find(IDOf("c"))
	if !ok || s[i].N != 1 || s[i+1].ID != IDOf("c") || s[i+1].N != 6 {
		t.Errorf("find c: %d %v %+v", i, ok, s)
	}
	if s.Has(IDOf("e")) || !s.Has(IDOf("d")) {
		t.Error("has")
	}
	if IDOfBytes([]byte("x")) != IDOf("x") {
		t.Error("IDOfBytes differs from IDOf")
	}
	var one IDSet
	one.Add(IDOf("x"), 1)
	if _, _, ok := one.Seal(); ok {
		t.Error("a set of one id has a repeat")
	}
}
