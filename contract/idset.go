package contract

import (
	"bytes"
	"crypto/sha256"
	"math"
	"slices"
)

// ID is an id (a request id, a case id) as a large set remembers it: the first 16
// bytes of its SHA-256. Sets of ids hold these, so they cost the same small slot
// per id however long the ids are; two ids of a set of 10^9 share one with odds of
// about 10^-21, and making two share one on purpose takes about 2^64 hashes.
// Where a wrong match would change a result, the holder confirms the id itself.
type ID [16]byte

// IDOf returns the ID of an id.
func IDOf(id string) ID {
	h := sha256.Sum256([]byte(id))
	return ID(h[:16])
}

// IDOfBytes returns the ID of an id given as bytes.
func IDOfBytes(id []byte) ID {
	h := sha256.Sum256(id)
	return ID(h[:16])
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
	if c := bytes.Compare(a.ID[:], b.ID[:]); c != 0 {
		return c
	}
	return int(a.N) - int(b.N)
}

// Seal sorts the set for lookups (by ID, then number) and returns the numbers of
// the first repeated id in reading order (the pair whose later number comes
// first), or ok false.
func (s IDSet) Seal() (first, again int, ok bool) {
	slices.SortFunc(s, compareEntries)
	for i := 1; i < len(s); i++ {
		if s[i].ID == s[i-1].ID && (!ok || int(s[i].N) < again) {
			first, again, ok = int(s[i-1].N), int(s[i].N), true
		}
	}
	return first, again, ok
}

// Has reports whether a sealed set holds id.
func (s IDSet) Has(id ID) bool {
	_, ok := s.Find(id)
	return ok
}

// Find returns the place in a sealed set of the first entry with id (the one
// with the lowest number; the others follow it), or ok false.
func (s IDSet) Find(id ID) (i int, ok bool) {
	return slices.BinarySearchFunc(s, id, func(e IDEntry, id ID) int { return bytes.Compare(e.ID[:], id[:]) })
}
