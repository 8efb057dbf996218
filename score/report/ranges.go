package report

import (
	"bufio"
	"fmt"
	"iter"
	"sync"
)

// Ranges is a list of N elements built a range at a time: Build yields elements
// lo to hi-1 in order, and may run on several goroutines at once for different
// ranges. Writers build Workers ranges at once and write them in order, so what
// they write is the same at any count.
type Ranges[T any] struct {
	N       int
	Workers int
	Build   func(lo, hi int, yield func(*T) bool) error
}

// rangeLen is how many elements a writer builds as one range.
const rangeLen = 512

// Seq yields every element in order, one range at a time on the calling
// goroutine. A range that fails stops it, and fail gets the error.
func (l *Ranges[T]) Seq(fail func(error)) iter.Seq[*T] {
	return func(yield func(*T) bool) {
		for lo := 0; lo < l.N; lo += rangeLen {
			stopped := false
			err := l.Build(lo, min(lo+rangeLen, l.N), func(v *T) bool {
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
	ranges := (l.N + rangeLen - 1) / rangeLen
	render := func(dst []byte, r int) ([]byte, error) {
		lo, hi := r*rangeLen, min((r+1)*rangeLen, l.N)
		i := lo
		var err error
		berr := l.Build(lo, hi, func(v *T) bool {
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
		var buf []byte
		for r := range ranges {
			var err error
			if buf, err = render(buf[:0], r); err != nil {
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
	defer func() {
		close(done)
		wg.Wait()
	}()
	outs := make([]chan part, workers)
	free := make([]chan []byte, workers)
	for k := range workers {
		outs[k], free[k] = make(chan part, ahead), make(chan []byte, ahead)
		for range ahead {
			free[k] <- nil
		}
		wg.Go(func() {
			for r := k; r < ranges; r += workers {
				var buf []byte
				select {
				case buf = <-free[k]:
				case <-done:
					return
				}
				buf, err := render(buf[:0], r)
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
			return p.err
		}
		if _, err := w.Write(p.buf); err != nil {
			return err
		}
		free[r%workers] <- p.buf
	}
	return nil
}
