package coglang

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/score/report"
)

// caseList is one list of a result's cases, in fixture order: every case the
// mode lists, or only the failing ones. Its cases are built a range at a time,
// on several goroutines at once if need be: a range reads the ids and prompts
// from the nearest case noted before it in the cases file, and the details of
// a chunk of ranges are read once, in file order, for all its ranges. While one
// chunk is built the next one is read.
type caseList struct {
	st   *caseStore
	want func(i int) bool
	n    int     // cases listed
	at   []int32 // the case of listed case k*caseStride, for every k
	// ends are where the ranges of listed cases end, starts where the
	// chunks begin: a chunk is a whole number of ranges. Both are sized by
	// each case's detail (slot.detailSize), so a few long answers among
	// short ones make short ranges and chunks, not long ones of the average.
	ends, starts []int

	mu     sync.Mutex
	chunks map[int]*detailChunk // read or being read
}

// caseStride is how many cases apart the store notes where a case begins in the
// cases file, and a list the case of its listed cases: a range starts reading
// fewer than caseStride cases before its first. A range holds about rangeBytes
// of cases as the store keeps them (ids, prompts, details), and at most
// rangeCases cases: a writer holds a few ranges written out per goroutine, so a
// fixture of long prompts makes short ranges. (Variables for the tests.)
var caseStride, rangeCases, rangeBytes = 64, 1024, 1 << 20

// detailChunkBytes is about how many bytes of details a chunk holds, and
// minDetailChunk the fewest cases in one (variables for the tests). A chunk's
// details lie in the blocks of its ranges of cases (detailFile), so a chunk
// reads little more than it holds in any order of the records: 1 MiB chunks
// take less memory than 4 MiB ones and no more time (100,000 and 1,000,000
// cases, study order and shuffled).
var detailChunkBytes, minDetailChunk = 1 << 20, 1

// list is the list of the cases mode lists, or of the failing ones.
func (st *caseStore) list(mode Mode, failing bool) *caseList {
	var listed []bool
	if mode == ModeFailuresOnly && !failing {
		// As in the reference, failures-only keeps every case whose id failed.
		listed = make([]bool, st.slots.n)
		for j := 0; j < len(st.ids); {
			k, failed := j, false
			for ; k < len(st.ids) && st.ids[k].ID == st.ids[j].ID; k++ {
				failed = failed || st.slots.at(int(st.ids[k].N)).failures != 0
			}
			for ; j < k; j++ {
				listed[st.ids[j].N] = failed
			}
		}
	}
	l := &caseList{st: st, chunks: map[int]*detailChunk{}}
	l.want = func(i int) bool {
		return !(failing && st.slots.at(i).failures == 0) && (listed == nil || listed[i])
	}
	perCase := max(1, int(st.cases.off)/max(1, st.slots.n)) // an id and a prompt
	inRange, rangeSize, chunkSize := 0, 0, 0
	for i := range st.slots.n {
		if !l.want(i) {
			continue
		}
		if l.n%caseStride == 0 {
			l.at = append(l.at, int32(i))
		}
		d := st.slots.at(i).detailSize()
		if inRange > 0 && (inRange == rangeCases || rangeSize+perCase+d > rangeBytes) {
			l.ends = append(l.ends, l.n)
			if inChunk := l.n - l.starts[len(l.starts)-1]; inChunk >= minDetailChunk && chunkSize >= detailChunkBytes || inChunk >= 1<<24-rangeCases {
				l.starts = append(l.starts, l.n)
				chunkSize = 0
			}
			inRange, rangeSize = 0, 0
		}
		if l.n == 0 {
			l.starts = append(l.starts, 0)
		}
		inRange++
		rangeSize += perCase + d
		chunkSize += d
		l.n++
	}
	if inRange > 0 {
		l.ends = append(l.ends, l.n)
	}
	if st.err == nil {
		st.err = st.flush()
	}
	return l
}

// caseOf returns the case of listed case k.
func (l *caseList) caseOf(k int) int {
	i, n := int(l.at[k/caseStride]), k/caseStride*caseStride
	for n < k {
		i++
		if l.want(i) {
			n++
		}
	}
	return i
}

// detailChunk is one chunk of a list: its cases, and their details read in the
// order they lie in the details file. Nothing in it is written once it is read,
// so what is built from it may point into data.
type detailChunk struct {
	ready chan struct{} // closed once it is read
	err   error
	*chunkMem
	left int // listed cases not yet built
}

// chunkMem is what a chunk is read into. A chunk let go hands it to the next
// chunk read (caseStore.spareMem), so that writing a list takes the memory of a
// few chunks once instead of fresh memory for each: on a machine whose fresh
// pages are dear, the faults of a new chunk's memory each time were a tenth of
// the time (a million cases, chunks of 4 MiB).
type chunkMem struct {
	cases []int32      // the case of each listed case of the chunk
	spans []detailSpan // where each one's detail is in data
	keys  []uint64     // the details in file order, while it is read
	data  []byte
	win   []byte // the detail reader's window
}

// detailSpan is where a detail is in a chunk's data; n < 0: the case has none.
type detailSpan struct{ start, n int }

// chunk returns chunk j once it is read, and starts reading the one after it
// once the one before is let go, so that at most three are held at once.
// Chunks are read on goroutines of their own, which Close waits for.
func (l *caseList) chunk(j int) (*detailChunk, error) {
	l.mu.Lock()
	ch := l.start(j)
	if _, held := l.chunks[j-1]; !held && j+1 < len(l.starts) {
		l.start(j + 1)
	}
	l.mu.Unlock()
	<-ch.ready
	return ch, ch.err
}

// start starts reading chunk j unless it is read or being read; l.mu is held.
func (l *caseList) start(j int) *detailChunk {
	ch := l.chunks[j]
	if ch == nil {
		lo, hi := l.chunkBounds(j)
		ch = &detailChunk{ready: make(chan struct{}), left: hi - lo, chunkMem: l.st.spareMem()}
		l.chunks[j] = ch
		l.st.loads.Go(func() {
			defer close(ch.ready)
			ch.err = l.read(j, ch)
		})
	}
	return ch
}

// chunkBounds are the first listed case of chunk j and the one after its last.
func (l *caseList) chunkBounds(j int) (lo, hi int) {
	if j+1 < len(l.starts) {
		return l.starts[j], l.starts[j+1]
	}
	return l.starts[j], l.n
}

// chunkOf is the chunk that holds listed case k.
func (l *caseList) chunkOf(k int) int {
	j, _ := slices.BinarySearch(l.starts, k+1)
	return j - 1
}

// built says that n listed cases of chunk j were built: once all of them are,
// the chunk is let go (and read again if it is asked for again).
func (l *caseList) built(j, n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if ch := l.chunks[j]; ch != nil {
		if ch.left -= n; ch.left <= 0 {
			delete(l.chunks, j)
			l.st.letGo(ch.chunkMem)
			ch.chunkMem = nil
		}
	}
}

// read reads chunk j into ch: the details of its cases are read in file order
// (a shuffled response file costs a few large reads per chunk, not a small read
// per case), each where it lies.
func (l *caseList) read(j int, ch *detailChunk) error {
	lo, hi := l.chunkBounds(j)
	ch.cases = slices.Grow(ch.cases[:0], hi-lo)
	for i := l.caseOf(lo); len(ch.cases) < hi-lo; i++ {
		if l.want(i) {
			ch.cases = append(ch.cases, int32(i))
		}
	}
	// the offset and place in the chunk of each detail, as one number sorted
	// in file order (a chunk holds fewer than 2^24 cases; a details file of
	// 2^40 bytes or more is sorted by pairs)
	st := l.st
	keys := slices.Grow(ch.keys[:0], len(ch.cases))
	ch.spans = slices.Grow(ch.spans[:0], len(ch.cases))[:len(ch.cases)]
	for k, i := range ch.cases {
		ch.spans[k].n = -1
		if d := st.slots.at(int(i)).detailAt(); d != 0 {
			keys = append(keys, (d-1)<<24|uint64(k))
		}
	}
	ch.keys = keys
	type ref struct{ off, k uint64 }
	var refs []ref
	if st.details.off < 1<<40 {
		slices.Sort(keys)
	} else {
		for k, i := range ch.cases {
			if d := st.slots.at(int(i)).detailAt(); d != 0 {
				refs = append(refs, ref{d - 1, uint64(k)})
			}
		}
		slices.SortFunc(refs, func(a, b ref) int { return cmp.Compare(a.off, b.off) })
	}
	dr := st.details.readerAt(ch.win)
	defer func() { ch.win = dr.win[:0] }()
	ch.data = slices.Grow(ch.data[:0], min(int(st.details.off), detailChunkBytes+detailChunkBytes/4))
	for n := range max(len(keys), len(refs)) {
		var off, k uint64
		if refs != nil {
			off, k = refs[n].off, refs[n].k
		} else {
			off, k = keys[n]>>24, keys[n]&(1<<24-1)
		}
		raw, err := dr.record(int64(off))
		if err != nil {
			return fmt.Errorf("reading back the scored cases: %v", err)
		}
		ch.spans[k] = detailSpan{start: len(ch.data), n: len(raw)}
		ch.data = append(ch.data, raw...)
	}
	return nil
}

// caseBuilder builds ranges of a list one after another. A keeping builder
// gives every range memory of its own, so what it yields may be kept; one
// that does not yields each case in the memory of the one before, for a
// caller that is done with a case when it asks for the next.
type caseBuilder struct {
	l          *caseList
	keep       bool
	cr         spoolReader
	id, prompt []byte
	d          detail
	r          CaseResult        // the case, when not kept
	heads      []string          // its hallucinated heads
	text       *contract.Strings // where kept strings are made
}

func (l *caseList) builder(keep bool) *caseBuilder {
	b := &caseBuilder{l: l, keep: keep}
	if keep {
		b.text = &contract.Strings{}
	}
	return b
}

// build yields listed cases lo to hi-1 in order, until yield returns false.
func (b *caseBuilder) build(lo, hi int, yield func(*CaseResult) bool) error {
	for lo < hi {
		j := b.l.chunkOf(lo)
		ch, err := b.l.chunk(j)
		if err != nil {
			return err
		}
		first, last := b.l.chunkBounds(j)
		end := min(hi, last)
		more, err := b.buildChunk(ch, lo-first, end-first, yield)
		b.l.built(j, end-lo)
		if err != nil || !more {
			return err
		}
		lo = end
	}
	return nil
}

// buildChunk yields the cases from place a to z-1 of chunk ch; it says whether
// yield asked for more.
func (b *caseBuilder) buildChunk(ch *detailChunk, a, z int, yield func(*CaseResult) bool) (bool, error) {
	st := b.l.st
	first := int(ch.cases[a])
	b.cr.reset(st.cases, st.caseOffs[first/st.stride])
	for range first % st.stride {
		if err := b.cr.skip(); err != nil {
			return false, err
		}
	}
	var results []CaseResult
	if b.keep {
		results = make([]CaseResult, z-a)
	}
	for i, k := first, a; k < z; i++ {
		var err error
		if b.id, b.prompt, err = b.cr.strings(); err != nil {
			return false, err
		}
		if i != int(ch.cases[k]) {
			continue
		}
		r := &b.r
		if b.keep {
			r = &results[k-a]
		}
		if err := b.fill(r, i, ch, ch.spans[k]); err != nil {
			return false, err
		}
		k++
		if !yield(r) {
			return false, nil
		}
	}
	return true, nil
}

// fill builds case i into r from its slot, the strings read and its detail.
func (b *caseBuilder) fill(r *CaseResult, i int, ch *detailChunk, sp detailSpan) error {
	sl := b.l.st.slots.at(i)
	*r = CaseResult{CaseID: textOf(b.text, b.id), Level: b.l.st.levels[sl.level], Prompt: textOf(b.text, b.prompt), Failures: sl.failures, Decision: sl.decision}
	if sp.n < 0 {
		r.ParseError = "missing output"
		return nil
	}
	// the detail's strings are made in text, or lie in the chunk's data
	var heads []string
	if !b.keep {
		heads = b.heads[:0]
	}
	if err := decodeDetail(ch.data[sp.start:sp.start+sp.n], &b.d, b.text, heads); err != nil {
		return fmt.Errorf("reading back the scored cases: %v", err)
	}
	if !b.keep && b.d.halluc != nil {
		b.heads = b.d.halluc
	}
	if string(b.d.caseID) != r.CaseID {
		return fmt.Errorf("case ids %q and %q share a 128-bit hash: please report this pair", r.CaseID, b.d.caseID)
	}
	b.d.fill(r, sl)
	return nil
}

// listRanges is l as a list of the report, each case made into a T by conv.
func listRanges[T any](l *caseList, conv func(*CaseResult) T) *report.Ranges[T] {
	return &report.Ranges[T]{N: l.n, Workers: l.st.workers, Ends: l.ends,
		Build: func(lo, hi int, yield func(*T) bool) error {
			out := make([]T, 0, hi-lo)
			return l.builder(true).build(lo, hi, func(c *CaseResult) bool {
				out = append(out, conv(c))
				return yield(&out[len(out)-1])
			})
		},
		Builder: func() func(lo, hi int, yield func(*T) bool) error {
			b := l.builder(false)
			var v T
			return func(lo, hi int, yield func(*T) bool) error {
				return b.build(lo, hi, func(c *CaseResult) bool {
					v = conv(c)
					return yield(&v)
				})
			}
		}}
}

// reset reads the file from off on, with the reader's buffer.
func (r *spoolReader) reset(s *spoolFile, off int64) {
	sr := io.NewSectionReader(s.f, off, 1<<62)
	if r.r == nil {
		r.r = bufio.NewReaderSize(sr, 64<<10)
	} else {
		r.r.Reset(sr)
	}
	r.err = nil
}

// skip reads past the next pair of strings.
func (r *spoolReader) skip() error {
	if err := r.skipOne(); err != nil {
		return err
	}
	return r.skipOne()
}

// first reads the next pair of strings, keeping only the first, into dst.
func (r *spoolReader) first(dst []byte) ([]byte, error) {
	dst, err := r.bytes(dst)
	if err != nil {
		return dst, err
	}
	return dst, r.skipOne()
}

// skipOne reads past the next string.
func (r *spoolReader) skipOne() error {
	if err := contract.SkipField(r.r); err != nil {
		r.err = fmt.Errorf("reading back the scored cases: %v", err)
		return r.err
	}
	return nil
}
