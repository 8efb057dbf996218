package strictjson

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
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
func (v *Value) Kind() Kind { return v.kind }

// Bool returns a Bool value's truth.
func (v *Value) Bool() bool { return v.kind == Bool && v.n == 1 }

// Int returns an Int value.
func (v *Value) Int() int64 {
	if v.kind != Int {
		return 0
	}
	return int64(v.n)
}

// Float returns a Float value.
func (v *Value) Float() float64 {
	if v.kind != Float {
		return 0
	}
	return math.Float64frombits(v.n)
}

// Str returns a String value, or the decimal digits of a BigInt.
func (v *Value) Str() string { return v.s }

// Len returns the number of items of an array or members of an object.
func (v *Value) Len() int { return len(v.kids) }

// Index returns item i of an array.
func (v *Value) Index(i int) Value { return v.kids[i].Value }

// Items returns an array's items, each in the Value of a Member with an empty key.
// The slice must not be modified.
func (v *Value) Items() []Member {
	if v.kind != Array {
		return nil
	}
	return v.kids
}

// Members returns an object's members in input order. The slice must not be modified.
func (v *Value) Members() []Member {
	if v.kind != Object {
		return nil
	}
	return v.kids
}

// Get returns the member of an object named key.
func (v *Value) Get(key string) (Value, bool) {
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
func (v *Value) IsNumber() bool { return v.kind == Int || v.kind == BigInt || v.kind == Float }

// SyntaxError is a strict-JSON failure with its position in the text.
type SyntaxError struct {
	Offset int // byte offset, 0-based
	Line   int // 1-based
	Col    int // 1-based, in characters (as Python's json counts them, and a model reads)
	Msg    string
}

// Error returns a one-line message with line, column and offset.
func (e *SyntaxError) Error() string {
	// as fmt would write it, without fmt: wrong outputs are judged by the million
	return "invalid JSON at line " + strconv.Itoa(e.Line) + ", column " + strconv.Itoa(e.Col) +
		" (offset " + strconv.Itoa(e.Offset) + "): " + e.Msg
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
	line, col := LineCol(p.data, off)
	return &SyntaxError{Offset: off, Line: line, Col: col, Msg: msg}
}

// LineCol is the 1-based line and column of byte offset off in text, the
// column in characters, as Python's json counts them and a model reads them
// in a message (a SyntaxError's, an output's INVALID_JSON).
func LineCol[T string | []byte](text T, off int) (line, col int) {
	line, col = 1, 1
	for i := 0; i < off && i < len(text); i++ {
		switch {
		case text[i] == '\n':
			line++
			col = 1
		case text[i]&0xC0 != 0x80: // a character's first byte
			col++
		}
	}
	return line, col
}

// fail records the first error; parse functions return false up the stack after it.
// What JavaScript, JSON5 and Python allow and JSON does not, as a model writes
// it: said so, for the person reading a report and the model reading a
// repair round's feedback.
const (
	singleQuotes = "unexpected character '\\'': JSON strings and keys take double quotes"
	comments     = "unexpected '/': comments are not allowed in JSON"
)

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
		if strings.HasPrefix(p.data[p.pos:], "[THINK]") {
			// Magistral's thinking, from a server that does not take it apart
			return Value{}, p.fail(p.pos, "unexpected [THINK]: a reasoning model's thinking is not allowed before the JSON, output bare JSON")
		}
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
	case '\'':
		return Value{}, p.fail(p.pos, singleQuotes)
	case '/':
		if strings.HasPrefix(p.data[p.pos:], "//") || strings.HasPrefix(p.data[p.pos:], "/*") {
			return Value{}, p.fail(p.pos, comments)
		}
		return Value{}, p.fail(p.pos, "unexpected "+describe(p.data, p.pos)+", expected a JSON value")
	case '<':
		if strings.HasPrefix(p.data[p.pos:], "<think>") {
			// a reasoning model behind a server that does not take its thinking apart
			return Value{}, p.fail(p.pos, "unexpected <think>: a reasoning model's thinking is not allowed before the JSON, output bare JSON")
		}
		for _, mark := range []string{"<|channel|>", "<|start|>"} {
			if strings.HasPrefix(p.data[p.pos:], mark) {
				// gpt-oss's channels, from a server that does not take them apart
				return Value{}, p.fail(p.pos, "unexpected "+mark+": a reasoning model's channel markup is not allowed around the JSON, output bare JSON")
			}
		}
		return Value{}, p.fail(p.pos, "unexpected "+describe(p.data, p.pos)+", expected a JSON value")
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
	for first := true; ; first = false {
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			switch {
			case !first && p.pos < len(p.data) && p.data[p.pos] == '}':
				return Value{}, p.fail(p.pos, "unexpected character '}' after ',': a trailing comma is not allowed in JSON")
			case p.pos < len(p.data) && p.data[p.pos] == '\'':
				return Value{}, p.fail(p.pos, singleQuotes)
			case strings.HasPrefix(p.data[p.pos:], "//") || strings.HasPrefix(p.data[p.pos:], "/*"):
				return Value{}, p.fail(p.pos, comments)
			}
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
		if strings.HasPrefix(p.data[p.pos:], "//") || strings.HasPrefix(p.data[p.pos:], "/*") {
			return Value{}, p.fail(p.pos, comments)
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
	for first := true; ; first = false {
		p.skipSpace()
		if !first && p.pos < len(p.data) && p.data[p.pos] == ']' {
			return Value{}, p.fail(p.pos, "unexpected character ']' after ',': a trailing comma is not allowed in JSON")
		}
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
		if strings.HasPrefix(p.data[p.pos:], "//") || strings.HasPrefix(p.data[p.pos:], "/*") {
			return Value{}, p.fail(p.pos, comments)
		}
		return Value{}, p.fail(p.pos, "unexpected "+describe(p.data, p.pos)+", expected ',' or ']' in array")
	}
}

// str reads a string starting at the opening quote. Strings without escapes are
// substrings of the input and cost no allocation. A lone surrogate escape is kept,
// as Python's json reads it (KeepSurrogates).
func (p *parser) str() (string, bool) {
	end, buf, escaped, err := ReadString(p.data, p.pos, p.buf[:0], KeepSurrogates)
	if err != LexOK {
		return "", p.stringFail(end, err)
	}
	start := p.pos + 1
	p.pos = end
	if !escaped {
		return p.data[start : end-1], true
	}
	p.buf = buf
	return string(buf), true
}

// stringFail words a lexer error in a string at off.
func (p *parser) stringFail(off int, err LexError) bool {
	switch err {
	case ErrControl:
		return p.fail(off, "control character "+fmt.Sprintf("%q", p.data[off])+" in string must be escaped")
	case ErrUTF8:
		return p.fail(off, fmt.Sprintf("invalid UTF-8 byte 0x%02x in string", p.data[off]))
	case ErrEscape:
		return p.fail(off, "invalid escape "+strconv.Quote(p.data[off:off+2])+" in string")
	case ErrUnicodeEscape:
		if off+6 > len(p.data) {
			return p.fail(off, "incomplete \\u escape in string")
		}
		return p.fail(off, "invalid \\u escape in string")
	}
	return p.fail(off, "unexpected end of input in string")
}

// maxIntDigits is Python's default limit on the digits of an integer it converts
// from text (sys.int_info.default_max_str_digits); Python's json.loads fails beyond it.
const maxIntDigits = 4300

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)? as Python's json does.
func (p *parser) number() (Value, bool) {
	start := p.pos
	if strings.HasPrefix(p.data[start:], "-Infinity") {
		return Value{}, p.fail(start, "-Infinity is not allowed")
	}
	i, isInt, err := ScanNumber(p.data, start)
	switch err {
	case ErrNumberDigit:
		return Value{}, p.fail(i, "unexpected "+describe(p.data, i)+", expected a digit in number")
	case ErrLeadingZero:
		return Value{}, p.fail(start, "leading zero in number")
	case ErrFractionDigit:
		return Value{}, p.fail(i, "unexpected "+describe(p.data, i)+", expected a digit after decimal point")
	case ErrExponentDigit:
		return Value{}, p.fail(i, "unexpected "+describe(p.data, i)+", expected a digit in exponent")
	}
	lit := p.data[start:i]
	p.pos = i
	if isInt {
		if n, ok := SmallInt(lit); ok {
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
	f, ferr := strconv.ParseFloat(lit, 64)
	if ferr != nil && (math.IsInf(f, 0) || math.IsNaN(f)) {
		return Value{}, p.fail(start, "number "+lit+" overflows a float64")
	}
	// Underflow reads as zero, as in Python.
	return FloatValue(f), true
}
