package report

import (
	"bufio"
	"fmt"
	"io"
	"iter"
	"sync"

	"github.com/fbeval/fbeval/contract"
)

// Ranges is a list of N elements built a range at a time: Build yields elements
// lo to hi-1 in order, and may run on several goroutines at once for different
// ranges. Writers build Workers ranges at once and write them in order, so what
// they write is the same at any count.
//
// Builder, when set, makes a build function of the Build kind for one writer
// goroutine, which calls it for one range after another: the writers render
// each element before they ask for the next and keep nothing of it, so what it
// returns may build each range in the memory of the range before. Seq, whose
// caller may keep what it yields, always uses Build.
//
// Len is how many elements each range holds (0: 512), the last one excepted:
// every range a writer or Seq builds starts at a multiple of it. Ends, when
// set, are the ranges' ends in order instead (the last one N): ranges of
// lengths of their own, so that each holds about as many bytes where
// elements differ much in size (a few answers of 60 KB among short ones
// made ranges of 500 long rows, several held per writer).
type Ranges[T any] struct {
	N       int
	Workers int
	Len     int
	Ends    []int
	Build   func(lo, hi int, yield func(*T) bool) error
	Builder func() func(lo, hi int, yield func(*T) bool) error
}

// count is how many ranges there are.
func (l *Ranges[T]) count() int {
	if l.Ends != nil {
		return len(l.Ends)
	}
	n := l.rangeLen()
	return (l.N + n - 1) / n
}

// bounds are the first element of range r and the one after its last.
func (l *Ranges[T]) bounds(r int) (lo, hi int) {
	if l.Ends != nil {
		if r > 0 {
			lo = l.Ends[r-1]
		}
		return lo, l.Ends[r]
	}
	n := l.rangeLen()
	return r * n, min((r+1)*n, l.N)
}

// rangeLen is how many elements each range holds.
func (l *Ranges[T]) rangeLen() int {
	if l.Len > 0 {
		return l.Len
	}
	return defaultRangeLen
}

// writerBuild is the build function of one writer goroutine.
func (l *Ranges[T]) writerBuild() func(lo, hi int, yield func(*T) bool) error {
	if l.Builder != nil {
		return l.Builder()
	}
	return l.Build
}

// defaultRangeLen is how many elements a range holds unless Len says.
const defaultRangeLen = 512

// Seq yields every element in order, one range at a time on the calling
// goroutine. A range that fails stops it, and fail gets the error.
func (l *Ranges[T]) Seq(fail func(error)) iter.Seq[*T] {
	return func(yield func(*T) bool) {
		for r := range l.count() {
			stopped := false
			lo, hi := l.bounds(r)
			err := l.Build(lo, hi, func(v *T) bool {
				stopped = !yield(v)
				return !stopped
			})
			if err != nil {
				fail(err)
				return
			}
			if stopped {
				return
			}
		}
	}
}

// writeRanges writes the elements of l in order, each as appendItem renders it
// (i is its place in the list). Ranges are built and rendered on l.Workers
// goroutines at once, at most three each ahead of the writer, so memory stays
// bounded whatever N is.
func writeRanges[T any](w *bufio.Writer, l *Ranges[T], appendItem func(dst []byte, i int, v *T) ([]byte, error)) error {
	ranges := l.count()
	// render builds range r with build, which is one goroutine's
	render := func(build func(lo, hi int, yield func(*T) bool) error, dst []byte, r int) ([]byte, error) {
		lo, hi := l.bounds(r)
		i := lo
		var err error
		berr := build(lo, hi, func(v *T) bool {
			dst, err = appendItem(dst, i, v)
			i++
			return err == nil
		})
		switch {
		case err != nil:
			return dst, err
		case berr != nil:
			return dst, berr
		case i != hi:
			return dst, fmt.Errorf("report: a range of %d elements yielded %d", hi-lo, i-lo)
		}
		return dst, nil
	}
	workers := min(max(l.Workers, 1), ranges)
	if workers <= 1 {
		build := l.writerBuild()
		buf := spareBuf()
		defer func() { letGoBuf(buf) }() // the buffer as it has grown
		for r := range ranges {
			var err error
			if buf, err = render(build, buf[:0], r); err != nil {
				return err
			}
			if _, err := w.Write(buf); err != nil {
				return err
			}
		}
		return nil
	}
	type part struct {
		buf []byte
		err error
	}
	const ahead = 3 // buffers per worker: rendering, waiting, being written
	done := make(chan struct{})
	var wg sync.WaitGroup
	outs := make([]chan part, workers)
	free := make([]chan []byte, workers)
	defer func() {
		close(done)
		wg.Wait()
		for k := range workers {
			for len(free[k]) > 0 {
				letGoBuf(<-free[k])
			}
		}
	}()
	for k := range workers {
		outs[k], free[k] = make(chan part, ahead), make(chan []byte, ahead)
		for range ahead {
			free[k] <- spareBuf()
		}
		wg.Go(func() {
			build := l.writerBuild()
			for r := k; r < ranges; r += workers {
				var buf []byte
				select {
				case buf = <-free[k]:
				case <-done:
					return
				}
				buf, err := render(build, buf[:0], r)
				select {
				case outs[k] <- part{buf, err}:
				case <-done:
					return
				}
				if err != nil {
					return
				}
			}
		})
	}
	for r := range ranges {
		p := <-outs[r%workers]
		if p.err != nil {
			letGoBuf(p.buf)
			return p.err
		}
		if _, err := w.Write(p.buf); err != nil {
			return err
		}
		free[r%workers] <- p.buf
	}
	return nil
}

// rangeBufs holds the buffers ranges were rendered into, for the next list
// written: a report of several long lists (a CogLang result's failure_cases and
// cases) renders each into the memory of the one before instead of growing
// fresh buffers for it.
var rangeBufs sync.Pool

func spareBuf() []byte {
	if p, ok := rangeBufs.Get().(*[]byte); ok {
		return (*p)[:0]
	}
	return nil
}

func letGoBuf(b []byte) {
	if cap(b) > 0 {
		rangeBufs.Put(&b)
	}
}

// CaseResultParts writes case results (as WriteCaseResultRanges writes them) that are
// built a range at a time on several goroutines, each range handed over when it
// is done, in the order of the ranges: a range is written as soon as every range
// before it is, by the goroutine that completes the run, and held until then.
// It lets the ranges that build a report's rows also write their case results,
// so each range's details are read once for both.
type CaseResultParts struct {
	mu      sync.Mutex
	w       *bufio.Writer
	n       int // the results to write
	next    int // where the next range to write starts
	pending map[int]*CasePart
	err     error
	free    sync.Pool // parts written, for their buffers
}

// CasePart is one range of case results being rendered.
type CasePart struct {
	lo, hi int
	buf    []byte
	err    error
}

// NewCaseResultParts writes n case results to w.
func NewCaseResultParts(w io.Writer, n int) *CaseResultParts {
	return &CaseResultParts{w: bufioWriter(w), n: n, pending: map[int]*CasePart{}}
}

// Part starts the range of results that begins at lo.
func (p *CaseResultParts) Part(lo int) *CasePart {
	c, _ := p.free.Get().(*CasePart)
	if c == nil {
		c = &CasePart{}
	}
	c.lo, c.hi, c.buf, c.err = lo, lo, c.buf[:0], nil
	return c
}

// Add renders the next result of the range.
func (c *CasePart) Add(r *CaseResult) {
	if c.err != nil {
		return
	}
	c.buf, c.err = contract.AppendJSON(c.buf, r, contract.Compact, 0)
	c.buf = append(c.buf, '\n')
	c.hi++
}

// Done hands a range over, to be written once every range before it is.
func (p *CaseResultParts) Done(c *CasePart) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c.err != nil && p.err == nil {
		p.err = c.err
	}
	if p.err != nil {
		return p.err
	}
	if _, dup := p.pending[c.lo]; dup || c.lo < p.next {
		p.err = fmt.Errorf("report: case results from %d handed over twice", c.lo)
		return p.err
	}
	p.pending[c.lo] = c
	for {
		c, ok := p.pending[p.next]
		if !ok {
			return nil
		}
		delete(p.pending, p.next)
		if _, err := p.w.Write(c.buf); err != nil {
			p.err = err
			return err
		}
		p.next = c.hi
		p.free.Put(c)
	}
}

// Close flushes what was written and fails unless every result was.
func (p *CaseResultParts) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return p.err
	}
	if p.next != p.n || len(p.pending) > 0 {
		return fmt.Errorf("report: %d of %d case results written", p.next, p.n)
	}
	return p.w.Flush()
}
