package runner

import (
	"bytes"
	"math"
	"slices"
)

// idSet is a set of request ids as one sorted slice of IDs, each with the line it
// was read at: 20 bytes per id and no map overhead, so the set of a
// million-request file is about 20 MB. Add ids, then seal it before lookups.
type idSet []idEntry

type idEntry struct {
	id   ID
	line uint32 // saturated
}

func (s *idSet) add(id ID, line int) {
	*s = append(*s, idEntry{id, uint32(min(line, math.MaxUint32))})
}

// seal sorts the set for lookups and returns the lines of the first repeated id
// in reading order (the pair whose later line comes first), or ok false.
func (s idSet) seal() (first, again int, ok bool) {
	slices.SortFunc(s, func(a, b idEntry) int {
		if c := bytes.Compare(a.id[:], b.id[:]); c != 0 {
			return c
		}
		return int(a.line) - int(b.line)
	})
	for i := 1; i < len(s); i++ {
		if s[i].id == s[i-1].id && (!ok || int(s[i].line) < again) {
			first, again, ok = int(s[i-1].line), int(s[i].line), true
		}
	}
	return first, again, ok
}

// has reports whether a sealed set holds id.
func (s idSet) has(id ID) bool {
	_, ok := slices.BinarySearchFunc(s, id, func(e idEntry, id ID) int { return bytes.Compare(e.id[:], id[:]) })
	return ok
}
