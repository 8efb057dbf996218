package study

import (
	"slices"
	"sync"
)

// Codes a row counts that are not the judge's.
const (
	codeMissing  = "MISSING_RESPONSE"
	codeProvider = "PROVIDER_ERROR"
	// their ids: New interns them first
	codeMissingID  = 0
	codeProviderID = 1
)

// settleChunk is how many attempts with a detail settle takes at a time, and
// settleChunkBytes how many bytes of entries at most (past one entry), so that
// long outputs do not make a chunk large: their entries are read, judged on the
// workers and written back in row order.
const (
	settleChunk      = 4096
	settleChunkBytes = 4 << 20
)

// settle judges in full the attempts whose records were not clean, now that no
// later record can replace them, and writes every detail entry again in row
// order after what the spool holds, so that a range of rows reads its details
// back in one read. It does nothing when nothing was read since the last time.
func (run *Run) settle() error {
	if run.settled || run.err != nil {
		return run.err
	}
	if err := run.writeBands(); err != nil {
		run.err = err
		return err
	}
	if err := run.spool.flush(); err != nil {
		run.err = err
		return err
	}
	start := run.spool.size
	if err := run.settleChunks(); err != nil {
		run.err = err
		return err
	}
	run.dropUndue()
	if err := run.spool.flush(); err != nil {
		run.err = err
		return err
	}
	run.settled, run.settledAt = true, start
	return nil
}

// settleBatch is one chunk of attempts with a detail, and the parts the workers
// judge it in.
type settleBatch struct {
	items []int
	parts []settlePart
	n     int // the parts in use
	wg    sync.WaitGroup
}

// settleChunks settles the attempts with a detail a chunk at a time, in row
// order. The workers judge one chunk while this goroutine stores the one before
// it; chunks are stored in order, so the spool's offsets and the code ids are
// the same as one chunk at a time would make them.
func (run *Run) settleChunks() error {
	workers := max(run.workers, 1)
	var batches [2]settleBatch
	for k := range batches {
		batches[k].items = make([]int, 0, settleChunk)
		batches[k].parts = make([]settlePart, workers)
	}
	var judged *settleBatch // judged, not yet stored
	cur, size := 0, 0
	b := &batches[cur]
	for i := range run.atts {
		if a := &run.atts[i]; a.has(fDetail) {
			b.items = append(b.items, i)
			size += int(a.detLen)
		}
		if len(b.items) == settleChunk || size >= settleChunkBytes || (i == len(run.atts)-1 && len(b.items) > 0) {
			run.judgeBatch(b)
			if judged != nil {
				if err := run.storeBatch(judged); err != nil {
					b.wg.Wait()
					return err
				}
			}
			b.wg.Wait()
			judged, cur = b, 1-cur
			b = &batches[cur]
			b.items, size = b.items[:0], 0
		}
	}
	if judged != nil {
		return run.storeBatch(judged)
	}
	return nil
}

// judgeBatch starts b's parts on the workers; b.wg is done when all are.
func (run *Run) judgeBatch(b *settleBatch) {
	b.n = min(len(b.parts), len(b.items)/64+1)
	per := (len(b.items) + b.n - 1) / b.n
	for k := 0; k < b.n; k++ {
		p := &b.parts[k]
		p.items = b.items[min(k*per, len(b.items)):min((k+1)*per, len(b.items))]
		b.wg.Go(func() { run.settlePart(p) })
	}
}

// storeBatch writes a judged batch's entries to the spool, part by part, and
// gives each attempt its entry's place, its verdict and its codes.
func (run *Run) storeBatch(b *settleBatch) error {
	for k := 0; k < b.n; k++ {
		p := &b.parts[k]
		if p.err != nil {
			return p.err
		}
		off, err := run.spool.write(p.out)
		if err != nil {
			return err
		}
		for j, i := range p.items {
			a := &run.atts[i]
			a.det, a.detLen = off, p.lens[j]
			off += int64(p.lens[j])
			if !a.has(fPending) {
				continue
			}
			a.flags = a.flags&^(fPending|fSuccess|fSemantic|fCandValid|fCall) | p.flags[j]
			a.codes, a.ncodes = uint32(len(run.codes)), uint32(len(p.codes[j]))
			for _, c := range p.codes[j] {
				run.codes = append(run.codes, run.codeID(c))
			}
		}
	}
	return nil
}

// settlePart is one worker's share of a chunk: the entries it wrote, one after
// another, and for each attempt its verdict.
type settlePart struct {
	items []int
	out   []byte
	lens  []uint32
	flags []uint32
	codes [][]string // the codes of each judged attempt (nil for the others)
	read  []byte     // the entries read back, and the bytes between close ones
	at    []int      // where each item's entry is in read
	order []uint64   // the items by offset: offset<<orderBits | index into items
	err   error
	// seen holds, for the case being settled, each entry judged so far and its
	// verdict: rows go case by case, so the repeats of a case that gave the same
	// output are judged once a part.
	seen     map[string]judgedEntry
	seenCase int
}

// judgedEntry is an entry settlePart judged in full: where it wrote the entry
// again in out, and its verdict.
type judgedEntry struct {
	start, end int
	flags      uint32
	codes      []string
}

// Reads of settle: entries closer than settleGap to each other are read in
// one read of at most settleRead bytes (the bytes between them are read and
// dropped).
const (
	settleGap  = 1 << 10
	settleRead = 1 << 20
)

// settlePart reads the entries of p.items in the order they lie in the spool,
// entries close to each other in one read, then judges the pending ones in full
// and encodes them again with their errors, in the order of p.items.
func (run *Run) settlePart(p *settlePart) {
	p.out, p.lens, p.flags, p.err = p.out[:0], p.lens[:0], p.flags[:0], nil
	clear(p.codes)
	p.codes = p.codes[:0]
	per := run.Plan.Study.Repairs + 1
	if err := run.readEntries(p); err != nil {
		p.err = err
		return
	}
	// a judged entry adds its errors to the output: room for twice what was read
	// is made once, not grown a doubling at a time
	p.out = slices.Grow(p.out, 2*len(p.read))
	if p.seen == nil {
		p.seen = map[string]judgedEntry{}
	}
	clear(p.seen)
	p.seenCase = -1
	for j := range p.items {
		i := p.items[j]
		a := &run.atts[i]
		entry := p.read[p.at[j] : p.at[j]+int(a.detLen)]
		before := len(p.out)
		if !a.has(fPending) {
			p.out = append(p.out, entry...)
			p.lens, p.flags, p.codes = append(p.lens, uint32(len(entry))), append(p.flags, 0), append(p.codes, nil)
			continue
		}
		// the verdict is the case's judge's on the entry's output alone
		ci := run.placeOf(i / per).ci
		if ci != p.seenCase {
			clear(p.seen)
			p.seenCase = ci
		}
		v, ok := p.seen[string(entry)]
		if ok {
			p.out = append(p.out, p.out[v.start:v.end]...)
		} else {
			d, err := decodeDetail(entry, true)
			if err != nil {
				p.err = err
				return
			}
			r := run.caseJudge[ci].Score(d.output, run.prepared[ci])
			output := d.output
			if r.Success && run.Plan.Study.Repairs == 0 {
				output = "" // a success is quoted only by repair turns
			}
			p.out = appendDetail(p.out, []byte(output), nil, r.Errors)
			var codes []string
			for _, e := range r.Errors {
				codes = append(codes, e.Code)
			}
			v = judgedEntry{before, len(p.out), resultFlags(&r), codes}
			p.seen[string(entry)] = v
		}
		p.lens, p.flags, p.codes = append(p.lens, uint32(len(p.out)-before)), append(p.flags, v.flags), append(p.codes, v.codes)
	}
}

// readEntries reads the entries of p.items into p.read: sorted by offset, those
// close to each other in one read. p.at says where each one is.
func (run *Run) readEntries(p *settlePart) error {
	// each item's offset and its index in one key, sorted as integers
	p.order = p.order[:0]
	for j, i := range p.items {
		p.order = append(p.order, uint64(run.atts[i].det)<<orderBits|uint64(j))
	}
	slices.Sort(p.order)
	item := func(k int) int { return int(p.order[k] & (1<<orderBits - 1)) }
	det := func(k int) int64 { return int64(p.order[k] >> orderBits) }
	p.at = slices.Grow(p.at[:0], len(p.items))[:len(p.items)]
	p.read = p.read[:0]
	for k := 0; k < len(p.order); {
		start := det(k)
		end := start
		m := k
		for ; m < len(p.order); m++ {
			a := &run.atts[p.items[item(m)]]
			if m > k && (a.det > end+settleGap || a.det+int64(a.detLen)-start > settleRead) {
				break
			}
			end = max(end, a.det+int64(a.detLen))
		}
		base := len(p.read)
		p.read = slices.Grow(p.read, int(end-start))[:base+int(end-start)]
		if err := run.spool.readAt(p.read[base:], start); err != nil {
			return err
		}
		for ; k < m; k++ {
			p.at[item(k)] = base + int(det(k)-start)
		}
	}
	return nil
}

// orderBits is how many low bits of a readEntries key hold the item's index
// (a part has at most settleChunk items); the offset is above them, in the
// 48 bits left (a spool of 256 TiB).
const orderBits = 16

// settleChunk must fit the index bits of a readEntries key.
var _ [1<<orderBits - settleChunk]struct{}
