package coglang

import (
	"math"
	"strings"
	"testing"
)

// canonicalRoundTrips reports whether the canonical text of e is expected to
// parse back to itself. It is not where the reference's own writer loses
// information: floats written in exponent form or as inf are not numbers to its
// parser, and dict keys are written without escaping.
func canonicalRoundTrips(e *Expr) bool {
	for i := range e.Nodes {
		n := &e.Nodes[i]
		switch n.Kind {
		case KindFloat:
			a := math.Abs(n.Float)
			if math.IsInf(a, 0) || math.IsNaN(a) || a >= 1e16 || (a != 0 && a < 1e-4) {
				return false
			}
		case KindApp:
			// Heads are written as they are; one promoted from a quoted string
			// may not read back as a head.
			h := n.Text
			if h == "" || h[len(h)-1] == '_' || strings.ContainsAny(h, " \t\r\n[],:{}\"") {
				return false
			}
			if _, isNum := new(Parser).number(h); isNum {
				return false
			}
		case KindDict:
			for j := n.First; j < n.First+n.N; j += 2 {
				if strings.ContainsAny(e.Nodes[e.Kids[j]].Text, "\"\\") {
					return false
				}
			}
		}
	}
	return true
}

func FuzzParse(f *testing.F) {
	for _, tc := range parseCases {
		f.Add(tc.in)
	}
	f.Add(`Query[n_, Equal[Get[n_, "category"], "Person"], {"mode": "default", "k": 5}]`)
	f.Add(`Unify[f[X_, b], f[a, Y_]]`)
	var p, q Parser
	var c Checker
	f.Fuzz(func(t *testing.T, in string) {
		e := p.Parse(in)
		canon := e.Canonical()
		if e.Err != nil {
			return
		}
		c.Check(e)
		if !canonicalRoundTrips(e) {
			return
		}
		again := q.Parse(canon)
		if again.Err != nil {
			t.Fatalf("canonical %q of %q does not parse: %s", canon, in, again.Canonical())
		}
		if got := again.Canonical(); got != canon {
			t.Fatalf("canonical %q of %q re-parses to %q", canon, in, got)
		}
	})
}

func FuzzDecodeResponse(f *testing.F) {
	for _, tc := range decodeCases {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		r, err := DecodeResponse([]byte(in))
		if err == nil && r.Output == nil {
			t.Fatalf("accepted %q without an output", in)
		}
	})
}
