package coglang

import (
	"strings"
	"testing"
	"unicode"
)

// parseCases pin the reference parser's observable behaviour, quirks included.
var parseCases = []struct {
	name, in, want string
}{
	{"simple", `Equal[1, 1]`, `Equal[1, 1]`},
	{"whitespace CRLF tab", "Equal[\r\n1,\t1 ]", `Equal[1, 1]`},
	{"zero args", `AllNodes[]`, `AllNodes[]`},
	{"nested", `Do[If[True[], "a", "b"]]`, `Do[If[True[], "a", "b"]]`},
	{"commas optional", `Equal[1 2]`, `Equal[1, 2]`},
	{"trailing comma", `Equal[1, 2,]`, `Equal[1, 2]`},
	{"double comma is a bare token", `Equal[1,, 2]`, `Equal[1, ",", 2]`},
	{"lone comma", `f[,]`, `f[","]`},
	{"colon as value", `f[a:b]`, `f["a", ":", "b"]`},
	{"bare atoms are strings", `f[b, True, 'a']`, `f["b", "True", "'a'"]`},
	{"unclosed bracket position", `Equal[1, 1`, `ParseError["unclosed_bracket", 5]`},
	{"unclosed inner", `f[g[1]`, `ParseError["unclosed_bracket", 6]`},
	{"empty", ``, `ParseError["empty_input", 0]`},
	{"blank", " \r\n\t ", `ParseError["empty_input", 0]`},
	{"trailing tokens", `Equal[1, 1] extra`, `ParseError["trailing_tokens", 6]`},
	{"trailing bracket", `Equal[1, 1]]`, `ParseError["trailing_tokens", 6]`},
	{"bare then number", `Equal 1`, `ParseError["trailing_tokens", 1]`},
	{"number before bracket", `1[2]`, `ParseError["trailing_tokens", 1]`},
	{"quoted before bracket", `"F"[1]`, `ParseError["trailing_tokens", 1]`},
	{"anonymous before bracket", `_[1]`, `ParseError["trailing_tokens", 1]`},
	{"promote bare head", `NotFound`, `NotFound[]`},
	{"promote quoted head", `"Equal"`, `Equal[]`},
	{"promote unicode upper", `Élan`, `Élan[]`},
	{"promote other uppercase", `Ⓐb`, `Ⓐb[]`},
	{"lower bare not expression", `equal`, `ParseError["not_an_expression", 0]`},
	{"lower quoted not expression", `"equal"`, `ParseError["not_an_expression", 0]`},
	{"empty quoted not expression", `""`, `ParseError["not_an_expression", 0]`},
	{"number not expression", `42`, `ParseError["not_an_expression", 0]`},
	{"variable not expression", `X_`, `ParseError["not_an_expression", 0]`},
	{"dict not expression", `{"a": 1}`, `ParseError["not_an_expression", 0]`},
	{"titlecase is not upper", `ǅx`, `ParseError["not_an_expression", 0]`},
	{"punctuation head", `][1]`, `][1]`},
	{"variables", `f[x_, _, X_, __]`, `f[x_, _, X_, __]`},
	{"string escapes", `f["a\"b", "c\\d", "e\n"]`, `f["a\"b", "c\\d", "e\\n"]`},
	{"unterminated string at top drops last char", `"Abc`, `Ab[]`},
	{"unterminated string drops last rune", `"Abé`, `Ab[]`},
	{"unterminated string in args", `f["abc`, `ParseError["unclosed_bracket", 3]`},
	{"lone quote", `"`, `ParseError["not_an_expression", 0]`},
	{"backslash at end runs past the input", `"A\`, `A[]`},
	{"backslash escapes quote", `f["a\", b]`, `ParseError["unclosed_bracket", 3]`},
	{"dict sorted", `f[{"b": 1, "a": 2}]`, `f[{"a": 2, "b": 1}]`},
	{"dict later key wins", `f[{"b": 1, "a": 2, "b": 3}]`, `f[{"a": 2, "b": 3}]`},
	{"dict commas optional", `f[{"a": 1 "b": 2,}]`, `f[{"a": 1, "b": 2}]`},
	{"dict empty", `f[{}]`, `f[{}]`},
	{"dict nested values", `f[{"k": g[1, {"z": x_}]}]`, `f[{"k": g[1, {"z": x_}]}]`},
	{"dict key written raw", `f[{"a\"b": 1}]`, `f[{"a"b": 1}]`},
	{"dict key must be quoted", `f[{1: 2}]`, `ParseError["dict key must be a quoted string, got '1'", 3]`},
	{"dict key repr double quotes", `f[{it's: 2}]`, `ParseError["dict key must be a quoted string, got \"it's\"", 3]`},
	{"dict key repr backslash", `f[{a\b: 2}]`, `ParseError["dict key must be a quoted string, got 'a\\\\b'", 3]`},
	{"dict key repr control", "f[{a\x0bb: 2}]", `ParseError["dict key must be a quoted string, got 'a\\x0bb'", 3]`},
	{"dict double comma", `f[{"a": 1,, "b": 2}]`, `ParseError["dict key must be a quoted string, got ','", 7]`},
	{"dict missing colon", `f[{"a" 1}]`, `ParseError["expected ':' after dict key", 4]`},
	{"dict key at end", `f[{"a"`, `ParseError["expected ':' after dict key", 4]`},
	{"dict value at end", `f[{"a":`, `ParseError["unexpected end of input", 5]`},
	{"dict unclosed", `f[{"a": 1`, `ParseError["unclosed dict literal '{'", 6]`},
	{"dict punctuation value", `f[{"a": ]}]`, `f[{"a": "]"}]`},
	{"floats repr", `f[0.5, 1.0, 1., .5, -0.0, 10000000000000000.0, 0.00001, 123456.789]`,
		`f[0.5, 1.0, 1.0, 0.5, -0.0, 1e+16, 1e-05, 123456.789]`},
	{"float shortest digits", `f[0.1, 0.30000000000000004, 2.50]`, `f[0.1, 0.30000000000000004, 2.5]`},
	{"ints", `f[007, -0, -00, -12, 123456789012345678901234567890]`, `f[7, 0, 0, -12, 123456789012345678901234567890]`},
	{"not numbers", `f[1e5, +1, --1, 1.2.3, -, ., -.]`, `f["1e5", "+1", "--1", "1.2.3", "-", ".", "-."]`},
	{"negative fraction", `f[-.5, -5.]`, `f[-0.5, -5.0]`},
	{"unicode digits", `f[١٢, ١.٥, ०७]`, `f[12, 1.5, 7]`},
	{"superscript digit is not a number", `f[²]`, `f["²"]`},
	{"fullwidth digits", `f[１２]`, `f[12]`},
	{"float overflow is inf", `f[` + strings.Repeat("9", 400) + `.0, -` + strings.Repeat("9", 400) + `.5]`, `f[inf, -inf]`},
	{"float underflow is zero", `f[0.` + strings.Repeat("0", 400) + `1]`, `f[0.0]`},
	{"int at digit limit", `f[` + strings.Repeat("1", 4300) + `]`, `f[` + strings.Repeat("1", 4300) + `]`},
	{"int over digit limit is a string", `f[` + strings.Repeat("1", 4301) + `]`, `f["` + strings.Repeat("1", 4301) + `"]`},
	{"number token followed by bracket stays a number", `f[1[2]]`, `ParseError["trailing_tokens", 6]`},
	{"non-ascii whitespace is part of a token", "f[a\u00a0b]", "f[\"a\u00a0b\"]"},
}

func TestParseReference(t *testing.T) {
	var p Parser
	for _, tc := range parseCases {
		t.Run(tc.name, func(t *testing.T) {
			if got := p.Parse(tc.in).Canonical(); got != tc.want {
				t.Errorf("Parse(%q)\n got %s\nwant %s", tc.in, got, tc.want)
			}
		})
	}
}

func TestParseStrict(t *testing.T) {
	cases := []struct{ in, want string }{
		{`Equal[1, 2]`, `Equal[1, 2]`},
		{`Equal[1 2]`, `ParseError["missing_comma", 3]`},
		{`Equal[1, 2,]`, `ParseError["trailing_comma", 5]`},
		{`Equal[1,, 2]`, `ParseError["unexpected_token", 4]`},
		{`f[,]`, `ParseError["unexpected_token", 2]`},
		{`f[{"a": 1 "b": 2}]`, `ParseError["missing_comma", 6]`},
		{`f[{"a": 1,}]`, `ParseError["trailing_comma", 6]`},
		{`f[{"a": ]}]`, `ParseError["unexpected_token", 5]`},
		{`"Equal"`, `ParseError["not_an_expression", 0]`},
		{`NotFound`, `NotFound[]`},
		{`Equal[1, 1`, `ParseError["unclosed_bracket", 5]`},
	}
	p := Parser{Options: ParseOptions{Strict: true}}
	for _, tc := range cases {
		if got := p.Parse(tc.in).Canonical(); got != tc.want {
			t.Errorf("strict Parse(%q)\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
}

func TestParseLimits(t *testing.T) {
	p := Parser{Options: ParseOptions{MaxDepth: 3}}
	if got, want := p.Parse(`f[f[f[1]]]`).Canonical(), `f[f[f[1]]]`; got != want {
		t.Errorf("depth 3: %s", got)
	}
	if got, want := p.Parse(`f[f[f[f[1]]]]`).Canonical(), `ParseError["nesting_too_deep", 6]`; got != want {
		t.Errorf("depth 4: %s, want %s", got, want)
	}
	if got, want := p.Parse(`f[{"a": {"b": {"c": 1}}}]`).Canonical(), `ParseError["nesting_too_deep", 8]`; got != want {
		t.Errorf("dict depth: %s, want %s", got, want)
	}
	p = Parser{Options: ParseOptions{MaxBytes: 5}}
	if got, want := p.Parse(`Equal[1, 1]`).Canonical(), `ParseError["input_too_large", 0]`; got != want {
		t.Errorf("size: %s", got)
	}
	// The default depth bound holds deep input without exhausting the stack.
	var def Parser
	deep := strings.Repeat("f[", 200000) + strings.Repeat("]", 200000)
	if got, want := def.Parse(deep).Canonical(), `ParseError["nesting_too_deep", 20000]`; got != want {
		t.Errorf("deep: %s", got)
	}
	ok := strings.Repeat("f[", DefaultMaxDepth) + strings.Repeat("]", DefaultMaxDepth)
	if got := def.Parse(ok).Canonical(); got != ok {
		t.Errorf("depth %d did not round-trip", DefaultMaxDepth)
	}
}

// TestDigitRuns checks the assumption behind digitValue: decimal digits come in
// runs of ten starting at zero.
func TestDigitRuns(t *testing.T) {
	for _, rg := range unicode.Nd.R16 {
		if (rg.Hi-rg.Lo+1)%10 != 0 || rg.Stride != 1 {
			t.Errorf("Nd range %U-%U is not whole runs of ten", rg.Lo, rg.Hi)
		}
	}
	for _, rg := range unicode.Nd.R32 {
		if (rg.Hi-rg.Lo+1)%10 != 0 || rg.Stride != 1 {
			t.Errorf("Nd range %U-%U is not whole runs of ten", rg.Lo, rg.Hi)
		}
	}
	for _, c := range []struct {
		r    rune
		want int
	}{{'٣', 3}, {'९', 9}, {'０', 0}, {'𝟗', 9}, {'𝟘', 0}} {
		if got := digitValue(c.r); got != c.want {
			t.Errorf("digitValue(%U) = %d, want %d", c.r, got, c.want)
		}
	}
}

func TestPyRepr(t *testing.T) {
	cases := []struct{ in, want string }{
		{`abc`, `'abc'`},
		{`it's`, `"it's"`},
		{`it's "x"`, `'it\'s "x"'`},
		{`a\b`, `'a\\b'`},
		{"a\nb\tc\rd", `'a\nb\tc\rd'`},
		{"\x01\x7f", `'\x01\x7f'`},
		{"\u00a0\u00ad", `'\xa0\xad'`},
		{"\u200b", `'\u200b'`},
		{"\U000e0001", `'\U000e0001'`},
		{"é漢😀", `'é漢😀'`},
		{"a\xed\xa0\x80b\xed\xbf\xbf", `'a\ud800b\udfff'`}, // lone surrogates (WTF-8)
	}
	for _, c := range cases {
		if got := pyRepr(c.in); got != c.want {
			t.Errorf("pyRepr(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestCanonicalIdempotent(t *testing.T) {
	var p Parser
	for _, tc := range parseCases {
		e := p.Parse(tc.in)
		if e.Err != nil || !canonicalRoundTrips(e) {
			continue
		}
		first := e.Canonical()
		if again := p.Parse(first).Canonical(); again != first {
			t.Errorf("%s: canonical %s re-parses to %s", tc.name, first, again)
		}
	}
}
