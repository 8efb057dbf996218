package coglang

import (
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kind says what a Node holds.
type Kind uint8

// Node kinds.
const (
	KindString  Kind = iota // Text is the value (quoted or bare token)
	KindInt                 // Text is the integer in plain decimal, no leading zeros
	KindFloat               // Float is the value
	KindVar                 // Text is the name without the trailing "_"
	KindAnonVar             // the anonymous variable "_"
	KindDict                // children are key, value pairs, keys sorted, unique
	KindApp                 // Text is the head; children are the arguments
)

// Node is one value of a parsed expression. Children live in Expr.Kids.
type Node struct {
	Kind   Kind
	Quoted bool // KindString from a quoted token
	Text   string
	Float  float64
	First  int32 // index of the first child in Expr.Kids
	N      int32 // number of children (a dict holds 2 per entry)
}

// ParseError is the reason and token position of a failed parse, as the
// reference's ParseError[reason, position] expression carries them.
type ParseError struct {
	Reason string
	Pos    int
}

// Expr is a parsed expression. Nodes and Kids belong to the Parser that made the
// Expr and are reused by its next Parse call.
type Expr struct {
	Nodes []Node
	Kids  []int32
	Root  int32       // index of the top node; meaningful when Err is nil
	Err   *ParseError // non-nil when parsing failed
}

// Args returns the child indexes of node i.
func (e *Expr) Args(i int32) []int32 {
	n := &e.Nodes[i]
	return e.Kids[n.First : n.First+n.N]
}

// Head returns the head of the top application ("ParseError" for a failed parse).
func (e *Expr) Head() string {
	if e.Err != nil {
		return "ParseError"
	}
	return e.Nodes[e.Root].Text
}

// ParseOptions bound and shape parsing.
type ParseOptions struct {
	// Strict requires commas between arguments and entries, rejects trailing
	// commas and stray punctuation, and does not promote a quoted top-level string
	// to a zero-argument application.
	Strict bool
	// MaxDepth bounds nesting of applications and dicts (0 means DefaultMaxDepth).
	MaxDepth int
	// MaxBytes bounds the input size (0 means no bound).
	MaxBytes int
}

// DefaultMaxDepth is the nesting bound used when ParseOptions.MaxDepth is 0.
const DefaultMaxDepth = 10000

// maxIntDigits is CPython's default int max_str_digits: int() of a longer digit
// string raises ValueError and the reference parser then treats the token as a
// bare string.
const maxIntDigits = 4300

type tokKind uint8

const (
	tokBare tokKind = iota
	tokQuoted
	tokPunct // one of [ ] , : { }
)

type token struct {
	kind   tokKind
	closed bool // quoted token that ended with its closing quote
	start  int32
	end    int32
}

// Parser parses M-expressions, reusing its buffers between calls. The zero value
// is ready to use with default options. A Parser is not safe for concurrent use.
type Parser struct {
	Options ParseOptions

	src    string
	toks   []token
	expr   Expr
	tmp    []int32
	frames []frame
	digits []byte
	pairs  []dictPair
}

type frame struct {
	node int32
	base int32 // start of this frame's children in tmp
	dict bool
}

type dictPair struct {
	key string
	val int32
}

// Parse parses src with default options and returns a fresh Expr.
func Parse(src string) *Expr {
	var p Parser
	return p.Parse(src)
}

// Parse parses src. The returned Expr is valid until the next call.
func (p *Parser) Parse(src string) *Expr {
	p.src = src
	p.expr.Nodes = p.expr.Nodes[:0]
	p.expr.Kids = p.expr.Kids[:0]
	p.expr.Root = 0
	p.expr.Err = nil
	if p.Options.MaxBytes > 0 && len(src) > p.Options.MaxBytes {
		return p.fail("input_too_large", 0)
	}
	p.tokenize()
	if len(p.toks) == 0 {
		return p.fail("empty_input", 0)
	}
	root, pos, perr := p.parseValue()
	if perr != nil {
		p.expr.Err = perr
		return &p.expr
	}
	if pos != len(p.toks) {
		return p.fail("trailing_tokens", pos)
	}
	n := &p.expr.Nodes[root]
	if n.Kind != KindApp {
		promote := n.Kind == KindString && startsUpper(n.Text) && !(p.Options.Strict && n.Quoted)
		if !promote {
			return p.fail("not_an_expression", 0)
		}
		n.Kind = KindApp
		n.First, n.N = int32(len(p.expr.Kids)), 0
	}
	p.expr.Root = root
	return &p.expr
}

func (p *Parser) fail(reason string, pos int) *Expr {
	p.expr.Err = &ParseError{Reason: reason, Pos: pos}
	return &p.expr
}

// startsUpper reports what Python's s[:1].isupper() reports.
func startsUpper(s string) bool {
	if s == "" {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r) || unicode.Is(unicode.Other_Uppercase, r)
}

func isDelim(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', '[', ']', ',', ':', '{', '}', '"':
		return true
	}
	return false
}

func (p *Parser) tokenize() {
	s := p.src
	p.toks = p.toks[:0]
	n := len(s)
	for i := 0; i < n; {
		c := s[i]
		switch c {
		case ' ', '\t', '\r', '\n':
			i++
		case '[', ']', ',', ':', '{', '}':
			p.toks = append(p.toks, token{kind: tokPunct, start: int32(i), end: int32(i + 1)})
			i++
		case '"':
			j := i + 1
			closed := false
			for j < n {
				if s[j] == '\\' {
					j += 2 // the escaped byte is never a delimiter byte of UTF-8
				} else if s[j] == '"' {
					j++
					closed = true
					break
				} else {
					j++
				}
			}
			if j > n {
				j = n
			}
			p.toks = append(p.toks, token{kind: tokQuoted, closed: closed, start: int32(i), end: int32(j)})
			i = j
		default:
			j := i
			for j < n && !isDelim(s[j]) {
				j++
			}
			p.toks = append(p.toks, token{kind: tokBare, start: int32(i), end: int32(j)})
			i = j
		}
	}
}

func (p *Parser) text(t token) string { return p.src[t.start:t.end] }

func (p *Parser) isPunct(pos int, c byte) bool {
	t := p.toks[pos]
	return t.kind == tokPunct && p.src[t.start] == c
}

// unquote returns the reference's token[1:-1] with \" and then \\ replaced.
func (p *Parser) unquote(t token) string {
	s := p.src[t.start:t.end]
	var inner string
	switch {
	case t.closed:
		inner = s[1 : len(s)-1]
	case len(s) <= 1:
		inner = ""
	default:
		// An unterminated string loses its last character, as Python's [1:-1] does.
		_, size := utf8.DecodeLastRuneInString(s[1:])
		inner = s[1 : len(s)-size]
	}
	if strings.IndexByte(inner, '\\') < 0 {
		return inner
	}
	inner = strings.ReplaceAll(inner, `\"`, `"`)
	return strings.ReplaceAll(inner, `\\`, `\`)
}

func (p *Parser) addNode(n Node) int32 {
	p.expr.Nodes = append(p.expr.Nodes, n)
	return int32(len(p.expr.Nodes) - 1)
}

// parseValue parses one value at token 0 with an explicit frame stack, following
// the reference's recursive descent step by step.
func (p *Parser) parseValue() (int32, int, *ParseError) {
	toks := p.toks
	n := len(toks)
	maxDepth := p.Options.MaxDepth
	if maxDepth <= 0 {
		maxDepth = DefaultMaxDepth
	}
	strict := p.Options.Strict
	p.frames = p.frames[:0]
	p.tmp = p.tmp[:0]
	pos := 0
	var v int32

needValue:
	if pos >= n {
		return 0, pos, &ParseError{"unexpected end of input", pos}
	}
	{
		t := toks[pos]
		switch {
		case t.kind == tokQuoted:
			v = p.addNode(Node{Kind: KindString, Quoted: true, Text: p.unquote(t)})
			pos++
			goto haveValue
		case t.kind == tokPunct && p.src[t.start] == '{':
			if len(p.frames) >= maxDepth {
				return 0, pos, &ParseError{"nesting_too_deep", pos}
			}
			v = p.addNode(Node{Kind: KindDict})
			p.frames = append(p.frames, frame{node: v, base: int32(len(p.tmp)), dict: true})
			pos++
			goto dictLoop
		case strict && t.kind == tokPunct:
			return 0, pos, &ParseError{"unexpected_token", pos}
		}
		s := p.text(t)
		if t.kind == tokBare {
			if s == "_" {
				v = p.addNode(Node{Kind: KindAnonVar})
				pos++
				goto haveValue
			}
			if len(s) > 1 && s[len(s)-1] == '_' {
				v = p.addNode(Node{Kind: KindVar, Text: s[:len(s)-1]})
				pos++
				goto haveValue
			}
			if node, ok := p.number(s); ok {
				v = p.addNode(node)
				pos++
				goto haveValue
			}
		}
		if pos+1 < n && p.isPunct(pos+1, '[') {
			if len(p.frames) >= maxDepth {
				return 0, pos, &ParseError{"nesting_too_deep", pos}
			}
			v = p.addNode(Node{Kind: KindApp, Text: s})
			p.frames = append(p.frames, frame{node: v, base: int32(len(p.tmp))})
			pos += 2
			goto appLoop
		}
		v = p.addNode(Node{Kind: KindString, Text: s})
		pos++
	}

haveValue:
	if len(p.frames) == 0 {
		return v, pos, nil
	}
	p.tmp = append(p.tmp, v)
	if f := p.frames[len(p.frames)-1]; f.dict {
		if pos < n && p.isPunct(pos, ',') {
			pos++
			if strict && pos < n && p.isPunct(pos, '}') {
				return 0, pos - 1, &ParseError{"trailing_comma", pos - 1}
			}
		} else if strict && pos < n && !p.isPunct(pos, '}') {
			return 0, pos, &ParseError{"missing_comma", pos}
		}
		goto dictLoop
	}
	if pos < n && p.isPunct(pos, ',') {
		pos++
		if strict && pos < n && p.isPunct(pos, ']') {
			return 0, pos - 1, &ParseError{"trailing_comma", pos - 1}
		}
	} else if strict && pos < n && !p.isPunct(pos, ']') {
		return 0, pos, &ParseError{"missing_comma", pos}
	}
	goto appLoop

appLoop:
	if pos < n && !p.isPunct(pos, ']') {
		goto needValue
	}
	if pos >= n {
		return 0, pos, &ParseError{"unclosed_bracket", pos}
	}
	pos++
	v = p.closeFrame(false)
	goto haveValue

dictLoop:
	if pos < n && !p.isPunct(pos, '}') {
		t := toks[pos]
		if t.kind != tokQuoted {
			return 0, pos, &ParseError{"dict key must be a quoted string, got " + pyRepr(p.text(t)), pos}
		}
		p.tmp = append(p.tmp, p.addNode(Node{Kind: KindString, Quoted: true, Text: p.unquote(t)}))
		pos++
		if pos >= n || !p.isPunct(pos, ':') {
			return 0, pos, &ParseError{"expected ':' after dict key", pos}
		}
		pos++
		goto needValue
	}
	if pos >= n {
		return 0, pos, &ParseError{"unclosed dict literal '{'", pos}
	}
	pos++
	v = p.closeFrame(true)
	goto haveValue
}

// closeFrame pops the top frame, moves its children into Kids and returns its node.
// Dict entries are made unique (a later key overwrites an earlier one) and sorted
// by key, as canonical text writes them.
func (p *Parser) closeFrame(dict bool) int32 {
	f := p.frames[len(p.frames)-1]
	p.frames = p.frames[:len(p.frames)-1]
	kids := p.tmp[f.base:]
	first := int32(len(p.expr.Kids))
	if !dict {
		p.expr.Kids = append(p.expr.Kids, kids...)
	} else {
		p.pairs = p.pairs[:0]
		for i := 0; i+1 < len(kids); i += 2 {
			key := p.expr.Nodes[kids[i]].Text
			dup := false
			for j := range p.pairs {
				if p.pairs[j].key == key {
					p.pairs[j].val = kids[i+1]
					dup = true
					break
				}
			}
			if !dup {
				p.pairs = append(p.pairs, dictPair{key, kids[i+1]})
			}
		}
		if len(p.pairs) > 1 {
			sort.Slice(p.pairs, func(a, b int) bool { return p.pairs[a].key < p.pairs[b].key })
		}
		for _, pr := range p.pairs {
			k := p.addNode(Node{Kind: KindString, Quoted: true, Text: pr.key})
			p.expr.Kids = append(p.expr.Kids, k, pr.val)
		}
	}
	p.tmp = p.tmp[:f.base]
	node := &p.expr.Nodes[f.node]
	node.First = first
	node.N = int32(len(p.expr.Kids)) - first
	return f.node
}

// number reports whether a bare token is a number the way the reference decides:
// after stripping leading "-" and one ".", all characters are digits, and int() or
// float() of the token succeeds (one sign at most, decimal digits only, and at
// most 4300 digits for an integer).
func (p *Parser) number(s string) (Node, bool) {
	k := 0
	for k < len(s) && s[k] == '-' {
		k++
	}
	if k > 1 || k == len(s) {
		return Node{}, false
	}
	ascii := true
	digits := 0
	dot := -1
	for i := k; i < len(s); {
		c := s[i]
		if c == '.' && dot < 0 {
			dot = i
			i++
			continue
		}
		if c >= '0' && c <= '9' {
			digits++
			i++
			continue
		}
		if c < utf8.RuneSelf {
			return Node{}, false
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !unicode.Is(unicode.Nd, r) {
			return Node{}, false
		}
		ascii = false
		digits++
		i += size
	}
	if digits == 0 {
		return Node{}, false
	}
	t := s
	if !ascii {
		t = p.asciiDigits(s)
	}
	if dot >= 0 {
		f, err := strconv.ParseFloat(t, 64)
		if err != nil && f == 0 {
			return Node{}, false
		}
		return Node{Kind: KindFloat, Float: f}, true // overflow gives ±Inf, as Python's float()
	}
	if digits > maxIntDigits {
		return Node{}, false
	}
	return Node{Kind: KindInt, Text: normalizeInt(t)}, true
}

// asciiDigits maps Unicode decimal digits to ASCII, as int() and float() do.
func (p *Parser) asciiDigits(s string) string {
	p.digits = p.digits[:0]
	for _, r := range s {
		if r < utf8.RuneSelf {
			p.digits = append(p.digits, byte(r))
			continue
		}
		p.digits = append(p.digits, byte('0'+digitValue(r)))
	}
	return string(p.digits)
}

// digitValue returns the value of a Unicode decimal digit: Nd characters come in
// runs of ten starting at zero.
func digitValue(r rune) int {
	for _, rg := range unicode.Nd.R16 {
		if rune(rg.Lo) <= r && r <= rune(rg.Hi) {
			return int(r-rune(rg.Lo)) % 10
		}
	}
	for _, rg := range unicode.Nd.R32 {
		if rune(rg.Lo) <= r && r <= rune(rg.Hi) {
			return int(r-rune(rg.Lo)) % 10
		}
	}
	return 0
}

// normalizeInt writes an ASCII integer token ("-"? digits) in plain decimal: no
// leading zeros, no sign on zero.
func normalizeInt(t string) string {
	neg := t[0] == '-'
	d := t
	if neg {
		d = t[1:]
	}
	i := 0
	for i < len(d)-1 && d[i] == '0' {
		i++
	}
	d = d[i:]
	if d == "0" {
		return "0"
	}
	if !neg {
		return d
	}
	if i == 0 {
		return t
	}
	return "-" + d
}
