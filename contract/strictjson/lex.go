package strictjson

import (
	"unicode/utf16"
	"unicode/utf8"

	"github.com/fbeval/fbeval/contract"
)

// The lexer: JSON's number and string grammar (RFC 8259) and a value skipper, for
// every scanner that reads JSON text without building values (the record fast
// paths of both suites, the judge's quick check) and for Parse itself. Each
// function reads the token that starts at d[i] and returns the offset just past
// it, or, with a LexError, the offset of the byte at fault. None allocates.

// Text is what the lexer reads: a string or a byte slice.
type Text interface{ ~string | ~[]byte }

// Surrogates is the policy for a \u escape of a UTF-16 surrogate that is not half
// of an escaped pair (a lone surrogate).
type Surrogates uint8

const (
	// RejectSurrogates refuses a lone surrogate escape, as jsontext does.
	RejectSurrogates Surrogates = iota
	// KeepSurrogates reads a lone surrogate as Python's json reads it, one code
	// point: Go strings cannot hold it as UTF-8, so it is kept as its three WTF-8
	// bytes (distinct from every character, in code point order) and written back
	// as the same escape (contract.AppendString).
	KeepSurrogates
)

// LexError says why a lexer function stopped; LexOK when it did not.
type LexError uint8

// The lexer's errors.
const (
	LexOK            LexError = iota
	ErrEnd                    // the input ends inside the token
	ErrNumberDigit            // no digit where a number needs one
	ErrLeadingZero            // a digit after a leading zero
	ErrFractionDigit          // no digit after the decimal point
	ErrExponentDigit          // no digit in the exponent
	ErrControl                // a control character in a string
	ErrUTF8                   // invalid UTF-8 in a string
	ErrEscape                 // a backslash escape JSON does not have
	ErrUnicodeEscape          // \u not followed by four hex digits
	ErrLoneSurrogate          // a lone surrogate escape under RejectSurrogates
	ErrDepth                  // nesting deeper than the limit
	ErrUnexpected             // any other byte out of place
)

var lexMessages = [...]string{
	LexOK:            "ok",
	ErrEnd:           "unexpected end of input",
	ErrNumberDigit:   "expected a digit in number",
	ErrLeadingZero:   "leading zero in number",
	ErrFractionDigit: "expected a digit after decimal point",
	ErrExponentDigit: "expected a digit in exponent",
	ErrControl:       "control character in string must be escaped",
	ErrUTF8:          "invalid UTF-8 in string",
	ErrEscape:        "invalid escape in string",
	ErrUnicodeEscape: "invalid \\u escape in string",
	ErrLoneSurrogate: "lone surrogate escape in string",
	ErrDepth:         "nesting too deep",
	ErrUnexpected:    "unexpected character",
}

// Error returns a short description.
func (e LexError) Error() string {
	if int(e) < len(lexMessages) {
		return lexMessages[e]
	}
	return "lex error"
}

// ScanNumber reads the number literal -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)? at
// d[i]. isInt reports a literal with no fraction and no exponent. A digit right
// after a leading zero is ErrLeadingZero, at the number's start: no JSON text has
// one there.
func ScanNumber[T Text](d T, i int) (end int, isInt bool, err LexError) {
	start := i
	if i < len(d) && d[i] == '-' {
		i++
	}
	if i >= len(d) || d[i] < '0' || d[i] > '9' {
		return i, false, ErrNumberDigit
	}
	if d[i] == '0' {
		i++
		if i < len(d) && d[i] >= '0' && d[i] <= '9' {
			return start, false, ErrLeadingZero
		}
	} else {
		for i++; i < len(d) && d[i] >= '0' && d[i] <= '9'; i++ {
		}
	}
	isInt = true
	if i < len(d) && d[i] == '.' {
		isInt = false
		i++
		k := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		if i == k {
			return i, false, ErrFractionDigit
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		isInt = false
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		k := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		if i == k {
			return i, false, ErrExponentDigit
		}
	}
	return i, isInt, LexOK
}

// SmallInt returns the value of an integer literal (as ScanNumber read it, isInt)
// of at most 18 bytes, which fits an int64 without overflow checks; false for a
// longer one.
func SmallInt[T Text](lit T) (int64, bool) {
	if len(lit) > 18 || len(lit) == 0 {
		return 0, false
	}
	k := 0
	if lit[0] == '-' {
		k = 1
	}
	var n int64
	for ; k < len(lit); k++ {
		n = n*10 + int64(lit[k]-'0')
	}
	if lit[0] == '-' {
		n = -n
	}
	return n, true
}

// ScanString reads the string whose opening quote is at d[i] without unescaping
// it: end is just past the closing quote, escaped reports a backslash in it.
func ScanString[T Text](d T, i int, lone Surrogates) (end int, escaped bool, err LexError) {
	i++
	for i < len(d) {
		i = contract.PlainRun(d, i)
		if i >= len(d) {
			break
		}
		c := d[i] // not plain: PlainRun stopped at it
		switch {
		case c == '"':
			return i + 1, escaped, LexOK
		case c == '\\':
			escaped = true
			if i+1 >= len(d) {
				return len(d), escaped, ErrEnd
			}
			if shortEscape[d[i+1]] != 0 {
				i += 2
				continue
			}
			if d[i+1] != 'u' {
				return i, escaped, ErrEscape
			}
			var e LexError
			if i, _, e = unicodeEscape(d, i, lone); e != LexOK {
				return i, escaped, e
			}
		case c < 0x20:
			return i, escaped, ErrControl
		default:
			size := runeLen(d, i)
			if size == 0 {
				return i, escaped, ErrUTF8
			}
			i += size
		}
	}
	return len(d), escaped, ErrEnd
}

// ReadString reads the string whose opening quote is at d[i]. Without escapes its
// text is d[i+1:end-1] and buf comes back as it was (escaped false); with escapes
// the unescaped text is appended to buf (escaped true).
func ReadString[T Text](d T, i int, buf []byte, lone Surrogates) (end int, out []byte, escaped bool, err LexError) {
	start := i + 1
	for i = start; i < len(d); {
		i = contract.PlainRun(d, i)
		if i >= len(d) {
			break
		}
		c := d[i] // not plain: PlainRun stopped at it
		switch {
		case c == '"':
			return i + 1, buf, false, LexOK
		case c == '\\':
			return unescape(d, start, i, buf, lone)
		case c < 0x20:
			return i, buf, false, ErrControl
		default:
			size := runeLen(d, i)
			if size == 0 {
				return i, buf, false, ErrUTF8
			}
			i += size
		}
	}
	return len(d), buf, false, ErrEnd
}

// unescape appends the text of a string from start on, whose first escape is at i.
func unescape[T Text](d T, start, i int, buf []byte, lone Surrogates) (int, []byte, bool, LexError) {
	buf = append(buf, d[start:i]...)
	for i < len(d) {
		c := d[i]
		if contract.PlainByte(c) {
			// copy the run of plain bytes at once
			j := contract.PlainRun(d, i+1)
			buf = append(buf, d[i:j]...)
			i = j
			continue
		}
		switch {
		case c == '"':
			return i + 1, buf, true, LexOK
		case c == '\\':
			if i+1 >= len(d) {
				return len(d), buf, true, ErrEnd
			}
			// Escaped quotes are most of the escapes in an output that is JSON
			// text itself: one table look-up for every one-letter escape.
			if b := shortEscape[d[i+1]]; b != 0 {
				buf = append(buf, b)
				i += 2
				continue
			}
			if d[i+1] != 'u' {
				return i, buf, true, ErrEscape
			}
			next, r, e := unicodeEscape(d, i, lone)
			if e != LexOK {
				return next, buf, true, e
			}
			if utf16.IsSurrogate(r) {
				buf = append(buf, 0xE0|byte(r>>12), 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
			} else {
				buf = utf8.AppendRune(buf, r)
			}
			i = next
		case c < 0x20:
			return i, buf, true, ErrControl
		default:
			size := runeLen(d, i)
			if size == 0 {
				return i, buf, true, ErrUTF8
			}
			buf = append(buf, d[i:i+size]...)
			i += size
		}
	}
	return len(d), buf, true, ErrEnd
}

// unicodeEscape reads the \u escape at d[i] (and the low half after a high
// surrogate): the offset after it and the code point, a lone surrogate itself
// under KeepSurrogates.
func unicodeEscape[T Text](d T, i int, lone Surrogates) (int, rune, LexError) {
	r, ok := hex4(d, i+2)
	if !ok {
		return i, 0, ErrUnicodeEscape
	}
	next := i + 6
	if !utf16.IsSurrogate(r) {
		return next, r, LexOK
	}
	// A high surrogate followed by an escaped low one is one character.
	if r < 0xDC00 && next+1 < len(d) && d[next] == '\\' && d[next+1] == 'u' {
		r2, ok := hex4(d, next+2)
		if !ok {
			return next, 0, ErrUnicodeEscape
		}
		if r2 >= 0xDC00 && r2 <= 0xDFFF {
			return next + 6, utf16.DecodeRune(r, r2), LexOK
		}
	}
	if lone == RejectSurrogates {
		return i, 0, ErrLoneSurrogate
	}
	return next, r, LexOK
}

func hex4[T Text](d T, at int) (rune, bool) {
	if at+4 > len(d) {
		return 0, false
	}
	var r rune
	for k := at; k < at+4; k++ {
		x := hexValue[d[k]]
		if x == 0xFF {
			return 0, false
		}
		r = r<<4 | rune(x)
	}
	return r, true
}

// runeLen returns the length of the valid UTF-8 encoding of a character at d[i]
// (not ASCII), or 0: the ranges of utf8.DecodeRune, without building a string.
func runeLen[T Text](d T, i int) int {
	c := d[i]
	n := len(d) - i
	switch {
	case c >= 0xC2 && c <= 0xDF:
		if n >= 2 && d[i+1]&0xC0 == 0x80 {
			return 2
		}
	case c >= 0xE0 && c <= 0xEF:
		lo, hi := byte(0x80), byte(0xBF)
		if c == 0xE0 {
			lo = 0xA0
		} else if c == 0xED {
			hi = 0x9F
		}
		if n >= 3 && d[i+1] >= lo && d[i+1] <= hi && d[i+2]&0xC0 == 0x80 {
			return 3
		}
	case c >= 0xF0 && c <= 0xF4:
		lo, hi := byte(0x80), byte(0xBF)
		if c == 0xF0 {
			lo = 0x90
		} else if c == 0xF4 {
			hi = 0x8F
		}
		if n >= 4 && d[i+1] >= lo && d[i+1] <= hi && d[i+2]&0xC0 == 0x80 && d[i+3]&0xC0 == 0x80 {
			return 4
		}
	}
	return 0
}

// SkipSpace returns the offset of the first byte at or after i that is not JSON
// white space.
func SkipSpace[T Text](d T, i int) int {
	for i < len(d) {
		switch d[i] {
		case ' ', '\t', '\n', '\r':
			i++
			continue
		}
		break
	}
	return i
}

// ScanLiteral reads the literal word (true, false or null) at d[i].
func ScanLiteral[T Text](d T, i int, word string) (int, LexError) {
	if len(d)-i < len(word) {
		return i, ErrUnexpected
	}
	for k := 0; k < len(word); k++ {
		if d[i+k] != word[k] {
			return i, ErrUnexpected
		}
	}
	return i + len(word), LexOK
}

// SkipValue reads the value at d[i] (white space before it already skipped) and
// returns the offset just past it. Containers may nest maxDepth deep; member names
// may repeat (the caller decides whether they may). It follows the nesting with a
// stack of bits, not recursion.
func SkipValue[T Text](d T, i int, maxDepth int, lone Surrogates) (int, LexError) {
	var small [4]uint64 // one bit per open container: set for an object
	stack := small[:]
	depth := 0
	var err LexError
	for {
		// a value at d[i]
		if i >= len(d) {
			return i, ErrEnd
		}
		switch c := d[i]; c {
		case '"':
			i, _, err = ScanString(d, i, lone)
		case 't':
			i, err = ScanLiteral(d, i, "true")
		case 'f':
			i, err = ScanLiteral(d, i, "false")
		case 'n':
			i, err = ScanLiteral(d, i, "null")
		case '[', '{':
			if depth >= maxDepth {
				return i, ErrDepth
			}
			if depth/64 >= len(stack) {
				stack = append(stack, 0)
			}
			obj := c == '{'
			if obj {
				stack[depth/64] |= 1 << (depth % 64)
			} else {
				stack[depth/64] &^= 1 << (depth % 64)
			}
			depth++
			i = SkipSpace(d, i+1)
			if i < len(d) && (obj && d[i] == '}' || !obj && d[i] == ']') {
				depth--
				i++
				break
			}
			if obj {
				if i, err = memberName(d, i, lone); err != LexOK {
					return i, err
				}
			}
			continue
		default:
			if c == '-' || c >= '0' && c <= '9' {
				i, _, err = ScanNumber(d, i)
			} else {
				err = ErrUnexpected
			}
		}
		if err != LexOK {
			return i, err
		}
		// after a value: close containers or move to the next element
		for {
			if depth == 0 {
				return i, LexOK
			}
			i = SkipSpace(d, i)
			if i >= len(d) {
				return i, ErrEnd
			}
			obj := stack[(depth-1)/64]&(1<<((depth-1)%64)) != 0
			if obj && d[i] == '}' || !obj && d[i] == ']' {
				depth--
				i++
				continue
			}
			if d[i] != ',' {
				return i, ErrUnexpected
			}
			i = SkipSpace(d, i+1)
			if obj {
				if i, err = memberName(d, i, lone); err != LexOK {
					return i, err
				}
			}
			break
		}
	}
}

// memberName reads `"name" :` at d[i] and returns the start of the member's value.
func memberName[T Text](d T, i int, lone Surrogates) (int, LexError) {
	if i >= len(d) {
		return i, ErrEnd
	}
	if d[i] != '"' {
		return i, ErrUnexpected
	}
	i, _, err := ScanString(d, i, lone)
	if err != LexOK {
		return i, err
	}
	i = SkipSpace(d, i)
	if i >= len(d) {
		return i, ErrEnd
	}
	if d[i] != ':' {
		return i, ErrUnexpected
	}
	return SkipSpace(d, i+1), LexOK
}

// shortEscape maps the letter of each one-letter JSON escape to the byte it
// stands for; 0 for any other byte.
var shortEscape = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// hexValue maps a hex digit to its value; 0xFF for any other byte.
var hexValue = func() (t [256]byte) {
	for c := range t {
		switch {
		case c >= '0' && c <= '9':
			t[c] = byte(c - '0')
		case c >= 'a' && c <= 'f':
			t[c] = byte(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			t[c] = byte(c - 'A' + 10)
		default:
			t[c] = 0xFF
		}
	}
	return t
}()

// Members reads the object at d[i] (white space before it already skipped),
// calling member with each member's name and the offset of its value (white
// space skipped); member reads the value and returns the offset past it, or
// false to stop. A name with an escape stops the read: its text is not its
// bytes. Members returns the offset past the object, or -1 where the object is
// malformed or member stopped. Names may repeat (the caller decides whether
// they may).
func Members(d []byte, i int, member func(name []byte, i int) (int, bool)) int {
	return container(d, i, '{', '}', func(i int) (int, bool) {
		if i >= len(d) || d[i] != '"' {
			return i, false
		}
		end, escaped, err := ScanString(d, i, RejectSurrogates)
		if err != LexOK || escaped {
			return i, false
		}
		name := d[i+1 : end-1]
		i = SkipSpace(d, end)
		if i >= len(d) || d[i] != ':' {
			return i, false
		}
		return member(name, SkipSpace(d, i+1))
	})
}

// Items reads the array at d[i] as Members reads an object, calling item with
// the offset of each element.
func Items(d []byte, i int, item func(i int) (int, bool)) int {
	return container(d, i, '[', ']', item)
}

// container reads the object or array at d[i] that open and close delimit,
// calling item at each member or element.
func container(d []byte, i int, open, close byte, item func(i int) (int, bool)) int {
	if i >= len(d) || d[i] != open {
		return -1
	}
	i = SkipSpace(d, i+1)
	if i < len(d) && d[i] == close {
		return i + 1
	}
	var ok bool
	for {
		if i, ok = item(i); !ok {
			return -1
		}
		i = SkipSpace(d, i)
		switch {
		case i < len(d) && d[i] == ',':
			i = SkipSpace(d, i+1)
		case i < len(d) && d[i] == close:
			return i + 1
		default:
			return -1
		}
	}
}
