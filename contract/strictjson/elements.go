package strictjson

import (
	"errors"
	"fmt"
	"io"
)

// Elements reads the elements of one JSON array from a stream, one raw value at
// a time, each found and checked by SkipValue (its syntax, the UTF-8 and escapes
// of its strings) without being built. It holds one element (and what it read
// past it) at a time, so a long array never grows memory; member names may
// repeat, as SkipValue lets them. The stream must hold the array and nothing but
// white space before it; what follows the closing bracket is not read. An
// element that does not end in what is buffered is scanned again from its
// start once more is read, so a stream that answers a read with less than it
// was asked for (a pipe) makes a long element cost a scan per read: read a
// file, or a contract.Spool, as the report readers do.
//
//	el := strictjson.NewElements(r, 1<<20, strictjson.RejectSurrogates)
//	for raw := range el.All() {
//		... // raw is valid until the next element
//	}
//	if err := el.Err(); err != nil { ... }
type Elements struct {
	r        io.Reader
	buf      []byte
	i        int   // the next byte of buf to read
	base     int64 // the input offset of buf[0]
	start    int64 // the input offset of the element returned last
	maxBytes int
	lone     Surrogates
	eof      bool // r has nothing more
	state    uint8
	err      error
}

// Elements states.
const (
	elemsBefore = iota // before the opening bracket
	elemsFirst         // after it: an element or the closing bracket next
	elemsNext          // after an element: a comma or the closing bracket next
	elemsDone          // past the closing bracket, or stopped by an error
)

// elemsRead is how much an Elements asks its stream for at once; a fault
// within cutMargin bytes of the end of what it holds may be a token cut short
// (the longest: an escaped surrogate pair).
const elemsRead, cutMargin = 256 << 10, 16

// NewElements reads the array in r; an element may hold up to maxBytes bytes and
// nest to DefaultMaxDepth, and lone surrogate escapes follow lone.
func NewElements(r io.Reader, maxBytes int, lone Surrogates) *Elements {
	return &Elements{r: r, maxBytes: maxBytes, lone: lone}
}

// ElementError is where and why an Elements stopped: Offset is the input offset
// of the fault.
type ElementError struct {
	Offset int64
	Err    error // a LexError, ErrElementTooLong, or the stream's error
}

func (e *ElementError) Error() string {
	return fmt.Sprintf("offset %d: %v", e.Offset, e.Err)
}

func (e *ElementError) Unwrap() error { return e.Err }

// ErrElementTooLong is an element longer than the limit NewElements was given.
var ErrElementTooLong = errors.New("element too long")

// Next returns the next element, valid until the next call, or false at the
// array's end or on an error (Err then says which).
func (e *Elements) Next() ([]byte, bool) {
	for e.state != elemsDone {
		if !e.space() {
			return nil, false
		}
		c := e.buf[e.i]
		switch e.state {
		case elemsBefore:
			if c != '[' {
				return nil, e.fail(e.i, ErrUnexpected)
			}
			e.i++
			e.state = elemsFirst
			continue
		case elemsNext:
			switch c {
			case ',':
				e.i++
				if !e.space() {
					return nil, false
				}
			case ']':
				e.i++
				e.state = elemsDone
				return nil, false
			default:
				return nil, e.fail(e.i, ErrUnexpected)
			}
		case elemsFirst:
			if c == ']' {
				e.i++
				e.state = elemsDone
				return nil, false
			}
		}
		return e.element()
	}
	return nil, false
}

// All calls Next until it returns false.
func (e *Elements) All() func(yield func([]byte) bool) {
	return func(yield func([]byte) bool) {
		for {
			raw, ok := e.Next()
			if !ok || !yield(raw) {
				return
			}
		}
	}
}

// Offset is the input offset of the element Next returned last.
func (e *Elements) Offset() int64 { return e.start }

// Err is the error that stopped the reading (an *ElementError), or nil.
func (e *Elements) Err() error { return e.err }

// element reads the element at e.buf[e.i], reading more of the stream while the
// buffered bytes end inside it.
func (e *Elements) element() ([]byte, bool) {
	for {
		end, lerr := SkipValue(e.buf, e.i, DefaultMaxDepth, e.lone)
		// A fault in the last bytes buffered may be a token cut short (an
		// escape, a surrogate pair, a character, a literal), and a number that
		// ends them may go on: those are read again with more.
		c := e.buf[e.i]
		cut := !e.eof && (lerr == LexOK && end == len(e.buf) && (c == '-' || c >= '0' && c <= '9') ||
			lerr != LexOK && (lerr == ErrEnd || end >= len(e.buf)-cutMargin))
		if !cut {
			if lerr != LexOK {
				return nil, e.fail(end, lerr)
			}
			if end-e.i > e.maxBytes {
				return nil, e.fail(e.i, ErrElementTooLong)
			}
			raw := e.buf[e.i:end:end]
			e.start = e.base + int64(e.i)
			e.i, e.state = end, elemsNext
			return raw, true
		}
		if len(e.buf)-e.i > e.maxBytes {
			return nil, e.fail(e.i, ErrElementTooLong)
		}
		if !e.fill() {
			return nil, false
		}
	}
}

// space skips white space, reading more as needed; false at the end of the
// stream (an error: the array is not closed) or on a read error.
func (e *Elements) space() bool {
	for {
		e.i = SkipSpace(e.buf, e.i)
		if e.i < len(e.buf) {
			return true
		}
		if e.eof {
			e.fail(e.i, ErrEnd)
			return false
		}
		if !e.fill() {
			return false
		}
	}
}

// fill reads more of the stream behind what is buffered from e.i, keeping the
// bytes from e.i on; false on a read error.
func (e *Elements) fill() bool {
	if e.i > 0 {
		n := copy(e.buf, e.buf[e.i:])
		e.base += int64(e.i)
		e.buf, e.i = e.buf[:n], 0
	}
	if cap(e.buf)-len(e.buf) < elemsRead/2 {
		grown := make([]byte, len(e.buf), max(2*cap(e.buf), len(e.buf)+elemsRead))
		copy(grown, e.buf)
		e.buf = grown
	}
	n, err := io.ReadAtLeast(e.r, e.buf[len(e.buf):cap(e.buf)], 1)
	e.buf = e.buf[:len(e.buf)+n]
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		e.eof = true
	case err != nil:
		e.fail(len(e.buf), err)
		return false
	}
	return true
}

func (e *Elements) fail(at int, err error) bool {
	e.err = &ElementError{Offset: e.base + int64(at), Err: err}
	e.state = elemsDone
	return false
}
