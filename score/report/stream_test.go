package report

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/fbeval/fbeval/contract"
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
	sameAsHeld(t, doc, text)

	// Row 2500 is line rowsLine+row: each row is one line of its own.
	lines := strings.Split(text, "\n")
	const row = 2500
	i := rowsLine + row - 1
	at := strings.Index(lines[i], `"repeat":`)
	if !strings.HasPrefix(lines[i], "    {") || at < 0 {
		t.Fatalf("line %d is not row %d: %.80q", i+1, row, lines[i])
	}
	value := at + len(`"repeat":`)
	end := value + strings.IndexByte(lines[i][value:], ',')
	for name, tc := range map[string]struct{ value, want string }{
		"wrong type": {`"x"`, fmt.Sprintf("big.json:%d:%d: expected an fbeval report: ", i+1, value+1)},
		"not json":   {`x`, fmt.Sprintf("big.json:%d:%d: expected an fbeval report: ", i+1, value+1)},
	} {
		broken := slicesJoin(lines[:i], lines[i][:value]+tc.value+lines[i][end:], lines[i+1:])
		_, err := Open("big.json", strings.NewReader(broken), opts)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line starting %q", name, err, tc.want)
		}
	}

	// A row over the row bound is named, at its line.
	opts.MaxRowBytes = 200
	_, err = Open("big.json", strings.NewReader(text), opts)
	if want := fmt.Sprintf("big.json:%d:5: row 1 is longer than 200 bytes: raise the limit with --max-line-bytes", rowsLine+1); err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}

// sameAsHeld checks that a report Open read as a stream renders in every
// format as it does held whole, and writes back as text.
func sameAsHeld(t *testing.T, doc Doc, text string) {
	t.Helper()
	all := append(slices.Clip(writers), struct {
		ext   string
		write writer
	}{"txt", WriteText})
	for _, w := range all {
		var got, want bytes.Buffer
		if err := w.write(&got, doc); err != nil {
			t.Fatalf("%s: %v", w.ext, err)
		}
		if err := w.write(&want, doc.held()); err != nil {
			t.Fatalf("%s: %v", w.ext, err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("%s: a streamed report gives other bytes than a held one", w.ext)
		}
	}
	var again bytes.Buffer
	if err := WriteJSON(&again, doc); err != nil || again.String() != text {
		t.Fatalf("the JSON written back differs (%v)", err)
	}
	if err := doc.Err(); err != nil {
		t.Fatal(err)
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

// bigCogLang is coglang_failures.json with its cases and failure cases repeated
// n times under new case ids.
func bigCogLang(t *testing.T, n int) string {
	t.Helper()
	doc := load(t, "testdata/coglang_failures.json")
	c := *doc.CogLang
	cases, fails := collect(c.CaseSource), collect(c.FailureSource)
	if len(cases) == 0 || len(fails) == 0 {
		t.Fatal("the example has no cases or no failure cases")
	}
	c.CaseCount = n * len(cases)
	c.FailureCaseCount = n * len(fails)
	c.CaseSource = func(yield func(*CogLangCase) bool) {
		for i := range n * len(cases) {
			cs := cases[i%len(cases)]
			cs.CaseID = fmt.Sprintf("%s-%d", cs.CaseID, i/len(cases))
			if !yield(&cs) {
				return
			}
		}
	}
	c.FailureSource = func(yield func(*FailureCase) bool) {
		for i := range n * len(fails) {
			f := fails[i%len(fails)]
			f.CaseID = fmt.Sprintf("%s-%d", f.CaseID, i/len(fails))
			if !yield(&f) {
				return
			}
		}
	}
	var b bytes.Buffer
	if err := WriteJSON(&b, Doc{Kind: KindCogLang, CogLang: &c}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestOpenStreamsCogLang: a CogLang result larger than the bound of a whole file
// renders with the same bytes as from memory, its cases and failure cases read
// again from the input, and a bad case deep in it is one error at its line.
func TestOpenStreamsCogLang(t *testing.T) {
	text := bigCogLang(t, 400)
	opts := OpenOptions{MaxHeadBytes: int64(len(text)) / 8}
	doc, err := Open("big.json", strings.NewReader(text), opts)
	if err != nil {
		t.Fatal(err)
	}
	c := doc.CogLang
	if c.Cases != nil || c.FailureCases != nil || c.CaseSource == nil || c.FailureSource == nil {
		t.Fatal("Open holds the cases")
	}
	sameAsHeld(t, doc, text)
	// its brief cases are its cases with their ids, levels and failure
	// categories alone
	var brief []CogLangCase
	for cs := range c.BriefCaseSource {
		brief = append(brief, *cs)
	}
	whole := collect(c.CaseSource)
	for i := range whole {
		whole[i] = whole[i].brief()
	}
	if !reflect.DeepEqual(brief, whole) || len(brief) != c.CaseCount || doc.Err() != nil {
		t.Errorf("%d brief cases differ from the %d cases (%v)", len(brief), len(whole), doc.Err())
	}

	lines := strings.Split(text, "\n")
	// break the first line of a list after its n-th element starts that has
	// prefix, and expect an error at that line and column
	breakAt := func(list string, n int, prefix, line string) (string, int) {
		seen := 0
		in := false
		for i, l := range lines {
			if strings.HasPrefix(l, `  "`+list+`": [`) {
				in = true
			}
			if !in {
				continue
			}
			if l == "    {" {
				seen++
			}
			if seen == n && strings.HasPrefix(l, prefix) {
				return slicesJoin(lines[:i], line, lines[i+1:]), i + 1
			}
		}
		t.Fatalf("element %d of %s not found", n, list)
		return "", 0
	}
	for name, tc := range map[string]struct {
		list, prefix, line, ptr string
		col                     int
	}{
		"case wrong type":    {"cases", `      "parse_ok": `, `      "parse_ok": "yes",`, "/cases/999/parse_ok", 19},
		"case not json":      {"cases", `      "parse_ok": `, `      "parse_ok": yes,`, "", 19},
		"failure wrong type": {"failure_cases", `      "level": `, `      "level": 3,`, "/failure_cases/899/level", 16},
	} {
		n := 1000
		if tc.list == "failure_cases" {
			n = 900
		}
		broken, line := breakAt(tc.list, n, tc.prefix, tc.line)
		_, err := Open("big.json", strings.NewReader(broken), opts)
		want := fmt.Sprintf("big.json:%d:%d: expected an fbeval report: ", line, tc.col)
		if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), tc.ptr) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line starting %q naming %q", name, err, want, tc.ptr)
		}
	}

	// An element over the bound is named, at its line.
	opts.MaxRowBytes = 100
	_, err = Open("big.json", strings.NewReader(text), opts)
	failLine := 1 + strings.Count(text[:strings.Index(text, `"failure_cases": [`)], "\n")
	if want := fmt.Sprintf("big.json:%d:5: failure case 1 is longer than 100 bytes: raise the limit with --max-line-bytes", failLine+1); err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
	opts.MaxRowBytes = 0

	// The rest is still bounded.
	// (the lists' brackets and line breaks are the head's too)
	opts.MaxHeadBytes = int64(strings.Index(text, `"failure_cases": [`) + len(text) - strings.LastIndex(text, "\n  ]"))
	_, err = Open("big.json", strings.NewReader(text), opts)
	if want := fmt.Sprintf("big.json: the report without its failure_cases and cases is larger than %d bytes: raise the limit with --max-file-bytes", opts.MaxHeadBytes); err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}

// TestOpenSameErrorsAsWholeCogLang: a bad case in a result that fits the bound
// gives the error a whole read gives.
func TestOpenSameErrorsAsWholeCogLang(t *testing.T) {
	base, err := os.ReadFile("testdata/coglang_failures.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, data := range []string{
		strings.Replace(string(base), `"parse_ok": true`, `"parse_ok": 1`, 1),
		strings.Replace(string(base), `"level": "L2"`, `"level": ["L2"]`, 1),
		string(base[:len(base)*3/4]),
	} {
		_, errWhole := loadWhole("r.json", []byte(data))
		_, errOpen := Open("r.json", strings.NewReader(data), OpenOptions{})
		if errWhole == nil || errOpen == nil || errWhole.Error() != errOpen.Error() {
			t.Errorf("Open: %v\nwhole: %v", errOpen, errWhole)
		}
	}
}

// TestOpenCogLangSkipsRows: a CogLang result's member named rows is an unknown
// key, skipped as Load skips it, not read as a toolcall report's rows.
func TestOpenCogLangSkipsRows(t *testing.T) {
	base, err := os.ReadFile("testdata/coglang_failures.json")
	if err != nil {
		t.Fatal(err)
	}
	data := strings.Replace(string(base), `"tool": "fbeval",`, `"tool": "fbeval", "rows": [1, "x"],`, 1)
	if data == string(base) {
		t.Fatal("no tool member to put rows after")
	}
	if _, err := Load("r.json", []byte(data)); err != nil {
		t.Fatal(err)
	}
}

// TestOpenRowsReadAgain: the rows read again for each writer are those of the
// first reading, also where the lexer that finds them again stops short (a row
// with an unknown member holding bytes that are not UTF-8, which the first
// reading lets through and decodes past): the rest of the list is then read as
// the first reading read it, from the row it stopped at.
func TestOpenRowsReadAgain(t *testing.T) {
	text, rowsLine := bigReport(t, 300)
	lines := strings.Split(text, "\n")
	want := func(t *testing.T, doc Doc) []Row {
		t.Helper()
		rows := collect(doc.Toolcall.RowSource)
		if err := doc.Err(); err != nil {
			t.Fatal(err)
		}
		return rows
	}
	doc, err := Open("big.json", strings.NewReader(text), OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	clean := want(t, doc)
	for _, row := range []int{1, 150, 300} {
		i := rowsLine + row - 1
		odd := slicesJoin(lines[:i], strings.Replace(lines[i], "{", "{\"x_extra\": \"\xff\", ", 1), lines[i+1:])
		doc, err := Open("odd.json", strings.NewReader(odd), OpenOptions{})
		if err != nil {
			t.Fatalf("row %d: %v", row, err)
		}
		got := want(t, doc)
		if len(got) != len(clean) {
			t.Fatalf("row %d: %d rows read again, want %d", row, len(got), len(clean))
		}
		for k := range got {
			if !reflect.DeepEqual(got[k], clean[k]) {
				t.Fatalf("row %d: row %d read again as %+v, want %+v", row, k+1, got[k], clean[k])
			}
		}
	}
}

// TestOpenFirstErrorInOrder: the rows are checked while the next ones are
// read, and the error is still the first in the file: a row of the wrong shape
// before a row that is not JSON is the one named, and the other way round.
func TestOpenFirstErrorInOrder(t *testing.T) {
	text, rowsLine := bigReport(t, 3000)
	opts := OpenOptions{MaxHeadBytes: int64(len(text)) / 4}
	lines := strings.Split(text, "\n")
	breakRow := func(lines []string, row int, value string) []string {
		i := rowsLine + row - 1
		at := strings.Index(lines[i], `"repeat":`) + len(`"repeat":`)
		end := at + strings.IndexByte(lines[i][at:], ',')
		out := slices.Clone(lines)
		out[i] = lines[i][:at] + value + lines[i][end:]
		return out
	}
	// rows long enough to be checked where they lie, between batches
	pad := `"x_pad": "` + strings.Repeat("x", checkBatchBytes) + `", `
	padded := slices.Clone(lines)
	for _, row := range []int{2, 700, 701, 1500} {
		i := rowsLine + row - 1
		padded[i] = strings.Replace(padded[i], "{", "{"+pad, 1)
	}
	if _, err := Open("big.json", strings.NewReader(strings.Join(padded, "\n")), OpenOptions{MaxRowBytes: 1 << 20}); err != nil {
		t.Fatalf("long rows: %v", err)
	}
	for _, tc := range []struct {
		first, second       int
		firstVal, secondVal string
		lines               []string
	}{
		{300, 2000, `"x"`, `x`, lines},
		{300, 2000, `x`, `"x"`, lines},
		{1, 2999, `"x"`, `x`, lines},
		{2999, 3000, `"x"`, `x`, lines},
		{600, 701, `"x"`, `"x"`, padded},
		{701, 702, `"x"`, `x`, padded},
		{1499, 1500, `"x"`, `"x"`, padded},
		{1600, 1700, `"x"`, `"x"`, padded},
	} {
		broken := breakRow(breakRow(tc.lines, tc.first, tc.firstVal), tc.second, tc.secondVal)
		_, err := Open("big.json", strings.NewReader(strings.Join(broken, "\n")), OpenOptions{MaxHeadBytes: opts.MaxHeadBytes, MaxRowBytes: 1 << 20})
		want := fmt.Sprintf("big.json:%d:", rowsLine+tc.first)
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("rows %d (%s) and %d (%s) broken: error %v, want one at line %d", tc.first, tc.firstVal, tc.second, tc.secondVal, err, rowsLine+tc.first)
		}
	}
}

// failingAt reads its text once through Read, and fails every ReadAt from
// offset from on, as a copy of standard input on a full disk does.
type failingAt struct {
	*strings.Reader
	text string
	from int64
	err  error
}

func (f *failingAt) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) <= f.from {
		return copy(p, f.text[off:]), nil
	}
	n := 0
	if off < f.from {
		n = copy(p, f.text[off:f.from])
	}
	return n, f.err
}

// TestOpenSecondReadingFails: when the bytes read once cannot be read again
// (the copy of standard input could not be kept), Open returns that error as
// it is, never a message about the report's shape made from the bytes it did
// get; a report too large to be read whole whose file is now shorter says so.
func TestOpenSecondReadingFails(t *testing.T) {
	text, _ := bigReport(t, 300)
	full := &contract.TempWriteError{Msg: "cannot write the temporary file of a copy of standard input (read twice) in /tmp: no space left on device", Err: syscall.ENOSPC}
	for _, from := range []int64{0, 1, int64(strings.Index(text, `"rows": [`)) + 20, int64(len(text)) - 2} {
		for _, head := range []int64{0, int64(len(text)) / 4} {
			src := &failingAt{Reader: strings.NewReader(text), text: text, from: from, err: full}
			_, err := Open("-", src, OpenOptions{First: strings.NewReader(text), MaxHeadBytes: head})
			if err == nil || err.Error() != full.Msg {
				t.Errorf("failing from byte %d, head bound %d: %v, want %q", from, head, err, full.Msg)
			}
		}
		src := &failingAt{Reader: strings.NewReader(text), text: text, from: from, err: io.EOF}
		_, err := Open("r.json", src, OpenOptions{First: strings.NewReader(text), MaxHeadBytes: int64(len(text)) / 4})
		if err == nil || !strings.HasPrefix(err.Error(), "r.json:") || err.Error() != "r.json: "+errShorter.Error() {
			t.Errorf("shorter from byte %d: %v", from, err)
		}
	}
}
