package report

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// A cell holding a line break, a tab, an escape sequence or a bidirectional
// override (a model's name, a case id from a file) is one line of printable
// text, sized as it is printed: a line break split the table, and escapes
// written out after the columns were sized widened their rows past the rules.
func TestFitTableCellsAreOneLine(t *testing.T) {
	var b bytes.Buffer
	header := []string{"model\nname", "rate"}
	rows := [][]string{{"a\x1b[31mred\u202e", "1"}, {"b\tc", "22"}}
	if err := FitTable(&b, 0, "", header, rows); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 6 {
		t.Fatalf("%d lines, want 6 (3 rules, the header, 2 rows):\n%s", len(lines), b.String())
	}
	for _, l := range lines {
		if n := utf8.RuneCountInString(l); n != utf8.RuneCountInString(lines[0]) || strings.ContainsAny(l, "\x1b\u202e\t") {
			t.Errorf("line %q: %d columns, the rule %d", l, n, utf8.RuneCountInString(lines[0]))
		}
	}
	if !strings.Contains(b.String(), `a\x1b[31mred\u202e`) || !strings.Contains(b.String(), "model name") {
		t.Errorf("cells not escaped as printed:\n%s", b.String())
	}
	if rows[0][0] != "a\x1b[31mred\u202e" {
		t.Errorf("the caller's row changed: %q", rows[0][0])
	}
}
