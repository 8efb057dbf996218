package export

import (
	"bytes"
	"testing"
)

// TestOtherLineEnds: the forms of a file another system keeps, each named as
// the requests were made from it: line ends changed either way, the byte
// order mark taken off or added, and both where both go one way.
func TestOtherLineEnds(t *testing.T) {
	bom := "\xef\xbb\xbf"
	for _, tc := range []struct {
		name, data string
		want       map[string]string // was: data
	}{
		{"CRLF", "a\r\nb\r\n", map[string]string{
			"with LF line ends (it has CRLF here)":      "a\nb\n",
			"with a byte order mark (it has none here)": bom + "a\r\nb\r\n",
		}},
		{"LF", "a\nb\n", map[string]string{
			"with CRLF line ends (it has LF here)":                                   "a\r\nb\r\n",
			"with a byte order mark (it has none here)":                              bom + "a\nb\n",
			"with CRLF line ends and a byte order mark (it has LF and no mark here)": bom + "a\r\nb\r\n",
		}},
		{"BOM and CRLF", bom + "a\r\nb\r\n", map[string]string{
			"with LF line ends (it has CRLF here)":                                     bom + "a\nb\n",
			"without a byte order mark (it has one here)":                              "a\r\nb\r\n",
			"with LF line ends and no byte order mark (it has CRLF and the mark here)": "a\nb\n",
		}},
		{"one line", "{}", map[string]string{
			"with a byte order mark (it has none here)": bom + "{}",
		}},
	} {
		data := []byte(tc.data)
		got := otherLineEnds(data, "f")
		if len(got) != len(tc.want) {
			t.Errorf("%s: %d forms, want %d", tc.name, len(got), len(tc.want))
		}
		for _, g := range got {
			want, ok := tc.want[g.was]
			if !ok || !bytes.Equal(g.data, []byte(want)) {
				t.Errorf("%s: %q: %q, want %q", tc.name, g.was, g.data, want)
			}
			if g.fix == "" {
				t.Errorf("%s: %q says nothing to do", tc.name, g.was)
			}
		}
		if string(data) != tc.data {
			t.Errorf("%s: the file's bytes were changed", tc.name)
		}
	}
}
