package strictjson

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

func TestScanNumber(t *testing.T) {
	tests := []struct {
		in    string
		end   int
		isInt bool
		err   LexError
	}{
		{"0", 1, true, LexOK},
		{"-0", 2, true, LexOK},
		{"123,", 3, true, LexOK},
		{"-12.5e+3]", 8, false, LexOK},
		{"1E5", 3, false, LexOK},
		{"0.0", 3, false, LexOK},
		{"01", 0, false, ErrLeadingZero},
		{"-", 1, false, ErrNumberDigit},
		{"-a", 1, false, ErrNumberDigit},
		{"1.", 2, false, ErrFractionDigit},
		{"1.e5", 2, false, ErrFractionDigit},
		{"1e", 2, false, ErrExponentDigit},
		{"1e+", 3, false, ErrExponentDigit},
		{"1x", 1, true, LexOK}, // the caller decides what may follow
	}
	for _, tt := range tests {
		end, isInt, err := ScanNumber(tt.in, 0)
		if end != tt.end || err != tt.err || (err == LexOK && isInt != tt.isInt) {
			t.Errorf("ScanNumber(%q) = %d, %v, %v; want %d, %v, %v", tt.in, end, isInt, err, tt.end, tt.isInt, tt.err)
		}
		bend, _, berr := ScanNumber([]byte(tt.in), 0)
		if bend != end || berr != err {
			t.Errorf("ScanNumber([]byte(%q)) differs from the string form", tt.in)
		}
	}
}

func TestReadString(t *testing.T) {
	tests := []struct {
		in      string
		lone    Surrogates
		text    string
		escaped bool
		end     int
		err     LexError
	}{
		{`"abc"`, RejectSurrogates, "abc", false, 5, LexOK},
		{`"é😀" x`, RejectSurrogates, "é😀", false, 8, LexOK},
		{`"a\"b\\c\/d\b\f\n\r\t"`, RejectSurrogates, "a\"b\\c/d\b\f\n\r\t", true, 22, LexOK},
		{`"\u00e9\u20AC"`, RejectSurrogates, "é€", true, 14, LexOK},
		{`"\ud83d\ude00"`, RejectSurrogates, "😀", true, 14, LexOK},
		{`"\ud800"`, RejectSurrogates, "", true, 1, ErrLoneSurrogate},
		{`"\ud800"`, KeepSurrogates, "\xed\xa0\x80", true, 8, LexOK},
		{`"a\udc00\ud800b"`, KeepSurrogates, "a\xed\xb0\x80\xed\xa0\x80b", true, 16, LexOK},
		{`"\ud800\u0041"`, KeepSurrogates, "\xed\xa0\x80A", true, 14, LexOK},
		{`"\ud800\u004"`, KeepSurrogates, "", true, 7, ErrUnicodeEscape},
		{`"\x"`, RejectSurrogates, "", true, 1, ErrEscape},
		{`"\u12g4"`, RejectSurrogates, "", true, 1, ErrUnicodeEscape},
		{"\"a\nb\"", RejectSurrogates, "", false, 2, ErrControl},
		{"\"a\xffb\"", RejectSurrogates, "", false, 2, ErrUTF8},
		{"\"\xed\xa0\x80\"", KeepSurrogates, "", false, 1, ErrUTF8}, // raw WTF-8 is no UTF-8
		{`"abc`, RejectSurrogates, "", false, 4, ErrEnd},
		{`"ab\`, RejectSurrogates, "", true, 4, ErrEnd},
	}
	for _, tt := range tests {
		end, out, escaped, err := ReadString(tt.in, 0, nil, tt.lone)
		text := string(out)
		if !escaped && err == LexOK {
			text = tt.in[1 : end-1]
		}
		if end != tt.end || err != tt.err || escaped != tt.escaped || (err == LexOK && text != tt.text) {
			t.Errorf("ReadString(%q) = %d, %q, %v, %v; want %d, %q, %v, %v", tt.in, end, text, escaped, err, tt.end, tt.text, tt.escaped, tt.err)
		}
		send, sesc, serr := ScanString([]byte(tt.in), 0, tt.lone)
		if send != end || serr != err || (err == LexOK && sesc != escaped) {
			t.Errorf("ScanString(%q) = %d, %v, %v; ReadString gave %d, %v, %v", tt.in, send, sesc, serr, end, escaped, err)
		}
	}
}

func TestSkipValue(t *testing.T) {
	tests := []struct {
		in       string
		maxDepth int
		end      int
		err      LexError
	}{
		{`{"a": [1, 2.5, "x", true, false, null, {}], "a": []} tail`, 4, 52, LexOK},
		{`[[[]]]`, 3, 6, LexOK},
		{`[[[]]]`, 2, 2, ErrDepth},
		{strings.Repeat("[", 300) + strings.Repeat("]", 300), 300, 600, LexOK},
		{`[1,]`, 4, 3, ErrUnexpected},
		{`{"a" 1}`, 4, 5, ErrUnexpected},
		{`{"a":1,}`, 4, 7, ErrUnexpected},
		{`[1 2]`, 4, 3, ErrUnexpected},
		{`[01]`, 4, 1, ErrLeadingZero},
		{`["\ud800"]`, 4, 2, ErrLoneSurrogate},
		{`{"a":`, 4, 5, ErrEnd},
		{`tru`, 4, 0, ErrUnexpected},
		{`NaN`, 4, 0, ErrUnexpected},
	}
	for _, tt := range tests {
		end, err := SkipValue(tt.in, 0, tt.maxDepth, RejectSurrogates)
		if end != tt.end || err != tt.err {
			t.Errorf("SkipValue(%q, %d) = %d, %v; want %d, %v", tt.in, tt.maxDepth, end, err, tt.end, tt.err)
		}
	}
}

// FuzzLexer holds the lexer to jsontext on valid input (same verdict, same ends,
// same unescaped text) and to the strict decoder on everything: what Parse reads,
// the lexer reads, and what the lexer refuses, Parse refuses at the same offset.
func FuzzLexer(f *testing.F) {
	for _, s := range []string{
		`{"action":"call_tool","tool":"search_hotels","arguments":{"city":"Goa","guests":2},"missingFields":[],"reason":""}`,
		`[1, 1.0, -0.0, 1e2, 12345678901234567890, "\ud83d\ude00", true, null]`,
		`"a\"b\\c\/d\b\f\n\r\t\u00e9"`, `"\ud800"`, `"\udc00\ud800x"`, `"\ud800\u0041"`,
		`-12.5e+3`, `01`, `1.`, `1e`, `{"a":1,"a":2}`, "\"a\xffb\"", "\"\t\"",
		`[[[[[[[[[[]]]]]]]]]]`, `{"a" 1}`, `[1,]`, `NaN`, `1e400`, ` {} `,
		// past eight bytes at a time: a quote, a backslash, a control character,
		// a multi-byte character and a bad byte at each place of a word
		`"flights-000.minimal_schema.r12.a1"`, `"abcdefgh\"ijklmnop"`, `"abcdefghi\\jklmnop"`,
		"\"abcdefghij\x01klmnop\"", `"abcdefghijké lmnop"`, "\"abcdefghijkl\xffmnop\"", `"abcdefgh"`, `"abcdefg"`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		const depth = 64
		tooDeep := strings.Count(s, "[")+strings.Count(s, "{") > depth
		// the whole text as one value, as jsontext reads it (duplicate names allowed)
		start := SkipSpace(s, 0)
		end, err := SkipValue(s, start, depth, RejectSurrogates)
		lexOK := err == LexOK && SkipSpace(s, end) == len(s)
		if ref := jsontext.Value(s).IsValid(jsontext.AllowDuplicateNames(true)); ref != lexOK && !(tooDeep && err == ErrDepth) {
			t.Fatalf("SkipValue(%q): valid %v (%v at %d), jsontext says %v", s, lexOK, err, end, ref)
		}
		if bend, berr := SkipValue([]byte(s), start, depth, RejectSurrogates); bend != end || berr != err {
			t.Fatalf("SkipValue on bytes differs: %d %v, on a string %d %v", bend, berr, end, err)
		}

		// the strict decoder, which keeps lone surrogates
		kend, kerr := SkipValue(s, start, depth, KeepSurrogates)
		keepOK := kerr == LexOK && SkipSpace(s, kend) == len(s)
		_, perr := ParseDepth(s, depth)
		if perr == nil && !keepOK {
			t.Fatalf("Parse reads %q, the lexer refuses it: %v at %d", s, kerr, kend)
		}
		if kerr != LexOK {
			// Parse fails there too, or before (a duplicate key, a number out of range)
			se, ok := perr.(*SyntaxError)
			if !ok || se.Offset > kend {
				t.Fatalf("lexer refuses %q with %v at %d; Parse says %v", s, kerr, kend, perr)
			}
		}

		// one token: a string or a number
		if len(s) == 0 {
			return
		}
		switch c := s[0]; {
		case c == '"':
			end, out, escaped, err := ReadString(s, 0, nil, RejectSurrogates)
			send, sesc, serr := ScanString(s, 0, RejectSurrogates)
			if send != end || serr != err || (err == LexOK && sesc != escaped) {
				t.Fatalf("ScanString(%q) = %d %v %v, ReadString = %d %v %v", s, send, sesc, serr, end, escaped, err)
			}
			if err != LexOK {
				if _, jerr := jsontext.NewDecoder(strings.NewReader(s)).ReadToken(); jerr == nil {
					t.Fatalf("ReadString(%q) refuses (%v at %d) a string jsontext reads", s, err, end)
				}
				return
			}
			tok := jsontext.Value(s[:end])
			if !tok.IsValid() {
				t.Fatalf("ReadString(%q) reads %q, which jsontext refuses", s, s[:end])
			}
			want, jerr := jsontext.AppendUnquote(nil, tok)
			if jerr != nil {
				t.Fatalf("jsontext cannot unquote %q: %v", s[:end], jerr)
			}
			if !escaped {
				out = []byte(s[1 : end-1])
			}
			if !bytes.Equal(out, want) {
				t.Fatalf("ReadString(%q) = %q, jsontext %q", s, out, want)
			}
		case c == '-' || c >= '0' && c <= '9':
			end, isInt, err := ScanNumber(s, 0)
			if err != LexOK {
				return
			}
			if !jsontext.Value(s[:end]).IsValid() {
				t.Fatalf("ScanNumber(%q) reads %q, which jsontext refuses", s, s[:end])
			}
			if isInt == strings.ContainsAny(s[:end], ".eE") {
				t.Fatalf("ScanNumber(%q): isInt %v", s, isInt)
			}
			if jsontext.Value(s).IsValid() && end != len(strings.TrimRight(s, " \t\r\n")) {
				t.Fatalf("ScanNumber(%q) stops at %d of a valid number", s, end)
			}
		}
	})
}

func TestSmallInt(t *testing.T) {
	for _, lit := range []string{"0", "-0", "7", "-123", "999999999999999999", "-99999999999999999"} {
		want, _ := strconv.ParseInt(lit, 10, 64)
		if n, ok := SmallInt(lit); !ok || n != want {
			t.Errorf("SmallInt(%q) = %d, %v; want %d", lit, n, ok, want)
		}
	}
	for _, lit := range []string{"", "1234567890123456789", "-999999999999999999"} {
		if _, ok := SmallInt(lit); ok {
			t.Errorf("SmallInt(%q) reads a literal it cannot vouch for", lit)
		}
	}
}

// TestMembersItems: the names and value offsets Members hands over, where it
// ends, and what it refuses; Items likewise.
func TestMembersItems(t *testing.T) {
	skip := func(d []byte) func(name []byte, i int) (int, bool) {
		return func(_ []byte, i int) (int, bool) {
			end, err := SkipValue(d, i, 10, RejectSurrogates)
			return end, err == LexOK
		}
	}
	for _, tc := range []struct {
		in    string
		names string // the names seen, joined by '|'
		end   int    // -1: refused
	}{
		{`{}`, ``, 2},
		{`{ }x`, ``, 3},
		{`{"a":1}`, `a`, 7},
		{`{ "a" : [1] , "b":{"c":2} , "a":null }  `, `a|b|a`, 38},
		{`{"a":1,}`, `a`, -1},
		{`{"a" 1}`, ``, -1},
		{`{"\u0061":1}`, ``, -1}, // an escaped name
		{`{"a":1`, `a`, -1},
		{`{,}`, ``, -1},
		{`[]`, ``, -1},
		{``, ``, -1},
	} {
		d := []byte(tc.in)
		var names []string
		end := Members(d, 0, func(name []byte, i int) (int, bool) {
			names = append(names, string(name))
			return skip(d)(name, i)
		})
		if got := strings.Join(names, "|"); end != tc.end || got != tc.names {
			t.Errorf("Members(%q) = %d with %q, want %d with %q", tc.in, end, got, tc.end, tc.names)
		}
	}
	stop := Members([]byte(`{"a":1,"b":2}`), 0, func(name []byte, i int) (int, bool) { return i + 1, string(name) == "a" })
	if stop != -1 {
		t.Errorf("a member that stops: %d, want -1", stop)
	}
	for _, tc := range []struct {
		in       string
		elements int
		end      int
	}{
		{`[]`, 0, 2},
		{`[ 1 , "x" , {} ]`, 3, 16},
		{`[1,]`, 2, -1}, // the second is called at the bracket, and refuses it
		{`[1 2]`, 1, -1},
		{`{}`, 0, -1},
	} {
		d := []byte(tc.in)
		n := 0
		end := Items(d, 0, func(i int) (int, bool) {
			n++
			end, err := SkipValue(d, i, 10, RejectSurrogates)
			return end, err == LexOK
		})
		if end != tc.end || n != tc.elements {
			t.Errorf("Items(%q) = %d after %d elements, want %d after %d", tc.in, end, n, tc.end, tc.elements)
		}
	}
}
