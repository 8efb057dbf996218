package strictjson

import (
	"errors"
	"strings"
	"testing"
)

func TestParseAccepts(t *testing.T) {
	tests := []struct {
		in        string
		kind      Kind
		canonical string
	}{
		{`null`, Null, `null`},
		{` true `, Bool, `true`},
		{"\t\r\nfalse\n", Bool, `false`},
		{`0`, Int, `0`},
		{`-0`, Int, `0`}, // Python reads -0 as the integer 0
		{`9223372036854775807`, Int, `9223372036854775807`},
		{`-9223372036854775808`, Int, `-9223372036854775808`},
		{`9223372036854775808`, BigInt, `9223372036854775808`},
		{`-123456789012345678901234567890`, BigInt, `-123456789012345678901234567890`},
		{"-" + strings.Repeat("9", 4300), BigInt, "-" + strings.Repeat("9", 4300)},
		{`1.0`, Float, `1.0`},
		{`1.50`, Float, `1.5`},
		{`1e2`, Float, `100.0`},
		{`1E+2`, Float, `100.0`},
		{`-0.0`, Float, `-0.0`},
		{`1e16`, Float, `1e+16`},
		{`0.0001`, Float, `0.0001`},
		{`0.00001`, Float, `1e-05`},
		{`1e-400`, Float, `0.0`}, // underflow reads as zero, as in Python
		{`1.7976931348623157e308`, Float, `1.7976931348623157e+308`},
		{`""`, String, `""`},
		{`"a\"b\\c\/d\b\f\n\r\t"`, String, `"a\"b\\c/d\b\f\n\r\t"`},
		{`"\u00e9\u20AC"`, String, `"é€"`},
		{`"\ud83d\ude00"`, String, `"😀"`},
		{`"é😀"`, String, `"é😀"`},
		{`"\u0000"`, String, `"\u0000"`},
		// lone surrogates are read, as Python's json reads them, and written back
		{`"\ud800"`, String, `"\ud800"`},
		{`"a\udc00\ud800b"`, String, `"a\udc00\ud800b"`},
		{`"\ud800\u0041"`, String, `"\ud800A"`},
		{`"\uDBFF\uDFFF\uDFFF"`, String, `"􏿿\udfff"`},
		{`"\ud83d\ud83d\ude00"`, String, `"\ud83d😀"`},
		{`[]`, Array, `[]`},
		{`[1, [2, [3]], {"a": []}]`, Array, `[1,[2,[3]],{"a":[]}]`},
		{`{}`, Object, `{}`},
		{`{"b": 1, "a": {"d": null, "c": true}}`, Object, `{"a":{"c":true,"d":null},"b":1}`},
		{`{"a":1,"A":2,"é":3,"z":4}`, Object, `{"A":2,"a":1,"z":4,"é":3}`},
	}
	for _, tt := range tests {
		v, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if v.Kind() != tt.kind {
			t.Errorf("Parse(%q) kind = %s, want %s", tt.in, v.Kind(), tt.kind)
		}
		if got := Canonical(v); got != tt.canonical {
			t.Errorf("Canonical(Parse(%q)) = %s, want %s", tt.in, got, tt.canonical)
		}
	}
}

func TestParseRejects(t *testing.T) {
	tests := []struct {
		in   string
		want string // part of the message
		line int
		col  int
	}{
		{``, "empty input", 1, 1},
		{"   \n ", "empty input", 2, 2},
		{"\xEF\xBB\xBF{}", "byte order mark", 1, 1},
		{"```json\n{}\n```", "Markdown code fences", 1, 1},
		{"<think>\nplan\n</think>\n{}", "unexpected <think>: a reasoning model's thinking is not allowed before the JSON, output bare JSON", 1, 1},
		{"[THINK]plan[/THINK]{}", "unexpected [THINK]: a reasoning model's thinking is not allowed before the JSON, output bare JSON", 1, 1},
		{"<|channel|>analysis<|message|>plan<|end|><|start|>assistant<|channel|>final<|message|>{}", "unexpected <|channel|>: a reasoning model's channel markup is not allowed around the JSON, output bare JSON", 1, 1},
		{"<|start|>assistant<|channel|>final<|message|>{}", "unexpected <|start|>: a reasoning model's channel markup is not allowed around the JSON, output bare JSON", 1, 1},
		{"<|x", "unexpected character '<', expected a JSON value", 1, 1},
		{"<b>{}</b>", "unexpected character '<', expected a JSON value", 1, 1},
		{`Sure! {"a":1}`, "expected a JSON value", 1, 1},
		{`{"a":1} Hope this helps`, "after the JSON value", 1, 9},
		{`{"a":1}{"a":1}`, "after the JSON value", 1, 8},
		{"{}\n[]", "after the JSON value", 2, 1},
		{`{"a":1,"a":2}`, `duplicate object key "a"`, 1, 8},
		{`{"a":{"b":1,"b":1}}`, `duplicate object key "b"`, 1, 13},
		{`[{"x":1},{"y":[{"k":1,"k":1}]}]`, `duplicate object key "k"`, 1, 23},
		{`{"a":1,"\u0061":2}`, `duplicate object key "a"`, 1, 8},
		{`NaN`, "NaN and Infinity", 1, 1},
		{`[Infinity]`, "Infinity", 1, 2},
		{`-Infinity`, "-Infinity", 1, 1},
		{`1e400`, "overflows", 1, 1},
		{`-1e309`, "overflows", 1, 1},
		{`[1, 2e999]`, "overflows", 1, 5},
		{"\"a\xffb\"", "invalid UTF-8", 1, 3},
		{"{\"k\xc3\":1}", "invalid UTF-8", 1, 4},
		{"\xff", "invalid UTF-8", 1, 1},
		{"\"a\nb\"", "control character", 1, 3},
		{`"\x"`, "invalid escape", 1, 2},
		{`"\u12g4"`, `invalid \u escape`, 1, 2},
		{`"abc`, "end of input in string", 1, 5},
		{`01`, "leading zero", 1, 1},
		{`-`, "expected a digit", 1, 2},
		{`1.`, "after decimal point", 1, 3},
		{`.5`, "expected a JSON value", 1, 1},
		{`1e`, "exponent", 1, 3},
		{`+1`, "expected a JSON value", 1, 1},
		{`[1,]`, "a trailing comma is not allowed", 1, 4},
		{`{"a":1,}`, "a trailing comma is not allowed", 1, 8},
		{"{\"a\":1,\n}", "a trailing comma is not allowed", 2, 1},
		{`{'a':1}`, "JSON strings and keys take double quotes", 1, 2},
		{`{"a":'x'}`, "JSON strings and keys take double quotes", 1, 6},
		{`// note` + "\n{}", "comments are not allowed", 1, 1},
		{`{"a":1 /* note */}`, "comments are not allowed", 1, 8},
		{`[1, // note` + "\n2]", "comments are not allowed", 1, 5},
		{`[1 // note` + "\n]", "comments are not allowed", 1, 4},
		{`{// note` + "\n}", "comments are not allowed", 1, 2},
		{`/`, "expected a JSON value", 1, 1},
		{`{"a" 1}`, "expected ':'", 1, 6},
		{`[1 2]`, "expected ',' or ']'", 1, 4},
		{`{"a":1`, "expected ',' or '}'", 1, 7},
		{`tru`, "expected true", 1, 1},
		{`nul`, "expected null", 1, 1},
		{`None`, "expected a JSON value", 1, 1},
		{"\v1", "expected a JSON value", 1, 1}, // not JSON whitespace
		{strings.Repeat("9", 4301), "longer than 4300 digits", 1, 1},
		{"[-" + strings.Repeat("9", 4301) + "]", "longer than 4300 digits", 1, 2},
		// columns count characters, as Python's json does and a model reads
		// them in a repair message (they counted bytes: 41 here)
		{`{"action":"refuse","reason":"éé€" x}`, "expected ',' or '}'", 1, 35},
		{"{\"a\":\"é\",\n \"b\":\"€\" x}", "expected ',' or '}'", 2, 10},
	}
	for _, tt := range tests {
		_, err := Parse(tt.in)
		if err == nil {
			t.Errorf("Parse(%q) accepted", tt.in)
			continue
		}
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Parse(%q) error %T, want *SyntaxError", tt.in, err)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, tt.want) || strings.Contains(msg, "\n") {
			t.Errorf("Parse(%q) error %q, want one line containing %q", tt.in, msg, tt.want)
		}
		if se.Line != tt.line || se.Col != tt.col {
			t.Errorf("Parse(%q) error at %d:%d, want %d:%d (%s)", tt.in, se.Line, se.Col, tt.line, tt.col, msg)
		}
	}
}

func TestParseDepthLimit(t *testing.T) {
	deep := strings.Repeat("[", 10000) + strings.Repeat("]", 10000)
	if _, err := Parse(deep); err != nil {
		t.Fatalf("depth 10000 rejected: %v", err)
	}
	tooDeep := strings.Repeat("[", 10001) + strings.Repeat("]", 10001)
	_, err := Parse(tooDeep)
	if err == nil || !strings.Contains(err.Error(), "nesting deeper than 10000") {
		t.Fatalf("depth 10001: err = %v, want a nesting error", err)
	}
	// Far deeper input must fail cleanly too, not overflow the stack.
	_, err = Parse(strings.Repeat(`{"a":`, 1_000_000))
	if err == nil || !strings.Contains(err.Error(), "nesting deeper") {
		t.Fatalf("depth 1e6: err = %v, want a nesting error", err)
	}
	if _, err := ParseDepth(`[[1]]`, 1); err == nil {
		t.Fatal("ParseDepth(`[[1]]`, 1) accepted")
	}
}

func TestParseLargeObjectDuplicate(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("{")
	for i := 0; i < 100; i++ {
		sb.WriteString(`"k` + string(rune('A'+i%26)) + string(rune('a'+i/26)) + `":1,`)
	}
	ok := sb.String()
	if _, err := Parse(ok + `"last":2}`); err != nil {
		t.Fatalf("100 distinct keys: %v", err)
	}
	if _, err := Parse(ok + `"kAa":2}`); err == nil || !strings.Contains(err.Error(), "duplicate") {
		t.Fatalf("duplicate among 100 keys: err = %v", err)
	}
}

func TestEqualNumbers(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{`1`, `1`, true},
		{`1`, `1.0`, false},
		{`1.0`, `1.00`, true},
		{`1.50`, `1.5`, true},
		{`1e2`, `100.0`, true},
		{`1e2`, `100`, false},
		{`-0.0`, `0.0`, false},
		{`-0`, `0`, true},
		{`0.1`, `0.10000000000000000001`, true}, // same float64
		{`true`, `1`, false},
		{`false`, `0`, false},
		{`null`, `0`, false},
		{`"1"`, `1`, false},
		{`12345678901234567890`, `12345678901234567890`, true},
		{`12345678901234567890`, `12345678901234567891`, false},
		{`12345678901234567890`, `1.2345678901234567e19`, false},
		{`9007199254740993`, `9007199254740992`, false}, // integers are exact, not float64
		{`{"a":1,"b":2}`, `{"b":2,"a":1}`, true},
		{`{"a":1}`, `{"a":1,"b":2}`, false},
		{`{"a":1,"b":2}`, `{"a":1}`, false},
		{`{"a":1}`, `{"b":1}`, false},
		{`[1,2]`, `[2,1]`, false},
		{`[1,2]`, `[1,2]`, true},
		{`[]`, `{}`, false},
		{`{"a":[1,{"b":1.5}]}`, `{"a":[1,{"b":1.50}]}`, true},
		{`"é"`, `"\u00e9"`, true},
	}
	for _, tt := range tests {
		a, err := Parse(tt.a)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Parse(tt.b)
		if err != nil {
			t.Fatal(err)
		}
		if got := Equal(a, b); got != tt.want {
			t.Errorf("Equal(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
		if got := Equal(b, a); got != tt.want {
			t.Errorf("Equal(%s, %s) = %v, want %v", tt.b, tt.a, got, tt.want)
		}
	}
}

func TestCompareNumbers(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{`1`, `2`, -1},
		{`100000`, `100000`, 0},
		{`100000.5`, `100000`, 1},
		{`100000.0`, `100000`, 0},
		{`100001`, `100000`, 1},
		{`123456789012345678901234567890`, `100000`, 1},
		{`-123456789012345678901234567890`, `1e10`, -1},
	}
	for _, tt := range tests {
		a, _ := Parse(tt.a)
		b, _ := Parse(tt.b)
		if got := CompareNumbers(a, b); got != tt.want {
			t.Errorf("CompareNumbers(%s, %s) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"action":"call_tool","tool":"search_hotels","arguments":{"city":"Goa","guests":2},"missingFields":[],"reason":""}`,
		`{"action":"refuse","tool":null,"arguments":{},"missingFields":["a","a"],"reason":"x","extra":1}`,
		`[1, 1.0, -0.0, 1e2, 12345678901234567890, "\ud83d\ude00", true, null]`,
		`{"a":{"a":{"a":[]}}}`, `1e400`, `NaN`, "\xEF\xBB\xBF{}", "```json\n{}\n```", `"\ud800"`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseDepth(s, 64)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q is not a one-line *SyntaxError", err)
			}
			return
		}
		text := Canonical(v)
		back, err := Parse(text)
		if err != nil {
			t.Fatalf("canonical text %q of %q does not parse: %v", text, s, err)
		}
		if !Equal(v, back) {
			t.Fatalf("canonical text %q of %q reads back as a different value", text, s)
		}
		if again := Canonical(back); again != text {
			t.Fatalf("canonical text not stable: %q then %q", text, again)
		}
	})
}

var benchOutput = `{"action": "call_tool", "tool": "search_hotels", "arguments": {"city": "Delhi", "checkIn": "2027-01-11", "checkOut": "2027-01-13", "guests": 3, "maxNightlyPrice": 6000}, "missingFields": [], "reason": "All details confirmed."}`

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchOutput)))
	for b.Loop() {
		if _, err := Parse(benchOutput); err != nil {
			b.Fatal(err)
		}
	}
}
