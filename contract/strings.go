package contract

import "unsafe"

// Strings makes strings by copying bytes into one block of memory at a time,
// never written again where a string lies: many short strings cost a few
// allocations instead of one each, and each string stays valid for as long as
// anyone keeps it (it keeps its block alive, and nothing else). The zero value
// is ready to use; a Strings is not safe for concurrent use.
type Strings struct{ buf []byte }

// stringsBlock is the size of each block of a Strings; a string of more than a
// quarter of it is made on its own.
const stringsBlock = 64 << 10

// Of returns b as a string.
func (a *Strings) Of(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > cap(a.buf)-len(a.buf) {
		if len(b) > stringsBlock/4 {
			return string(b)
		}
		a.buf = make([]byte, 0, stringsBlock)
	}
	start := len(a.buf)
	a.buf = append(a.buf, b...)
	return unsafe.String(&a.buf[start], len(b))
}
