package contract

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInputIs: an output is an input by its name, another name or a link, or
// as the file on standard input; a device, a new file and another file are not.
func TestInputIs(t *testing.T) {
	dir := t.TempDir()
	in, other := filepath.Join(dir, "in.jsonl"), filepath.Join(dir, "other.jsonl")
	for _, p := range []string{in, other} {
		if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(in, link); err != nil {
		t.Fatal(err)
	}
	stdin, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stat := func(p string) os.FileInfo {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	for _, tc := range []struct {
		out    os.FileInfo
		inputs []string
		stdin  io.Reader
		want   string
	}{
		{stat(in), []string{other, in}, nil, in},
		{stat(link), []string{in}, nil, in},
		{stat(filepath.Join(dir, ".", "in.jsonl")), []string{"", in}, nil, in},
		{stat(in), []string{"-"}, stdin, "-"},
		{stat(in), []string{"-"}, strings.NewReader("x"), ""},
		{stat(other), []string{in, "-"}, stdin, ""},
		{stat(os.DevNull), []string{os.DevNull}, nil, ""},
		{nil, []string{in}, nil, ""},
	} {
		got, ok := InputIs(tc.out, tc.inputs, tc.stdin)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("inputs %v: %q %v, want %q", tc.inputs, got, ok, tc.want)
		}
	}
	if InputName("-") != "the file on standard input" || InputName(in) != in {
		t.Errorf("InputName: %q %q", InputName("-"), InputName(in))
	}
}
