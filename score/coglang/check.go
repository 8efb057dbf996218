package coglang

import "sort"

// Decision is a static preflight decision.
type Decision uint8

// Preflight decisions. DecisionNone is the null decision of a missing output.
const (
	DecisionNone Decision = iota
	Accepted
	AcceptedWithWarnings
	CannotEstimate
	RequiresReview
	Rejected
)

// Decisions lists the five decisions in the order preflight_summary writes them.
var Decisions = []Decision{Accepted, AcceptedWithWarnings, CannotEstimate, RequiresReview, Rejected}

// decisionNames are the decisions as the result document writes them, by value.
var decisionNames = [...]string{DecisionNone: "", Accepted: "accepted", AcceptedWithWarnings: "accepted_with_warnings",
	CannotEstimate: "cannot_estimate", RequiresReview: "requires_review", Rejected: "rejected"}

// String returns the decision as the result document writes it ("" for none).
func (d Decision) String() string {
	if int(d) < len(decisionNames) {
		return decisionNames[d]
	}
	return ""
}

// name points at the decision's name, which a written case shares with every
// other (nothing writes through it).
func (d Decision) name() *string {
	if int(d) < len(decisionNames) {
		return &decisionNames[d]
	}
	return new(string)
}

// maxTraversalDepth is the default graph budget's max_traversal_depth.
const maxTraversalDepth = 3

// Analysis is what the static checks find in a parsed expression.
type Analysis struct {
	Valid        bool
	Hallucinated []string // sorted, unique heads outside the vocabulary
	Decision     Decision
}

// Checker runs the static checks, reusing its stack between calls. The zero value
// checks with the reference arities.
type Checker struct {
	// Strict checks the spec signatures of section 7 as well as the reference
	// arities.
	Strict bool
	stack  []checkItem
}

type checkItem struct {
	node      int32
	depth     int32 // Traverse heads above this node
	validated bool  // reached through application arguments only
}

// Check validates e (which must have parsed), collects hallucinated heads and
// makes the preflight decision, in one walk that never descends into the
// arguments of opaque heads.
func (c *Checker) Check(e *Expr) Analysis {
	if e.Err != nil {
		return Analysis{Decision: Rejected}
	}
	valid := true
	var effects uint16
	var maxDepth int32
	var halluc []string
	c.stack = append(c.stack[:0], checkItem{node: e.Root, validated: true})
	for len(c.stack) > 0 {
		it := c.stack[len(c.stack)-1]
		c.stack = c.stack[:len(c.stack)-1]
		n := &e.Nodes[it.node]
		if n.Kind == KindDict {
			// Dict values are walked for heads and effects but not validated.
			for i := n.First + 1; i < n.First+n.N; i += 2 {
				if k := e.Kids[i]; isContainer(e.Nodes[k].Kind) {
					c.stack = append(c.stack, checkItem{node: k, depth: it.depth})
				}
			}
			continue
		}
		info := lookupHead(n.Text)
		if !info.known {
			halluc = appendUnique(halluc, n.Text)
		}
		if it.validated && valid {
			lo, hi := info.refMin, info.refMax
			if c.Strict {
				lo, hi = info.strictMin, info.strictMax
			}
			if !info.known || !arityOK(n.N, lo, hi) {
				valid = false
			}
		}
		effects |= info.effects
		depth := it.depth
		if info.effects&effTraverse != 0 {
			depth++
			if depth > maxDepth {
				maxDepth = depth
			}
		}
		if info.opaque {
			continue
		}
		for i := n.First + n.N - 1; i >= n.First; i-- {
			k := e.Kids[i]
			switch e.Nodes[k].Kind {
			case KindApp:
				c.stack = append(c.stack, checkItem{node: k, depth: depth, validated: it.validated})
			case KindDict:
				c.stack = append(c.stack, checkItem{node: k, depth: depth})
			}
		}
	}
	if len(halluc) > 1 {
		sort.Strings(halluc)
	}
	a := Analysis{Valid: valid, Hallucinated: halluc}
	switch {
	case e.Nodes[e.Root].Text == "ParseError":
		a.Decision = Rejected
	case !valid:
		a.Decision = Rejected
	case maxDepth > maxTraversalDepth:
		a.Decision = Rejected
	case effects&effTraverse != 0:
		a.Decision = CannotEstimate
	case effects&(effWrite|effDelete) != 0:
		a.Decision = RequiresReview
	case effects&effQueryLike != 0:
		a.Decision = AcceptedWithWarnings
	default:
		a.Decision = Accepted
	}
	return a
}

func isContainer(k Kind) bool { return k == KindApp || k == KindDict }

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
