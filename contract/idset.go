package contract

import (
	"cmp"
	"encoding/binary"
	"math"
	"slices"

	"github.com/zeebo/xxh3"
)

// ID is an id (a request id, a case id) as a large set remembers it: its 128-bit
// XXH3 hash, high half first. Sets of ids hold these, so they cost the same small
// slot per id however long the ids are, and an id takes 20 ns to hash where
// SHA-256 took 74 (BenchmarkIDOf; a score hashes two ids a case). Two ids of a set of
// 10^9 share one with odds of about 10^-21. XXH3 is not made to resist ids
// chosen to share a hash, so every holder confirms the id itself where a wrong
// match would change a result: the CogLang store checks each case's detail
// against the case (and fails loudly), fbeval-batch checks the custom id of the
// result it joins to a request.
type ID [16]byte

// IDOf returns the ID of an id.
func IDOf(id string) ID { return idOf(xxh3.HashString128(id)) }

// IDOfBytes returns the ID of an id given as bytes.
func IDOfBytes(id []byte) ID { return idOf(xxh3.Hash128(id)) }

func idOf(h xxh3.Uint128) (id ID) {
	binary.BigEndian.PutUint64(id[:8], h.Hi)
	binary.BigEndian.PutUint64(id[8:], h.Lo)
	return id
}

// IDSet is a set of ids as one sorted slice of 20-byte entries, each an ID and a
// number the holder gives it (the line it was read at, the case it names), with no
// map overhead: the set of a million ids is about 20 MB. Add ids, then Seal the
// set before lookups.
type IDSet []IDEntry

// IDEntry is one id of an IDSet and its number.
type IDEntry struct {
	ID ID
	N  uint32 // saturated
}

// Add adds id with its number n.
func (s *IDSet) Add(id ID, n int) {
	*s = append(*s, IDEntry{id, uint32(min(max(n, 0), math.MaxUint32))})
}

func compareEntries(a, b IDEntry) int {
	if c := cmp.Compare(prefix(&a.ID), prefix(&b.ID)); c != 0 {
		return c
	}
	if c := cmp.Compare(binary.BigEndian.Uint64(a.ID[8:]), binary.BigEndian.Uint64(b.ID[8:])); c != 0 {
		return c
	}
	return cmp.Compare(a.N, b.N)
}

// Seal sorts the set for lookups (by ID, then number) and returns the numbers of
// the first repeated id in reading order (the pair whose later number comes
// first), or ok false.
func (s IDSet) Seal() (first, again int, ok bool) {
	sortEntries(s)
	for i := 1; i < len(s); i++ {
		if s[i].ID == s[i-1].ID && (!ok || int(s[i].N) < again) {
			first, again, ok = int(s[i-1].N), int(s[i].N), true
		}
	}
	return first, again, ok
}

// radixMin is the smallest set sortEntries sorts by buckets.
const radixMin = 1 << 12

// sortEntries sorts s by compareEntries. Ids are hash prefixes, spread evenly,
// so a large set is sorted in place a byte of the prefix at a time (an
// American flag sort: one pass counts an entry's byte, one moves each entry
// once, into 256 buckets that are sorted the same way by the next byte) down
// to buckets small enough to sort by insertion: linear time for hashes, and a
// comparison sort where many ids share a long prefix (the million ids of a
// CogLang fixture: 398 to 58 ms, BenchmarkIDSetSeal, benchstat n=6).
func sortEntries(s IDSet) {
	if len(s) < radixMin {
		slices.SortFunc(s, compareEntries)
		return
	}
	radixSort(s, 56)
}

// radixSort sorts s, whose entries agree on the prefix bits above shift+8, by
// the byte of the prefix at shift and then within each byte's bucket.
func radixSort(s IDSet, shift uint) {
	var ends, next [256]int
	for i := range s {
		ends[byte(prefix(&s[i].ID)>>shift)]++
	}
	sum := 0
	for b := range ends {
		next[b] = sum
		sum += ends[b]
		ends[b] = sum
	}
	for b := range ends {
		for next[b] < ends[b] {
			e := s[next[b]]
			// carry e to its bucket, taking up the entry there, until the
			// entry in hand is one of bucket b's
			for db := byte(prefix(&e.ID) >> shift); db != byte(b); db = byte(prefix(&e.ID) >> shift) {
				j := next[db]
				next[db]++
				e, s[j] = s[j], e
			}
			s[next[b]] = e
			next[b]++
		}
	}
	start := 0
	for _, end := range ends {
		part := s[start:end]
		start = end
		switch {
		case len(part) < 2:
		case len(part) <= 24:
			insertionSort(part)
		case len(part) < 256 || shift == 0:
			slices.SortFunc(part, compareEntries)
		default:
			radixSort(part, shift-8)
		}
	}
}

// insertionSort sorts a bucket as small as a bucket of hashes is.
func insertionSort(s IDSet) {
	for i := 1; i < len(s); i++ {
		e := s[i]
		p := prefix(&e.ID)
		j := i
		for ; j > 0; j-- {
			q := prefix(&s[j-1].ID)
			if q < p || q == p && compareEntries(s[j-1], e) <= 0 {
				break
			}
			s[j] = s[j-1]
		}
		s[j] = e
	}
}

// Has reports whether a sealed set holds id.
func (s IDSet) Has(id ID) bool {
	_, ok := s.Find(id)
	return ok
}

// Find returns the place in a sealed set of the first entry with id (the one
// with the lowest number; the others follow it), or ok false.
func (s IDSet) Find(id ID) (i int, ok bool) {
	return s.find(id, 0, len(s))
}

// find is Find within s[lo:hi], which holds id's place.
func (s IDSet) find(id ID, lo, hi int) (int, bool) {
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if less(&s[m], &id) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(s) && s[lo].ID == id
}

func prefix(id *ID) uint64 { return binary.BigEndian.Uint64(id[:8]) }

// less reports whether e's ID sorts before id.
func less(e *IDEntry, id *ID) bool {
	if a, b := prefix(&e.ID), prefix(id); a != b {
		return a < b
	}
	return binary.BigEndian.Uint64(e.ID[8:]) < binary.BigEndian.Uint64(id[8:])
}

// IDIndex finds ids in a large sealed set in about two memory reads where
// IDSet.Find, a binary search, takes twenty: ids are hash prefixes, spread evenly,
// so their first bits name a bucket of about four entries. It costs about one
// byte per entry.
type IDIndex struct {
	Set    IDSet
	shift  uint
	starts []uint32 // bucket b's entries are Set[starts[b]:starts[b+1]]
}

// NewIDIndex indexes a sealed set of fewer than 2^32 entries.
func NewIDIndex(s IDSet) *IDIndex {
	k := 0
	for 4<<k < len(s) {
		k++
	}
	x := &IDIndex{Set: s, shift: uint(64 - k), starts: make([]uint32, 1<<k+1)}
	b := 0
	for i := range s {
		for eb := int(x.bucket(&s[i].ID)); b <= eb; b++ {
			x.starts[b] = uint32(i)
		}
	}
	for ; b <= 1<<k; b++ {
		x.starts[b] = uint32(len(s))
	}
	return x
}

func (x *IDIndex) bucket(id *ID) uint64 {
	if x.shift >= 64 {
		return 0
	}
	return prefix(id) >> x.shift
}

// Find is IDSet.Find.
func (x *IDIndex) Find(id ID) (i int, ok bool) {
	b := x.bucket(&id)
	return x.Set.find(id, int(x.starts[b]), int(x.starts[b+1]))
}
