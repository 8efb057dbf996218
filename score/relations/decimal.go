package relations

import (
	"fmt"
	"strings"

	"github.com/cockroachdb/apd/v3"
)

// Limits for x-decimal expressions. They keep parsing and evaluation shallow and
// cheap whatever a contract says.
const (
	maxExprLen   = 2000
	maxExprNodes = 256
	maxExprDepth = 32
	maxScale     = 1000
)

// roundings are the rounding modes x-decimal accepts, by their apd names.
var roundings = map[string]apd.Rounder{
	"half_even": apd.RoundHalfEven,
	"half_up":   apd.RoundHalfUp,
	"half_down": apd.RoundHalfDown,
	"up":        apd.RoundUp,
	"down":      apd.RoundDown,
	"ceiling":   apd.RoundCeiling,
	"floor":     apd.RoundFloor,
}

// expr is a parsed x-decimal expression node: a literal, a pointer, a negation
// (op '~', left only) or a binary operation.
type expr struct {
	op          byte // 0 literal, 'p' pointer, '~' negation, or + - * /
	lit         *apd.Decimal
	ptr         pointer
	left, right *expr
}

type exprParser struct {
	s     string
	pos   int
	nodes int
}

// parseExpr parses arithmetic over decimal literals and pointers written in braces:
// "{/quantity} * {/unit_price} - 0.5". Operators are + - * / and parentheses.
func parseExpr(s string) (*expr, error) {
	if len(s) > maxExprLen {
		return nil, fmt.Errorf("expression longer than %d bytes", maxExprLen)
	}
	p := &exprParser{s: s}
	e, err := p.sum(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.pos < len(p.s) {
		return nil, fmt.Errorf("unexpected %q at offset %d", p.s[p.pos], p.pos)
	}
	return e, nil
}

func (p *exprParser) space() {
	for p.pos < len(p.s) && strings.IndexByte(" \t\n\r", p.s[p.pos]) >= 0 {
		p.pos++
	}
}

func (p *exprParser) node(e *expr) (*expr, error) {
	p.nodes++
	if p.nodes > maxExprNodes {
		return nil, fmt.Errorf("expression has more than %d terms", maxExprNodes)
	}
	return e, nil
}

func (p *exprParser) sum(depth int) (*expr, error) {
	left, err := p.product(depth)
	if err != nil {
		return nil, err
	}
	for {
		p.space()
		if p.pos >= len(p.s) || (p.s[p.pos] != '+' && p.s[p.pos] != '-') {
			return left, nil
		}
		op := p.s[p.pos]
		p.pos++
		right, err := p.product(depth)
		if err != nil {
			return nil, err
		}
		if left, err = p.node(&expr{op: op, left: left, right: right}); err != nil {
			return nil, err
		}
	}
}

func (p *exprParser) product(depth int) (*expr, error) {
	left, err := p.unary(depth)
	if err != nil {
		return nil, err
	}
	for {
		p.space()
		if p.pos >= len(p.s) || (p.s[p.pos] != '*' && p.s[p.pos] != '/') {
			return left, nil
		}
		op := p.s[p.pos]
		p.pos++
		right, err := p.unary(depth)
		if err != nil {
			return nil, err
		}
		if left, err = p.node(&expr{op: op, left: left, right: right}); err != nil {
			return nil, err
		}
	}
}

func (p *exprParser) unary(depth int) (*expr, error) {
	if depth > maxExprDepth {
		return nil, fmt.Errorf("expression nested deeper than %d", maxExprDepth)
	}
	p.space()
	if p.pos >= len(p.s) {
		return nil, fmt.Errorf("expression ends where a value is expected")
	}
	switch c := p.s[p.pos]; {
	case c == '-':
		p.pos++
		inner, err := p.unary(depth + 1)
		if err != nil {
			return nil, err
		}
		return p.node(&expr{op: '~', left: inner})
	case c == '(':
		p.pos++
		inner, err := p.sum(depth + 1)
		if err != nil {
			return nil, err
		}
		p.space()
		if p.pos >= len(p.s) || p.s[p.pos] != ')' {
			return nil, fmt.Errorf("missing ) at offset %d", p.pos)
		}
		p.pos++
		return inner, nil
	case c == '{':
		end := strings.IndexByte(p.s[p.pos:], '}')
		if end < 0 {
			return nil, fmt.Errorf("missing } at offset %d", p.pos)
		}
		ptr, err := parsePointer(p.s[p.pos+1:p.pos+end], false)
		if err != nil {
			return nil, err
		}
		p.pos += end + 1
		return p.node(&expr{op: 'p', ptr: ptr})
	case c >= '0' && c <= '9':
		start := p.pos
		p.digits()
		if p.pos < len(p.s) && p.s[p.pos] == '.' {
			p.pos++
			if !p.digits() {
				return nil, fmt.Errorf("digits expected after . at offset %d", p.pos)
			}
		}
		if p.pos < len(p.s) && (p.s[p.pos] == 'e' || p.s[p.pos] == 'E') {
			p.pos++
			if p.pos < len(p.s) && (p.s[p.pos] == '+' || p.s[p.pos] == '-') {
				p.pos++
			}
			if !p.digits() {
				return nil, fmt.Errorf("exponent digits expected at offset %d", p.pos)
			}
		}
		d, _, err := apd.NewFromString(p.s[start:p.pos])
		if err != nil {
			return nil, fmt.Errorf("literal %s is out of range", p.s[start:p.pos])
		}
		return p.node(&expr{lit: d})
	default:
		return nil, fmt.Errorf("unexpected %q at offset %d", c, p.pos)
	}
}

func (p *exprParser) digits() bool {
	start := p.pos
	for p.pos < len(p.s) && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
		p.pos++
	}
	return p.pos > start
}

// String writes e back with the fewest parentheses its grammar needs, so that
// it nests no deeper than any text that parses to e (the parser's depth limit
// counts parentheses and minus signs); tests use it to check parsing.
func (e *expr) String() string {
	switch e.op {
	case 0:
		return e.lit.String()
	case 'p':
		return "{" + e.ptr.text + "}"
	case '~':
		return "-" + e.left.operand(e.left.binary())
	}
	// + and - bind less tightly than * and /, and each is left-associative: a
	// left operand needs parentheses only when it binds less tightly, a right
	// one also when it binds as tightly
	low := e.op == '+' || e.op == '-'
	left := e.left.binary() && !low && e.left.low()
	right := e.right.binary() && (low && e.right.low() || !low)
	return e.left.operand(left) + " " + string(e.op) + " " + e.right.operand(right)
}

// binary reports whether e is a binary operation; low whether it is + or -.
func (e *expr) binary() bool { return e.op == '+' || e.op == '-' || e.op == '*' || e.op == '/' }
func (e *expr) low() bool    { return e.op == '+' || e.op == '-' }

// operand writes e as an operand, in parentheses when paren is true.
func (e *expr) operand(paren bool) string {
	if paren {
		return "(" + e.String() + ")"
	}
	return e.String()
}

// markDecimal marks the pointers e reads that the schema object declares decimal
// strings.
func (e *expr) markDecimal(root, obj map[string]any) {
	if e == nil {
		return
	}
	if e.op == 'p' {
		markDecimal(root, obj, &e.ptr)
	}
	e.left.markDecimal(root, obj)
	e.right.markDecimal(root, obj)
}

// pointers lists the pointers e reads, in order.
func (e *expr) pointers(out []pointer) []pointer {
	switch e.op {
	case 0:
		return out
	case 'p':
		return append(out, e.ptr)
	case '~':
		return e.left.pointers(out)
	}
	return e.right.pointers(e.left.pointers(out))
}

// fraction is an exact rational num/den over decimals, so that division stays exact
// until the single rounding x-decimal declares.
type fraction struct{ num, den *apd.Decimal }

var one = apd.New(1, 0)

// eval evaluates e against v, reading pointers relative to v.
func (e *expr) eval(v any) (fraction, error) {
	switch e.op {
	case 0:
		return fraction{e.lit, one}, nil
	case 'p':
		x, ok := e.ptr.resolve(v)
		if !ok {
			return fraction{}, fmt.Errorf("no value at %s", e.ptr.text)
		}
		d, err := numberOf(x, e.ptr)
		if err != nil {
			return fraction{}, fmt.Errorf("value at %s: %v", e.ptr.text, err)
		}
		return fraction{d, one}, nil
	case '~':
		f, err := e.left.eval(v)
		if err != nil {
			return fraction{}, err
		}
		return fraction{new(apd.Decimal).Neg(f.num), f.den}, nil
	}
	l, err := e.left.eval(v)
	if err != nil {
		return fraction{}, err
	}
	r, err := e.right.eval(v)
	if err != nil {
		return fraction{}, err
	}
	var num, den apd.Decimal
	switch e.op {
	case '+', '-':
		var a, b apd.Decimal
		if _, err := exact.Mul(&a, l.num, r.den); err != nil {
			return fraction{}, err
		}
		if _, err := exact.Mul(&b, r.num, l.den); err != nil {
			return fraction{}, err
		}
		if e.op == '+' {
			_, err = exact.Add(&num, &a, &b)
		} else {
			_, err = exact.Sub(&num, &a, &b)
		}
		if err != nil {
			return fraction{}, err
		}
		_, err = exact.Mul(&den, l.den, r.den)
	case '*':
		if _, err := exact.Mul(&num, l.num, r.num); err != nil {
			return fraction{}, err
		}
		_, err = exact.Mul(&den, l.den, r.den)
	case '/':
		if r.num.IsZero() {
			return fraction{}, fmt.Errorf("division by zero")
		}
		if _, err := exact.Mul(&num, l.num, r.den); err != nil {
			return fraction{}, err
		}
		_, err = exact.Mul(&den, l.den, r.num)
	}
	if err != nil {
		return fraction{}, err
	}
	if err := checkDigits(&num); err != nil {
		return fraction{}, err
	}
	if err := checkDigits(&den); err != nil {
		return fraction{}, err
	}
	return fraction{&num, &den}, nil
}

// round returns f as a decimal with scale digits after the point, rounded by r.
// With scale < 0 no rounding is allowed: f must be an exact decimal.
func (f fraction) round(scale int, r apd.Rounder) (*apd.Decimal, error) {
	if f.den.Cmp(one) == 0 && scale < 0 {
		return f.num, nil
	}
	// Digits before the point of the quotient, at most: adj(num) - adj(den) + 2.
	adj := func(d *apd.Decimal) int64 { return d.NumDigits() + int64(d.Exponent) - 1 }
	intDigits := adj(f.num) - adj(f.den) + 2
	prec := intDigits + int64(max(scale, 0)) + 3
	if scale < 0 {
		prec = maxDigits + 1
	}
	prec = max(prec, 3)
	if prec > maxDigits+1 {
		return nil, fmt.Errorf("exact result needs more than %d digits", maxDigits)
	}
	// Round05Up keeps a sticky last digit, so the second rounding to scale below is
	// the correct rounding of the exact quotient (no double rounding).
	qc := apd.BaseContext.WithPrecision(uint32(prec))
	qc.Rounding = apd.Round05Up
	q := new(apd.Decimal)
	cond, err := qc.Quo(q, f.num, f.den)
	if err != nil {
		return nil, err
	}
	if scale < 0 {
		if cond.Inexact() {
			return nil, fmt.Errorf("result is not an exact decimal; declare a scale")
		}
		return q, nil
	}
	rc := apd.BaseContext.WithPrecision(uint32(prec + 2))
	rc.Rounding = r
	out := new(apd.Decimal)
	if _, err := rc.Quantize(out, q, int32(-scale)); err != nil {
		return nil, err
	}
	return out, nil
}
