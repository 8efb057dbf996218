package contract

import (
	"io"
	"strings"
	"unicode/utf8"
)

// Printable returns s with every control character but the newline written as an
// escape (\x1b, \x00, \r, \u0085, ...), and every bidirectional embedding,
// override or isolate (\u202e), so text from a file name or a model cannot move
// the cursor, clear a terminal, end a line early, reorder a line or hide in a
// Markdown file.
// Tabs are kept. A lone surrogate, as the JSON readers keep one (three WTF-8
// bytes), is written as its escape (\ud800) too.
func Printable(s string) string {
	i := strings.IndexFunc(s, needsWork)
	if i < 0 {
		return s
	}
	return surrogatesEscaped(s, i, func(b *strings.Builder, s string, i int) int {
		r, size := utf8.DecodeRuneInString(s[i:])
		if isEscaped(r) {
			writeEscape(b, r)
		} else {
			b.WriteRune(r)
		}
		return size
	})
}

// EscapeSurrogates returns s with each lone surrogate, as the JSON readers
// keep one (three WTF-8 bytes), written as its escape (\ud800), the rest as
// it is: for a format that cannot hold one (XML), where each of its bytes
// would be a replacement character.
func EscapeSurrogates(s string) string {
	i := strings.IndexByte(s, 0xED)
	if i < 0 {
		return s
	}
	return surrogatesEscaped(s, i, func(b *strings.Builder, s string, i int) int {
		b.WriteByte(s[i])
		return 1
	})
}

// surrogatesEscaped returns s with s[:i] as it is, then each lone surrogate
// written as its escape and the rest written by rest, which returns how many
// bytes of s it took at i.
func surrogatesEscaped(s string, i int, rest func(b *strings.Builder, s string, i int) int) string {
	var b strings.Builder
	b.WriteString(s[:i])
	for i < len(s) {
		if r, ok := wtf8Surrogate(s, i); ok {
			writeEscape(&b, r)
			i += 3
			continue
		}
		i += rest(&b, s, i)
	}
	return b.String()
}

// wtf8Surrogate reads the WTF-8 bytes of a lone surrogate at s[i].
func wtf8Surrogate(s string, i int) (rune, bool) {
	if i+2 < len(s) && s[i] == 0xED && s[i+1] >= 0xA0 && s[i+1] <= 0xBF && s[i+2]&0xC0 == 0x80 {
		return rune(s[i]&0x0F)<<12 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F), true
	}
	return 0, false
}

// PrintableLine is Printable with the newline escaped too: for one-line messages.
func PrintableLine(s string) string {
	return strings.ReplaceAll(Printable(s), "\n", `\n`)
}

// ShortLine is PrintableLine of s cut at 80 bytes (maxShown, as input quoted
// in a message is), with "..." where it was cut: a name or value from a file
// quoted in a message.
func ShortLine(s string) string {
	s, cut := cutShown(s)
	if cut {
		return PrintableLine(s) + "..."
	}
	return PrintableLine(s)
}

func isEscaped(r rune) bool {
	return (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) || r == 0x2028 || r == 0x2029 || bidiControl(r)
}

// bidiControl reports a bidirectional embedding, override or isolate
// (U+202A-U+202E, U+2066-U+2069): text from a model or a file name that holds
// one reorders what follows it on a terminal or a page ("Trojan Source").
// The marks of a direction alone (U+200E, U+200F) stay: right-to-left text
// holds them rightly.
func bidiControl(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}

// needsWork reports a character Printable changes: an escaped one, or an invalid
// UTF-8 byte (which may start a lone surrogate).
func needsWork(r rune) bool { return isEscaped(r) || r == utf8.RuneError }

func writeEscape(b *strings.Builder, r rune) {
	const hex = "0123456789abcdef"
	switch r {
	case '\r':
		b.WriteString(`\r`)
	case 0:
		b.WriteString(`\x00`)
	default:
		if r < 0x80 {
			b.WriteString(`\x`)
			b.WriteByte(hex[r>>4])
			b.WriteByte(hex[r&15])
			return
		}
		b.WriteString(`\u`)
		for s := 12; s >= 0; s -= 4 {
			b.WriteByte(hex[(r>>s)&15])
		}
	}
}

// NewPrintableWriter returns a writer that passes text to w with control
// characters escaped as Printable does. It is for human formats (text, tables,
// Markdown): a report must not carry a raw NUL or ESC from a model's output.
func NewPrintableWriter(w io.Writer) io.Writer { return &printableWriter{w: w} }

type printableWriter struct{ w io.Writer }

// Write escapes each write on its own: renderers write whole strings, so a
// character is never cut between two writes.
func (p *printableWriter) Write(b []byte) (int, error) {
	s := string(b)
	if strings.IndexFunc(s, needsWork) >= 0 {
		s = Printable(s)
	}
	if _, err := io.WriteString(p.w, s); err != nil {
		return 0, err
	}
	return len(b), nil
}
