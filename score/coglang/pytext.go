package coglang

import (
	"bufio"
	"encoding/binary"
	"io"
	"math/bits"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/fbeval/fbeval/contract"
)

// pyText reads a CogLang response file the way the reference's Python reads it,
// as far as the contract reader cannot: outside JSON strings it turns the line
// breaks str.splitlines honours (lone CR, VT, FF, U+001C-U+001E, U+0085, U+2028,
// U+2029) into newlines, blanks the Unicode white space (NBSP, U+3000, ...) of
// lines made only of it and at the ends of the file (str.strip), and spells
// Python's NaN, Infinity and -Infinity as JSON numbers the CogLang decoder reads
// back as Python's float (1e999999 is inf, as in Python; NaN becomes
// NaNLiteral). Inside strings nothing changes. Byte offsets stay where they
// were, so positions in messages stay right, except after a NaN on its line.
type pyText struct {
	br *bufio.Reader
	// out holds processed bytes, those from off on not yet returned; fill
	// writes over it once all are, so one buffer serves the whole file.
	out     []byte
	off     int
	pending []byte // a run of Unicode white space outside strings, not yet placed
	// heldRaw is the white space that ended a line with content, heldRest what
	// came after it (line ends, blanked lines): kept as read if more content
	// follows, blanked at the end of the file (str.strip).
	heldRaw, heldRest []byte
	inStr             bool
	escape            bool
	content           bool // a byte that is not white space was seen in the file
	lineHas           bool // ... on the current line
	eof               bool
	failed            error // every read's error (newPyTextFile)
}

// pyTextPool keeps pyTexts between files, so that a batch engine's thousand
// shards are read through one reader's buffers in turn, not a new 64 KB
// buffer each.
var pyTextPool = sync.Pool{New: func() any { return &pyText{br: bufio.NewReaderSize(nil, 64<<10)} }}

func newPyText(r io.Reader) *pyText {
	p := pyTextPool.Get().(*pyText)
	p.br.Reset(r)
	return p
}

// release gives p back for another file once nothing will read it again.
func (p *pyText) release() {
	br, out, pending := p.br, p.out, p.pending
	br.Reset(nil)
	if cap(out) > 1<<20 {
		out = nil // a file of long lines: not kept for the next
	}
	*p = pyText{br: br, out: out[:0], pending: pending[:0]}
	pyTextPool.Put(p)
}

// newPyTextFile is newPyText of the file name: compressed data or UTF-16 text
// (whose first bytes the Python rules would change) is said so at its start.
func newPyTextFile(name string, r io.Reader) *pyText {
	p := newPyText(r)
	if head, _ := p.br.Peek(contract.EncodingMagic); len(head) > 0 {
		p.failed = contract.WrongEncoding(name, head)
	}
	return p
}

// plainByte marks the ASCII bytes that need no thought outside a string.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = true
	}
	for _, c := range `"\NI- ` {
		t[c] = false
	}
	return t
}()

// scan returns how many bytes of buf pass unchanged, updating the state as it
// goes; it stops before the first byte the slow path must see.
func (p *pyText) scan(buf []byte) int {
	n := 0
	inStr, content, lineHas := p.inStr, p.content, p.lineHas
	for n < len(buf) {
		if inStr {
			n = strRun(buf, n)
			if n == len(buf) {
				break
			}
			if buf[n] == '\\' {
				if n+1 >= len(buf) {
					break
				}
				n += 2 // the escaped byte is text, whatever it is
				continue
			}
			inStr = false // '"' or '\n' ends the string
			n++
			continue
		}
		c := buf[n]
		switch {
		case plainByte[c]:
			content, lineHas = true, true
		case c == ' ' || c == '\t':
		case c == '"':
			content, lineHas = true, true
			inStr = true
		case c == '\n':
			lineHas = false
		default:
			p.inStr, p.content, p.lineHas = inStr, content, lineHas
			return n
		}
		n++
	}
	p.inStr, p.content, p.lineHas = inStr, content, lineHas
	return n
}

// strSpecial marks the bytes that end or escape a string, or end a line.
var strSpecial = func() (t [256]bool) {
	t['"'], t['\\'], t['\n'] = true, true, true
	return t
}()

// strRun returns the place of the first byte of buf from n on that strSpecial
// marks, or len(buf): eight bytes at a time, behind one bounds check.
func strRun(buf []byte, n int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for n+8 <= len(buf) {
		x := binary.LittleEndian.Uint64(buf[n : n+8])
		// the high bit of each byte that is '"', '\\' or '\n'; higher marks
		// may be false, the lowest is exact
		q := x ^ ('"' * ones)
		b := x ^ ('\\' * ones)
		l := x ^ ('\n' * ones)
		if m := ((q - ones) &^ q) | ((b - ones) &^ b) | ((l - ones) &^ l); m&highs != 0 {
			return n + bits.TrailingZeros64(m&highs)>>3
		}
		n += 8
	}
	for n < len(buf) && !strSpecial[buf[n]] {
		n++
	}
	return n
}

func (p *pyText) Read(b []byte) (int, error) {
	if p.failed != nil {
		return 0, p.failed
	}
	for p.off == len(p.out) {
		if p.eof {
			return 0, io.EOF
		}
		if err := p.fill(); err != nil && err != io.EOF {
			return 0, err
		}
	}
	n := copy(b, p.out[p.off:])
	p.off += n
	return n, nil
}

// fill processes the next stretch of input into out.
func (p *pyText) fill() error {
	out := p.out[:0]
	p.off = 0
	for len(out) < 32<<10 {
		// fast path: while nothing waits to be placed, the common bytes (plain
		// text, spaces, quotes, escapes, newlines) are copied at once
		if buf, _ := p.br.Peek(p.br.Buffered()); len(buf) > 0 && len(p.pending) == 0 && len(p.heldRaw) == 0 && !p.escape {
			n := p.scan(buf)
			if n > 0 {
				out = append(out, buf[:n]...)
				p.br.Discard(n)
				continue
			}
		}
		c, err := p.br.ReadByte()
		if err == io.EOF {
			// str.strip at the end
			out = append(out, spaces(len(p.heldRaw))...)
			out = append(out, p.heldRest...)
			out = append(out, spaces(len(p.pending))...)
			p.pending, p.heldRaw, p.heldRest = p.pending[:0], nil, nil
			p.eof = true
			break
		}
		if err != nil {
			p.out = out
			return err
		}
		if p.inStr {
			out = append(out, c)
			switch {
			case p.escape:
				p.escape = false
			case c == '\\':
				p.escape = true
			case c == '"', c == '\n':
				p.inStr = false
			}
			continue
		}
		switch {
		case plainByte[c]:
			out = p.contentByte(out)
			out = append(out, c)
			continue
		case c == ' ' || c == '\t':
			if len(p.pending) > 0 {
				p.pending = append(p.pending, c)
			} else {
				out = p.emit(out, c)
			}
			continue
		case c == '\n':
			out = p.lineEnd(out, "\n")
			continue
		case c == '\r':
			if next, err := p.br.Peek(1); err == nil && next[0] == '\n' {
				out = p.emit(out, '\r') // CRLF: the contract reader's business
				continue
			}
			out = p.lineEnd(out, "\n")
			continue
		case c == '\v' || c == '\f' || c == 0x1c || c == 0x1d || c == 0x1e:
			out = p.lineEnd(out, "\n")
			continue
		case c == 0x1f:
			p.pending = append(p.pending, c)
			continue
		case c == '"':
			out = p.contentByte(out)
			out = append(out, c)
			p.inStr, p.escape = true, false
			continue
		case c == 'N' || c == 'I' || c == '-':
			out = p.contentByte(out)
			out = p.literal(out, c)
			continue
		case c >= utf8.RuneSelf:
			p.br.UnreadByte()
			r, size, err := p.br.ReadRune()
			if err != nil {
				p.out = out
				return err
			}
			switch {
			case r == 0x85:
				out = p.lineEnd(out, " \n")
			case r == 0x2028 || r == 0x2029:
				out = p.lineEnd(out, "  \n")
			case r != utf8.RuneError && unicode.IsSpace(r):
				p.pending = utf8.AppendRune(p.pending, r)
			default:
				out = p.contentByte(out)
				if r == utf8.RuneError && size == 1 {
					out = append(out, c) // invalid UTF-8 stays for the decoder to name
				} else {
					out = utf8.AppendRune(out, r)
				}
			}
			continue
		}
		// other control bytes: content, for the decoder to refuse
		out = p.contentByte(out)
		out = append(out, c)
	}
	p.out = out
	return nil
}

// contentByte places a pending white-space run before a byte that is not white
// space: blanked at the start of the file (str.strip), else kept as it is, for
// the decoder to refuse as the reference's json.loads refuses it.
func (p *pyText) contentByte(out []byte) []byte {
	if len(p.heldRaw) > 0 {
		out = append(append(out, p.heldRaw...), p.heldRest...)
		p.heldRaw, p.heldRest = p.heldRaw[:0], p.heldRest[:0]
	}
	if len(p.pending) > 0 {
		if p.content {
			out = append(out, p.pending...)
		} else {
			out = append(out, spaces(len(p.pending))...)
		}
		p.pending = p.pending[:0]
	}
	p.content, p.lineHas = true, true
	return out
}

// lineEnd ends a line with nl (a newline, after spaces that keep the width of a
// wider line break): a line made only of white space is blanked, as
// `if line.strip()` skips it.
func (p *pyText) lineEnd(out []byte, nl string) []byte {
	if len(p.pending) > 0 {
		if p.lineHas && len(p.heldRaw) == 0 {
			// it may be the end of the file: wait and see
			p.heldRaw = append(p.heldRaw, p.pending...)
		} else {
			out = p.emit(out, spaces(len(p.pending))...)
		}
		p.pending = p.pending[:0]
	}
	p.lineHas = false
	return p.emit(out, []byte(nl)...)
}

// emit writes white space to out, or behind held white space.
func (p *pyText) emit(out []byte, b ...byte) []byte {
	if len(p.heldRaw) > 0 {
		p.heldRest = append(p.heldRest, b...)
		return out
	}
	return append(out, b...)
}

// literal writes Python's NaN, Infinity or -Infinity, starting with c, as a JSON
// number of the CogLang decoder, or c itself.
func (p *pyText) literal(out []byte, c byte) []byte {
	var word, repl string
	switch c {
	case 'N':
		word, repl = "aN", NaNLiteral
	case 'I':
		word, repl = "nfinity", "1e999999"
	default:
		word, repl = "Infinity", "-1e999999"
	}
	if next, err := p.br.Peek(len(word)); err == nil && string(next) == word {
		p.br.Discard(len(word))
		out = append(out, repl...)
		if d, err := p.br.Peek(1); err == nil && d[0] >= '0' && d[0] <= '9' {
			// NaN1 is no number to Python (Expecting ',' delimiter): kept
			// apart, the digit does not lengthen the number written for it
			out = append(out, ' ')
		}
		return out
	}
	return append(out, c)
}

func spaces(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = ' '
	}
	return b
}
