package report

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestFitTableRows: a table rendered a chunk at a time has the bytes of the same
// table rendered whole, at any width, whatever its cells hold.
func TestFitTableRows(t *testing.T) {
	pieces := []string{"", "a", "case-0001", "L2", "parse_error", "ParseError[\"unclosed\", 4]", "漢字", "é", "e\u0301",
		"🙂", "\x1b[31mred\x1b[0m", "\x00", "\u200b", "a | b", "+--+", "  padded  ", "ｗｉｄｅ", "\u2028", "\x7f"}
	header := []string{"case", "level", "categories", "hallucinated heads", "parse error"}
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 3, tableChunk, tableChunk + 1, 2*tableChunk + 7} {
		rows := make([][]string, n)
		for i := range rows {
			rows[i] = make([]string, len(header))
			for j := range rows[i] {
				var b strings.Builder
				for range r.IntN(4) {
					b.WriteString(pieces[r.IntN(len(pieces))])
				}
				rows[i][j] = plain(b.String())
			}
		}
		for _, width := range []int{0, 30, 60, 90, 400} {
			var want tableBuf
			want.width = width
			if n > 0 {
				held := make([][]string, n)
				for i := range rows {
					held[i] = slices.Clone(rows[i])
				}
				if err := textTable(&want, "failing cases", slices.Clone(header), held); err != nil {
					t.Fatal(err)
				}
			}
			var got bytes.Buffer
			if err := fitTableRows(&got, width, "failing cases", header, slices.Values(rows)); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Errorf("%d rows, width %d: chunked\n%s\nwhole\n%s", n, width, clip(got.String(), 2000), clip(want.String(), 2000))
			}
		}
	}
}
