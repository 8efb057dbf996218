package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Floats are written as Python's repr writes them (values checked with CPython).
func TestAppendPyFloat(t *testing.T) {
	tests := []struct {
		f    float64
		want string
	}{
		{1.0, "1.0"}, {0.5, "0.5"}, {1e16, "1e+16"}, {1e-05, "1e-05"}, {0.0001, "0.0001"},
		{123456789.0, "123456789.0"}, {1.5e-7, "1.5e-07"}, {math.Copysign(0, -1), "-0.0"},
		{1e22, "1e+22"}, {0.30000000000000004, "0.30000000000000004"}, {1e15, "1000000000000000.0"},
		{9999999999999998.0, "9999999999999998.0"}, {2.5e-05, "2.5e-05"},
		{0.9444444444444444, "0.9444444444444444"}, {5e-324, "5e-324"},
		{1.7976931348623157e308, "1.7976931348623157e+308"}, {-123.456, "-123.456"}, {100.0, "100.0"},
		{math.Inf(1), "Infinity"}, {math.NaN(), "NaN"},
	}
	for _, tt := range tests {
		if got := string(AppendPyFloat(nil, tt.f)); got != tt.want {
			t.Errorf("%v: got %s, want %s", tt.f, got, tt.want)
		}
	}
}

// Every finite float written by AppendPyFloat reads back as the same float.
func FuzzAppendPyFloat(f *testing.F) {
	for _, v := range []float64{0, 1, 0.1, 1e16, 1e-5, 123.456, 5e-324} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v float64) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return
		}
		s := string(AppendPyFloat(nil, v))
		back, err := strconv.ParseFloat(s, 64)
		if err != nil || back != v || math.Signbit(back) != math.Signbit(v) {
			t.Fatalf("%v written as %s reads back as %v (%v)", v, s, back, err)
		}
	})
}

func TestMarshalStyles(t *testing.T) {
	v := Object{
		{Key: "s", Value: "a\"b\\c\n\t\u0001é\u2028"},
		{Key: "n", Value: json.Number("1.50")},
		{Key: "big", Value: new(big.Int).Lsh(big.NewInt(1), 70)},
		{Key: "list", Value: []any{1, 2.0, nil, true}},
		{Key: "empty", Value: []string{}},
		{Key: "obj", Value: map[string]any{"b": 1, "a": Object{}}},
		{Key: "raw", Value: Raw(`{"x":1}`)},
	}
	tests := []struct {
		style Style
		want  string
	}{
		{Compact, `{"s":"a\"b\\c\n\t\u0001é` + "\u2028" + `","n":1.50,"big":1180591620717411303424,"list":[1,2.0,null,true],"empty":[],"obj":{"a":{},"b":1},"raw":{"x":1}}`},
		{PythonLine, `{"s": "a\"b\\c\n\t\u0001é` + "\u2028" + `", "n": 1.50, "big": 1180591620717411303424, "list": [1, 2.0, null, true], "empty": [], "obj": {"a": {}, "b": 1}, "raw": {"x":1}}`},
	}
	for _, tt := range tests {
		got, err := Marshal(v, tt.style)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tt.want {
			t.Errorf("style %+v:\n got %s\nwant %s", tt.style, got, tt.want)
		}
	}
	got, _ := Marshal(Object{{Key: "a", Value: []any{1, Object{{Key: "b", Value: []string{}}}}}}, PythonIndent)
	want := "{\n  \"a\": [\n    1,\n    {\n      \"b\": []\n    }\n  ]\n}"
	if string(got) != want {
		t.Errorf("indent:\n%s\nwant\n%s", got, want)
	}
	if _, err := Marshal(make(chan int), Compact); err == nil {
		t.Error("an unsupported type was written")
	}
}

func TestAppendStringLoneSurrogate(t *testing.T) {
	for in, want := range map[string]string{
		"a\xed\xa0\x80b":           `"a\ud800b"`,
		"\xed\xbf\xbf\xed\xb0\x80": `"\udfff\udc00"`,
		"\xed\x9f\xbf":             `"` + "\ud7ff" + `"`, // U+D7FF is a character
		"\xed\xa0":                 "\"\ufffd\ufffd\"",
		"\xff":                     "\"\ufffd\"",
	} {
		if got := string(AppendString(nil, in)); got != want {
			t.Errorf("AppendString(%q) = %s, want %s", in, got, want)
		}
	}
}

// appendStringByByte is AppendString one byte at a time, as it was written before
// it read eight bytes at a time: the oracle of the fast path.
func appendStringByByte(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"':
				dst = append(dst, `\"`...)
			case '\\':
				dst = append(dst, `\\`...)
			case '\n':
				dst = append(dst, `\n`...)
			case '\r':
				dst = append(dst, `\r`...)
			case '\t':
				dst = append(dst, `\t`...)
			case '\b':
				dst = append(dst, `\b`...)
			case '\f':
				dst = append(dst, `\f`...)
			default:
				dst = append(dst, `\u00`...)
				dst = append(dst, hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			if i+2 < len(s) && c == 0xED && s[i+1] >= 0xA0 && s[i+1] <= 0xBF && s[i+2]&0xC0 == 0x80 {
				// a lone surrogate as the JSON readers keep it (WTF-8)
				r = rune(c&0x0F)<<12 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F)
				dst = append(dst, '\\', 'u', hexDigits[r>>12], hexDigits[r>>8&0xF], hexDigits[r>>4&0xF], hexDigits[r&0xF])
				i += 3
			} else {
				dst = append(dst, "\ufffd"...)
				i++
			}
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// Every byte that needs escaping or decoding is found at each of the eight places
// of a word, before, inside and after a run of plain text.
func TestAppendStringEveryPlace(t *testing.T) {
	specials := []string{`"`, `\`, "\n", "\x00", "\x1f", "\x7f", " ", "é", "\u2028", "\xed\xa0\x80", "\xff", "\xed\xa0", "😀"}
	for _, sp := range specials {
		for pre := range 17 {
			for post := range 10 {
				s := strings.Repeat("a", pre) + sp + strings.Repeat("b", post) + sp
				if got, want := string(AppendString(nil, s)), string(appendStringByByte(nil, s)); got != want {
					t.Fatalf("AppendString(%q) = %s, want %s", s, got, want)
				}
			}
		}
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain ascii text, long enough", `{"a":"b\"c"}`, "a\xed\xa0\x80b", "tab\there\x01", "ünïcödé 😀 and \xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := AppendString(nil, s), appendStringByByte(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("AppendString(%q) = %s, want %s", s, got, want)
		}
	})
}

// BenchmarkAppendString writes strings as rows hold them: a model's JSON output
// (many quotes), an error message and a case id.
func BenchmarkAppendString(b *testing.B) {
	for _, bc := range []struct{ name, s string }{
		{"output", `{"action":"call_tool","arguments":{"departureDate":"2027-07-14","destination":"Auckland","origin":"Osaka","travellers":4},"missingFields":[],"reason":"","tool":"search_flights"}`},
		{"message", `missingFields differ from the expected fields; the value at /arguments/travellers must be an integer between 1 and 9`},
		{"id", "flights-000.minimal_schema.r12.a1"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.s)))
			var buf []byte
			for b.Loop() {
				buf = AppendString(buf[:0], bc.s)
			}
		})
	}
}

// appendStringJSONText is the oracle of AppendStringForHTML: jsontext's string
// writer with the escapes for HTML and JavaScript, and DEL and the C1
// controls written as their escapes. It refuses invalid UTF-8, which
// AppendStringForHTML replaces.
func appendStringJSONText(s string) ([]byte, error) {
	b, err := jsonv2.Marshal(s, jsontext.EscapeForHTML(true), jsontext.EscapeForJS(true))
	return controlsEscaped(b), err
}

// controlsEscaped is JSON text b with DEL and U+0080 to U+009F written as
// their escapes (\u007f).
func controlsEscaped(b []byte) []byte {
	b = bytes.ReplaceAll(b, []byte{0x7F}, []byte(`\u007f`))
	for c := byte(0x80); c <= 0x9F; c++ {
		b = bytes.ReplaceAll(b, []byte{0xC2, c}, fmt.Appendf(nil, `\u%04x`, c))
	}
	return b
}

func TestAppendStringForHTML(t *testing.T) {
	for in, want := range map[string]string{
		"":                          `""`,
		"plain":                     `"plain"`,
		"</script><b>R&D</b>":       `"\u003c/script\u003e\u003cb\u003eR\u0026D\u003c/b\u003e"`,
		"a\u2028b\u2029c":           `"a\u2028b\u2029c"`,
		"\u20a8 \u00a8 \u2018":      "\"\u20a8 \u00a8 \u2018\"", // bytes ending A8/A9 that are not U+2028/9
		"quote\" <\n":               `"quote\" \u003c\n"`,
		"lone \xed\xa0\x80 & \xff<": `"lone \ud800 \u0026 ` + "\ufffd" + `\u003c"`,
		"del\x7f c1\u0085\u009b\u0080 \u00a0\u2028": `"del\u007f c1\u0085\u009b\u0080 ` + "\u00a0" + `\u2028"`,
	} {
		if got := string(AppendStringForHTML([]byte("prefix<&"), in)); got != "prefix<&"+want {
			t.Errorf("AppendStringForHTML(%q) = %s, want prefix<&%s", in, got, want)
		}
	}
}

func FuzzAppendStringForHTML(f *testing.F) {
	for _, s := range []string{"", "<script>alert(1)</script>", "R&D > 2", "a\u2028b\u2029", "\u20a8\u00a9", "a\xed\xa0\x80b<", "ünïcödé 😀 & \xff", "\x7f\u0085\u2028\u009f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := AppendStringForHTML([]byte("x"), s)
		want, err := appendStringJSONText(s)
		if err != nil {
			// Invalid UTF-8: the string is AppendString's with the five escapes.
			want = AppendString(nil, s)
			for _, r := range []struct{ from, to string }{{"<", `\u003c`}, {">", `\u003e`}, {"&", `\u0026`}, {"\u2028", `\u2028`}, {"\u2029", `\u2029`}} {
				want = bytes.ReplaceAll(want, []byte(r.from), []byte(r.to))
			}
			want = controlsEscaped(want)
		}
		if !bytes.Equal(got[1:], want) || got[0] != 'x' {
			t.Fatalf("AppendStringForHTML(%q) = %s, want x%s", s, got, want)
		}
	})
}

// A line break indents as many levels as asked, within the written-at-once
// spaces and past them.
func TestNewlineDepth(t *testing.T) {
	for _, s := range []Style{PythonIndent, {Indent: "\t"}, Compact} {
		for depth := range 40 {
			want := ""
			if s.Indent != "" {
				want = "\n" + strings.Repeat(s.Indent, depth)
			}
			if got := string(newline([]byte{}, s, depth)); got != want {
				t.Fatalf("indent %q, depth %d: %q, want %q", s.Indent, depth, got, want)
			}
		}
	}
}
