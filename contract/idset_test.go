package contract

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

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

// findByBinarySearch is Find as the library's binary search over whole IDs: the
// oracle of Find and of IDIndex.
func findByBinarySearch(s IDSet, id ID) (int, bool) {
	return slices.BinarySearchFunc(s, id, func(e IDEntry, id ID) int { return bytes.Compare(e.ID[:], id[:]) })
}

// idSetOf seals a set of about n ids drawn by kind (see unsealedOf).
func idSetOf(r *rand.Rand, n int, kind string) IDSet {
	s := unsealedOf(r, n, kind)
	s.Seal()
	return s
}

// Find and an index give the library's answer for every id of a set and for ids
// it lacks, whatever their spread.
func TestIDSetFindAsBinarySearch(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, kind := range []string{"hashes", "one prefix", "bunched"} {
		for _, n := range []int{0, 1, 2, 17, 100, 5000} {
			s := idSetOf(r, n, kind)
			probes := make([]ID, 0, 2*len(s)+3)
			for _, e := range s {
				probes = append(probes, e.ID)
				lower := e.ID
				lower[15]--
				probes = append(probes, lower)
			}
			var zero, top ID
			for i := range top {
				top[i] = 0xff
			}
			probes = append(probes, zero, top, IDOf("absent"))
			x := NewIDIndex(s)
			for _, id := range probes {
				wi, wok := findByBinarySearch(s, id)
				if gi, gok := s.Find(id); gi != wi || gok != wok {
					t.Fatalf("%s, %d ids: Find(%x) = %d %v, want %d %v", kind, n, id, gi, gok, wi, wok)
				}
				if gi, gok := x.Find(id); gi != wi || gok != wok {
					t.Fatalf("%s, %d ids: IDIndex.Find(%x) = %d %v, want %d %v", kind, n, id, gi, gok, wi, wok)
				}
			}
		}
	}
}

func FuzzIDSetFind(f *testing.F) {
	f.Add(uint64(1), 10, []byte("a"))
	f.Add(uint64(7), 300, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, seed uint64, n int, probe []byte) {
		n = min(max(n, 0), 2000)
		r := rand.New(rand.NewPCG(seed, 0))
		s := idSetOf(r, n, []string{"hashes", "one prefix", "bunched"}[seed%3])
		var id ID
		copy(id[:], probe)
		if n > 0 && len(probe) == 0 {
			id = s[int(seed%uint64(len(s)))].ID
		}
		wi, wok := findByBinarySearch(s, id)
		if gi, gok := s.Find(id); gi != wi || gok != wok {
			t.Fatalf("Find(%x) = %d %v, want %d %v", id, gi, gok, wi, wok)
		}
		if gi, gok := NewIDIndex(s).Find(id); gi != wi || gok != wok {
			t.Fatalf("IDIndex.Find(%x) = %d %v, want %d %v", id, gi, gok, wi, wok)
		}
	})
}

// BenchmarkIDSetFind looks up ids of a set of a million, as scoring a
// 1,000,000-case CogLang fixture does once per record.
func BenchmarkIDSetFind(b *testing.B) {
	var s IDSet
	for i := range 1_000_000 {
		s.Add(IDOf("case-"+string(rune('a'+i%26))+string(binary.AppendUvarint(nil, uint64(i)))), i)
	}
	s.Seal()
	r := rand.New(rand.NewPCG(3, 4))
	x := NewIDIndex(s)
	for _, find := range []struct {
		name string
		f    func(IDSet, ID) (int, bool)
	}{{"index", func(_ IDSet, id ID) (int, bool) { return x.Find(id) }}, {"binary", IDSet.Find}} {
		b.Run("search="+find.name, func(b *testing.B) {
			for b.Loop() {
				if _, ok := find.f(s, s[r.IntN(len(s))].ID); !ok {
					b.Fatal("an id of the set was not found")
				}
			}
		})
	}
}

// unsealedOf draws an unsealed set of about n ids by kind: hashes (evenly
// spread), ids that share their first eight bytes (one bucket of an index holds
// them all), ids bunched at both ends of the range, and ids whose prefix bytes
// are each 0 or 1 (every level of a radix sort has work); about one in ten is
// repeated, under a later number.
func unsealedOf(r *rand.Rand, n int, kind string) IDSet {
	s := make(IDSet, 0, n+n/8)
	for i := range n {
		var id ID
		switch kind {
		case "hashes":
			binary.BigEndian.PutUint64(id[:8], r.Uint64())
			binary.BigEndian.PutUint64(id[8:], r.Uint64())
		case "one prefix":
			binary.BigEndian.PutUint64(id[:8], 42)
			binary.BigEndian.PutUint64(id[8:], r.Uint64N(uint64(n)*2+1))
		case "bunched":
			v := r.Uint64N(1000)
			if r.IntN(2) == 0 {
				v = ^v
			}
			binary.BigEndian.PutUint64(id[:8], v)
		case "shared bytes":
			binary.BigEndian.PutUint64(id[:8], r.Uint64()&0x0101010101010101)
			id[15] = byte(r.IntN(4))
		}
		s.Add(id, i)
		if r.IntN(10) == 0 { // a repeated id
			s.Add(id, i+n)
		}
	}
	// the numbers out of order, as a reader's may be
	r.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
	return s
}

// checkSealAsSortFunc seals s and holds it to the library's comparison sort.
func checkSealAsSortFunc(t *testing.T, s IDSet, what string) {
	t.Helper()
	want := slices.Clone(s)
	slices.SortFunc(want, compareEntries)
	s.Seal()
	if !slices.Equal(s, want) {
		i := 0
		for s[i] == want[i] {
			i++
		}
		t.Fatalf("%s, %d ids: entry %d is %x/%d, want %x/%d", what, len(s), i, s[i].ID, s[i].N, want[i].ID, want[i].N)
	}
}

var idKinds = []string{"hashes", "one prefix", "bunched", "shared bytes"}

// Seal sorts as the library's comparison sort does, for sets below and above
// the size it sorts by buckets, whatever the spread of their ids.
func TestSealAsSortFunc(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, kind := range idKinds {
		for _, n := range []int{radixMin - 1, radixMin, radixMin + 1, 5 * radixMin, 300_000} {
			checkSealAsSortFunc(t, unsealedOf(r, n, kind), kind)
		}
	}
}

func FuzzIDSetSeal(f *testing.F) {
	f.Add(uint64(1), radixMin)
	f.Add(uint64(3), 3*radixMin)
	f.Fuzz(func(t *testing.T, seed uint64, n int) {
		n = min(max(n, 0), 4*radixMin)
		r := rand.New(rand.NewPCG(seed, 1))
		kind := idKinds[seed%uint64(len(idKinds))]
		checkSealAsSortFunc(t, unsealedOf(r, n, kind), kind)
	})
}

// BenchmarkIDSetSeal seals the ids of a million-case CogLang fixture.
func BenchmarkIDSetSeal(b *testing.B) {
	base := make(IDSet, 0, 1_000_000)
	for i := range 1_000_000 {
		base.Add(IDOf(fmt.Sprintf("FB-L1-%03d-%07d", i%40, i)), i)
	}
	s := make(IDSet, len(base))
	for b.Loop() {
		copy(s, base)
		s.Seal()
	}
}

// BenchmarkIDOf hashes the case ids of a CogLang fixture (17 bytes each), as
// scoring does twice a case: once for the fixture, once for the record.
func BenchmarkIDOf(b *testing.B) {
	ids := make([]string, 1000)
	for i := range ids {
		ids[i] = fmt.Sprintf("FB-L1-%03d-%07d", i%40, i)
	}
	var sink byte
	for b.Loop() {
		for _, id := range ids {
			h := IDOf(id)
			sink ^= h[0]
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ids)), "ns/id")
	_ = sink
}

// TestIDOf pins the hash: an ID is the 128-bit XXH3 of the id, high half first,
// and equal for the string and the bytes.
func TestIDOf(t *testing.T) {
	a, b := IDOf("FB-L1-001-0000000"), IDOfBytes([]byte("FB-L1-001-0000000"))
	if a != b {
		t.Fatalf("IDOf %x, IDOfBytes %x", a, b)
	}
	if a == IDOf("FB-L1-001-0000001") || IDOf("") == (ID{}) {
		t.Fatalf("ids that should differ do not: %x", a)
	}
}
