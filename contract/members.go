package contract

import "sync/atomic"

// Members are the member names of an object that is written many times over (a
// report's rows, case results): what goes before each member's value, as
// AppendMember writes it (separator, line break, indentation, quoted name and
// colon), is built once for each style and depth it is written at, then
// appended in one copy.
type Members struct {
	names []string
	sets  atomic.Pointer[[]*MemberSet] // copied on write, at most maxMemberSets
}

// maxMemberSets bounds the styles and depths a Members keeps; others are built
// each time (still the same bytes).
const maxMemberSets = 8

// MemberSet is what goes before each member of an object in one style at one
// depth.
type MemberSet struct {
	s     Style
	depth int
	first []string // before the member when it comes first
	later []string // before it after another member
}

// NewMembers keeps the names of an object's members, in the order Member's k
// counts them.
func NewMembers(names ...string) *Members { return &Members{names: names} }

// At returns the member prefixes of style s at nesting depth depth.
func (m *Members) At(s Style, depth int) *MemberSet {
	if s.Indent == "" {
		depth = 0 // nothing depends on the depth without line breaks
	}
	var sets []*MemberSet
	p := m.sets.Load()
	if p != nil {
		sets = *p
	}
	for _, set := range sets {
		if set.depth == depth && set.s == s {
			return set
		}
	}
	set := &MemberSet{s: s, depth: depth, first: make([]string, len(m.names)), later: make([]string, len(m.names))}
	for k, name := range m.names {
		set.first[k] = string(AppendMember(nil, s, depth, 0, name))
		set.later[k] = string(AppendMember(nil, s, depth, 1, name))
	}
	if len(sets) < maxMemberSets {
		grown := append(sets[:len(sets):len(sets)], set)
		m.sets.CompareAndSwap(p, &grown) // a lost race only builds it again
	}
	return set
}

// Member appends what AppendMember(dst, s, depth, i, name) appends, for the k-th
// name of the Members the set came from.
func (set *MemberSet) Member(dst []byte, i, k int) []byte {
	if i == 0 {
		return append(dst, set.first[k]...)
	}
	return append(dst, set.later[k]...)
}
