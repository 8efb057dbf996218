package coglang

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"
)

func pyRead(t testing.TB, in string) string {
	t.Helper()
	out, err := io.ReadAll(newPyText(strings.NewReader(in)))
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestPyText: what the filter changes, as Python's splitlines, strip and json
// read the file, and what it leaves alone.
func TestPyText(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "{\"a\": 1}\n{\"b\": [2]}\r\n", "{\"a\": 1}\n{\"b\": [2]}\r\n"},
		{"lone CR", "{}\r{}\r", "{}\n{}\n"},
		{"VT FF FS GS RS", "{}\v{}\f{}\x1c{}\x1d{}\x1e", "{}\n{}\n{}\n{}\n{}\n"},
		{"NEL LS PS", "{}\u0085{}\u2028{}\u2029", "{} \n{}  \n{}  \n"},
		{"white-space lines", "{}\n\u00a0\u3000 \t\x1f\n{}", "{}\n" + strings.Repeat(" ", 8) + "\n{}"},
		{"file ends", "\u00a0 [1]\u3000\n\u00a0\n", "   [1]   \n  \n"},
		{"white space before content mid-file stays", "{}\n\u00a0{}", "{}\n\u00a0{}"},
		{"white space after content then more content stays", "{}\u00a0\n{}", "{}\u00a0\n{}"},
		{"inside strings nothing", "{\"a\u2028\\\"\r\u00a0NaN\": \"Infinity\"}", "{\"a\u2028\\\"\r\u00a0NaN\": \"Infinity\"}"},
		{"a newline ends a broken string", "{\"a\n{\"b\": NaN}", "{\"a\n{\"b\": " + NaNLiteral + "}"},
		{"NaN Infinity", "[NaN, Infinity, -Infinity, -1, Inf, Na]", "[" + NaNLiteral + ", 1e999999, -1e999999, -1, Inf, Na]"},
		// a digit after the word is not read into the number written for it
		// (NaN1 is invalid JSON to Python: Expecting ',' delimiter)
		{"NaN1", "[NaN1, Infinity2, -Infinity3]", "[" + NaNLiteral + " 1, 1e999999 2, -1e999999 3]"},
		{"invalid UTF-8 stays", "{\"a\": \xff}\xc3", "{\"a\": \xff}\xc3"},
		{"BOM stays", "\ufeff{}", "\ufeff{}"},
	}
	for _, tt := range tests {
		if got := pyRead(t, tt.in); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
	// long input crosses the internal buffers
	long := strings.Repeat("{\"case_id\": \"x\", \"output\": NaN}\u2028", 5000)
	if got, want := strings.Count(pyRead(t, long), "\n"), 5000; got != want {
		t.Errorf("long: %d lines, want %d", got, want)
	}
	// reads of every size get the same bytes (the filter reuses its buffer)
	if err := iotest.TestReader(newPyText(strings.NewReader(long)), []byte(pyRead(t, long))); err != nil {
		t.Error(err)
	}
}

// FuzzPyText: never fails, and keeps every byte offset (so positions in
// messages stay right) unless it rewrote a NaN or ended a line early.
func FuzzPyText(f *testing.F) {
	for _, s := range []string{"{}\r{}", "\u00a0[NaN]\u3000", "{\"a\\\"\u2028\": -Infinity}\v", "\xed\xa0\x80\u0085"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := pyRead(t, in)
		if one, err := io.ReadAll(iotest.OneByteReader(newPyText(strings.NewReader(in)))); err != nil || string(one) != out {
			t.Fatalf("%q: read a byte at a time gives %q (%v), read whole %q", in, one, err, out)
		}
		if !strings.Contains(in, "NaN") && len(out) != len(in) {
			t.Fatalf("%q: %d bytes became %d", in, len(in), len(out))
		}
		if utf8.ValidString(in) && !utf8.ValidString(out) {
			t.Fatalf("%q: valid UTF-8 became invalid: %q", in, out)
		}
		if !bytes.ContainsAny([]byte(in), "\r\v\f\x1c\x1d\x1e\u0085\u2028\u2029\"NI-") && !strings.ContainsFunc(in, func(r rune) bool { return r >= 0x80 || r == 0x1f }) && out != in {
			t.Fatalf("%q changed to %q", in, out)
		}
	})
}

// FuzzStrRun holds strRun to the byte-at-a-time loop it stands for, from every
// start.
func FuzzStrRun(f *testing.F) {
	for _, s := range []string{"", "abcdefgh\"", "abc\\defghijklmnop", "0123456789abcdef\n", "\x00\x01\"\x22\x5c\x0a\xff\x80\x21\x23\x5b\x5d\x0b\x09", "é\"\u2028\\"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, buf []byte) {
		for n := range len(buf) + 1 {
			want := n
			for want < len(buf) && buf[want] != '"' && buf[want] != '\\' && buf[want] != '\n' {
				want++
			}
			if got := strRun(buf, n); got != want {
				t.Fatalf("strRun(%q, %d) = %d, want %d", buf, n, got, want)
			}
		}
	})
}

// BenchmarkPyText: the benchmark's response file (stage_bench_test.go) read
// through pyText alone.
func BenchmarkPyText(b *testing.B) {
	data, _ := benchData()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := io.Copy(io.Discard, newPyText(bytes.NewReader(data))); err != nil {
			b.Fatal(err)
		}
	}
}
