package contract

import (
	"hash/crc32"
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
