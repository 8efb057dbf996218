package report

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
)

// bigReport is toolcall_small.json with its rows repeated n times, one row per
// line, so a row's line is known.
func bigReport(t *testing.T, n int) (string, int) {
	t.Helper()
	doc := load(t, "testdata/toolcall_small.json")
	r := *doc.Toolcall
	rows := collect(r.RowSource)
	r.RowSource = func(yield func(*Row) bool) {
		for i := range n {
			row := rows[i%len(rows)]
			row.Repeat = 1 + i/len(rows)
			if !yield(&row) {
				return
			}
		}
	}
	var b bytes.Buffer
	if err := WriteJSON(&b, Doc{Kind: KindToolcall, Toolcall: &r}); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	return text, strings.Count(text[:strings.Index(text, `"rows": [`)], "\n") + 1
}

// TestOpenStreamsRows: a report larger than the bound of a whole file renders,
// with the same bytes as from memory, and a broken row deep in it is one error
// at its line.
func TestOpenStreamsRows(t *testing.T) {
	text, rowsLine := bigReport(t, 3000)
	opts := OpenOptions{MaxHeadBytes: int64(len(text)) / 4}
	doc, err := Open("big.json", strings.NewReader(text), opts)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Toolcall.Rows != nil || doc.Toolcall.RowSource == nil {
		t.Fatal("Open holds the rows")
	}
	for _, w := range writers {
		var got, want bytes.Buffer
		if err := w.write(&got, doc); err != nil {
			t.Fatalf("%s: %v", w.ext, err)
		}
		if err := w.write(&want, doc.held()); err != nil {
			t.Fatalf("%s: %v", w.ext, err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("%s: streamed rows give other bytes than held ones", w.ext)
		}
	}
	var again bytes.Buffer
	if err := WriteJSON(&again, doc); err != nil || again.String() != text {
		t.Fatalf("the JSON written back differs (%v)", err)
	}
	if err := doc.Err(); err != nil {
		t.Fatal(err)
	}

	// Row 2500 starts on line rowsLine+1+row*lines of a row.
	lines := strings.Split(text, "\n")
	row, seen := 2500, 0
	for i := rowsLine; i < len(lines); i++ {
		if lines[i] == "    {" {
			seen++
		}
		if seen == row && strings.HasPrefix(lines[i], `      "repeat": `) {
			for name, tc := range map[string]struct{ line, want string }{
				"wrong type": {`      "repeat": "x",`, fmt.Sprintf("big.json:%d:17: expected an fbeval report: ", i+1)},
				"not json":   {`      "repeat": x,`, fmt.Sprintf("big.json:%d:17: expected an fbeval report: ", i+1)},
			} {
				broken := slicesJoin(lines[:i], tc.line, lines[i+1:])
				_, err := Open("big.json", strings.NewReader(broken), opts)
				if err == nil || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
					t.Errorf("%s: error %v, want one line starting %q", name, err, tc.want)
				}
			}
			break
		}
	}
	if seen != row {
		t.Fatalf("row %d not found", row)
	}

	// A row over the row bound is named, at its line.
	opts.MaxRowBytes = 200
	_, err = Open("big.json", strings.NewReader(text), opts)
	if want := fmt.Sprintf("big.json:%d:5: row 1 is longer than 200 bytes: raise the limit with --max-line-bytes", rowsLine+1); err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}

func slicesJoin(before []string, line string, after []string) string {
	return strings.Join(before, "\n") + "\n" + line + "\n" + strings.Join(after, "\n")
}

// TestOpenSameErrorsAsWhole: errors of a report that fits the bound are the ones
// a whole read gives.
func TestOpenSameErrorsAsWhole(t *testing.T) {
	base, err := os.ReadFile("testdata/toolcall_small.json")
	if err != nil {
		t.Fatal(err)
	}
	data := strings.Replace(string(base), `"arm": "no_schema"`, `"arm": "rich_schema"`, 3)
	_, errWhole := loadWhole("r.json", []byte(data))
	_, errOpen := Open("r.json", strings.NewReader(data), OpenOptions{})
	if errWhole == nil || errOpen == nil || errWhole.Error() != errOpen.Error() {
		t.Errorf("Open: %v\nwhole: %v", errOpen, errWhole)
	}
}
