package strictjson

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// DefaultMaxDepth is the nesting depth at which Parse gives up. Values are parsed,
// compared and converted recursively; the limit bounds that recursion on untrusted
// model output.
const DefaultMaxDepth = 10000

// Kind is the type of a Value.
type Kind uint8

// The kinds of Value. Int and BigInt both hold JSON integers (literals with no
// fraction or exponent); BigInt is used only when the integer does not fit an int64,
// so one number has exactly one representation.
const (
	Null Kind = iota
	Bool
	String
	Int
	BigInt
	Float
	Array
	Object
)

var kindNames = [...]string{"null", "bool", "string", "int", "bigint", "float", "array", "object"}

// String returns the kind's name.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Value is one JSON value read exactly as Python's json module reads numbers: an
// integer literal is an exact integer of any size, any other number a float64. Object
// members keep their input order. The zero Value is null.
type Value struct {
	kind Kind
	n    uint64   // bool (0 or 1), int64 bits or float64 bits
	s    string   // string value, or the decimal text of a BigInt
	kids []Member // array items (empty keys) or object members
}

// Member is one key and value of an object Value.
type Member struct {
	Key   string
	Value Value
}

// NullValue returns JSON null.
func NullValue() Value { return Value{} }

// BoolValue returns a JSON boolean.
func BoolValue(b bool) Value {
	v := Value{kind: Bool}
	if b {
		v.n = 1
	}
	return v
}

// StringValue returns a JSON string.
func StringValue(s string) Value { return Value{kind: String, s: s} }

// IntValue returns a JSON integer.
func IntValue(i int64) Value { return Value{kind: Int, n: uint64(i)} }

// FloatValue returns a JSON float. f must be finite.
func FloatValue(f float64) Value { return Value{kind: Float, n: math.Float64bits(f)} }

// ArrayValue returns a JSON array of items.
func ArrayValue(items ...Value) Value {
	kids := make([]Member, len(items))
	for i, it := range items {
		kids[i].Value = it
	}
	return Value{kind: Array, kids: kids}
}

// ObjectValue returns a JSON object with members in the order given. Keys must be
// unique.
func ObjectValue(members ...Member) Value {
	return Value{kind: Object, kids: append([]Member(nil), members...)}
}

// Kind returns the value's kind.
func (v Value) Kind() Kind { return v.kind }

// Bool returns a Bool value's truth.
func (v Value) Bool() bool { return v.kind == Bool && v.n == 1 }

// Int returns an Int value.
func (v Value) Int() int64 {
	if v.kind != Int {
		return 0
	}
	return int64(v.n)
}

// Float returns a Float value.
func (v Value) Float() float64 {
	if v.kind != Float {
		return 0
	}
	return math.Float64frombits(v.n)
}

// Str returns a String value, or the decimal digits of a BigInt.
func (v Value) Str() string { return v.s }

// Len returns the number of items of an array or members of an object.
func (v Value) Len() int { return len(v.kids) }

// Index returns item i of an array.
func (v Value) Index(i int) Value { return v.kids[i].Value }

// Members returns an object's members in input order. The slice must not be modified.
func (v Value) Members() []Member {
	if v.kind != Object {
		return nil
	}
	return v.kids
}

// Get returns the member of an object named key.
func (v Value) Get(key string) (Value, bool) {
	if v.kind != Object {
		return Value{}, false
	}
	for i := range v.kids {
		if v.kids[i].Key == key {
			return v.kids[i].Value, true
		}
	}
	return Value{}, false
}

// IsNumber reports whether v is an Int, BigInt or Float.
func (v Value) IsNumber() bool { return v.kind == Int || v.kind == BigInt || v.kind == Float }

// SyntaxError is a strict-JSON failure with its position in the text.
type SyntaxError struct {
	Offset int // byte offset, 0-based
	Line   int // 1-based
	Col    int // 1-based, in bytes
	Msg    string
}

// Error returns a one-line message with line, column and offset.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at line %d, column %d (offset %d): %s", e.Line, e.Col, e.Offset, e.Msg)
}

// Parse reads text as exactly one strict JSON value: surrounding JSON whitespace is
// allowed, nothing else. It rejects duplicate keys at any depth, NaN and Infinity,
// numbers that overflow a float64, a byte order mark, invalid UTF-8, control
// characters in strings and nesting deeper than DefaultMaxDepth. A lone UTF-16
// surrogate escape is read, as Python's json reads it (see String values).
func Parse(text string) (Value, error) {
	return ParseDepth(text, DefaultMaxDepth)
}

// ParseDepth is Parse with a nesting limit of maxDepth containers.
func ParseDepth(text string, maxDepth int) (Value, error) {
	p := parserPool.Get().(*parser)
	v, err := p.run(text, maxDepth)
	p.release()
	return v, err
}

// Scratch is a parser's arena: the containers of a value parsed by ParseScratch live
// in it until Release.
type Scratch struct{ p *parser }

// ParseScratch is Parse with the value's members carved from a pooled arena instead
// of allocated one container at a time: the value is valid only until s.Release, for
// a caller that is done with it by then (a judge scoring one output). Call Release
// once, also after an error.
func ParseScratch(text string) (Value, Scratch, error) {
	p := parserPool.Get().(*parser)
	p.useArena = true
	v, err := p.run(text, DefaultMaxDepth)
	return v, Scratch{p}, err
}

// Release returns the arena to the pool; values parsed into it are invalid after.
func (s Scratch) Release() { s.p.release() }

func (p *parser) run(text string, maxDepth int) (Value, error) {
	p.data, p.pos, p.depth, p.maxDepth = text, 0, 0, maxDepth
	v, err := p.parse()
	if err != nil {
		// A failed parse leaves members behind; drop them for the GC.
		clear(p.scratch[:cap(p.scratch)])
		p.scratch = p.scratch[:0]
	}
	p.data = ""
	return v, err
}

// release puts the parser back in the pool, dropping what its arena holds.
func (p *parser) release() {
	clear(p.arena)
	p.arena = p.arena[:0]
	p.useArena = false
	if cap(p.scratch) <= 1<<12 && cap(p.buf) <= 1<<16 && cap(p.arena) <= 1<<12 {
		parserPool.Put(p)
	}
}

// arenaChunk is the size of a fresh arena: a few hundred members cover the
// outputs of tool calls many times over.
const arenaChunk = 512

// members returns room for n members: from the arena when it is on, else new.
func (p *parser) members(n int) []Member {
	if !p.useArena {
		return make([]Member, n)
	}
	if len(p.arena)+n > cap(p.arena) {
		// the full chunk stays with the values that use it; a new one takes over
		p.arena = make([]Member, 0, max(arenaChunk, n))
	}
	k := len(p.arena)
	p.arena = p.arena[:k+n]
	return p.arena[k : k+n : k+n]
}

// parserPool keeps scratch space between parses: the hot path parses many small
// outputs.
var parserPool = sync.Pool{New: func() any { return new(parser) }}

type parser struct {
	data     string
	pos      int
	depth    int
	maxDepth int
	scratch  []Member // members of the open containers, reused as they close
	buf      []byte   // unescaped string bytes
	arena    []Member // members of the values of a parseScratch
	useArena bool
	errPos   int
	errMsg   string
}

func (p *parser) parse() (Value, error) {
	if len(p.data) >= 3 && p.data[:3] == "\xEF\xBB\xBF" {
		return Value{}, p.errorAt(0, "byte order mark not allowed")
	}
	p.skipSpace()
	if p.pos == len(p.data) {
		return Value{}, p.errorAt(p.pos, "empty input: expected one JSON value")
	}
	v, ok := p.value()
	if !ok {
		return Value{}, p.errorAt(p.errPos, p.errMsg)
	}
	p.skipSpace()
	if p.pos != len(p.data) {
		return Value{}, p.errorAt(p.pos, "unexpected "+describe(p.data, p.pos)+" after the JSON value (only one value allowed)")
	}
	return v, nil
}

func (p *parser) errorAt(off int, msg string) *SyntaxError {
	line, col := 1, 1
	for i := 0; i < off && i < len(p.data); i++ {
		if p.data[i] == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return &SyntaxError{Offset: off, Line: line, Col: col, Msg: msg}
}

// fail records the first error; parse functions return false up the stack after it.
func (p *parser) fail(off int, msg string) bool {
	p.errPos, p.errMsg = off, msg
	return false
}

func (p *parser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// describe names the byte at off for an error message.
func describe(s string, off int) string {
	if off >= len(s) {
		return "end of input"
	}
	c := s[off]
	if c < 0x20 || c == 0x7f {
		return fmt.Sprintf("control character %q", c)
	}
	if c >= utf8.RuneSelf {
		r, size := utf8.DecodeRuneInString(s[off:])
		if r == utf8.RuneError && size == 1 {
			return fmt.Sprintf("invalid UTF-8 byte 0x%02x", c)
		}
		return fmt.Sprintf("character %q", r)
	}
	return fmt.Sprintf("character %q", c)
}

func (p *parser) value() (Value, bool) {
	if p.pos >= len(p.data) {
		return Value{}, p.fail(p.pos, "unexpected end of input, expected a value")
	}
	switch c := p.data[p.pos]; c {
	case '{':
		return p.object()
	case '[':
		return p.array()
	case '"':
		s, ok := p.str()
		return Value{kind: String, s: s}, ok
	case 't':
		return BoolValue(true), p.literal("true")
	case 'f':
		return BoolValue(false), p.literal("false")
	case 'n':
		return Value{}, p.literal("null")
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return p.number()
	case '`':
		return Value{}, p.fail(p.pos, "unexpected character '`': Markdown code fences are not allowed, output bare JSON")
	default:
		if strings.HasPrefix(p.data[p.pos:], "NaN") || strings.HasPrefix(p.data[p.pos:], "Infinity") {
			return Value{}, p.fail(p.pos, "NaN and Infinity are not allowed")
		}
		return Value{}, p.fail(p.pos, "unexpected "+describe(p.data, p.pos)+", expected a JSON value")
	}
}

func (p *parser) literal(word string) bool {
	if len(p.data)-p.pos >= len(word) && p.data[p.pos:p.pos+len(word)] == word {
		p.pos += len(word)
		return true
	}
	return p.fail(p.pos, "invalid literal, expected "+word)
}

func (p *parser) enter() bool {
	p.depth++
	if p.depth > p.maxDepth {
		return p.fail(p.pos, "nesting deeper than "+strconv.Itoa(p.maxDepth)+" levels")
	}
	return true
}

func (p *parser) object() (Value, bool) {
	if !p.enter() {
		return Value{}, false
	}
	p.pos++ // '{'
	base := len(p.scratch)
	var seen map[string]struct{} // only for large objects
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		p.depth--
		return Value{kind: Object, kids: []Member{}}, true
	}
	for {
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return Value{}, p.fail(p.pos, "unexpected "+describe(p.data, p.pos)+", expected a string object key")
		}
		keyPos := p.pos
		key, ok := p.str()
		if !ok {
			return Value{}, false
		}
		// Duplicate keys: a linear scan is cheapest for the small objects of tool
		// calls; a set takes over for large ones.
		n := len(p.scratch) - base
		if n < 16 {
			for i := base; i < len(p.scratch); i++ {
				if p.scratch[i].Key == key {
					return Value{}, p.fail(keyPos, "duplicate object key "+strconv.Quote(key))
				}
			}
		} else {
			if seen == nil {
				seen = make(map[string]struct{}, 2*n)
				for i := base; i < len(p.scratch); i++ {
					seen[p.scratch[i].Key] = struct{}{}
				}
			}
			if _, dup := seen[key]; dup {
				return Value{}, p.fail(keyPos, "duplicate object key "+strconv.Quote(key))
			}
			seen[key] = struct{}{}
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return Value{}, p.fail(p.pos, "unexpected "+describe(p.data, p.pos)+", expected ':' after object key")
		}
		p.pos++
		p.skipSpace()
		v, ok := p.value()
		if !ok {
			return Value{}, false
		}
		p.scratch = append(p.scratch, Member{Key: key, Value: v})
		p.skipSpace()
		if p.pos < len(p.data) {
			switch p.data[p.pos] {
			case ',':
				p.pos++
				continue
			case '}':
				p.pos++
				p.depth--
				kids := p.members(len(p.scratch) - base)
				copy(kids, p.scratch[base:])
				clear(p.scratch[base:]) // drop references for the GC
				p.scratch = p.scratch[:base]
				return Value{kind: Object, kids: kids}, true
			}
		}
		return Value{}, p.fail(p.pos, "unexpected "+describe(p.data, p.pos)+", expected ',' or '}' in object")
	}
}

func (p *parser) array() (Value, bool) {
	if !p.enter() {
		return Value{}, false
	}
	p.pos++ // '['
	base := len(p.scratch)
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		p.depth--
		return Value{kind: Array, kids: []Member{}}, true
	}
	for {
		p.skipSpace()
		v, ok := p.value()
		if !ok {
			return Value{}, false
		}
		p.scratch = append(p.scratch, Member{Value: v})
		p.skipSpace()
		if p.pos < len(p.data) {
			switch p.data[p.pos] {
			case ',':
				p.pos++
				continue
			case ']':
				p.pos++
				p.depth--
				kids := p.members(len(p.scratch) - base)
				copy(kids, p.scratch[base:])
				clear(p.scratch[base:])
				p.scratch = p.scratch[:base]
				return Value{kind: Array, kids: kids}, true
			}
		}
		return Value{}, p.fail(p.pos, "unexpected "+describe(p.data, p.pos)+", expected ',' or ']' in array")
	}
}

// str reads a string starting at the opening quote. Strings without escapes are
// substrings of the input and cost no allocation.
func (p *parser) str() (string, bool) {
	start := p.pos + 1
	i := start
	for i < len(p.data) {
		c := p.data[i]
		if plainByte[c] {
			i++
			continue
		}
		switch {
		case c == '"':
			p.pos = i + 1
			return p.data[start:i], true
		case c == '\\':
			return p.strEscaped(start, i)
		case c < 0x20:
			return "", p.fail(i, "control character "+fmt.Sprintf("%q", c)+" in string must be escaped")
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRuneInString(p.data[i:])
			if r == utf8.RuneError && size == 1 {
				return "", p.fail(i, fmt.Sprintf("invalid UTF-8 byte 0x%02x in string", c))
			}
			i += size
		}
	}
	return "", p.fail(len(p.data), "unexpected end of input in string")
}

func (p *parser) strEscaped(start, i int) (string, bool) {
	buf := append(p.buf[:0], p.data[start:i]...)
	for i < len(p.data) {
		c := p.data[i]
		switch {
		case c == '"':
			p.pos = i + 1
			p.buf = buf
			return string(buf), true
		case c == '\\':
			if i+1 >= len(p.data) {
				return "", p.fail(len(p.data), "unexpected end of input in string escape")
			}
			e := p.data[i+1]
			switch e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				r, ok := p.hex4(i + 2)
				if !ok {
					return "", false
				}
				next := i + 6
				if utf16.IsSurrogate(r) {
					// A high surrogate followed by an escaped low one is one
					// character. Any other surrogate stays lone, as Python's json
					// reads it; Go strings cannot hold one as UTF-8, so it is kept
					// as its three WTF-8 bytes: distinct from every character and in
					// code point order, written back as the same escape.
					if r < 0xDC00 && next+1 < len(p.data) && p.data[next] == '\\' && p.data[next+1] == 'u' {
						r2, ok := p.hex4(next + 2)
						if !ok {
							return "", false
						}
						if r2 >= 0xDC00 && r2 <= 0xDFFF {
							buf = utf8.AppendRune(buf, utf16.DecodeRune(r, r2))
							i = next + 6
							continue
						}
					}
					buf = append(buf, 0xE0|byte(r>>12), 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
					i = next
					continue
				}
				buf = utf8.AppendRune(buf, r)
				i = next
				continue
			default:
				return "", p.fail(i, "invalid escape "+strconv.Quote(p.data[i:i+2])+" in string")
			}
			i += 2
		case c < 0x20:
			return "", p.fail(i, "control character "+fmt.Sprintf("%q", c)+" in string must be escaped")
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			i++
		default:
			r, size := utf8.DecodeRuneInString(p.data[i:])
			if r == utf8.RuneError && size == 1 {
				return "", p.fail(i, fmt.Sprintf("invalid UTF-8 byte 0x%02x in string", c))
			}
			buf = append(buf, p.data[i:i+size]...)
			i += size
		}
	}
	return "", p.fail(len(p.data), "unexpected end of input in string")
}

func (p *parser) hex4(at int) (rune, bool) {
	if at+4 > len(p.data) {
		return 0, p.fail(at-2, "incomplete \\u escape in string")
	}
	var r rune
	for _, c := range []byte(p.data[at : at+4]) {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, p.fail(at-2, "invalid \\u escape in string")
		}
		r = r<<4 | rune(d)
	}
	return r, true
}

// maxIntDigits is Python's default limit on the digits of an integer it converts
// from text (sys.int_info.default_max_str_digits); Python's json.loads fails beyond it.
const maxIntDigits = 4300

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)? as Python's json does.
func (p *parser) number() (Value, bool) {
	start := p.pos
	i := start
	if p.data[i] == '-' {
		i++
		if strings.HasPrefix(p.data[i:], "Infinity") {
			return Value{}, p.fail(start, "-Infinity is not allowed")
		}
	}
	if i >= len(p.data) || p.data[i] < '0' || p.data[i] > '9' {
		return Value{}, p.fail(i, "unexpected "+describe(p.data, i)+", expected a digit in number")
	}
	if p.data[i] == '0' {
		i++
		if i < len(p.data) && p.data[i] >= '0' && p.data[i] <= '9' {
			return Value{}, p.fail(start, "leading zero in number")
		}
	} else {
		for i < len(p.data) && p.data[i] >= '0' && p.data[i] <= '9' {
			i++
		}
	}
	isInt := true
	if i < len(p.data) && p.data[i] == '.' {
		isInt = false
		i++
		d := i
		for i < len(p.data) && p.data[i] >= '0' && p.data[i] <= '9' {
			i++
		}
		if i == d {
			return Value{}, p.fail(i, "unexpected "+describe(p.data, i)+", expected a digit after decimal point")
		}
	}
	if i < len(p.data) && (p.data[i] == 'e' || p.data[i] == 'E') {
		isInt = false
		i++
		if i < len(p.data) && (p.data[i] == '+' || p.data[i] == '-') {
			i++
		}
		d := i
		for i < len(p.data) && p.data[i] >= '0' && p.data[i] <= '9' {
			i++
		}
		if i == d {
			return Value{}, p.fail(i, "unexpected "+describe(p.data, i)+", expected a digit in exponent")
		}
	}
	lit := p.data[start:i]
	p.pos = i
	if isInt {
		if len(lit) <= 18 { // fits int64 without overflow checks
			var n int64
			neg := lit[0] == '-'
			digits := lit
			if neg {
				digits = lit[1:]
			}
			for j := 0; j < len(digits); j++ {
				n = n*10 + int64(digits[j]-'0')
			}
			if neg {
				n = -n
			}
			return IntValue(n), true
		}
		if n, err := strconv.ParseInt(lit, 10, 64); err == nil {
			return IntValue(n), true
		}
		if len(strings.TrimPrefix(lit, "-")) > maxIntDigits {
			return Value{}, p.fail(start, "integer literal longer than "+strconv.Itoa(maxIntDigits)+" digits (Python's limit)")
		}
		return Value{kind: BigInt, s: lit}, true
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && (math.IsInf(f, 0) || math.IsNaN(f)) {
		return Value{}, p.fail(start, "number "+lit+" overflows a float64")
	}
	// Underflow reads as zero, as in Python.
	return FloatValue(f), true
}

// plainByte marks the bytes a string holds as they are: printable ASCII but the
// quote and the backslash.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()
