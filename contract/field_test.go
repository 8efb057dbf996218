package contract

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestFieldsRoundTrip(t *testing.T) {
	strs := []string{"", "a", "\x00\xff", strings.Repeat("x", 127), strings.Repeat("y", 128), strings.Repeat("z", 70000)}
	var b []byte
	for _, s := range strs {
		b = AppendField(b, s)
	}
	var w bytes.Buffer
	bw := bufio.NewWriterSize(&w, 16) // smaller than a field: WriteField flushes
	total := 0
	for _, s := range strs {
		n, err := WriteField(bw, s)
		if err != nil {
			t.Fatal(err)
		}
		total += n
	}
	bw.Flush()
	if !bytes.Equal(w.Bytes(), b) || total != len(b) {
		t.Fatalf("WriteField wrote %d bytes (said %d), AppendField %d, or other bytes", w.Len(), total, len(b))
	}

	rest := string(b)
	for _, want := range strs {
		var got string
		var ok bool
		got, rest, ok = CutField(rest)
		if !ok || got != want {
			t.Fatalf("CutField = %.10q, %v; want %.10q", got, ok, want)
		}
	}
	if rest != "" {
		t.Fatalf("CutField left %q", rest)
	}

	r := bufio.NewReaderSize(bytes.NewReader(b), 16)
	var dst []byte
	for i, want := range strs {
		if i == 2 {
			if err := SkipField(r); err != nil {
				t.Fatal(err)
			}
			continue
		}
		var err error
		if dst, err = ReadField(r, dst); err != nil || string(dst) != want {
			t.Fatalf("ReadField = %.10q, %v; want %.10q", dst, err, want)
		}
	}
	if _, err := ReadField(r, dst); err != io.EOF {
		t.Fatalf("ReadField at the end = %v, want io.EOF", err)
	}
}

func TestFieldsDamaged(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    string
		err  error // of ReadField and SkipField
	}{
		{"empty", "", io.EOF},
		{"length cut short", "\x80", io.ErrUnexpectedEOF},
		{"bytes cut short", "\x03ab", io.ErrUnexpectedEOF},
		{"length past 64 bits", "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02", nil},
		{"length past any field", "\xff\xff\xff\xff\xff\xff\xff\x7f", errFieldLen},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if f, rest, ok := CutField([]byte(tc.b)); ok || len(f) != 0 || len(rest) != 0 {
				t.Fatalf("CutField = %q, %q, %v; want nothing", f, rest, ok)
			}
			_, err := ReadField(bufio.NewReader(strings.NewReader(tc.b)), nil)
			if err == nil || tc.err != nil && !errors.Is(err, tc.err) {
				t.Fatalf("ReadField error = %v, want %v", err, tc.err)
			}
			err = SkipField(bufio.NewReader(strings.NewReader(tc.b)))
			if err == nil || tc.err != nil && !errors.Is(err, tc.err) {
				t.Fatalf("SkipField error = %v, want %v", err, tc.err)
			}
		})
	}
}

// FuzzCutUvarint holds CutUvarint to encoding/binary's Uvarint.
func FuzzCutUvarint(f *testing.F) {
	for _, s := range []string{"", "\x00", "\x7f", "\x80\x01", "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02", "\x80\x80"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want, k := binary.Uvarint(b)
		n, rest, ok := CutUvarint(b)
		if ok != (k > 0) || ok && (n != want || len(rest) != len(b)-k) {
			t.Fatalf("CutUvarint(%x) = %d, %d left, %v; binary.Uvarint = %d, %d", b, n, len(rest), ok, want, k)
		}
		f, rest2, ok2 := CutField(string(b))
		if ok2 != (ok && n <= uint64(len(rest))) || ok2 && (f != string(rest[:n]) || rest2 != string(rest[n:])) {
			t.Fatalf("CutField(%x) = %q, %q, %v", b, f, rest2, ok2)
		}
	})
}
