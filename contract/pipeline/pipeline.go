// Package pipeline is the one ordered worker pipeline of fbeval: records read
// in order are worked on (decoded, judged) by several goroutines and their
// results applied in input order, so that every output is the same at any
// number of workers. Both scorers and the runners' request reader use it.
package pipeline

import (
	"runtime"
	"sync"

	"github.com/fbeval/fbeval/contract"
)

// Batches of records travel between the reading, working and applying goroutines;
// a batch is flushed at this many records or bytes, and at the end of each file.
const (
	BatchRecords = 512
	BatchBytes   = 128 << 10
)

// Batch is a run of consecutive records of one source: their text one after
// another in one buffer, where each record ends and starts in its file, the
// reader's rejection of each, and a result of type O for each that the work
// fills. Batches are reused: the work and the apply function must not keep
// anything of a batch past their call.
type Batch[O any] struct {
	File  int     // the source the records came from, as given to Add
	Raw   []byte  // the records' text, one after another
	Ends  []int   // end of each record in Raw
	Lines []int   // line and column of each record, for errors
	Cols  []int   //
	Errs  []error // the reader's rejection of each record, or nil
	Out   []O     // one result per record, sized before the work is called
	Err   error   // set by the work: an error that ends the input after this batch
	done  chan struct{}
}

// Len is the number of records in the batch.
func (b *Batch[O]) Len() int { return len(b.Ends) }

// Record returns the text of record i.
func (b *Batch[O]) Record(i int) []byte {
	start := 0
	if i > 0 {
		start = b.Ends[i-1]
	}
	return b.Raw[start:b.Ends[i]]
}

func (b *Batch[O]) add(rec *contract.Record) {
	b.Raw = append(b.Raw, rec.Raw...)
	b.Ends = append(b.Ends, len(b.Raw))
	b.Lines = append(b.Lines, rec.Line)
	b.Cols = append(b.Cols, rec.Col)
	b.Errs = append(b.Errs, rec.Err)
}

func (b *Batch[O]) reset(file int) {
	b.File, b.Raw, b.Ends, b.Lines, b.Cols = file, b.Raw[:0], b.Ends[:0], b.Lines[:0], b.Cols[:0]
	clear(b.Errs)
	b.Errs, b.Err = b.Errs[:0], nil
}

func (b *Batch[O]) full() bool { return len(b.Ends) >= BatchRecords || len(b.Raw) >= BatchBytes }

// batchBuffers are the buffers of a batch that do not depend on its result
// type: pooled, so that the pipelines of many files one after another (a
// batch engine's shards) fill the buffers of the one before, not new ones.
type batchBuffers struct {
	raw               []byte
	ends, lines, cols []int
	errs              []error
}

var batchPool = sync.Pool{New: func() any { return new(batchBuffers) }}

// newBatch returns an empty batch with buffers from the pool.
func newBatch[O any]() *Batch[O] {
	bb := batchPool.Get().(*batchBuffers)
	return &Batch[O]{Raw: bb.raw[:0], Ends: bb.ends[:0], Lines: bb.lines[:0], Cols: bb.cols[:0], Errs: bb.errs[:0]}
}

// giveBack returns the batch's buffers to the pool; the batch is not used
// after.
func (b *Batch[O]) giveBack() {
	clear(b.Errs[:cap(b.Errs)])
	batchPool.Put(&batchBuffers{raw: b.Raw[:0], ends: b.Ends[:0], lines: b.Lines[:0], cols: b.Cols[:0], errs: b.Errs[:0]})
	*b = Batch[O]{}
}

// Pipeline is the one ordered worker pipeline. Records are added in
// input order and gathered into batches; each batch is worked on (decoded,
// judged) by one of several goroutines, and the batches are applied in input
// order on one more goroutine, so what apply sees, and so every output, is the
// same at any number of workers. With one worker everything runs on the
// calling goroutine.
//
//	p := pipeline.New(workers, newWork, apply)
//	for rd.Scan() {
//		if !p.Add(0, rd.Record()) {
//			break // apply stopped
//		}
//	}
//	p.Close() // every batch added is applied (or dropped after a stop)
type Pipeline[O any] struct {
	workers int
	work    func(*Batch[O]) // the calling goroutine's, with one worker
	apply   func(*Batch[O]) bool
	cur     *Batch[O]
	stopped bool // apply returned false (one worker)

	jobs, order chan *Batch[O]
	free        chan *Batch[O]
	// made and most: the batches made so far and the most there may be (one
	// being filled, those in order, one being applied); once they are all made,
	// a batch is only ever reused, and its buffers with it
	made, most int
	stop       chan struct{} // closed when apply returns false
	merged     chan struct{} // closed when every batch is applied
}

// New starts a pipeline on workers goroutines (0: runtime.GOMAXPROCS).
// newWork is called once per worker and returns its work function, which may
// keep scratch state of its own: it fills b.Out (and may set b.Err). apply is
// called with every batch, in input order, on one goroutine; when it returns
// false, the batches after it are not applied and Add returns false.
func New[O any](workers int, newWork func() func(*Batch[O]), apply func(*Batch[O]) bool) *Pipeline[O] {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	p := &Pipeline[O]{workers: workers, apply: apply}
	if workers == 1 {
		p.work = newWork()
		p.cur = newBatch[O]()
		return p
	}
	inFlight := 4 * workers
	p.most = inFlight + 2
	p.jobs = make(chan *Batch[O], inFlight)
	p.order = make(chan *Batch[O], inFlight)
	p.free = make(chan *Batch[O], p.most)
	p.stop = make(chan struct{})
	p.merged = make(chan struct{})
	for range workers {
		work := newWork()
		go func() {
			for b := range p.jobs {
				work(b)
				close(b.done)
			}
		}()
	}
	go func() {
		applying := true
		for b := range p.order {
			<-b.done
			if applying && !p.apply(b) {
				applying = false
				close(p.stop)
			}
			p.free <- b // never blocks: it has room for every batch
		}
		close(p.merged)
	}()
	p.cur = p.get(0)
	return p
}

// Add adds one record of source file to the batch being filled, and sends the
// batch on when it is full. It returns false once apply has stopped: add
// nothing more then, and Close.
func (p *Pipeline[O]) Add(file int, rec *contract.Record) bool {
	if p.cur.File != file && p.cur.Len() > 0 {
		p.Flush()
	}
	p.cur.File = file
	p.cur.add(rec)
	if p.cur.full() {
		p.Flush()
	}
	return !p.Stopped()
}

// Flush sends the batch being filled on, if it holds any record: at the end of
// a source, so that no batch mixes two.
func (p *Pipeline[O]) Flush() {
	b := p.cur
	if b.Len() == 0 {
		return
	}
	if p.workers == 1 {
		if !p.stopped {
			p.size(b)
			p.work(b)
			p.stopped = !p.apply(b)
		}
		b.reset(b.File)
		return
	}
	p.size(b)
	p.order <- b
	p.jobs <- b
	p.cur = p.get(b.File)
}

// Stopped reports whether apply has returned false.
func (p *Pipeline[O]) Stopped() bool {
	if p.workers == 1 {
		return p.stopped
	}
	select {
	case <-p.stop:
		return true
	default:
		return false
	}
}

// Close sends the last batch and returns once every batch is applied or, after
// a stop, dropped. The pipeline cannot be used after.
func (p *Pipeline[O]) Close() {
	p.Flush()
	if p.workers == 1 {
		p.cur.giveBack()
		return
	}
	close(p.jobs)
	close(p.order)
	<-p.merged
	// every batch is the one being filled or free: their buffers go back
	p.cur.giveBack()
	for {
		select {
		case b := <-p.free:
			b.giveBack()
		default:
			return
		}
	}
}

// size makes b.Out one result per record.
func (p *Pipeline[O]) size(b *Batch[O]) {
	n := b.Len()
	if cap(b.Out) < n {
		b.Out = make([]O, n)
	}
	b.Out = b.Out[:n]
}

// get returns a free batch, a new one while fewer than p.most were made, or
// else the next batch applied.
func (p *Pipeline[O]) get(file int) *Batch[O] {
	var b *Batch[O]
	select {
	case b = <-p.free:
	default:
		if p.made < p.most {
			p.made++
			b = newBatch[O]()
		} else {
			b = <-p.free
		}
	}
	b.reset(file)
	b.done = make(chan struct{})
	return b
}
