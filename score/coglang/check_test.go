package coglang

import (
	"reflect"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	cases := []struct {
		in           string
		valid        bool
		validStrict  bool
		hallucinated []string
		decision     Decision
	}{
		{`Equal[1, 1]`, true, true, nil, Accepted},
		{`Equal[1]`, true, false, nil, Accepted},
		{`Do[]`, false, false, nil, Rejected},
		{`Do[Equal[1, 1]]`, true, true, nil, Accepted},
		{`Do[1, 2, 3, 4]`, true, true, nil, Accepted},
		{`If[1, 2]`, false, false, nil, Rejected},
		{`If[True[], 1, 2]`, true, true, nil, Accepted},
		{`IfFound[a, x_, x_, b]`, true, true, nil, Accepted},
		{`IfFound[a, x_, x_]`, false, false, nil, Rejected},
		{`ForEach[List[], x_, x_]`, true, true, nil, Accepted},
		{`Compose["op", List[], Do[1]]`, true, true, nil, Accepted},
		{`Compose["op"]`, false, false, nil, Rejected},
		{`Assert[True[]]`, true, true, nil, Accepted},
		{`Assert[1, 2, 3]`, false, false, nil, Rejected},
		{`Query[n_]`, false, false, nil, Rejected},
		{`Query[n_, True[]]`, true, true, nil, AcceptedWithWarnings},
		{`Query[n_, True[], {"k": 5}]`, true, true, nil, AcceptedWithWarnings},
		{`AllNodes[]`, true, true, nil, AcceptedWithWarnings},
		{`AllNodes[1]`, true, false, nil, AcceptedWithWarnings},
		{`True[1]`, true, false, nil, Accepted},
		{`Delete["a", "b", "c"]`, true, false, nil, RequiresReview},
		{`Traverse["a", "b"]`, true, true, nil, CannotEstimate},
		{`Traverse[Traverse[Traverse["a", "b"], "c"], "d"]`, true, true, nil, CannotEstimate},
		{`Traverse[Traverse[Traverse[Traverse["a", "b"], "c"], "d"], "e"]`, true, true, nil, Rejected},
		{`Do[Traverse[Traverse[Traverse[1, 2], 3], 4], Traverse[1, 2]]`, true, true, nil, CannotEstimate},
		{`Traverse[{"a": Traverse[{"b": Traverse[{"c": Traverse[1, 2]}, 2]}, 2]}, 2]`, true, true, nil, Rejected},
		{`Traverse[Unify[Traverse[Traverse[Traverse[1, 2], 3], 4], x], 2]`, true, true, nil, CannotEstimate},
		{`Create["Entity", {"id": "a"}]`, true, true, nil, RequiresReview},
		{`Update["a", {"k": 1}]`, true, true, nil, RequiresReview},
		{`Delete["a"]`, true, true, nil, RequiresReview},
		{`Do[Query[n_, True[]], Create["Entity", {}]]`, true, true, nil, RequiresReview},
		{`Do[Create["Entity", {}], Traverse[1, 2]]`, true, true, nil, CannotEstimate},
		{`Send["host", "submit", "payload"]`, true, true, nil, Accepted},
		{`Inspect["x"]`, true, true, nil, Accepted},
		{`Trace[Equal[1, 1]]`, true, true, nil, Accepted},
		{`Unify[f[X_, b], f[a, Y_]]`, true, true, nil, Accepted},
		{`Unify[Traverse["a", "b"], Create[1, 2]]`, true, true, nil, Accepted},
		{`Match[AllNodes[], x]`, true, true, nil, Accepted},
		{`Match[f[X_]]`, true, false, nil, Accepted},
		{`Get[{"k": Traverse["a", "b"]}, "k"]`, true, true, nil, CannotEstimate},
		{`Get[{"k": AllNodes[]}, "k"]`, true, true, nil, AcceptedWithWarnings},
		{`Get[{"k": Delete["x"]}, "k"]`, true, true, nil, RequiresReview},
		{`Get[{"k": Foo[1]}, "k"]`, true, true, []string{"Foo"}, Accepted},
		{`Get[{"k": Do[]}, "k"]`, true, true, nil, Accepted},
		{`Foo[1]`, false, false, []string{"Foo"}, Rejected},
		{`Do[Foo[1]]`, false, false, []string{"Foo"}, Rejected},
		{`List[Bar[], Bar[], Alpha[Zed[]]]`, false, false, []string{"Alpha", "Bar", "Zed"}, Rejected},
		{`Unify[Foo[1], Bar[2]]`, true, true, nil, Accepted},
		{`][1]`, false, false, []string{"]"}, Rejected},
		{`ParseError["x", 1]`, true, true, nil, Rejected},
	}
	var p Parser
	ref, strict := Checker{}, Checker{Strict: true}
	for _, tc := range cases {
		e := p.Parse(tc.in)
		if e.Err != nil {
			t.Fatalf("%s: %s", tc.in, e.Canonical())
		}
		a := ref.Check(e)
		if a.Valid != tc.valid || !reflect.DeepEqual(a.Hallucinated, tc.hallucinated) || a.Decision != tc.decision {
			t.Errorf("%s: valid %v halluc %q decision %s; want %v %q %s", tc.in, a.Valid, a.Hallucinated, a.Decision, tc.valid, tc.hallucinated, tc.decision)
		}
		if s := strict.Check(e); s.Valid != tc.validStrict {
			t.Errorf("%s: strict valid %v, want %v", tc.in, s.Valid, tc.validStrict)
		}
	}
}

func TestVocabulary(t *testing.T) {
	if len(Operators) != 30 || len(DataHeads) != 19 {
		t.Fatalf("%d operators, %d data heads", len(Operators), len(DataHeads))
	}
	seen := map[string]bool{}
	for _, h := range append(append([]string{}, Operators...), DataHeads...) {
		if !InVocabulary(h) || seen[h] {
			t.Errorf("head %q missing or repeated", h)
		}
		seen[h] = true
	}
	for _, h := range []string{"", "equal", "BetterEqual", "Equal "} {
		if InVocabulary(h) {
			t.Errorf("%q is in the vocabulary", h)
		}
	}
}

func TestCheckDeep(t *testing.T) {
	// A deep but allowed expression is checked without recursion.
	in := strings.Repeat("Do[", 5000) + "Traverse[1, 2]" + strings.Repeat("]", 5000)
	var p Parser
	var c Checker
	a := c.Check(p.Parse(in))
	if !a.Valid || a.Decision != CannotEstimate {
		t.Errorf("deep Do: valid %v decision %s", a.Valid, a.Decision)
	}
}
