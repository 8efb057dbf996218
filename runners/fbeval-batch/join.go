package main

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/runners/internal/runner"
)

// results is the results files of a from-* run, read once to check every line and
// index it: a fixed entry per line (the hash of its custom id, where its bytes are,
// its line), not the results themselves. The lines a run writes
// are read again from their files by offset, one at a time, in the order they are
// written; standard input and pipes are kept in a copy for that (contract.Spool).
type results struct {
	parse   parser
	names   []string          // of the files, for messages
	files   []*contract.Spool // the files, read again by offset
	closers []func() error
	entries entryList // every line, in reading order
	byID    []uint32  // the entries by custom id, then reading order
	buf     []byte
}

// entry is one results line: 40 bytes, and 4 more for its place in byID.
type entry struct {
	id    runner.ID // of the custom id
	off   int64     // where the line's record begins in its file
	n     uint32    // the record's length
	line  uint32    // its line, for messages (saturated)
	file  uint16    // which results file
	flags uint8
}

const (
	repeat  uint8 = 1 << iota // an earlier line has the custom id
	matched                   // a request has the custom id (set on the id's first line)
)

// entryList holds entries in blocks of a fixed size, so that it grows without
// copying: one slice would hold its old and its new array at once as it grows.
type entryList struct {
	blocks [][]entry
	n      int
}

const entryBlock = 1 << 16

func (l *entryList) add(e entry) {
	if l.n%entryBlock == 0 {
		l.blocks = append(l.blocks, make([]entry, 0, entryBlock))
	}
	b := &l.blocks[len(l.blocks)-1]
	*b = append(*b, e)
	l.n++
}

func (l *entryList) len() int { return l.n }

// at is the entry of line i, in reading order.
func (l *entryList) at(i uint32) *entry { return &l.blocks[i/entryBlock][i%entryBlock] }

// indexResults reads every results file once, in order, checking each line with
// parse (the first bad line is the error) and calling seen, when not nil, with each
// line's custom id. Close releases the files.
func indexResults(paths []string, stdin io.Reader, parse parser, seen func(cid string)) (*results, error) {
	rs := &results{parse: parse}
	for _, path := range paths {
		if err := rs.index(path, stdin, seen); err != nil {
			rs.close()
			return nil, err
		}
	}
	rs.byID = make([]uint32, rs.entries.len())
	for i := range rs.byID {
		rs.byID[i] = uint32(i)
	}
	slices.SortFunc(rs.byID, func(a, b uint32) int {
		if c := bytes.Compare(rs.entries.at(a).id[:], rs.entries.at(b).id[:]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	for k := 1; k < len(rs.byID); k++ {
		if rs.entries.at(rs.byID[k]).id == rs.entries.at(rs.byID[k-1]).id {
			rs.entries.at(rs.byID[k]).flags |= repeat
		}
	}
	return rs, nil
}

func (rs *results) index(path string, stdin io.Reader, seen func(cid string)) error {
	if len(rs.files) > math.MaxUint16 {
		return usagef("more than %d results files: join them first", math.MaxUint16+1)
	}
	in, name, done, err := contract.OpenInput(path, "results", stdin)
	if err != nil {
		return usagef("%v", err)
	}
	rs.closers = append(rs.closers, func() error { done(); return nil })
	sp, err := contract.NewSpool(name, in)
	if err != nil {
		return err
	}
	rs.closers = append(rs.closers, sp.Close)
	file := uint16(len(rs.files))
	rs.names, rs.files = append(rs.names, name), append(rs.files, sp)
	rd := newResultsReader(name, sp)
	read := 0 // the file's results read
	for rd.Scan() {
		rec := rd.Record()
		if rec.Err != nil {
			return lineErr(rec.Err, read)
		}
		r, err := rs.parse(rec, false)
		if err != nil {
			return lineErr(err, read)
		}
		read++
		if rs.entries.len() == math.MaxUint32 {
			return usagef("more than %d results: convert them in parts", uint64(math.MaxUint32))
		}
		rs.entries.add(entry{id: idOf(r.customID), off: rec.Offset, n: uint32(len(rec.Raw)), line: uint32(min(rec.Line, math.MaxUint32)), file: file})
		if seen != nil {
			seen(r.customID)
		}
	}
	if err := rd.Err(); err != nil {
		return err
	}
	return sp.Flush() // the copy of a pipe, read again by offset
}

func (rs *results) close() {
	for i := len(rs.closers) - 1; i >= 0; i-- {
		rs.closers[i]()
	}
}

// idOf is the hash results are found by, runner.IDOf (a variable for the
// tests, which make two custom ids share one).
var idOf = runner.IDOf

// find returns the positions in byID of the first and the last line with the
// custom id; ok is false when no line has it.
func (rs *results) find(cid string) (first, last int, ok bool) {
	id := idOf(cid)
	first, ok = slices.BinarySearchFunc(rs.byID, id, func(i uint32, id runner.ID) int {
		return bytes.Compare(rs.entries.at(i).id[:], id[:])
	})
	last = first
	for ok && last+1 < len(rs.byID) && rs.entries.at(rs.byID[last+1]).id == id {
		last++
	}
	return first, last, ok
}

// winner is the position in byID of the result that stands for a custom id
// whose lines are at first..last, in reading order: the last answer, or when
// every line is an error, the last line. An answer wins over an error
// whatever the order of the files: a retry batch's answers and the first
// batch's error file may be given in either.
func (rs *results) winner(first, last int, buf *[]byte) (int, error) {
	if first == last {
		return last, nil
	}
	for k := last; k >= first; k-- {
		r, err := rs.readInto(rs.entryAt(k), buf)
		if err != nil {
			return 0, err
		}
		if r.res.Error == nil {
			return k, nil
		}
	}
	return last, nil
}

// entryAt is the entry at position k of byID.
func (rs *results) entryAt(k int) *entry { return rs.entries.at(rs.byID[k]) }

// where is the line's position for messages: FILE:LINE.
func (rs *results) where(e *entry) string { return fmt.Sprintf("%s:%d", rs.names[e.file], e.line) }

// read reads a line again from its file and parses it.
func (rs *results) read(e *entry) (result, error) { return rs.readInto(e, &rs.buf) }

// readInto is read with a buffer of the caller's: safe on several goroutines
// at once, once every results file was read.
func (rs *results) readInto(e *entry, buf *[]byte) (result, error) {
	name := rs.names[e.file]
	*buf = slices.Grow((*buf)[:0], int(e.n))[:e.n]
	n, err := rs.files[e.file].ReadAt(*buf, e.off)
	if n == len(*buf) {
		err = nil
	}
	if err != nil {
		return result{}, fmt.Errorf("cannot read %s again: %v", name, err)
	}
	rec := contract.Record{File: name, Line: int(e.line), Col: 1, Offset: e.off, Raw: *buf}
	r, err := rs.parse(&rec, true)
	if err != nil || idOf(r.customID) != e.id {
		return result{}, fmt.Errorf("%s changed while it was read; run again on a file nothing writes to", name)
	}
	r.where = rs.where(e)
	return r, nil
}

// tally is what a run found, for the summary line and the exit code.
type tally struct {
	answered, errors, duplicates, unknown, missing int
}

// count counts the result a request gets.
func (t *tally) count(failed bool) {
	if failed {
		t.errors++
	} else {
		t.answered++
	}
}

// made is a result read again for a request and its record made (none when
// the request was answered before, in the -o file), or the error that ends
// the run; not found when no result has the request's custom id.
type made struct {
	found    bool
	failed   bool // the result is an error
	answered bool // the -o file answers the request already: no record
	recorded bool // the result is an error, and the -o file holds one for the request: no record
	record   []byte
	err      error
}

// duplicateNotes writes a note for every line whose custom id an earlier line has,
// in reading order: the first max of them, and it returns how many more there
// are.
func (rs *results) duplicateNotes(note func(string), max int) (more int, err error) {
	for i := range uint32(rs.entries.len()) {
		e := rs.entries.at(i)
		if e.flags&repeat == 0 {
			continue
		}
		if max == 0 {
			more++
			continue
		}
		r, err := rs.read(e)
		if err != nil {
			return 0, err
		}
		note(fmt.Sprintf("%s: custom id %q repeats; the last answer wins (an error only when no line answers)", r.where, r.customID))
		max--
	}
	return more, nil
}

// unknownNotes writes a note for every custom id no request has, in the order the
// ids first appear, at the line whose result wins: the first max of them, and
// it returns how many more there are.
func (rs *results) unknownNotes(requestsPath string, note func(string), max int) (more int, err error) {
	for i := range uint32(rs.entries.len()) {
		e := rs.entries.at(i)
		if e.flags&(repeat|matched) != 0 {
			continue
		}
		if max == 0 {
			more++
			continue
		}
		r, err := rs.read(e)
		if err != nil {
			return 0, err
		}
		_, last, _ := rs.find(r.customID)
		note(fmt.Sprintf("%s: custom id %q is not in %s", rs.where(rs.entryAt(last)), r.customID, requestsPath))
		max--
	}
	return more, nil
}

// idNames are the request ids of results lines read without a request file, in
// reading order, in one block of bytes.
type idNames struct {
	text []byte
	ends []int64 // where each line's id ends in text
}

func (n *idNames) add(id string) {
	n.text = append(n.text, id...)
	n.ends = append(n.ends, int64(len(n.text)))
}

func (n *idNames) at(i uint32) []byte {
	start := int64(0)
	if i > 0 {
		start = n.ends[i-1]
	}
	return n.text[start:n.ends[i]]
}
