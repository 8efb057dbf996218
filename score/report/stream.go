package report

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/contract/strictjson"
)

// OpenOptions bound what Open holds of a saved report.
type OpenOptions struct {
	// First, when set, is read for the first pass instead of src from its start:
	// a contract.Spool read as a stream, whose ReadAt serves the later passes.
	First io.Reader
	// MaxRowBytes bounds one element of a streamed list: a toolcall report's
	// row, a CogLang result's case or failure case (0: DefaultMaxRowBytes).
	MaxRowBytes int64
	// MaxHeadBytes bounds everything but the streamed lists (0:
	// contract.MaxFileBytes()).
	MaxHeadBytes int64
	// JUnitCounts, when set, keeps from the reading that checks the lists
	// what a JUnit report counts of them before it writes a test case: each
	// toolcall arm's counts, or 12 bytes a CogLang case and failure case. Its
	// JUnit report then reads the lists once more, not twice.
	JUnitCounts bool
}

// DefaultMaxRowBytes is the longest row (case, failure case) Open reads
// unless told: four of the longest response lines score reads by default, as
// a row quotes the answer of each attempt and its final answer again, so a
// response line that scored makes a row of twice its answer's length or more.
const DefaultMaxRowBytes = 4 * contract.DefaultMaxLineBytes

// Open reads a saved report from src without holding its long lists: a
// toolcall report's rows, a CogLang result's cases and failure_cases. Every
// other member is decoded as Load decodes it, while each list is read in a
// stream, each element checked (its JSON, its shape as the model decodes it;
// a row's arm among the report's arms and its case_id) and bounded by
// MaxRowBytes, and its position kept. The report's RowSource (CaseSource,
// FailureSource) reads the list again from src, one element at a time, each
// time a renderer walks it, so src must stay readable (an *os.File, a
// contract.Spool) until the report is written. A CogLang result's lists are
// streamed when its schema_version comes before them, as fbeval writes it.
// Errors are one line at the file:line:col of the problem, those of a report
// no larger than contract.MaxFileBytes() exactly as Load gives them.
func Open(name string, src io.ReaderAt, opts OpenOptions) (Doc, error) {
	if opts.MaxRowBytes <= 0 {
		opts.MaxRowBytes = DefaultMaxRowBytes
	}
	if opts.MaxHeadBytes <= 0 {
		opts.MaxHeadBytes = contract.MaxFileBytes()
	}
	doc, off, read, err := open(name, src, opts)
	if err == nil {
		return doc, nil
	}
	// A report that could be read whole is, for the error Load gives: what the
	// first pass read, then the rest of the input.
	var whole io.Reader = io.NewSectionReader(src, 0, math.MaxInt64)
	if opts.First != nil {
		whole = io.MultiReader(&readAgain{r: io.NewSectionReader(src, 0, read), left: read}, opts.First)
	}
	data, rerr := contract.ReadAll(name, io.LimitReader(whole, opts.MaxHeadBytes+1))
	var ie *contract.InputError
	if errors.As(rerr, &ie) && ie.Kind != contract.ErrLimit {
		return Doc{}, rerr
	}
	if rerr == nil && int64(len(data)) <= opts.MaxHeadBytes {
		if _, lerr := loadWhole(name, data); lerr != nil {
			return Doc{}, lerr
		}
	}
	if off < 0 {
		return Doc{}, err
	}
	line, col := lineCol(src, off)
	return Doc{}, fmt.Errorf("%s:%d:%d: %s", name, line, col, err)
}

// limitReader reads src for a decoder and fails once the value the decoder is
// reading grows past limit bytes.
type limitReader struct {
	src   io.ReaderAt
	r     io.Reader
	n     int64 // bytes read
	dec   *jsontext.Decoder
	start int64 // where the value being bounded began (-1: none)
	limit int64
	what  string // the value, in errors
	flag  string // the flag that raises limit
}

var errTooLong = errors.New("report: value too long")

func (l *limitReader) Read(p []byte) (int, error) {
	// The decoder asks for more while still at the value's start: the value
	// is longer than what it has.
	if l.start >= 0 && l.dec.InputOffset() == l.start && l.n-l.start > l.limit {
		return 0, errTooLong
	}
	n, err := l.r.Read(p)
	l.n += int64(n)
	return n, err
}

// bound bounds the value read next to limit bytes while read reads it.
func (l *limitReader) bound(limit int64, what, flag string, read func() error) error {
	l.start, l.limit, l.what, l.flag = l.dec.InputOffset(), limit, what, flag
	if err := read(); err != nil {
		return err
	}
	if l.dec.InputOffset()-l.start > limit {
		return errTooLong
	}
	l.start = -1
	return nil
}

// open reads the report; on an error it also returns the byte offset the error
// is at (-1: unknown) and how many bytes of the input it read.
func open(name string, src io.ReaderAt, opts OpenOptions) (Doc, int64, int64, error) {
	first := opts.First
	if first == nil {
		first = io.NewSectionReader(src, 0, math.MaxInt64)
	}
	// jsontext asks for a few kilobytes at a time: read src a buffer at a time
	cr := &contract.CountingReader{R: first}
	lr := &limitReader{src: src, r: bufio.NewReaderSize(cr, listReadBytes), start: -1}
	doc, off, err := lr.open(name, opts)
	return doc, off, cr.N, err
}

// listReadBytes is how much of a report its readers read at once.
const listReadBytes = 256 << 10

func (lr *limitReader) open(name string, opts OpenOptions) (Doc, int64, error) {
	src := lr.src
	dec := jsontext.NewDecoder(lr, readJSON)
	lr.dec = dec
	fail := func(err error) (Doc, int64, error) {
		var se *jsontext.SyntacticError
		var me *json.SemanticError
		var tw *contract.TempWriteError
		switch {
		case errors.As(err, &tw) || errors.Is(err, errShorter):
			return Doc{}, -1, readAgainFailed(name, err)
		case errors.Is(err, errTooLong):
			return Doc{}, valueStart(lr.src, lr.start), fmt.Errorf("%s is longer than %d bytes: raise the limit with %s", lr.what, lr.limit, lr.flag)
		case errors.Is(err, io.ErrUnexpectedEOF):
			return Doc{}, dec.InputOffset(), errCutShort
		case errors.As(err, &se):
			return Doc{}, se.ByteOffset, fmt.Errorf("expected an fbeval report: %s", oneLine(err))
		case errors.As(err, &me):
			return Doc{}, me.ByteOffset, fmt.Errorf("expected an fbeval report: %s", oneLine(err))
		}
		return Doc{}, dec.InputOffset(), fmt.Errorf("expected an fbeval report: %s", oneLine(err))
	}
	tok, err := dec.ReadToken()
	if err != nil {
		return fail(err)
	}
	if tok.Kind() != '{' {
		return Doc{}, 0, fmt.Errorf("expected an fbeval report (a JSON object), found %s: write a report with fbeval score --format json", kindName(tok.Kind()))
	}
	var (
		version string
		rows    *rowIndex
		cases   *span
		fails   *span
		spans   []*span // in the order of the file
		keys    []string
		kept    *junitKept // what a JUnit report counts of a CogLang result's lists
	)
	if opts.JUnitCounts {
		kept = newJUnitKept()
	}
	for dec.PeekKind() != '}' {
		if dec.PeekKind() == 0 {
			_, err := dec.ReadToken()
			return fail(err)
		}
		tok, err := dec.ReadToken()
		if err != nil {
			return fail(err)
		}
		// A token is valid only until the next call on dec (PeekKind may read
		// on), so the key is copied first.
		key := tok.String()
		var list **span
		var check func(i int, at int64, val jsontext.Value) error
		switch {
		case key == "rows" && rows == nil && version != contract.CogLangResult:
			rows = &rowIndex{noCase: -1}
			if opts.JUnitCounts {
				rows.counts = map[string]*JUnitSuite{}
			}
			list, check = &rows.span, rows.check
		case key == "cases" && cases == nil && version == contract.CogLangResult:
			list, check = &cases, checkAs("/cases", keepWith(kept, (*junitKept).keepCase))
		case key == "failure_cases" && fails == nil && version == contract.CogLangResult:
			list, check = &fails, checkAs("/failure_cases", keepWith(kept, (*junitKept).keepFailure))
		}
		if list != nil && dec.PeekKind() == '[' {
			sp, err := scanList(dec, lr, opts.MaxRowBytes, listElement(key), check)
			if err != nil {
				return fail(err)
			}
			*list = sp
			spans, keys = append(spans, sp), append(keys, key)
			continue
		}
		what := "the report's " + key
		if key == "schema_version" && version == "" && dec.PeekKind() == '"' {
			err = lr.bound(opts.MaxHeadBytes, what, "--max-file-bytes", func() error {
				tok, err := dec.ReadToken()
				version = tok.String()
				return err
			})
		} else {
			err = lr.bound(opts.MaxHeadBytes, what, "--max-file-bytes", dec.SkipValue)
		}
		if err != nil {
			return fail(err)
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return fail(err)
	}
	end := dec.InputOffset()
	if _, err := dec.ReadToken(); err != io.EOF {
		if err == nil {
			err = errors.New("more than one JSON value")
		}
		return fail(err)
	}
	// head is the document with its streamed lists empty, decoded as Load
	// decodes a whole one. The lists' line breaks are kept, so what follows
	// them keeps its line in messages.
	size, lines := end, 0
	for _, sp := range spans {
		size -= sp.end - sp.start
		lines += sp.lines
	}
	if size > opts.MaxHeadBytes {
		return Doc{}, -1, fmt.Errorf("%s: the report without its %s is larger than %d bytes: raise the limit with --max-file-bytes", name, strings.Join(keys, " and "), opts.MaxHeadBytes)
	}
	head := make([]byte, 0, size+2*int64(len(spans))+int64(lines))
	from := int64(0)
	for _, sp := range spans {
		if head, err = appendAt(head, src, from, sp.start); err != nil {
			return Doc{}, -1, readAgainFailed(name, err)
		}
		head = append(head, "[]"...)
		head = append(head, bytes.Repeat([]byte{'\n'}, sp.lines)...)
		from = sp.end
	}
	if head, err = appendAt(head, src, from, end); err != nil {
		return Doc{}, -1, readAgainFailed(name, err)
	}
	doc, err := loadWhole(name, head)
	if err != nil {
		return Doc{}, -1, err
	}
	doc.reread = &reread{}
	switch {
	case doc.Toolcall != nil && rows != nil && rows.span != nil:
		r := doc.Toolcall
		for i, a := range rows.arms {
			if _, ok := r.Arms.Get(a); !ok {
				return Doc{}, rows.armAt[i], fmt.Errorf("row %d: arm %q is not among the report's arms", rows.armRow[i]+1, a)
			}
		}
		if rows.noCase >= 0 {
			return Doc{}, rows.noCaseAt, fmt.Errorf("row %d: no case_id", rows.noCase+1)
		}
		r.Rows = nil
		r.RowSource = listSource[Row](src, rows.span, doc.reread, false)
		r.BriefRowSource = listSource[Row](src, rows.span, doc.reread, true)
		r.junitCounts = rows.counts
	case doc.CogLang != nil:
		c := doc.CogLang
		if cases != nil {
			c.Cases, c.CaseSource = nil, listSource[CogLangCase](src, cases, doc.reread, false)
			c.BriefCaseSource = listSource[CogLangCase](src, cases, doc.reread, true)
			c.casesOf = func(want func(id []byte) bool) iter.Seq[*CogLangCase] {
				var buf []byte
				return listSourceAlone(src, cases, doc.reread, false, func(val []byte, cs *CogLangCase) bool {
					id, out, ok := caseIDOf(val, buf)
					buf = out
					if !ok || want(id) {
						return false
					}
					*cs = CogLangCase{CaseID: string(id)}
					return true
				})
			}
		}
		if fails != nil {
			c.FailureCases, c.FailureSource = nil, listSource[FailureCase](src, fails, doc.reread, false)
		}
		if kept != nil && (cases != nil || fails != nil) {
			if cases == nil {
				kept.cases = nil
			}
			if fails == nil {
				kept.fails = nil
			}
			c.junitKept = kept
		}
	}
	return doc, 0, nil
}

// span is where the first reading found one streamed list of a report.
type span struct {
	start int64 // the offset of its "["
	end   int64 // the offset just after its "]"
	lines int   // line breaks between them
}

// reread holds the first error of reading a report's lists again.
type reread struct{ err error }

// rowIndex is what the first reading of a toolcall report's rows keeps: where
// they are, and the first row of each arm and the first without a case id, to
// be checked once the report's arms are known.
type rowIndex struct {
	*span
	arms     []string
	armRow   []int
	armAt    []int64
	noCase   int
	noCaseAt int64
	names    strCache
	counts   map[string]*JUnitSuite // each arm's JUnit counts, when asked
}

// check decodes row i, at offset at, noting its arm and a missing case id.
func (ix *rowIndex) check(i int, at int64, val jsontext.Value) error {
	var row Row
	if !decodeRow(val, &row, &ix.names) {
		row = Row{}
		if err := unmarshalAt(val, at, fmt.Sprintf("/rows/%d", i), &row); err != nil {
			return err
		}
	}
	if !contains(ix.arms, row.Arm) {
		ix.arms = append(ix.arms, row.Arm)
		ix.armRow = append(ix.armRow, i)
		ix.armAt = append(ix.armAt, at+contract.PointerOffset(val, "/arm"))
	}
	if row.CaseID == "" && ix.noCase < 0 {
		ix.noCase, ix.noCaseAt = i, at
	}
	if ix.counts != nil {
		n := ix.counts[row.Arm]
		if n == nil {
			n = &JUnitSuite{}
			ix.counts[row.Arm] = n
		}
		n.count(junitRowOf(&row, false))
	}
	return nil
}

// checkAs checks that each element of the list at ptr decodes as a T, and
// hands each to keep, when it is not nil, as it is decoded.
func checkAs[T any](ptr string, keep func(*T)) func(i int, at int64, val jsontext.Value) error {
	var names strCache
	return func(i int, at int64, val jsontext.Value) error {
		var v T
		if !fastDecode(val, &v, &names, false) {
			var zero T
			v = zero
			if err := unmarshalAt(val, at, ptr+"/"+strconv.Itoa(i), &v); err != nil {
				return err
			}
		}
		if keep != nil {
			keep(&v)
		}
		return nil
	}
}

// keepWith is keep bound to k, or nil when k is.
func keepWith[T any](k *junitKept, keep func(*junitKept, *T)) func(*T) {
	if k == nil {
		return nil
	}
	return func(v *T) { keep(k, v) }
}

// unmarshalAt decodes val, found at offset at of the input under the JSON
// Pointer ptr, with its errors placed in the whole input.
func unmarshalAt(val jsontext.Value, at int64, ptr string, v any) error {
	err := json.Unmarshal(val, v, readOptions)
	var me *json.SemanticError
	var se *jsontext.SyntacticError
	switch {
	case err == nil:
	case errors.As(err, &me):
		me.ByteOffset += at
		me.JSONPointer = jsontext.Pointer(ptr) + me.JSONPointer
		return me
	case errors.As(err, &se):
		se.ByteOffset += at
		return se
	}
	return err
}

// listElement names element i of a streamed list in errors.
func listElement(key string) func(i int) string {
	noun := map[string]string{"rows": "row", "cases": "case", "failure_cases": "failure case"}[key]
	return func(i int) string { return noun + " " + strconv.Itoa(i+1) }
}

// scanList reads a list with dec just before its "[", reading and bounding
// each element and handing it to check with its index and offset, in order.
// Past the first batch of elements, check runs on a goroutine of its own while
// the next batch is read: the error is the first in the list's order, a
// check's or the reading's, as if each element were read and checked in turn.
func scanList(dec *jsontext.Decoder, lr *limitReader, maxElem int64, name func(int) string, check func(i int, at int64, val jsontext.Value) error) (*span, error) {
	if _, err := dec.ReadToken(); err != nil {
		return nil, err
	}
	sp := &span{start: dec.InputOffset() - 1} // the "["
	c := newListChecker(check)
	var readErr error
	for i := 0; dec.PeekKind() != ']'; i++ {
		if dec.PeekKind() == 0 {
			_, readErr = dec.ReadToken()
			break
		}
		var val jsontext.Value
		readErr = lr.bound(maxElem, name(i), "--max-line-bytes", func() (err error) {
			val, err = dec.ReadValue()
			return err
		})
		if readErr != nil || !c.add(val, dec.InputOffset()-int64(len(val))) {
			break
		}
	}
	if err := c.close(); err != nil {
		return nil, err // an element before the one the reading stopped at
	}
	if readErr != nil {
		return nil, readErr
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, err
	}
	sp.end = dec.InputOffset()
	lines, err := countLines(lr.src, sp.start, sp.end)
	if err != nil {
		return nil, err
	}
	sp.lines = lines
	return sp, nil
}

// checkBatch is how many elements, or about how many bytes of them, a
// listChecker checks at once.
const checkBatch, checkBatchBytes = 256, 256 << 10

// listChecker checks the elements of a list in order: the first batch on the
// reading goroutine, the rest on a goroutine of its own, a batch at a time,
// while the reading goes on. An element of checkBatchBytes or more is checked
// where it lies, on the reading goroutine, once those before it are: no batch
// ever holds a copy of a long one.
type listChecker struct {
	check func(i int, at int64, val jsontext.Value) error
	cur   *listBatch // the batch being filled
	n     int        // elements added
	err   error      // the first check error
	// the goroutine, while one runs
	jobs   chan *listBatch // batches to check, in order
	free   chan *listBatch // batches checked
	failed chan struct{}   // closed once a check on it fails
	goErr  error           // that error: read once done is closed
	done   chan struct{}   // closed when it has returned
}

// listBatch is a run of consecutive elements: their text one after another,
// where each ends, where each began in the input, and the first one's index.
type listBatch struct {
	buf   []byte
	ends  []int
	at    []int64
	first int
}

func newListChecker(check func(i int, at int64, val jsontext.Value) error) *listChecker {
	return &listChecker{check: check, cur: &listBatch{}}
}

// add adds the element val, read at offset at; false once a check has failed.
func (c *listChecker) add(val []byte, at int64) bool {
	if len(val) >= checkBatchBytes {
		if !c.drain() {
			return false
		}
		c.err = c.check(c.n, at, val)
		c.n++
		return c.err == nil
	}
	b := c.cur
	if len(b.ends) == 0 {
		b.first = c.n
	}
	b.buf = append(b.buf, val...)
	b.ends = append(b.ends, len(b.buf))
	b.at = append(b.at, at)
	c.n++
	if len(b.ends) < checkBatch && len(b.buf) < checkBatchBytes {
		return true
	}
	return c.send()
}

// send checks the batch being filled: in place when it is the list's first,
// else on the goroutine, which it starts when none runs.
func (c *listChecker) send() bool {
	b := c.cur
	if b.first == 0 {
		c.err = b.checkAll(c.check)
		b.reset()
		return c.err == nil
	}
	if c.jobs == nil {
		c.jobs, c.free = make(chan *listBatch, 2), make(chan *listBatch, 3)
		c.failed, c.done = make(chan struct{}), make(chan struct{})
		c.free <- &listBatch{}
		c.free <- &listBatch{}
		go c.run()
	}
	select {
	case c.jobs <- b:
	case <-c.failed:
		return false
	}
	select {
	case c.cur = <-c.free:
		c.cur.reset()
		return true
	case <-c.failed:
		c.cur = &listBatch{} // b is the goroutine's
		return false
	}
}

func (c *listChecker) run() {
	defer close(c.done)
	for b := range c.jobs {
		if c.goErr == nil {
			if c.goErr = b.checkAll(c.check); c.goErr != nil {
				close(c.failed)
			}
		}
		select {
		case c.free <- b:
		default: // after a failure no batch is taken back
		}
	}
}

// drain checks every element added so far and stops the goroutine; it
// reports whether every check passed.
func (c *listChecker) drain() bool {
	if c.err != nil {
		return false
	}
	if len(c.cur.ends) > 0 {
		c.send()
	}
	if c.jobs != nil {
		close(c.jobs)
		<-c.done
		c.jobs = nil
		if c.err == nil {
			c.err = c.goErr
		}
	}
	return c.err == nil
}

// close checks what is left and returns the first check error.
func (c *listChecker) close() error {
	c.drain()
	return c.err
}

func (b *listBatch) checkAll(check func(i int, at int64, val jsontext.Value) error) error {
	start := 0
	for k, end := range b.ends {
		if err := check(b.first+k, b.at[k], b.buf[start:end]); err != nil {
			return err
		}
		start = end
	}
	return nil
}

func (b *listBatch) reset() { b.buf, b.ends, b.at = b.buf[:0], b.ends[:0], b.at[:0] }

// appendAt appends bytes [from, to) of src, all of them or an error: src read
// them once already (a copy of standard input that could not be kept fails
// here).
func appendAt(dst []byte, src io.ReaderAt, from, to int64) ([]byte, error) {
	n := len(dst)
	dst = append(dst, make([]byte, to-from)...)
	m, err := src.ReadAt(dst[n:], from)
	if int64(m) == to-from {
		return dst, nil
	}
	return dst[:n+m], readAgainError(err)
}

// countLines counts the line breaks in bytes [from, to) of src, which it reads
// whole or returns an error.
func countLines(src io.ReaderAt, from, to int64) (int, error) {
	buf := make([]byte, 64<<10)
	n := 0
	for from < to {
		m, err := src.ReadAt(buf[:min(int64(len(buf)), to-from)], from)
		n += bytes.Count(buf[:m], []byte{'\n'})
		from += int64(m)
		if from < to && (err != nil || m == 0) {
			return n, readAgainError(err)
		}
	}
	return n, nil
}

// readAgain reads again left bytes read once, and fails when they end early.
type readAgain struct {
	r    io.Reader
	left int64
}

func (a *readAgain) Read(p []byte) (int, error) {
	n, err := a.r.Read(p)
	a.left -= int64(n)
	if err == io.EOF && a.left > 0 {
		err = readAgainError(nil)
	}
	return n, err
}

// readAgainFailed names the input in err, unless err is a TempFile's (which
// says what it was for).
func readAgainFailed(name string, err error) error {
	if tw := (*contract.TempWriteError)(nil); errors.As(err, &tw) {
		return err
	}
	return fmt.Errorf("%s: %v", name, err)
}

// readAgainError is the error of reading again bytes read once, which end
// early: the system's, or that the input is shorter than it was.
func readAgainError(err error) error {
	if err == nil || err == io.EOF {
		return errShorter
	}
	return err
}

var errShorter = errors.New("it changed while it was read (it is shorter now): run again on a file nothing writes to")

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// listSource reads a list again from src, one element at a time; the element
// it yields is reused. src was read whole once, each element checked by
// jsontext, so the elements are found again by the strictjson lexer, which is
// quicker; where it stops short of the list's end (a report with bytes that
// are not UTF-8, which the report readers let through), jsontext reads the
// rest of the list, as it read all of it once. An error now means src changed:
// it ends the list early, kept in failed for the writer to report. A brief
// list of rows skips their attempt results (see BriefRowSource).
func listSource[T any](src io.ReaderAt, sp *span, failed *reread, brief bool) iter.Seq[*T] {
	return listSourceAlone[T](src, sp, failed, brief, nil)
}

// listSourceAlone is listSource, but each element that alone, given its text,
// fills v from (reporting true) is yielded so, not decoded whole.
func listSourceAlone[T any](src io.ReaderAt, sp *span, failed *reread, brief bool, alone func(val []byte, v *T) bool) iter.Seq[*T] {
	return func(yield func(*T) bool) {
		var v T
		var names strCache
		// each decodes val, the element at offset at, and yields it
		each := func(val []byte, at int64) bool {
			if alone != nil && alone(val, &v) {
				return yield(&v)
			}
			var zero T
			v = zero
			if !fastDecode(val, &v, &names, brief) {
				v = zero
				if err := unmarshalAt(val, at, "", &v); err != nil {
					failed.note(err)
					return false
				}
				if brief {
					switch v := any(&v).(type) {
					case *Row:
						v.AttemptResults = nil
					case *CogLangCase:
						*v = v.brief()
					}
				}
			}
			return yield(&v)
		}
		el := strictjson.NewElements(io.NewSectionReader(src, sp.start, sp.end-sp.start), math.MaxInt, strictjson.KeepSurrogates)
		n := 0
		for val := range el.All() {
			if !each(val, sp.start+el.Offset()) {
				return
			}
			n++
		}
		if el.Err() == nil {
			return
		}
		dec := jsontext.NewDecoder(bufio.NewReaderSize(io.NewSectionReader(src, sp.start, sp.end-sp.start), listReadBytes), readJSON)
		if _, err := dec.ReadToken(); err != nil {
			failed.note(err)
			return
		}
		for k := 0; dec.PeekKind() != ']'; k++ {
			val, err := dec.ReadValue()
			if err != nil {
				failed.note(err)
				return
			}
			if k >= n && !each(val, sp.start+dec.InputOffset()-int64(len(val))) {
				return
			}
		}
	}
}

func (r *reread) note(err error) {
	if r.err == nil {
		r.err = err
	}
}

// valueStart returns the offset of the value after off, past white space and
// a comma.
func valueStart(src io.ReaderAt, off int64) int64 {
	var buf [256]byte
	for {
		n, err := src.ReadAt(buf[:], off)
		for _, c := range buf[:n] {
			if c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != ',' && c != ':' {
				return off
			}
			off++
		}
		if err != nil || n == 0 {
			return off
		}
	}
}

// lineCol returns the 1-based line and column of byte offset off of src.
func lineCol(src io.ReaderAt, off int64) (line, col int) {
	line, col = 1, 1
	buf := make([]byte, 64<<10)
	var pos int64
	for pos < off {
		n, err := src.ReadAt(buf[:min(int64(len(buf)), off-pos)], pos)
		for _, c := range buf[:n] {
			if c == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
		}
		pos += int64(n)
		if err != nil || n == 0 {
			break
		}
	}
	return line, col
}
