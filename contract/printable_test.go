package contract

import (
	"bytes"
	"strings"
	"testing"
)

func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"plain\ttext\n":        "plain\ttext\n",
		"a\x1b[2Jb":            `a\x1b[2Jb`,
		"nul\x00 cr\r del\x7f": `nul\x00 cr\r del\x7f`,
		"c1\u0085 ls\u2028":    `c1\u0085 ls\u2028`,
		"é ok":                 "é ok",
		// reordering controls (Trojan Source), escaped; direction marks kept
		"model\u202eevil\u2066x\u2069": `model\u202eevil\u2066x\u2069`,
		"שלום\u200f ok":                "שלום\u200f ok",
	} {
		if got := Printable(in); got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
	}
	if got := PrintableLine("a\nb"); got != `a\nb` {
		t.Errorf("PrintableLine = %q", got)
	}
}

func TestPrintableWriter(t *testing.T) {
	var b bytes.Buffer
	w := NewPrintableWriter(&b)
	for _, part := range []string{"x\x1b y ", "\u0085 z\x00\n", "é"} {
		if n, err := w.Write([]byte(part)); err != nil || n != len(part) {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	if want := `x\x1b y \u0085 z\x00` + "\n" + "é"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

func TestPointerOffset(t *testing.T) {
	raw := []byte("{\"a\": 1,\n \"b\": [10, {\"c/d\": \"x\"}], \"e~f\": null}")
	for ptr, want := range map[string]string{
		"/a": "1", "/b": "[10", "/b/0": "10", "/b/1/c~1d": `"x"`, "/e~0f": "null", "/zz": "{", "/b/5": "{",
	} {
		off := PointerOffset(raw, ptr)
		if got := string(raw[off:]); !strings.HasPrefix(got, want) {
			t.Errorf("%s: at %q, want %q", ptr, got, want)
		}
	}
}

func TestPrintableLoneSurrogate(t *testing.T) {
	for in, want := range map[string]string{
		"x\xed\xb0\x80y":   `x\udc00y`,
		"\xed\xa0\x80\x1b": `\ud800\x1b`,
		"a\ufffdb\xffc":    "a\ufffdb\ufffdc", // U+FFFD kept, a bad byte becomes it
	} {
		if got := Printable(in); got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
	}
}

// ShortLine cuts a name or value from a file at 80 bytes, on a character's
// start, and makes it one printable line (a 10 KB model name was quoted whole
// in the score's summary line).
func TestShortLine(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"gpt-4o", "gpt-4o"},
		{"a\nb\x1b", `a\nb\x1b`},
		{strings.Repeat("Q", 81), strings.Repeat("Q", 80) + "..."},
		{strings.Repeat("Q", 79) + "é", strings.Repeat("Q", 79) + "..."},
	} {
		if got := ShortLine(tt.in); got != tt.want {
			t.Errorf("ShortLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
