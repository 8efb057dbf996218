package contract

import (
	"io"
	"strings"
)

// Printable returns s with every control character but the newline written as an
// escape (\x1b, \x00, \r, \u0085, ...), so text from a file name or a model cannot
// move the cursor, clear a terminal, end a line early or hide in a Markdown file.
// Tabs are kept.
func Printable(s string) string {
	i := strings.IndexFunc(s, isEscaped)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.WriteString(s[:i])
	for _, r := range s[i:] {
		if isEscaped(r) {
			writeEscape(&b, r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// PrintableLine is Printable with the newline escaped too: for one-line messages.
func PrintableLine(s string) string {
	return strings.ReplaceAll(Printable(s), "\n", `\n`)
}

func isEscaped(r rune) bool {
	return (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) || r == 0x2028 || r == 0x2029
}

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
	if strings.IndexFunc(s, isEscaped) >= 0 {
		s = Printable(s)
	}
	if _, err := io.WriteString(p.w, s); err != nil {
		return 0, err
	}
	return len(b), nil
}
