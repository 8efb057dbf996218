package contract

import (
	"hash/crc32"
	"regexp"
	"testing"
)

func TestCogLangRecipe(t *testing.T) {
	const instr, prompt = "Return one expression.", "Check that 2 equals 2."
	sum := CogLangRecipeSum(instr, prompt)
	if want := crc32.Checksum([]byte(instr+"\n"+prompt), crc32.MakeTable(crc32.Castagnoli)); sum != want {
		t.Fatalf("sum %08x, want the CRC-32C of the text, %08x", sum, want)
	}
	if got := CogLangPromptSum(CogLangInstructionsSum(instr), prompt); got != sum {
		t.Fatalf("in two steps %08x, at once %08x", got, sum)
	}
	for _, sum := range []uint32{0, 1, 0xabc, 0xdeadbeef, 0xffffffff} {
		r := CogLangRecipe(sum)
		if len(r) != len("crc32c:")+8 {
			t.Errorf("%q: not eight digits", r)
		}
		if got, ok := ParseCogLangRecipe([]byte(r)); !ok || got != sum {
			t.Errorf("ParseCogLangRecipe(%q) = %08x, %v", r, got, ok)
		}
	}
	for _, bad := range []string{"", "crc32c:", "crc32c:0000000", "crc32c:000000000", "crc32c:0000000G", "crc32c:DEADBEEF", "sha256:00000000", "crc32c 00000000"} {
		if _, ok := ParseCogLangRecipe([]byte(bad)); ok {
			t.Errorf("ParseCogLangRecipe(%q) read it", bad)
		}
	}
}

// TestToolcallRequestID: a toolcall request id splits into its parts, read
// from its end (a case id may hold dots); other ids are none.
func TestToolcallRequestID(t *testing.T) {
	for id, want := range map[string][4]string{
		"hotels-004.input_schema.r1.a2": {"hotels-004", "input_schema", "1", "2"},
		"a.b.no_schema.r10.a1":          {"a.b", "no_schema", "10", "1"},
		"x.y.r0.a0":                     {"x", "y", "0", "0"},
	} {
		c, a, r, at, ok := ToolcallRequestID(id)
		if !ok || [4]string{c, a, r, at} != want {
			t.Errorf("%q: %q %q %q %q %v, want %q", id, c, a, r, at, ok, want)
		}
	}
	for _, id := range []string{"", "FB-L1-001", ".y.r1.a1", "x.Y.r1.a1", "x..r1.a1", "x.y.r.a1", "x.y.r1.a", "x.y.r1a1", "x.y1.r1.a1x", "r1.a1", "x.y.r1.a1 ", "x.y.q1.a1"} {
		if _, _, _, _, ok := ToolcallRequestID(id); ok {
			t.Errorf("%q: read as a toolcall request id", id)
		}
	}
}

// FuzzToolcallRequestID holds the parser to the form's regular expression,
// whose case id is any bytes (line breaks too: (?s)).
func FuzzToolcallRequestID(f *testing.F) {
	form := regexp.MustCompile(`(?s)^(.+)\.([a-z_]+)\.r([0-9]+)\.a([0-9]+)$`)
	for _, s := range []string{"hotels-004.input_schema.r1.a2", "a.b.c.r1.a1", "x.y.r1.a", "FB-L1-001", ".a.r1.a1", "a.r1.a1.r2.a3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		c, a, r, at, ok := ToolcallRequestID(id)
		m := form.FindStringSubmatch(id)
		if ok != (m != nil) || ok && [4]string{c, a, r, at} != [4]string{m[1], m[2], m[3], m[4]} {
			t.Fatalf("%q: %q %q %q %q %v, the form: %q", id, c, a, r, at, ok, m)
		}
	})
}
