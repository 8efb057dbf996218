package coglang

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"os"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/export"
	"github.com/fbeval/fbeval/fixtures"
	"github.com/fbeval/fbeval/score"
)

// caseStore holds a fixture being scored at study scale in a small slot per case:
// the case ids as one sealed contract.IDSet (20 bytes per case) with its index
// (contract.IDIndex, about one byte per case), and per case its
// verdict bits, decision, level and expected heads as interned numbers, and where
// the detail of the record that scored it is (24 bytes). What is long lives in two
// unlinked temporary files, gone whenever the process ends: the cases' ids and
// prompts in fixture order (written by the one read of the fixture), and the
// details of the records (response case id, output, canonical text or parse
// error, hallucinated heads, error code) in blocks by range of cases, each range's
// in the order they were scored (detailFile). The cases
// are written in fixture order, a range at a time (caseList), by reading the first
// file again from a case noted every stride cases, and each case's detail by its
// offset in the second.
type caseStore struct {
	ids     contract.IDSet // N: the case
	index   *contract.IDIndex
	repeats bool // some id names more than one case
	// warnings are what the fixture's reader says of it beyond its cases
	// (CogLangSource.Warnings)
	warnings []string
	slots    pages[slot]
	levels   []string   // by number
	headSets [][]string // by number
	models   modelTally // the model of each case's record
	// pcode is the code of each case's record where it is a provider error
	// (0: none), made at the first such record; pcodes numbers the codes
	pcode    []uint8
	pcodes   score.ProviderCodeIDs
	header   fixtures.CogLangHeader
	cases    *spoolFile     // id, prompt per case, in fixture order
	details  *detailFile    // one detail per scored record, by range of cases
	stride   int            // caseStride when the store was made
	caseOffs []int64        // where case k*stride begins in cases, for every k
	enc      []byte         // the detail being written
	written  int            // details written
	workers  int            // goroutines that build the written cases
	loads    sync.WaitGroup // chunks of details being read (caseList)
	memMu    sync.Mutex
	spare    []*chunkMem // what chunks let go were read into
	err      error       // the first error met while reading the store back
}

// slot is what a case keeps while the records are read.
type slot struct {
	detail   uint64 // packDetail of the case's detail; 0: no record
	level    uint32
	heads    uint32
	sum      uint32 // the sum of the case's request text (contract.CogLangRecipeSum)
	failures Failure
	decision Decision
	bits     uint8
	// more holds what bits has no room for (a slot stays 24 bytes)
	more uint8
}

// detailOffBits is how many low bits of slot.detail hold 1 + the offset of
// the case's detail; the 8 above them hold the bit length of its length, so a
// list sizes its chunks by each case's detail, within two times (a few long
// answers among short ones made chunks of hundreds of long details).
const detailOffBits = 56

// packDetail is slot.detail of a detail of n bytes at offset off.
func packDetail(off uint64, n int) uint64 {
	return uint64(bits.Len(uint(n)))<<detailOffBits | (off + 1)
}

// detailAt is 1 + the offset of the case's detail; 0: no record.
func (sl *slot) detailAt() uint64 { return sl.detail & (1<<detailOffBits - 1) }

// detailSize is at least the length of the case's detail, at most twice it.
func (sl *slot) detailSize() int {
	if sl.detail == 0 {
		return 0
	}
	return 1 << (sl.detail >> detailOffBits)
}

// slot.more bits
const (
	moreOtherRecipe = 1 << iota // the record that scored the case answers another prompt (its run's recipe is not sum)
	moreBlank                   // its output is empty or white space
)

// setLast records what the last record of the case, s, was: of another
// recipe (other), blank.
func (sl *slot) setLast(s *Scored, other bool) {
	sl.more = 0
	if other {
		sl.more |= moreOtherRecipe
	}
	if s.blank && !s.ProviderError {
		sl.more |= moreBlank
	}
}

// slot bits
const (
	bitSeen     = 1 << iota // a record named the case's id
	bitDup                  // more than one did
	bitOutput               // the last record has an output
	bitParseOK              // it parses (and is canonicalized)
	bitValid                // it validates
	bitHeadOK               // its head is one the case expects
	bitProvider             // the last record is a provider error record
	bitHalluc               // it names hallucinated heads
)

// newCaseStore reads the fixture once, keeping a slot per case. With refs, each
// case is scored from its own reference expression as it is read.
func newCaseStore(src fixtures.CogLangSource, refs bool, popts ParseOptions) (st *caseStore, err error) {
	st = &caseStore{stride: caseStride}
	if st.cases, err = newSpoolFile(); err != nil {
		return nil, err
	}
	if st.details, err = newDetailFile(); err != nil {
		st.close()
		return nil, err
	}
	levelNum := map[string]uint32{}
	headNum := map[string]uint32{}
	var key []byte
	var cs *caseScorer
	if refs {
		cs = newCaseScorer(popts)
	}
	var s Scored
	var ids pages[contract.IDEntry]
	instructions := contract.CogLangInstructionsSum(export.CogLangInstructions)
	src.NoReferences = !refs // the responses are scored, not the references
	src.CheckLevels = true   // as the reference's scorer reads them
	st.header, err = src.Each(func(i int, c *fixtures.CogLangCase) error {
		if i >= 1<<31-1 {
			return &contract.InputError{File: src.Name, Msg: "the fixture has more than 2^31 cases"}
		}
		ids.add(contract.IDEntry{ID: contract.IDOf(c.CaseID), N: uint32(i)})
		sl := slot{failures: FailMissingOutput, sum: contract.CogLangPromptSum(instructions, c.Prompt)} // missing until a record names the case
		n, ok := levelNum[c.Level]
		if !ok {
			n = uint32(len(st.levels))
			levelNum[c.Level] = n
			st.levels = append(st.levels, c.Level)
		}
		sl.level = n
		key = key[:0]
		for _, h := range c.ExpectedTopLevelHeads {
			key = contract.AppendField(key, h)
		}
		n, ok = headNum[string(key)]
		if !ok {
			n = uint32(len(st.headSets))
			headNum[string(key)] = n
			// copies: the reader's strings share blocks, which a kept
			// string would keep alive
			heads := make([]string, len(c.ExpectedTopLevelHeads))
			for k, h := range c.ExpectedTopLevelHeads {
				heads[k] = strings.Clone(h)
			}
			st.headSets = append(st.headSets, heads)
		}
		sl.heads = n
		st.slots.add(sl)
		if i%st.stride == 0 {
			st.caseOffs = append(st.caseOffs, st.cases.off)
		}
		if err := st.cases.writeStrings(c.CaseID, c.Prompt); err != nil {
			return err
		}
		if refs {
			s.CaseID, s.Output, s.ProviderError, s.ErrorCode = c.CaseID, c.ReferenceExpr, false, ""
			s.outcome = cs.judge(c.ReferenceExpr)
			return st.fill(i, &s)
		}
		return nil
	})
	if err != nil {
		st.close()
		return nil, err
	}
	// one exact allocation for the sealed set
	st.ids = make(contract.IDSet, 0, ids.n)
	for _, p := range ids.p {
		st.ids = append(st.ids, p...)
	}
	if st.warnings, st.repeats, err = src.Warnings(st.header, st.ids); err != nil {
		st.close()
		return nil, err
	}
	st.index = contract.NewIDIndex(st.ids) // of the ids Warnings sealed
	return st, nil
}

// hasChanged reports whether id, which names no case, names one once its
// white space is trimmed and its letters are upper or lower case.
func (st *caseStore) hasChanged(id string) bool {
	t := strings.TrimSpace(id)
	for _, v := range []string{t, strings.ToUpper(t), strings.ToLower(t)} {
		if v != id && st.ids.Has(contract.IDOf(v)) {
			return true
		}
	}
	return false
}

func (st *caseStore) close() {
	st.loads.Wait()
	if st.cases != nil {
		st.cases.close()
	}
	if st.details != nil {
		st.details.close()
	}
}

// place finds the case of s's id: s.ID is the place in ids of the first case
// with it, or -1; s.slot is that case, and s.shared whether another follows.
func (st *caseStore) place(s *Scored) {
	s.ID, s.slot, s.shared = -1, -1, false
	i, ok := st.index.Find(s.key)
	if !ok {
		return
	}
	s.ID, s.slot = int32(i), int32(st.ids[i].N)
	s.shared = st.repeats && i+1 < len(st.ids) && st.ids[i+1].ID == s.key
}

// add takes the next record in input order, scored as s (placed by place), for
// every case with its id; the last record per id wins. It reports whether the id
// came before, and whether the record answers another prompt than its case's
// (otherRecipe); unknown ids are the caller's.
func (st *caseStore) add(s *Scored) (duplicate, other bool, err error) {
	other = st.otherRecipe(s)
	if !s.shared {
		// one case has the id (nearly always): its slot came with s, and the
		// ids, which a million cases spread over 20 MB, are not read again
		i := int(s.slot)
		duplicate = st.slots.at(i).bits&bitSeen != 0
		if err := st.fill(i, s); err != nil {
			return false, false, err
		}
		sl := st.slots.at(i)
		if duplicate {
			sl.bits |= bitDup
		}
		sl.setLast(s, other)
		st.setCode(i, s)
		st.models.set(i, st.slots.n, st.models.id(s.model, s.runner, s.settings), duplicate, s.CaseID)
		return duplicate, other, nil
	}
	id := st.ids[s.ID].ID
	for j := int(s.ID); j < len(st.ids) && st.ids[j].ID == id; j++ {
		sl := st.slots.at(int(st.ids[j].N))
		if sl.bits&bitSeen != 0 {
			duplicate = true
		}
	}
	first := true
	var off uint64
	model := st.models.id(s.model, s.runner, s.settings)
	for j := int(s.ID); j < len(st.ids) && st.ids[j].ID == id; j++ {
		i := int(st.ids[j].N)
		st.models.set(i, st.slots.n, model, duplicate && first, s.CaseID) // one record: counted once
		if first {
			// one detail for every case of the id
			if err := st.fill(i, s); err != nil {
				return false, false, err
			}
			off, first = st.slots.at(i).detail, false
		} else {
			st.setSlot(i, s, off)
		}
		if duplicate {
			st.slots.at(i).bits |= bitDup
		}
		st.slots.at(i).setLast(s, other)
		st.setCode(i, s)
	}
	return duplicate, other, nil
}

// setCode keeps the code of s, case i's last record, where it is a provider
// error, and forgets the code of the error it replaces.
func (st *caseStore) setCode(i int, s *Scored) {
	switch {
	case s.ProviderError:
		if st.pcode == nil {
			st.pcode = make([]uint8, st.slots.n)
		}
		st.pcode[i] = st.pcodes.ID(s.ErrorCode)
	case st.pcode != nil:
		st.pcode[i] = 0
	}
}

// providerCodes counts the codes of the provider errors that are cases' last
// records.
func (st *caseStore) providerCodes() score.ProviderCodes {
	var p score.ProviderCodes
	for _, id := range st.pcode {
		st.pcodes.Count(&p, id)
	}
	return p
}

// otherRecipes counts the cases a record scored, and those whose record
// answers another prompt (a record of another recipe that a later one
// replaced does not count).
func (st *caseStore) otherRecipes() (other, scored int) {
	for _, p := range st.slots.p {
		for k := range p {
			if p[k].bits&bitSeen != 0 {
				scored++
				if p[k].more&moreOtherRecipe != 0 {
					other++
				}
			}
		}
	}
	return other, scored
}

// otherRecipe reports whether record s, placed by place, names a recipe
// (run.recipe) that is not the sum of its case's request text: it answers
// another prompt than the fixture's. With several cases of its id, it must
// match one of them.
func (st *caseStore) otherRecipe(s *Scored) bool {
	if !s.hasRecipe || s.ID < 0 {
		return false
	}
	if !s.shared {
		return st.slots.at(int(s.slot)).sum != s.recipe
	}
	id := st.ids[s.ID].ID
	for j := int(s.ID); j < len(st.ids) && st.ids[j].ID == id; j++ {
		if st.slots.at(int(st.ids[j].N)).sum == s.recipe {
			return false
		}
	}
	return true
}

// fill writes the detail of record s and sets case i's slot from it.
func (st *caseStore) fill(i int, s *Scored) error {
	st.enc = appendDetail(st.enc[:0], s)
	off, err := st.details.write(i, st.enc)
	if err != nil {
		return err
	}
	st.written++
	st.setSlot(i, s, packDetail(uint64(off), len(st.enc)))
	return nil
}

// setSlot sets case i's slot from the record s, whose detail is at detail.
func (st *caseStore) setSlot(i int, s *Scored, detail uint64) {
	sl := st.slots.at(i)
	sl.detail = detail
	sl.bits = bitSeen | sl.bits&bitDup
	sl.decision, sl.failures = DecisionNone, 0
	if s.ProviderError {
		sl.bits |= bitProvider
		sl.failures = FailProviderError
		return
	}
	sl.bits |= bitOutput
	o := &s.outcome
	sl.decision = o.decision
	if !o.parseOK {
		sl.failures = FailParseError
		sl.decision = Rejected
		return
	}
	sl.bits |= bitParseOK
	if o.valid {
		sl.bits |= bitValid
	} else {
		sl.failures |= FailValidation
	}
	if slices.Contains(st.headSets[sl.heads], o.head) {
		sl.bits |= bitHeadOK
	} else {
		sl.failures |= FailHeadMismatch
	}
	if len(o.halluc) > 0 {
		sl.bits |= bitHalluc
		sl.failures |= FailHallucinated
	}
}

// summarize fills res's counts from the slots, as Result.summarize does from
// whole case results.
func (st *caseStore) summarize(res *Result) {
	byLevel := make([]Counts, len(st.levels))
	for i := range st.slots.n {
		sl := st.slots.at(i)
		c := &byLevel[sl.level]
		c.CaseCount++
		if sl.bits&bitOutput == 0 {
			c.Missing++
		}
		if sl.bits&bitParseOK != 0 {
			c.ParseOK++
		}
		if sl.bits&bitValid != 0 {
			c.ValidateOK++
		}
		if sl.bits&bitHeadOK != 0 {
			c.HeadOK++
		}
		if sl.bits&bitHalluc != 0 {
			c.Hallucinated++
		}
		for j := range failureNames {
			if sl.failures&(1<<j) != 0 {
				res.FailureCounts[j]++
			}
		}
		if sl.failures != 0 {
			res.FailureCaseCount++
		}
		res.Preflight[sl.decision]++
	}
	order := make([]int, len(st.levels))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(st.levels[a], st.levels[b]) })
	res.Levels = make([]LevelSummary, len(order))
	for k, l := range order {
		c := byLevel[l]
		res.Levels[k] = LevelSummary{Level: st.levels[l], Counts: c}
		s := &res.Summary
		s.CaseCount += c.CaseCount
		s.Missing += c.Missing
		s.ParseOK += c.ParseOK
		s.ValidateOK += c.ValidateOK
		s.HeadOK += c.HeadOK
		s.Hallucinated += c.Hallucinated
	}
	res.Maturity = maturity(res.Levels, st.header.DefinedLevels)
}

// names returns the sorted case ids given more than once (each id once) and those
// whose case's last record is a provider error record, and counts the cases
// whose last record has an output and those whose output is blank, naming the
// first in fixture order, from one read of the cases file; nothing is read
// when no slot needs it.
func (st *caseStore) names() (n caseNames, err error) {
	need := false
	for i := range st.slots.n {
		sl := st.slots.at(i)
		if sl.bits&bitOutput != 0 {
			n.answered++
		}
		if sl.more&moreBlank != 0 {
			n.blank++
		}
		need = need || sl.bits&(bitDup|bitProvider) != 0
	}
	if !need && n.blank == 0 {
		return n, nil
	}
	// a fixture that repeats an id names it once, by its first case
	firstOfID := make([]bool, st.slots.n)
	for j := range st.ids {
		if j == 0 || st.ids[j].ID != st.ids[j-1].ID {
			firstOfID[st.ids[j].N] = true
		}
	}
	cr := st.cases.reader()
	var id []byte
	for i := range st.slots.n {
		if id, _, err = cr.strings(); err != nil {
			return caseNames{}, err
		}
		sl := st.slots.at(i)
		if sl.bits&bitDup != 0 && firstOfID[i] {
			n.dups = append(n.dups, string(id))
		}
		if sl.bits&bitProvider != 0 && firstOfID[i] {
			n.errs = append(n.errs, string(id))
		}
		if sl.more&moreBlank != 0 && n.firstBlank == "" {
			n.firstBlank = string(id)
		}
	}
	slices.Sort(n.dups)
	slices.Sort(n.errs)
	return n, nil
}

// caseNames are what names finds: the ids given more than once and those
// whose last record is a provider error, sorted; the cases whose last record
// has an output (answered), those whose output is blank and the first of
// them in fixture order.
type caseNames struct {
	dups, errs      []string
	answered, blank int
	firstBlank      string
}

// each calls fn with every case the mode lists (or, failing, every failing
// case), as a whole CaseResult, in fixture order, until fn returns false. A
// store that cannot be read back, or a case whose detail names another id (two
// ids sharing a hash), stops it with st.err set.
func (st *caseStore) each(mode Mode, failing bool, fn func(*CaseResult) bool) {
	if st.err != nil || mode == ModeSummaryOnly {
		return
	}
	l := st.list(mode, failing)
	if st.err != nil {
		return
	}
	// The cases are built on a goroutine of their own, a range at a time, while
	// fn (a writer) takes the range before.
	batches := make(chan []*CaseResult, 4)
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		defer close(batches)
		b := l.builder(true)
		lo := 0
		for _, hi := range l.ends {
			batch := make([]*CaseResult, 0, hi-lo)
			err := b.build(lo, hi, func(r *CaseResult) bool {
				batch = append(batch, r)
				return true
			})
			if err != nil {
				st.err = err
				return
			}
			select {
			case batches <- batch:
			case <-stop:
				return
			}
			lo = hi
		}
	}()
	defer func() {
		close(stop)
		<-done
		st.loads.Wait()
	}()
	for b := range batches {
		for _, r := range b {
			if !fn(r) {
				return
			}
		}
	}
}

// eachBrief calls fn with the id, level and failures of every case the mode
// lists, in fixture order, until fn returns false, reading back only the ids:
// what a reader of the cases' verdicts needs (report.CogLangResult's
// BriefCaseSource). id is valid until fn returns.
func (st *caseStore) eachBrief(mode Mode, fn func(id []byte, level string, failures Failure) bool) {
	if st.err != nil || mode == ModeSummaryOnly {
		return
	}
	l := st.list(mode, false)
	if st.err != nil {
		return
	}
	var r spoolReader
	r.reset(st.cases, 0)
	var id []byte
	for i := range st.slots.n {
		var err error
		if id, err = r.first(id); err != nil {
			st.err = err
			return
		}
		if !l.want(i) {
			continue
		}
		sl := st.slots.at(i)
		if !fn(id, st.levels[sl.level], sl.failures) {
			return
		}
	}
}

// pages is a list that grows a page at a time, so that adding to a long list
// never copies it: a million slots are never moved, and no freed copy waits for
// the collector while the memory limit is near. Only the first page starts
// small and doubles, so a small fixture clears kilobytes, not a whole page of
// megabytes: while it grows, an element may move, so no pointer from at is
// held across an add.
type pages[T any] struct {
	p [][]T
	n int
}

const pageBits, firstPage = 16, 1 << 10

func (l *pages[T]) add(v T) {
	switch {
	case len(l.p) == 0:
		l.p = append(l.p, make([]T, 0, firstPage))
	case l.n&(1<<pageBits-1) == 0:
		l.p = append(l.p, make([]T, 0, 1<<pageBits))
	case len(l.p) == 1 && len(l.p[0]) == cap(l.p[0]):
		grown := make([]T, len(l.p[0]), min(2*cap(l.p[0]), 1<<pageBits))
		copy(grown, l.p[0])
		l.p[0] = grown
	}
	last := &l.p[len(l.p)-1]
	*last = append(*last, v)
	l.n++
}

// at returns element i, which must be below l.n.
func (l *pages[T]) at(i int) *T { return &l.p[i>>pageBits][i&(1<<pageBits-1)] }

// detail is a record's detail as the store keeps it.
type detail struct {
	caseID             []byte // the bytes decoded: compared with the case's id, never kept
	output, text, code string
	halluc             []string
	provider           bool // a provider error record, with code
}

// appendDetail encodes the detail of record s: its case id, then for a provider
// error record its error code, otherwise its output, the canonical text (or that
// of the ParseError expression) and the hallucinated heads, each a uvarint length
// and bytes, the whole prefixed by its length.
func appendDetail(dst []byte, s *Scored) []byte {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	dst = contract.AppendField(dst, s.CaseID)
	if s.ProviderError {
		dst = append(dst, 1)
		dst = contract.AppendField(dst, s.ErrorCode)
	} else {
		dst = append(dst, 0)
		dst = contract.AppendField(dst, s.Output)
		dst = contract.AppendField(dst, s.outcome.text)
		dst = binary.AppendUvarint(dst, uint64(len(s.outcome.halluc)))
		for _, h := range s.outcome.halluc {
			dst = contract.AppendField(dst, h)
		}
	}
	binary.LittleEndian.PutUint32(dst[start:], uint32(len(dst)-start-4))
	return dst
}

var errDetail = errors.New("a detail record is cut short")

// decodeDetail decodes the body of one detail (after its length), its strings
// made in text, or (text nil) lying in b; the hallucinated heads are appended to
// halluc.
func decodeDetail(b []byte, d *detail, text *contract.Strings, halluc []string) error {
	var err error
	field := func() []byte {
		f, rest, ok := contract.CutField(b)
		if !ok {
			err = errDetail
		}
		b = rest
		return f
	}
	str := func() string { return textOf(text, field()) }
	*d = detail{caseID: field()}
	if err != nil || len(b) == 0 {
		return errDetail
	}
	kind := b[0]
	b = b[1:]
	switch kind {
	case 1:
		d.provider, d.code = true, str()
	case 0:
		d.output, d.text = str(), str()
		n, rest, ok := contract.CutUvarint(b)
		if err != nil || !ok || n > uint64(len(rest)) {
			return errDetail
		}
		b = rest
		for range n {
			halluc = append(halluc, str())
		}
		if n > 0 {
			d.halluc = halluc
		}
	default:
		return errDetail
	}
	if err != nil || len(b) != 0 {
		return errDetail
	}
	return nil
}

// textOf returns b as a string made in text, or (text nil) lying in b.
func textOf(text *contract.Strings, b []byte) string {
	if text == nil {
		return unsafe.String(unsafe.SliceData(b), len(b))
	}
	return text.Of(b)
}

// fill writes the case result of the detail, with the slot's verdict.
func (d *detail) fill(r *CaseResult, sl *slot) {
	if sl.bits&bitProvider != 0 {
		r.ProviderError, r.ErrorCode = true, d.code
		r.ParseError = "provider error"
		if d.code != "" {
			r.ParseError += ": " + d.code
		}
		return
	}
	r.Output, r.HasOutput = d.output, true
	if sl.bits&bitParseOK == 0 {
		r.ParseError = d.text
		return
	}
	r.ParseOK, r.Canonical = true, d.text
	r.ValidateOK = sl.bits&bitValid != 0
	r.HeadOK = sl.bits&bitHeadOK != 0
	r.Hallucinated = d.halluc
}

// spoolFile is a temporary file (contract.TempFile) written once, then read
// back.
type spoolFile struct {
	f   *contract.TempFile
	w   *bufio.Writer
	off int64
}

func newSpoolFile() (*spoolFile, error) {
	f, err := contract.CreateTemp("fbeval-coglang-*", "the scored cases")
	if err != nil {
		return nil, err
	}
	return &spoolFile{f: f, w: bufio.NewWriterSize(f, 64<<10)}, nil
}

func (s *spoolFile) close() { s.f.Close() }

func (s *spoolFile) writeStrings(a, b string) error {
	n, err := contract.WriteField(s.w, a)
	s.off += int64(n)
	if err == nil {
		n, err = contract.WriteField(s.w, b)
		s.off += int64(n)
	}
	return err // a contract.TempFile's: it says what to do
}

// reader reads the file from the start, in order.
func (s *spoolFile) reader() *spoolReader {
	r := &spoolReader{}
	r.reset(s, 0)
	r.err = s.w.Flush()
	return r
}

type spoolReader struct {
	r    *bufio.Reader
	err  error
	a, b []byte // the pair read last, when it did not lie whole in r's buffer
}

// strings reads the next pair of strings, valid until the next call: where
// they lie whole in the reader's buffer, as they do but for one pair a buffer,
// they are cut from it rather than copied out a byte of length at a time.
func (r *spoolReader) strings() ([]byte, []byte, error) {
	if r.err != nil {
		return nil, nil, r.err
	}
	if buf, _ := r.r.Peek(r.r.Buffered()); len(buf) > 0 {
		if a, rest, ok := contract.CutField(buf); ok {
			if b, rest, ok := contract.CutField(rest); ok {
				r.r.Discard(len(buf) - len(rest))
				return a, b, nil
			}
		}
	}
	r.a, r.err = r.bytes(r.a)
	if r.err == nil {
		r.b, r.err = r.bytes(r.b)
	}
	return r.a, r.b, r.err
}

func (r *spoolReader) bytes(dst []byte) ([]byte, error) {
	dst, err := contract.ReadField(r.r, dst)
	if err != nil {
		return dst, fmt.Errorf("reading back the scored cases: %v", err)
	}
	return dst, nil
}

// flush writes what the files hold buffered, before they are read back on
// several goroutines at once.
func (st *caseStore) flush() error {
	if err := st.cases.w.Flush(); err != nil {
		return err
	}
	return st.details.flush()
}

// detailFile is the details file, written a block at a time: each block holds
// the details of one range of detailRangeCases cases (in fixture order) and is
// written once full, where it was placed when begun, so the details of a range
// of cases lie in a few blocks whatever order their records came in. A list
// then reads a chunk's details in a few large reads. Written in the order the
// records came, the details of a shuffled file were spread over the whole
// file, which every chunk read again: 13.9 GB read for a million cases, where
// the file holds 113 MB.
type detailFile struct {
	*spoolFile               // the file; off is where the next block goes
	blocks     []detailBlock // by range of cases: the block being filled
}

// detailBlock is a block being filled: its place in the file, and the details
// it holds so far.
type detailBlock struct {
	at  int64
	buf []byte
}

// detailRangeCases is how many cases, in fixture order, share blocks, and
// detailBlockBytes the size of a block (variables for the tests).
var detailRangeCases, detailBlockBytes = 16384, 64 << 10

func newDetailFile() (*detailFile, error) {
	f, err := contract.CreateTemp("fbeval-coglang-*", "the scored cases")
	if err != nil {
		return nil, err
	}
	// its blocks are written where they go: no buffered writer
	return &detailFile{spoolFile: &spoolFile{f: f}}, nil
}

// write adds the detail b of case i and returns its offset in the file.
func (d *detailFile) write(i int, b []byte) (int64, error) {
	if len(b) > detailBlockBytes {
		// a detail larger than a block: a place of its own
		off := d.off
		d.off += int64(len(b))
		if _, err := d.f.WriteAt(b, off); err != nil {
			return 0, err
		}
		return off, nil
	}
	r := i / detailRangeCases
	if r >= len(d.blocks) {
		d.blocks = slices.Grow(d.blocks, r+1-len(d.blocks))[:r+1]
	}
	bl := &d.blocks[r]
	if bl.buf == nil || len(bl.buf)+len(b) > detailBlockBytes {
		if err := d.writeBlock(bl); err != nil {
			return 0, err
		}
		if bl.buf == nil {
			bl.buf = make([]byte, 0, detailBlockBytes)
		}
		bl.at, bl.buf = d.off, bl.buf[:0]
		d.off += int64(detailBlockBytes)
	}
	off := bl.at + int64(len(bl.buf))
	bl.buf = append(bl.buf, b...)
	return off, nil
}

// writeBlock writes what block bl holds where it was placed.
func (d *detailFile) writeBlock(bl *detailBlock) error {
	if len(bl.buf) == 0 {
		return nil
	}
	if _, err := d.f.WriteAt(bl.buf, bl.at); err != nil {
		return err
	}
	bl.buf = bl.buf[:0]
	return nil
}

// flush writes the blocks being filled and lets the file reach the end of the
// last block placed (the unwritten ends of blocks read as zero bytes, which no
// detail includes), before the details are read back.
func (d *detailFile) flush() error {
	for i := range d.blocks {
		if err := d.writeBlock(&d.blocks[i]); err != nil {
			return err
		}
		d.blocks[i].buf = nil // a detail written after this begins a block
	}
	return d.f.Truncate(d.off)
}

// readerAt reads records by offset, through a window of the file, which must be
// flushed; win is memory for the window, if it holds 64 KiB.
func (s *spoolFile) readerAt(win []byte) *detailReader {
	if cap(win) < 64<<10 {
		win = make([]byte, 0, 64<<10)
	}
	return &detailReader{f: s.f.File, size: s.off, win: win[:0]}
}

// spareMem returns memory a chunk was read into and let go, or none.
func (st *caseStore) spareMem() *chunkMem {
	st.memMu.Lock()
	defer st.memMu.Unlock()
	if n := len(st.spare); n > 0 {
		m := st.spare[n-1]
		st.spare = st.spare[:n-1]
		return m
	}
	return &chunkMem{}
}

// letGo keeps the memory of a chunk let go for the next chunk read.
func (st *caseStore) letGo(m *chunkMem) {
	st.memMu.Lock()
	defer st.memMu.Unlock()
	st.spare = append(st.spare, m)
}

type detailReader struct {
	f     *os.File
	size  int64
	err   error
	win   []byte // the file from winAt
	winAt int64
	big   []byte
}

// record returns the body of the detail at off, valid until the next call.
func (r *detailReader) record(off int64) ([]byte, error) {
	if r.err != nil {
		return nil, r.err
	}
	head, err := r.at(off, 4)
	if err != nil {
		return nil, err
	}
	n := int64(binary.LittleEndian.Uint32(head))
	return r.at(off+4, n)
}

// at returns n bytes of the file from off.
func (r *detailReader) at(off, n int64) ([]byte, error) {
	if off < 0 || n < 0 || off+n > r.size {
		return nil, errDetail
	}
	if off >= r.winAt && off+n <= r.winAt+int64(len(r.win)) {
		return r.win[off-r.winAt : off-r.winAt+n], nil
	}
	if n > int64(cap(r.win)) {
		r.big = slices.Grow(r.big[:0], int(n))[:n]
		if _, err := r.f.ReadAt(r.big, off); err != nil {
			return nil, err
		}
		return r.big, nil
	}
	// Details asked for in file order close after each other (each chunk of
	// cases asks in file order): read ahead, from a detail that runs past the
	// window's end too. Otherwise (backwards, or far ahead) read little, as
	// the next detail is elsewhere.
	k := int64(cap(r.win))
	if end := r.winAt + int64(len(r.win)); off < r.winAt || off-end > k/2 {
		k = max(n, 512)
	}
	k = min(k, r.size-off)
	r.win = r.win[:k]
	if _, err := r.f.ReadAt(r.win, off); err != nil {
		r.win = r.win[:0]
		return nil, err
	}
	r.winAt = off
	return r.win[:n], nil
}
