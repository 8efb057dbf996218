package contract

import (
	"bufio"
	"bytes"
	"io"
)

// docScanner reads the values of a whole-file JSON document (a list, a batch object)
// from a bufio.Reader by their structure alone: brackets, strings and escapes. It
// keeps the line and column of the next byte, holds at most one value (up to a
// limit) and never white space, so neither a huge list nor megabytes of blank space
// between values grow memory. The values it returns are checked by the strict JSON
// parser afterwards; it only finds where each one ends.
//
// While taping, every byte it consumes is also kept in tape (up to the limit:
// over it, tapeOver is set and tape is dropped), so that an object read member
// by member can be had whole when it turns out to be one record.
type docScanner struct {
	br        *bufio.Reader
	line, col int   // position of the next byte, 1-based
	off       int64 // offset of the next byte from the start of the document
	buf       []byte
	head      []byte // the first headBytes of the last value, kept when it is too long
	limit     int
	maxDepth  int
	taping    bool
	tape      []byte
	tapeOver  bool
	tapeHead  []byte // the tape's first headBytes, kept when it goes over
}

// headBytes is how much of a value too long to keep the scanner holds: enough
// for a file's first member, its schema_version, to say what the file is.
const headBytes = 4 << 10

// chunk returns the buffered bytes, reading more when none are buffered.
func (s *docScanner) chunk() ([]byte, error) {
	if s.br.Buffered() == 0 {
		if _, err := s.br.Peek(1); err != nil {
			return nil, err
		}
	}
	return s.br.Peek(s.br.Buffered())
}

// advance consumes the first n bytes of chunk c, keeping the position.
func (s *docScanner) advance(c []byte, n int) {
	seg := c[:n]
	if k := bytes.Count(seg, lineEnd); k > 0 {
		s.line += k
		s.col = n - bytes.LastIndexByte(seg, '\n')
	} else {
		s.col += n
	}
	s.keepTape(seg)
	s.off += int64(n)
	s.br.Discard(n)
}

var lineEnd = []byte{'\n'}

// crlf is a line end of a carriage return and a line feed.
var crlf = []byte{'\r', '\n'}

// keepTape appends consumed bytes to the tape while taping.
func (s *docScanner) keepTape(p []byte) {
	if !s.taping || s.tapeOver {
		return
	}
	if len(s.tape)+len(p) > s.limit {
		n := min(len(s.tape), headBytes)
		s.tapeHead = append(s.tape[:n:n], p[:min(len(p), headBytes-n)]...) // a copy: cap n
		s.tapeOver, s.tape = true, nil
		return
	}
	s.tape = append(s.tape, p...)
}

// space skips JSON white space and returns the next byte without consuming it.
func (s *docScanner) space() (byte, error) {
	for {
		c, err := s.chunk()
		if err != nil {
			return 0, err
		}
		i := 0
		for i < len(c) && (c[i] == ' ' || c[i] == '\t' || c[i] == '\r' || c[i] == '\n') {
			i++
		}
		s.advance(c, i)
		if i < len(c) {
			return c[i], nil
		}
	}
}

// skip consumes one byte known not to be a newline.
func (s *docScanner) skip() {
	if s.taping {
		if c, err := s.br.Peek(1); err == nil {
			s.keepTape(c)
		}
	}
	s.br.Discard(1)
	s.col++
	s.off++
}

// errTooDeep ends a document nested deeper than MaxDepth.
type errTooDeep struct{}

func (errTooDeep) Error() string { return "exceeded max depth" }

// stringStop returns the index in c of the first '"' or '\\', or -1: where a
// string's plain run stops.
func stringStop(c []byte) int {
	q := bytes.IndexByte(c, '"')
	span := c
	if q >= 0 {
		span = c[:q]
	}
	if b := bytes.IndexByte(span, '\\'); b >= 0 {
		return b
	}
	return q
}

// value reads the bytes of the JSON value that starts at the next byte (white space
// already skipped). It returns the value's text, or tooLong when it holds more than
// the limit (the value is then read to its end without being kept). An error is
// io.ErrUnexpectedEOF when the input ends inside the value, errTooDeep, or a read
// error.
func (s *docScanner) value() (raw []byte, tooLong bool, err error) {
	s.buf, s.head = s.buf[:0], s.head[:0]
	depth, inStr, esc, started := 0, false, false, false
	keep := func(p []byte) {
		if tooLong {
			return
		}
		if len(s.buf)+len(p) > s.limit {
			tooLong = true
			s.head = append(s.head, s.buf[:min(len(s.buf), headBytes)]...)
			s.head = append(s.head, p[:min(len(p), headBytes-len(s.head))]...)
			s.buf = s.buf[:0]
			return
		}
		s.buf = append(s.buf, p...)
	}
	for {
		c, err := s.chunk()
		if err == io.EOF {
			if started && depth == 0 && !inStr {
				return s.buf, tooLong, nil // a scalar at the very end
			}
			return nil, tooLong, io.ErrUnexpectedEOF
		}
		if err != nil {
			return nil, tooLong, err
		}
		i, done := 0, false
		for ; i < len(c) && !done; i++ {
			if inStr && !esc {
				// the plain run of a string, in one step
				j := stringStop(c[i:])
				if j < 0 {
					i = len(c) - 1
					continue
				}
				i += j
			}
			b := c[i]
			if !started {
				started = true
				switch b {
				case '{', '[':
					depth = 1
				case '"':
					inStr = true
				}
				continue
			}
			if inStr {
				switch {
				case esc:
					esc = false
				case b == '\\':
					esc = true
				case b == '"':
					inStr = false
					done = depth == 0
				}
				continue
			}
			if depth == 0 {
				// a scalar ends before the first byte that cannot continue it
				switch b {
				case ' ', '\t', '\r', '\n', ',', ']', '}', ':', '[', '{', '"':
					i--
					done = true
				}
				continue
			}
			switch b {
			case '"':
				inStr = true
			case '{', '[':
				depth++
				if depth > s.maxDepth {
					keep(c[:i+1])
					s.advance(c, i+1)
					return nil, tooLong, errTooDeep{}
				}
			case '}', ']':
				depth--
				done = depth == 0
			}
		}
		keep(c[:i])
		s.advance(c, i)
		if done {
			return s.buf, tooLong, nil
		}
	}
}
