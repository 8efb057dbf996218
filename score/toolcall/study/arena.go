package study

import (
	"unsafe"

	"github.com/fbeval/fbeval/export"
	"github.com/fbeval/fbeval/score/report"
	tc "github.com/fbeval/fbeval/score/toolcall"
)

// arena hands out slices carved from shared backing arrays, so that the rows of
// a range cost a few allocations rather than several per row. A slice handed
// out is never written by the arena again until reset: whoever keeps a row
// keeps its lists.
type arena[T any] struct {
	buf  []T
	hint int // the size of the next array, when it is larger than arenaChunk
}

// arenaChunk is the fewest elements a new backing array holds.
const arenaChunk = 256

// take returns an empty slice with room for n elements. Appending up to n
// elements fills the arena's array; appending more moves that slice to an
// array of its own, as append does.
func (a *arena[T]) take(n int) []T {
	if n == 0 {
		return []T{} // not nil: an empty list is written as []
	}
	if cap(a.buf)-len(a.buf) < n {
		a.buf = make([]T, 0, max(n, a.hint, arenaChunk))
		a.hint = 0
	}
	l := len(a.buf)
	a.buf = a.buf[:l+n]
	return a.buf[l : l : l+n]
}

// reserve sizes the next array for n elements, when the caller knows how many
// it may take: the array is made by the first take that needs it, so an arena
// that is not used costs nothing.
func (a *arena[T]) reserve(n int) {
	if cap(a.buf)-len(a.buf) < n {
		a.hint = n
	}
}

// reset hands out the last array again from its start, cleared, for a caller
// done with every slice taken before.
func (a *arena[T]) reset() {
	clear(a.buf)
	a.buf, a.hint = a.buf[:0], 0
}

// rowArenas are the arenas of one range of rows: the lists of its rows, case
// results and details.
type rowArenas struct {
	errs     arena[tc.Error]
	codes    arena[string]
	attempts arena[report.AttemptResult]
	attErrs  arena[report.AttemptError]
	cases    arena[report.CaseAttempt]
	infos    arena[report.ErrorInfo]
	ids      arena[string]
	text     []byte // the bytes of the request ids handed out (requestID)
}

// requestID returns export.RequestID of the arguments, its bytes in ar.text:
// like the range's other strings, it is valid until the range is reset.
func (ar *rowArenas) requestID(caseID, arm string, repeat, attempt int) string {
	const most = 2 * 20 // the two numbers at their longest
	need := len(caseID) + len(arm) + len(".r.a") + most
	if cap(ar.text)-len(ar.text) < need {
		// a new array: the strings handed out keep the old one
		ar.text = make([]byte, 0, max(need, 4<<10))
	}
	start := len(ar.text)
	ar.text = export.AppendRequestID(ar.text, caseID, arm, repeat, attempt)
	if len(ar.text) == start {
		return ""
	}
	return unsafe.String(&ar.text[start], len(ar.text)-start)
}

// reset makes every arena hand out its last array again (arena.reset).
func (ar *rowArenas) reset() {
	ar.errs.reset()
	ar.codes.reset()
	ar.attempts.reset()
	ar.attErrs.reset()
	ar.cases.reset()
	ar.infos.reset()
	ar.ids.reset()
	ar.text = ar.text[:0]
}
