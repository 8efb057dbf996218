package contract

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
)

// TestSpool: a stream and a regular file (read from where it was opened) both read
// again whole and at offsets after the first pass, and a stream's copy leaves no
// file behind.
func TestSpool(t *testing.T) {
	const text = "line one\nline two\nline three\n"
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	path := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(path, []byte("skipped\n"+text), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(int64(len("skipped\n")), io.SeekStart); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		r       io.Reader
		spooled bool
	}{
		{"stream", iotest.OneByteReader(strings.NewReader(text)), true},
		{"regular file", f, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewSpool("in", tc.r)
			if err != nil {
				t.Fatal(err)
			}
			if s.Spooled() != tc.spooled {
				t.Fatalf("Spooled() = %v, want %v", s.Spooled(), tc.spooled)
			}
			first, err := io.ReadAll(s)
			if err != nil || string(first) != text {
				t.Fatalf("first pass: %q, %v", first, err)
			}
			for range 2 {
				r, err := s.Rewind()
				if err != nil {
					t.Fatal(err)
				}
				again, err := io.ReadAll(r)
				if err != nil || string(again) != text {
					t.Fatalf("again: %q, %v", again, err)
				}
			}
			p := make([]byte, 8)
			if n, err := s.ReadAt(p, 9); err != nil || string(p[:n]) != "line two" {
				t.Fatalf("ReadAt: %q, %v", p[:n], err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			left, _ := os.ReadDir(dir)
			if len(left) != 1 {
				t.Fatalf("files left in TMPDIR: %v", left)
			}
		})
	}
}
