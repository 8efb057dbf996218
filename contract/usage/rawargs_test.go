package usage

import (
	"slices"
	"testing"
	"unicode/utf8"
)

// TestRawArgs: an argument that is not UTF-8 (a Latin-1 file name) comes
// back byte for byte through the parser's fields, in a flag's value, a list
// and a pointer; valid arguments are left as they are.
func TestRawArgs(t *testing.T) {
	args := []string{"--responses=r\xff.jsonl", "caf\xe9", "ok", "é"}
	prot, changed := ProtectArgs(args)
	if !changed || prot[2] != "ok" || prot[3] != "é" {
		t.Fatalf("protected %q, %v", prot, changed)
	}
	for _, a := range prot {
		if !utf8.ValidString(a) {
			t.Fatalf("%q is not UTF-8", a)
		}
	}
	name := prot[1]
	v := struct {
		Responses []string
		Name      *string
		Other     string
		hidden    string
	}{Responses: []string{prot[0][len("--responses="):]}, Name: &name, Other: "x", hidden: prot[1]}
	RestoreArgs(&v)
	if !slices.Equal(v.Responses, []string{"r\xff.jsonl"}) || *v.Name != "caf\xe9" || v.Other != "x" {
		t.Errorf("restored %q %q %q", v.Responses, *v.Name, v.Other)
	}
	if same, changed := ProtectArgs([]string{"a", "é"}); changed || !slices.Equal(same, []string{"a", "é"}) {
		t.Errorf("valid arguments changed: %q", same)
	}
}
