package strictjson

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/go-json-experiment/json/jsontext"
)

// elements reads every element of s from a reader that hands out at most
// chunk bytes at a time (0: all at once).
func elements(s string, chunk, maxBytes int) ([]string, []int64, error) {
	var r io.Reader = strings.NewReader(s)
	if chunk > 0 {
		r = &pieces{s: s, n: chunk}
	}
	el := NewElements(r, maxBytes, RejectSurrogates)
	var got []string
	var offs []int64
	for raw := range el.All() {
		got = append(got, string(raw))
		offs = append(offs, el.Offset())
	}
	return got, offs, el.Err()
}

// pieces reads s n bytes at a time.
type pieces struct {
	s string
	n int
}

func (p *pieces) Read(b []byte) (int, error) {
	if len(p.s) == 0 {
		return 0, io.EOF
	}
	k := copy(b[:min(len(b), p.n)], p.s)
	p.s = p.s[k:]
	return k, nil
}

func TestElements(t *testing.T) {
	long := `"` + strings.Repeat(`\u00e9`, 40) + `"`
	tests := []struct {
		in   string
		want []string
		offs []int64
		err  LexError // at offset at
		at   int64
	}{
		{in: `[]`},
		{in: " \n[ ] trailing"},
		{in: `[{"a":1}, [2] ,"x\u00e9",3,true,null]`, want: []string{`{"a":1}`, `[2]`, `"x\u00e9"`, `3`, `true`, `null`}, offs: []int64{1, 10, 15, 25, 27, 32}},
		{in: `[{"a":1,"a":2}]`, want: []string{`{"a":1,"a":2}`}, offs: []int64{1}},
		{in: `[12345, -0.5e10]`, want: []string{`12345`, `-0.5e10`}, offs: []int64{1, 8}},
		{in: `["\ud83d\ude00", ` + long + `]`, want: []string{`"\ud83d\ude00"`, long}, offs: []int64{1, 17}},
		{in: `[1,]`, want: []string{`1`}, offs: []int64{1}, err: ErrUnexpected, at: 3},
		{in: `[1 2]`, want: []string{`1`}, offs: []int64{1}, err: ErrUnexpected, at: 3},
		{in: `[{"a":1}`, want: []string{`{"a":1}`}, offs: []int64{1}, err: ErrEnd, at: 8},
		{in: `[{"a":`, err: ErrEnd, at: 6},
		{in: `{"a":[]}`, err: ErrUnexpected, at: 0},
		{in: ``, err: ErrEnd, at: 0},
		{in: `["\ud800"]`, err: ErrLoneSurrogate, at: 2},
		{in: "[\"a\xffb\"]", err: ErrUTF8, at: 3},
		{in: `[01]`, err: ErrLeadingZero, at: 1},
		{in: `[tru]`, err: ErrUnexpected, at: 1},
	}
	for _, tt := range tests {
		for _, chunk := range []int{0, 1, 3} {
			got, offs, err := elements(tt.in, chunk, 1<<20)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(offs) != len(tt.offs) {
				t.Errorf("%q (reads of %d): elements %q at %v, want %q at %v", tt.in, chunk, got, offs, tt.want, tt.offs)
				continue
			}
			for i := range offs {
				if offs[i] != tt.offs[i] {
					t.Errorf("%q (reads of %d): element %d at %d, want %d", tt.in, chunk, i, offs[i], tt.offs[i])
				}
			}
			var ee *ElementError
			switch {
			case tt.err == LexOK && err != nil:
				t.Errorf("%q (reads of %d): error %v", tt.in, chunk, err)
			case tt.err != LexOK && (!errors.As(err, &ee) || ee.Err != tt.err || ee.Offset != tt.at):
				t.Errorf("%q (reads of %d): error %v, want %v at offset %d", tt.in, chunk, err, tt.err, tt.at)
			}
		}
	}
}

func TestElementsLimit(t *testing.T) {
	long := `[1, "` + strings.Repeat("x", 300<<10) + `", 2]`
	got, _, err := elements(long, 0, 1<<20)
	if err != nil || len(got) != 3 || len(got[1]) != 300<<10+2 {
		t.Fatalf("an element longer than a read: %d elements, error %v", len(got), err)
	}
	got, _, err = elements(long, 0, 100<<10)
	var ee *ElementError
	if !errors.As(err, &ee) || !errors.Is(err, ErrElementTooLong) || ee.Offset != 4 || len(got) != 1 {
		t.Fatalf("an element over the limit: %d elements, error %v", len(got), err)
	}
	if _, _, err = elements(`[1,`+strings.Repeat(" ", 10)+`2]`, 0, 1); err != nil {
		t.Fatalf("white space counted against the limit: %v", err)
	}
	el := NewElements(iotest.ErrReader(io.ErrClosedPipe), 10, RejectSurrogates)
	if _, ok := el.Next(); ok || !errors.Is(el.Err(), io.ErrClosedPipe) {
		t.Fatalf("a read error: %v", el.Err())
	}
}

// FuzzElements holds Elements to jsontext: on a list jsontext reads (duplicate
// names allowed), the same elements at the same offsets, whatever the size of
// the reads; on one it refuses, an error.
func FuzzElements(f *testing.F) {
	for _, s := range []string{
		`[]`, `[1,2,3]`, `[{"a":[1,{"b":"c"}]}, "x", -1.5e3]`, `[1,]`, `[`, `[1 2]`, `{}`,
		`["\ud83d\ude00", "\u00e9", "é"]`, "[\"\xff\"]", `[{"a":1,"a":2}]`, ` [ true , false , null ] `,
	} {
		f.Add(s, uint8(1))
		f.Add(s, uint8(7))
	}
	f.Fuzz(func(t *testing.T, s string, chunk uint8) {
		if strings.Count(s, "[")+strings.Count(s, "{") > 64 {
			return
		}
		got, offs, err := elements(s, int(chunk), 1<<20)
		dec := jsontext.NewDecoder(strings.NewReader(s), jsontext.AllowDuplicateNames(true))
		var want []string
		var wantOffs []int64
		ok := false
		if tok, terr := dec.ReadToken(); terr == nil && tok.Kind() == '[' {
			for dec.PeekKind() != ']' && dec.PeekKind() != 0 {
				val, verr := dec.ReadValue()
				if verr != nil {
					break
				}
				want = append(want, string(val))
				wantOffs = append(wantOffs, dec.InputOffset()-int64(len(val)))
			}
			_, terr = dec.ReadToken()
			ok = terr == nil && dec.StackDepth() == 0
		}
		if ok != (err == nil) {
			t.Fatalf("%q: error %v, jsontext reads it: %v", s, err, ok)
		}
		if !ok {
			return
		}
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") || len(offs) != len(wantOffs) {
			t.Fatalf("%q: elements %q, jsontext %q", s, got, want)
		}
		for i := range offs {
			if offs[i] != wantOffs[i] {
				t.Fatalf("%q: element %d at %d, want %d", s, i, offs[i], wantOffs[i])
			}
		}
	})
}
