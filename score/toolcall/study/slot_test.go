package study

import (
	"testing"

	"github.com/fbeval/fbeval/export"
)

// TestSlotOf: a request id names a slot exactly when export.RequestID writes
// that id for it; anything else (leading zeros, signs, numbers out of range,
// other arms or cases, a case id alone) names none.
func TestSlotOf(t *testing.T) {
	p := plan(t, "toolcall-quick", export.Overrides{Repeats: ptr(3), Repairs: ptr(2)})
	run, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	s := p.Study
	n := 0
	for i := range run.rows {
		pl := run.placeOf(i)
		for a := 1; a <= s.Repairs+1; a++ {
			id := export.RequestID(run.caseOf(pl).ID, pl.arm, pl.repeat, a)
			got, ok := run.slotOf([]byte(id))
			if !ok || got != (slot{i, a}) {
				t.Fatalf("%s: slot %v %v, want {%d %d}", id, got, ok, i, a)
			}
			n++
		}
	}
	if n < 10 {
		t.Fatalf("only %d ids tried", n)
	}
	c := p.Cases[0].ID
	arm := s.Arms[0]
	for _, id := range []string{
		"", c, c + "." + arm, c + "." + arm + ".r1", c + "." + arm + ".r1.a",
		c + "." + arm + ".r01.a1", c + "." + arm + ".r1.a01", c + "." + arm + ".r+1.a1", c + "." + arm + ".r1.a-1",
		c + "." + arm + ".r0.a1", c + "." + arm + ".r1.a0", c + "." + arm + ".r4.a1", c + "." + arm + ".r1.a4",
		c + ".other_schema.r1.a1", c + "x." + arm + ".r1.a1", "x" + c + "." + arm + ".r1.a1",
		c + arm + ".r1.a1", c + "." + arm + ".r1.a1 ", c + "." + arm + ".r1.a1.a1", c + "." + arm + ".r99999999999.a1",
	} {
		if got, ok := run.slotOf([]byte(id)); ok {
			t.Errorf("%q names slot %v, want none", id, got)
		}
	}
	// past the repeats or the repair rounds: no slot, but the parts are read
	// (CheckJoined names the flag to give)
	for id, want := range map[string][2]int{c + "." + arm + ".r4.a1": {4, 1}, c + "." + arm + ".r1.a4": {1, 4}, c + "." + arm + ".r70.a2": {70, 2}} {
		if ci, ai, rep, att, ok := run.idParts([]byte(id)); !ok || ci != 0 || ai != 0 || [2]int{rep, att} != want {
			t.Errorf("idParts(%q) = %d %d %d %d %v, want 0 0 %d %d true", id, ci, ai, rep, att, ok, want[0], want[1])
		}
	}
	if _, _, _, _, ok := run.idParts([]byte(c + ".other_schema.r4.a1")); ok {
		t.Errorf("an arm the study does not have is read as one of its own")
	}
	if _, ok := run.caseSlot([]byte(c)); ok {
		t.Errorf("a case id names a row where a case has several")
	}
	one, err := New(plan(t, "toolcall-quick", export.Overrides{Repeats: ptr(1), Arms: []string{arm}}))
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := one.caseSlot([]byte(p.Cases[1].ID)); !ok || got != (slot{1, 1}) {
		t.Errorf("case id with one row per case: %v %v, want {1 1}", got, ok)
	}
}
