package coglang

import (
	"math"
	"strconv"

	"github.com/fbeval/fbeval/contract"
)

// Canonical returns the canonical text of e: for a failed parse, the canonical
// text of its ParseError[reason, position] expression.
func (e *Expr) Canonical() string {
	return string(e.AppendCanonical(nil))
}

// AppendCanonical appends the canonical text of e to dst.
//
// As in the reference, dict keys are written between quotes without escaping and
// heads are written as they are; strings escape only backslash and double quote.
func (e *Expr) AppendCanonical(dst []byte) []byte {
	if e.Err != nil {
		dst = append(dst, "ParseError["...)
		dst = appendQuoted(dst, e.Err.Reason)
		dst = append(dst, ", "...)
		dst = strconv.AppendInt(dst, int64(e.Err.Pos), 10)
		return append(dst, ']')
	}
	return e.appendNode(dst, e.Root)
}

// appendNode writes node i with an explicit stack of (node, next child) pairs.
func (e *Expr) appendNode(dst []byte, root int32) []byte {
	type item struct {
		node int32
		next int32
	}
	var buf [32]item
	stack := append(buf[:0], item{node: root, next: -1})
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		n := &e.Nodes[top.node]
		if top.next < 0 {
			// First visit: write the node or its opening.
			switch n.Kind {
			case KindString:
				dst = appendQuoted(dst, n.Text)
			case KindInt:
				dst = append(dst, n.Text...)
			case KindFloat:
				dst = appendPyFloatRepr(dst, n.Float)
			case KindVar:
				dst = append(dst, n.Text...)
				dst = append(dst, '_')
			case KindAnonVar:
				dst = append(dst, '_')
			case KindApp:
				dst = append(dst, n.Text...)
				dst = append(dst, '[')
			case KindDict:
				dst = append(dst, '{')
			}
			if n.Kind != KindApp && n.Kind != KindDict {
				stack = stack[:len(stack)-1]
				continue
			}
			top.next = 0
		}
		if top.next >= n.N {
			if n.Kind == KindApp {
				dst = append(dst, ']')
			} else {
				dst = append(dst, '}')
			}
			stack = stack[:len(stack)-1]
			continue
		}
		kid := e.Kids[n.First+top.next]
		if n.Kind == KindDict {
			if top.next > 0 {
				dst = append(dst, ", "...)
			}
			dst = append(dst, '"')
			dst = append(dst, e.Nodes[kid].Text...)
			dst = append(dst, `": `...)
			kid = e.Kids[n.First+top.next+1]
			top.next += 2
		} else {
			if top.next > 0 {
				dst = append(dst, ", "...)
			}
			top.next++
		}
		stack = append(stack, item{node: kid, next: -1})
	}
	return dst
}

// appendQuoted writes s between double quotes with \ and " escaped.
func appendQuoted(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '\\' || c == '"' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', c)
			start = i + 1
		}
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendPyFloatRepr writes f as Python's repr(float), including "inf" and "nan".
func appendPyFloatRepr(dst []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	case math.IsNaN(f):
		return append(dst, "nan"...)
	}
	return contract.AppendPyFloat(dst, f)
}
