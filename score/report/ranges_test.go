package report

import (
	"bytes"
	"fmt"
	"iter"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/fbeval/fbeval/contract"
	"go.uber.org/goleak"
)

// intRanges is a list of n numbered rows; a range that holds bad fails, and one
// that holds short yields one element too few.
func intRanges(n, workers, bad, short int) *Ranges[Row] {
	return &Ranges[Row]{N: n, Workers: workers, Build: func(lo, hi int, yield func(*Row) bool) error {
		if lo <= bad && bad < hi {
			return fmt.Errorf("row %d is damaged", bad)
		}
		if lo <= short && short < hi {
			hi--
		}
		for i := lo; i < hi; i++ {
			r := Row{CaseID: "c" + strconv.Itoa(i), Repeat: i}
			if !yield(&r) {
				return nil
			}
		}
		return nil
	}}
}

// Rows built a range at a time on any number of goroutines are written in order,
// byte for byte as the same rows from a sequence, for lists shorter than a range,
// a range long, and over many ranges with a short last one.
func TestWriteRangesInOrder(t *testing.T) {
	for _, n := range []int{0, 1, defaultRangeLen - 1, defaultRangeLen, defaultRangeLen + 1, 7*defaultRangeLen + 3} {
		want := writeRows(t, &ToolcallReport{RowSource: intRanges(n, 1, -1, -1).Seq(func(err error) { t.Fatal(err) })})
		for _, workers := range []int{0, 1, 2, 3, 8} {
			got := writeRows(t, &ToolcallReport{RowRanges: intRanges(n, workers, -1, -1)})
			if got != want {
				t.Fatalf("%d rows on %d workers: the report differs from the rows written one at a time", n, workers)
			}
		}
		if n > 0 && !strings.Contains(want, `"case_id":"c`+strconv.Itoa(n-1)+`"`) {
			t.Fatalf("%d rows: the last row is missing", n)
		}
	}
}

// A list with its own range length is built in ranges of that length, each
// starting at a multiple of it, and written as the same rows one at a time.
func TestWriteRangesLen(t *testing.T) {
	for _, n := range []int{0, 6, 7, 8, 50} {
		want := writeRows(t, &ToolcallReport{RowSource: intRanges(n, 1, -1, -1).Seq(func(err error) { t.Fatal(err) })})
		for _, workers := range []int{1, 2, 3} {
			l := intRanges(n, workers, -1, -1)
			l.Len = 7
			build := l.Build
			var mu sync.Mutex
			var bad []string
			l.Build = func(lo, hi int, yield func(*Row) bool) error {
				if lo%7 != 0 || (hi-lo != 7 && hi != n) {
					mu.Lock()
					bad = append(bad, fmt.Sprintf("%d-%d", lo, hi))
					mu.Unlock()
				}
				return build(lo, hi, yield)
			}
			if got := writeRows(t, &ToolcallReport{RowRanges: l}); got != want {
				t.Fatalf("%d rows on %d workers in ranges of 7: the report differs from the rows written one at a time", n, workers)
			}
			var seq []int
			for r := range l.Seq(func(err error) { t.Fatal(err) }) {
				seq = append(seq, r.Repeat)
			}
			if len(seq) != n || len(bad) > 0 {
				t.Fatalf("%d rows on %d workers: Seq yields %d rows; ranges not of 7: %v", n, workers, len(seq), bad)
			}
		}
	}
}

func writeRows(t *testing.T, r *ToolcallReport) string {
	t.Helper()
	r.SchemaVersion = "fbeval-report/v1"
	var b bytes.Buffer
	if err := WriteJSON(&b, Doc{Kind: KindToolcall, Toolcall: r}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// A range that fails, or yields fewer elements than it holds, stops the writer
// with an error at any number of workers, and no goroutine is left behind.
func TestWriteRangesErrors(t *testing.T) {
	n := 9*defaultRangeLen + 5
	for _, tc := range []struct {
		name       string
		bad, short int
		want       string
	}{
		{"fails", 4*defaultRangeLen + 7, -1, "row 2055 is damaged"},
		{"fails in the last range", n - 1, -1, "is damaged"},
		{"short", -1, 2 * defaultRangeLen, "a range of 512 elements yielded 511"},
	} {
		for _, workers := range []int{1, 2, 4} {
			t.Run(fmt.Sprintf("%s/workers=%d", tc.name, workers), func(t *testing.T) {
				defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
				var b bytes.Buffer
				err := WriteJSON(&b, Doc{Kind: KindToolcall, Toolcall: &ToolcallReport{RowRanges: intRanges(n, workers, tc.bad, tc.short)}})
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("error %v, want one that says %q", err, tc.want)
				}
				var cases bytes.Buffer
				results := &Ranges[CaseResult]{N: n, Workers: workers, Build: func(lo, hi int, yield func(*CaseResult) bool) error {
					return intRanges(n, workers, tc.bad, tc.short).Build(lo, hi, func(r *Row) bool {
						return yield(&CaseResult{CaseID: r.CaseID})
					})
				}}
				if err := WriteCaseResultRanges(&cases, results); err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("case results: error %v, want one that says %q", err, tc.want)
				}
			})
		}
	}
}

// Case results built a range at a time are written in order, one compact line
// each, at any number of workers.
func TestWriteCaseResultRanges(t *testing.T) {
	n := 3*defaultRangeLen + 1
	build := func(lo, hi int, yield func(*CaseResult) bool) error {
		for i := lo; i < hi; i++ {
			r := CaseResult{SchemaVersion: "fbeval-case-result/v1", CaseID: "c" + strconv.Itoa(i), Repeat: i, RequestIDs: []string{}, Attempts: []CaseAttempt{}}
			if !yield(&r) {
				return nil
			}
		}
		return nil
	}
	want := caseLines(t, func(yield func(*CaseResult) bool) {
		if err := build(0, n, yield); err != nil {
			t.Fatal(err)
		}
	})
	for _, workers := range []int{1, 2, 5} {
		var got bytes.Buffer
		if err := WriteCaseResultRanges(&got, &Ranges[CaseResult]{N: n, Workers: workers, Build: build}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("%d workers: the lines differ", workers)
		}
	}
	if lines := bytes.Count(want.Bytes(), []byte("\n")); lines != n {
		t.Fatalf("%d lines, want %d", lines, n)
	}
}

// A Builder is called once by each writer goroutine, which then builds its
// ranges one after another with what it returned, never two at once; what is
// written is what Build gives. Seq never calls it.
func TestRangesBuilder(t *testing.T) {
	n := 7*defaultRangeLen + 3
	for _, workers := range []int{1, 2, 3} {
		var mu sync.Mutex
		builders := 0
		l := intRanges(n, workers, -1, -1)
		build := l.Build
		l.Builder = func() func(lo, hi int, yield func(*Row) bool) error {
			mu.Lock()
			builders++
			mu.Unlock()
			var busy atomic.Bool
			return func(lo, hi int, yield func(*Row) bool) error {
				if !busy.CompareAndSwap(false, true) {
					t.Error("one builder built two ranges at once")
				}
				defer busy.Store(false)
				return build(lo, hi, yield)
			}
		}
		want := writeRows(t, &ToolcallReport{RowSource: intRanges(n, 1, -1, -1).Seq(func(err error) { t.Fatal(err) })})
		if got := writeRows(t, &ToolcallReport{RowRanges: l}); got != want {
			t.Fatalf("%d workers: the rows differ from Build's", workers)
		}
		if builders != workers {
			t.Fatalf("%d workers called Builder %d times", workers, builders)
		}
		builders = 0
		for range l.Seq(func(err error) { t.Fatal(err) }) {
		}
		if builders != 0 {
			t.Fatalf("Seq called Builder %d times", builders)
		}
	}
}

// Seq stops where its consumer stops, and passes a range's error on.
func TestRangesSeq(t *testing.T) {
	l := intRanges(3*defaultRangeLen, 1, 2*defaultRangeLen+1, -1)
	seen := 0
	for range l.Seq(func(error) { t.Fatal("an error before the damaged range") }) {
		if seen++; seen == defaultRangeLen+3 {
			break
		}
	}
	var got error
	seen = 0
	for range l.Seq(func(err error) { got = err }) {
		seen++
	}
	if seen != 2*defaultRangeLen || got == nil || !strings.Contains(got.Error(), "damaged") {
		t.Fatalf("%d rows then %v, want %d rows then the damaged row", seen, got, 2*defaultRangeLen)
	}
}

// Parts handed over in any order are written in the order of their ranges, one
// compact line a result; Close fails while a range is missing, and a range
// handed over twice is an error.
func TestCaseResultParts(t *testing.T) {
	n := 10
	results := make([]CaseResult, n)
	for i := range results {
		results[i] = CaseResult{SchemaVersion: "fbeval-case-result/v1", CaseID: "c" + strconv.Itoa(i), RequestIDs: []string{}, Attempts: []CaseAttempt{}}
	}
	want := caseLines(t, sliceSeq(results))
	ranges := [][2]int{{0, 3}, {3, 4}, {4, 8}, {8, 10}}
	for _, order := range [][]int{{0, 1, 2, 3}, {3, 2, 1, 0}, {2, 0, 3, 1}} {
		var got bytes.Buffer
		p := NewCaseResultParts(&got, n)
		for k, r := range order {
			part := p.Part(ranges[r][0])
			for i := ranges[r][0]; i < ranges[r][1]; i++ {
				part.Add(&results[i])
			}
			if err := p.Done(part); err != nil {
				t.Fatal(err)
			}
			if k < len(order)-1 {
				if err := p.Close(); err == nil {
					t.Fatalf("order %v: Close after %d of %d ranges did not fail", order, k+1, len(order))
				}
			}
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Fatalf("order %v:\n%s\nwant\n%s", order, got.String(), want.String())
		}
	}
	p := NewCaseResultParts(&bytes.Buffer{}, n)
	for range 2 {
		part := p.Part(0)
		part.Add(&results[0])
		if err := p.Done(part); err != nil {
			if !strings.Contains(err.Error(), "twice") {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatal("a range handed over twice was taken")
}

// caseLines is the case results as their lines: each compact, then a newline.
func caseLines(t *testing.T, results iter.Seq[*CaseResult]) *bytes.Buffer {
	t.Helper()
	var b bytes.Buffer
	for r := range results {
		line, err := contract.AppendJSON(nil, r, contract.Compact, 0)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(line, '\n'))
	}
	return &b
}

// sliceRanges is a list as Ranges of one worker.
func sliceRanges[T any](list []T) *Ranges[T] {
	return &Ranges[T]{N: len(list), Build: func(lo, hi int, yield func(*T) bool) error {
		for i := lo; i < hi; i++ {
			if !yield(&list[i]) {
				return nil
			}
		}
		return nil
	}}
}
