package pipeline

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/fbeval/fbeval/contract"
)

// runPipeline adds n records of three sources, one source after the other, until
// Add says to stop; it returns the results in the order apply saw them (each
// naming its record's source, text, position and rejection) and how many
// records were added.
func runPipeline(t *testing.T, workers, n int, stopAfter int) ([]string, int) {
	t.Helper()
	var seen []string
	applied := 0
	p := New(workers, func() func(*Batch[string]) {
		return func(b *Batch[string]) {
			for i := range b.Out {
				b.Out[i] = fmt.Sprintf("%d:%s@%d:%d", b.File, b.Record(i), b.Lines[i], b.Cols[i])
				if b.Errs[i] != nil {
					b.Out[i] += " " + b.Errs[i].Error()
				}
			}
		}
	}, func(b *Batch[string]) bool {
		if b.Len() != len(b.Out) {
			t.Errorf("batch of %d records has %d results", b.Len(), len(b.Out))
		}
		seen = append(seen, b.Out...)
		applied++
		return stopAfter == 0 || applied < stopAfter
	})
	added := 0
	for i := range n {
		rec := &contract.Record{Line: i + 1, Col: 3, Raw: []byte(strconv.Itoa(i))}
		if i%7 == 3 {
			rec.Err = errors.New("bad")
		}
		added++
		if !p.Add(i*3/n, rec) {
			break
		}
	}
	p.Close()
	return seen, added
}

// TestPipelineOrder: results are applied in input order, one per record, with
// each record's own text, position and rejection, at any number of workers; a
// batch never mixes two sources.
func TestPipelineOrder(t *testing.T) {
	const n = 5*BatchRecords + 17
	want, _ := runPipeline(t, 1, n, 0)
	if len(want) != n {
		t.Fatalf("one worker applied %d results, want %d", len(want), n)
	}
	for i, s := range want {
		w := fmt.Sprintf("%d:%d@%d:3", i*3/n, i, i+1)
		if i%7 == 3 {
			w += " bad"
		}
		if s != w {
			t.Fatalf("result %d = %q, want %q", i, s, w)
		}
	}
	for _, workers := range []int{2, 3, 8} {
		got, _ := runPipeline(t, workers, n, 0)
		if !slices.Equal(got, want) {
			t.Errorf("%d workers: results differ from one worker's", workers)
		}
	}
}

// TestPipelineStop: once apply returns false no later batch is applied, and Add
// says so (at once with one worker, soon with more).
func TestPipelineStop(t *testing.T) {
	const n = 200 * BatchRecords
	for _, workers := range []int{1, 2, 4} {
		got, added := runPipeline(t, workers, n, 2)
		if len(got) != 2*BatchRecords {
			t.Errorf("%d workers: %d results applied after a stop at the second batch, want %d", workers, len(got), 2*BatchRecords)
		}
		if added == n {
			t.Errorf("%d workers: every record was added after apply stopped", workers)
		}
	}
}

// TestPipelineReusesBatches: however far the reading runs ahead of a slow
// apply, the pipeline makes no more batches than can be in use at once, and
// reuses them (with their buffers) after that.
func TestPipelineReusesBatches(t *testing.T) {
	for _, workers := range []int{2, 4} {
		seen := map[*Batch[int]]bool{}
		p := New(workers, func() func(*Batch[int]) {
			return func(*Batch[int]) {}
		}, func(b *Batch[int]) bool {
			seen[b] = true
			time.Sleep(100 * time.Microsecond)
			return true
		})
		for i := range 100 * BatchRecords {
			p.Add(0, &contract.Record{Line: i + 1, Raw: []byte("{}")})
		}
		p.Close()
		if most := 4*workers + 2; len(seen) > most || p.made > most {
			t.Errorf("%d workers: %d batches applied, %d made; at most %d can be in use", workers, len(seen), p.made, most)
		}
	}
}

// TestPositionsPast2To31: record positions past 2^31 lines keep their value in
// the batches the workers judge (they once went through int32 and wrapped
// negative, so a report differed with the number of workers).
func TestPositionsPast2To31(t *testing.T) {
	rec := &contract.Record{File: "f", Line: 1<<33 + 5, Col: 1<<31 + 7, Raw: []byte(`{}`)}
	var b Batch[struct{}]
	b.add(rec)
	if b.Lines[0] != rec.Line || b.Cols[0] != rec.Col {
		t.Errorf("batch keeps %d:%d, want %d:%d", b.Lines[0], b.Cols[0], rec.Line, rec.Col)
	}
}
