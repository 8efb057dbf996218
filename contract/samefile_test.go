package contract

import (
	"io"
	"os"
	"path/filepath"
	"slices"
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

// TestInputSet: each path is noted once, in the order first given; a file is
// looked up once (what it said of itself when opened is what later checks
// use, with no lookup of its own), and a path not found is looked up again.
func TestInputSet(t *testing.T) {
	dir := t.TempDir()
	a, b, later := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "later")
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var s InputSet
	s.Add(a, "", b, a, later)
	s.Add(b)
	if got := s.Paths(); !slices.Equal(got, []string{a, b, later}) {
		t.Errorf("paths %q", got)
	}
	outA, _ := os.Stat(a)
	outB, _ := os.Stat(b)
	if in, ok := s.Is(outB, nil); !ok || in != b {
		t.Errorf("b is %q %v", in, ok)
	}
	if in, ok := s.Is(outB, nil, a); ok {
		t.Errorf("b among only a: %q", in)
	}
	// a as it was opened: b's file, as if a had been moved over by then
	s.Opened(a, outB)
	if in, ok := s.Is(outA, nil); ok {
		t.Errorf("a's old file found again (%q): a was looked up anew", in)
	}
	if in, _ := s.Is(outB, nil); in != a {
		t.Errorf("b's file is %q, want %q, as a was opened", in, a)
	}
	// not there at the first look, there at the second
	if _, err := s.Stat(later, nil); err == nil {
		t.Fatal("later found before it was written")
	}
	if err := os.WriteFile(later, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	outLater, _ := os.Stat(later)
	if in, ok := s.Is(outLater, nil); !ok || in != later {
		t.Errorf("later is %q %v", in, ok)
	}
}
