package contract

import (
	"encoding/json"
	"math"
	"math/big"
	"strconv"
	"testing"
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
