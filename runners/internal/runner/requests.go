package runner

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/contract/pipeline"
)

// Item is one request read from a request file, with where it came from.
type Item struct {
	Req  contract.Request
	File string
	Line int
	// Study is the request's study identity: its "study" member, or for records
	// that have none (CogLang requests, whose contract has no room for it), one
	// derived from every such record of the file (see OpenRequests).
	Study string
	// Recipe is the request's recipe: its "recipe" member, or for a CogLang
	// request (which has none) the sum of its text (contract.CogLangRecipe).
	Recipe string
}

// RecipeOf returns a request's recipe (see Item.Recipe).
func RecipeOf(req *contract.Request) string {
	if req.Recipe == "" && IsCogLang(req) {
		return contract.CogLangRecipe(contract.CogLangRecipeSum(req.Instructions, req.Prompt))
	}
	return req.Recipe
}

// Where is the request's position for messages: FILE:LINE.
func (it *Item) Where() string { return fmt.Sprintf("%s:%d", it.File, it.Line) }

// IsCogLang reports whether the request is a CogLang generation-eval record, whose
// answer is a CogLang response record.
func IsCogLang(req *contract.Request) bool { return req.SchemaVersion == contract.CogLangRequest }

// ID is a request id as a runner remembers it (see contract.ID).
type ID = contract.ID

// IDOf returns the ID of a request id.
func IDOf(id string) ID { return contract.IDOf(id) }

// Requests is a request file checked whole, then read again one request at a time,
// so a run holds a few batches of requests being decoded (and one per call in
// flight) whatever the size of the file. The
// first pass (OpenRequests) checks every record, refuses a repeated id, and learns
// the count, the ids and the study identities; Each is the second pass. Standard
// input is spooled to a temporary file for the second pass; a regular file is read
// again where it is.
type Requests struct {
	name    string
	count   int
	ids     contract.IDSet // every request id, with its line
	studies map[string]bool
	// recipes are the recipes the requests carry (toolcall requests do;
	// CogLang requests have none, and their sums are not kept)
	recipes map[string]bool
	derived string          // the study of records without one
	spool   *contract.Spool // the file, read again by Each
	items   []Item          // a request set held in memory instead of a file (FromItems)
	closer  func() error
}

// Check is a test OpenRequests applies to every request in its first pass, so that
// a request a runner cannot answer is refused before anything is written.
type Check func(it *Item) error

// OpenRequests reads a request file fbeval writes (JSONL, a JSON list, or a batch
// object holding "requests"), of either family, once: the first bad record, a
// repeated request id, or a request check refuses is returned as an error located
// at FILE:LINE:COL. Close releases what it holds (the spooled copy of r).
func OpenRequests(name string, r io.Reader, check Check) (*Requests, error) {
	q := &Requests{name: name, studies: make(map[string]bool), recipes: make(map[string]bool), closer: func() error { return nil }}
	sp, err := contract.NewSpool(name, r)
	if err != nil {
		return nil, err
	}
	q.spool, q.closer = sp, sp.Close
	var sums [][sha256.Size]byte // of records without a study identity
	err = scan(q, sp, nil, func(it *Item, _ *contract.Record, _ *struct{}) error {
		q.ids.Add(IDOf(it.Req.RequestID), it.Line)
		q.count++
		if r := &it.Req; r.Study == "" {
			sums = append(sums, sha256.Sum256([]byte(r.RequestID+"\x00"+r.Instructions+"\x00"+r.Prompt)))
		} else {
			q.studies[r.Study] = true
		}
		if it.Req.Recipe != "" {
			q.recipes[it.Req.Recipe] = true
		}
		if check != nil {
			return check(it)
		}
		return nil
	})
	if err == nil {
		err = sp.Flush() // the copy of a pipe, read again by Each
	}
	if err == nil && q.count == 0 {
		// nothing to answer is a mistake upstream (an export that failed
		// writes nothing into the pipe), not a run that succeeded
		err = &contract.InputError{Kind: contract.ErrShape, File: name, Msg: "holds no requests: write them with fbeval export (an export that failed before a pipe leaves it empty)"}
	}
	if err == nil {
		if first, again, dup := q.ids.Seal(); dup {
			err = q.repeated(first, again)
		}
	}
	if err != nil {
		q.Close()
		return nil, err
	}
	// Records without a study identity get one from their content: "sha256:" and 16
	// hex digits of the SHA-256 of the sorted hashes of their ids, instructions and
	// prompts, so that the order of the records does not matter.
	if len(sums) > 0 {
		slices.SortFunc(sums, func(a, b [sha256.Size]byte) int { return bytes.Compare(a[:], b[:]) })
		h := sha256.New()
		for _, s := range sums {
			h.Write(s[:])
		}
		q.derived = "sha256:" + hex.EncodeToString(h.Sum(nil)[:8])
		q.studies[q.derived] = true
	}
	return q, nil
}

// FromItems is a request set already in memory (tests, and callers that hold their
// requests anyway), with the same ids, count and study identities as a file.
func FromItems(items []Item) *Requests {
	q := &Requests{ids: make(contract.IDSet, 0, len(items)), studies: make(map[string]bool), items: items, count: len(items), closer: func() error { return nil }}
	for i := range items {
		q.ids.Add(IDOf(items[i].Req.RequestID), items[i].Line)
		q.studies[items[i].Study] = true
	}
	q.ids.Seal()
	return q
}

// Len is the number of requests.
func (q *Requests) Len() int { return q.count }

// Studies is the set of study identities of the requests.
func (q *Requests) Studies() map[string]bool { return q.studies }

// Recipes is the set of recipes the requests carry (see Resume.Recipes).
func (q *Requests) Recipes() map[string]bool { return q.recipes }

// Has reports whether a request has the id.
func (q *Requests) Has(id string) bool {
	return q.ids.Has(IDOf(id))
}

// CountAnswered is the number of requests out already answers.
func (q *Requests) CountAnswered(out *Output) int {
	if len(out.answered) == 0 {
		return 0
	}
	n := 0
	for i := range q.ids {
		if out.answered.Has(q.ids[i].ID) {
			n++
		}
	}
	return n
}

// Each hands every request to yield in file order, each a new Item yield may keep.
// An error from yield stops the reading and is returned.
func (q *Requests) Each(yield func(*Item) error) error {
	return EachPrepared(q, nil, func(it *Item, _ *struct{}) error { return yield(it) })
}

// EachPrepared is Each with work done before yield, on the goroutines that
// decode the requests: newPrepare is called once per goroutine and returns
// its prepare function, which may keep scratch state of its own and makes a
// P from the request alone (an answer, a record's bytes); yield gets each
// request with its P, in file order, on one goroutine, so what it writes is
// the same at any number of goroutines. A nil newPrepare makes the zero P.
func EachPrepared[P any](q *Requests, newPrepare func() func(*Item) P, yield func(*Item, *P) error) error {
	if q.items != nil {
		var prepare func(*Item) P
		if newPrepare != nil {
			prepare = newPrepare()
		}
		for i := range q.items {
			it := q.items[i]
			if it.Recipe == "" {
				it.Recipe = RecipeOf(&it.Req)
			}
			var p P
			if prepare != nil {
				p = prepare(&it)
			}
			if err := yield(&it, &p); err != nil {
				return err
			}
		}
		return nil
	}
	src, err := q.spool.Rewind()
	if err != nil {
		return err
	}
	// each request's study and recipe, then the caller's work, on the
	// goroutines that decode the requests
	work := func() func(*Item) P {
		var prepare func(*Item) P
		if newPrepare != nil {
			prepare = newPrepare()
		}
		return func(it *Item) (p P) {
			if it.Req.Study == "" {
				it.Study = q.derived
			}
			it.Recipe = RecipeOf(&it.Req)
			if prepare != nil {
				p = prepare(it)
			}
			return p
		}
	}
	n := 0
	err = scan(q, src, work, func(it *Item, _ *contract.Record, p *P) error {
		n++
		if !q.ids.Has(IDOf(it.Req.RequestID)) || n > q.count {
			return errChanged
		}
		if r := &it.Req; r.Study != "" && !q.studies[r.Study] || r.Recipe != "" && !q.recipes[r.Recipe] {
			// the same ids of another export (rewritten in place, as long):
			// answered, they were written as another study's
			return errChanged
		}
		return yield(it, p)
	})
	if err == nil && n != q.count {
		err = errChanged
	}
	if errors.Is(err, errChanged) {
		return fmt.Errorf("%s changed while it was read; run again on a file nothing writes to", q.name)
	}
	return err
}

var errChanged = errors.New("changed")

// repeated is the error for a request id read at line again that the request at
// line first has: the first pass found it among the sorted ids, this finds the
// record again for its id and column.
func (q *Requests) repeated(first, again int) error {
	src, err := q.spool.Rewind()
	if err != nil {
		return fmt.Errorf("%s:%d: request ids must be unique: the request at line %d has its id", q.name, again, first)
	}
	stop := errors.New("found")
	var found error
	err = scan(q, src, nil, func(it *Item, rec *contract.Record, _ *struct{}) error {
		if it.Line == again {
			found = rec.Errorf(0, "request id %q repeats the request at line %d; request ids must be unique", it.Req.RequestID, first)
			return stop
		}
		return nil
	})
	if found != nil {
		return found
	}
	if err == nil || err == stop {
		err = fmt.Errorf("%s:%d: request ids must be unique: the request at line %d has its id", q.name, again, first)
	}
	return err
}

// Close releases the spooled copy of standard input. The file a regular input was
// read from is the caller's to close.
func (q *Requests) Close() error { return q.closer() }

// scan decodes every request of r and calls fn with each, in order: the
// requests are decoded on several goroutines (contract/pipeline), each then
// given to the goroutine's prepare function (from newPrepare; none when it is
// nil), and fn is called on one goroutine, in file order, so what it sees is
// what one goroutine would see. The first bad record, or fn's first error,
// ends the scan.
func scan[P any](q *Requests, r io.Reader, newPrepare func() func(*Item) P, fn func(*Item, *contract.Record, *P) error) error {
	rd := contract.NewReader(q.name, r, contract.ReadOptions{ListKeys: []string{"requests"}, SingleRecord: isRequestRecord, RecordsChecked: true,
		LimitHint:     "no request fbeval exports is this long: is this the request file?",
		CutHint:       "an export stopped before it finished leaves it so: export the requests again",
		WrongFileHint: wrongFileHint, TextHint: requestSummaryHint})
	var failed error
	p := pipeline.New(decoders(), func() func(*pipeline.Batch[decoded[P]]) {
		var quick quickReader
		var fields contract.RequestFields
		var prepare func(*Item) P
		if newPrepare != nil {
			prepare = newPrepare()
		}
		return func(b *pipeline.Batch[decoded[P]]) {
			for i := range b.Out {
				d := &b.Out[i]
				*d = decoded[P]{}
				if b.Errs[i] != nil {
					continue
				}
				rec := record(q.name, b, i)
				req, err := decodeRequest(&quick, &fields, &rec)
				if err != nil {
					d.err = err
					continue
				}
				d.it = Item{Req: req, File: q.name, Line: rec.Line, Study: req.Study}
				if prepare != nil {
					d.p = prepare(&d.it)
				}
			}
		}
	}, func(b *pipeline.Batch[decoded[P]]) bool {
		for i := range b.Out {
			if failed = b.Errs[i]; failed != nil {
				return false
			}
			d := &b.Out[i]
			if failed = d.err; failed != nil {
				return false
			}
			rec := record(q.name, b, i)
			it := d.it // a new Item, the caller's to keep
			if failed = fn(&it, &rec, &d.p); failed != nil {
				return false
			}
			*d = decoded[P]{} // the batch is reused: hold nothing of it
		}
		return true
	})
	for rd.Scan() {
		if !p.Add(0, rd.Record()) {
			break
		}
	}
	p.Close()
	if failed != nil {
		return failed
	}
	return rd.Err()
}

// maxDecoders bounds the goroutines that decode requests: each holds a few
// batches of requests in flight, decoded and prepared (about three times their
// text), and what they hand on is written on one goroutine, which more cores
// than this do not make faster.
const maxDecoders = 4

// decoders is how many goroutines decode requests: one per core, up to
// maxDecoders.
func decoders() int { return min(runtime.GOMAXPROCS(0), maxDecoders) }

// decoded is a request as a goroutine of scan decodes and prepares it, or
// its error.
type decoded[P any] struct {
	it  Item
	p   P
	err error
}

// record is record i of batch b, as the reader gave it.
func record[P any](name string, b *pipeline.Batch[decoded[P]], i int) contract.Record {
	return contract.Record{File: name, Line: b.Lines[i], Col: b.Cols[i], Raw: b.Record(i)}
}

// decodeRequest decodes rec as contract.DecodeRequest does, with the quick
// reader where it can.
func decodeRequest(q *quickReader, w *contract.RequestFields, rec *contract.Record) (contract.Request, error) {
	if q.read(rec.Raw, w) {
		return w.Check(rec)
	}
	return contract.DecodeRequest(rec)
}

// ReadRequests reads every request of a request file into memory: for callers that
// need them all at once (a fake server's answers, tests). A runner streams them
// with OpenRequests instead.
func ReadRequests(name string, r io.Reader) ([]Item, error) {
	q, err := OpenRequests(name, r, nil)
	if err != nil {
		return nil, err
	}
	defer q.Close()
	items := make([]Item, 0, q.Len())
	err = q.Each(func(it *Item) error {
		items = append(items, *it)
		return nil
	})
	return items, err
}

// isRequestRecord tells a one-record file from a batch object: a record names its
// request or case, a batch holds "requests".
func isRequestRecord(names []string) bool {
	return !slices.Contains(names, "requests") && (slices.Contains(names, "request_id") || slices.Contains(names, "case_id"))
}

// requestSummaryHint names the summary fbeval export writes with --format text
// given as requests (contract.ReadOptions.TextHint).
func requestSummaryHint(head []byte) string {
	if contract.IsRequestSummary(head) {
		return "this is the summary of a request file, which fbeval export writes with --format text, not the requests: export them with --format jsonl (the default) or json"
	}
	return ""
}

// wrongFileHint says what to do with a file fbeval reads or writes that was
// given as requests (contract.ReadOptions.WrongFileHint).
func wrongFileHint(name, version string) string {
	if name == contract.StdinName {
		name = "FILE" // its name, which standard input does not say
	}
	switch version {
	case contract.CogLangFixture:
		return fmt.Sprintf("fbeval export coglang --fixture %s writes its requests", name)
	case contract.StudyV1:
		return fmt.Sprintf("fbeval export %s writes its requests", name)
	case contract.ReportV1, contract.CogLangResult, contract.CaseResultV1:
		return "fbeval score wrote it; a runner reads the request file fbeval export writes"
	}
	return ""
}
