package report

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/fbeval/fbeval/contract"
)

// OpenOptions bound what Open holds of a saved report.
type OpenOptions struct {
	// First, when set, is read for the first pass instead of src from its start:
	// a contract.Spool read as a stream, whose ReadAt serves the later passes.
	First io.Reader
	// MaxRowBytes bounds one row of a toolcall report (0: contract.DefaultMaxLineBytes).
	MaxRowBytes int64
	// MaxHeadBytes bounds everything but the rows (0: contract.MaxFileBytes()).
	MaxHeadBytes int64
}

// Open reads a saved report from src without holding a toolcall report's rows:
// every other member is decoded as Load decodes it, while rows is read in a
// stream, each row checked (its JSON, its arm among the report's arms, its
// case_id) and bounded by MaxRowBytes, and its position kept. The report's
// RowSource reads the rows again from src, one at a time, each time a renderer
// walks them, so src must stay readable (an *os.File, a contract.Spool) until the
// report is written. Errors are one line at the file:line:col of the problem,
// those of a report no larger than contract.MaxFileBytes() exactly as Load gives
// them.
func Open(name string, src io.ReaderAt, opts OpenOptions) (Doc, error) {
	if opts.MaxRowBytes <= 0 {
		opts.MaxRowBytes = contract.DefaultMaxLineBytes
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
		whole = io.MultiReader(io.NewSectionReader(src, 0, read), opts.First)
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
	what  string
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

// open reads the report; on an error it also returns the byte offset the error
// is at (-1: unknown) and how many bytes of the input it read.
func open(name string, src io.ReaderAt, opts OpenOptions) (Doc, int64, int64, error) {
	first := opts.First
	if first == nil {
		first = io.NewSectionReader(src, 0, math.MaxInt64)
	}
	lr := &limitReader{src: src, r: first, start: -1}
	doc, off, err := lr.open(name, opts)
	return doc, off, lr.n, err
}

func (lr *limitReader) open(name string, opts OpenOptions) (Doc, int64, error) {
	src := lr.src
	dec := jsontext.NewDecoder(lr)
	lr.dec = dec
	fail := func(err error) (Doc, int64, error) {
		var se *jsontext.SyntacticError
		var me *json.SemanticError
		switch {
		case errors.Is(err, errTooLong):
			return Doc{}, valueStart(lr.src, lr.start), fmt.Errorf("%s is longer than %d bytes: raise the limit with %s", lr.what, lr.limit, limitFlag(lr.what))
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
	var rows *rowIndex
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
		if key == "rows" && dec.PeekKind() == '[' {
			if rows, err = scanRows(dec, lr, opts.MaxRowBytes); err != nil {
				return fail(err)
			}
			continue
		}
		lr.start, lr.limit, lr.what = dec.InputOffset(), opts.MaxHeadBytes, "the report's "+key
		if err := dec.SkipValue(); err != nil {
			return fail(err)
		}
		if dec.InputOffset()-lr.start > opts.MaxHeadBytes {
			return fail(errTooLong)
		}
		lr.start = -1
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
	// head is the document with an empty rows list, decoded as Load decodes a
	// whole one. The rows' line breaks are kept, so what follows them keeps its
	// line in messages.
	var head []byte
	if rows == nil {
		rows = &rowIndex{start: end, end: end}
	}
	if n := end - (rows.end - rows.start); n > opts.MaxHeadBytes {
		return Doc{}, -1, fmt.Errorf("%s: the report without its rows is larger than %d bytes: raise the limit with --max-file-bytes", name, opts.MaxHeadBytes)
	}
	head = make([]byte, 0, end-(rows.end-rows.start)+2+int64(rows.lines))
	head = appendAt(head, src, 0, rows.start)
	if rows.end > rows.start {
		head = append(head, "[]"...)
		head = append(head, bytes.Repeat([]byte{'\n'}, rows.lines)...)
	}
	head = appendAt(head, src, rows.end, end)
	doc, err := loadWhole(name, head)
	if err != nil {
		return Doc{}, -1, err
	}
	if doc.Toolcall == nil || rows.end == rows.start {
		return doc, 0, nil
	}
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
	r.RowSource = rows.source(src)
	doc.rows = rows
	return doc, 0, nil
}

// rowIndex is what the first reading of the rows keeps: where they start, and
// the first row of each arm and the first without a case id, to be checked once
// the report's arms are known.
type rowIndex struct {
	start    int64 // the offset of the rows' "["
	end      int64 // the offset just after their "]"
	lines    int   // line breaks between them
	arms     []string
	armRow   []int
	armAt    []int64
	noCase   int
	noCaseAt int64
	err      error // from reading the rows again
}

// scanRows reads the rows array, decoding and bounding each row, with dec just
// before its "[".
func scanRows(dec *jsontext.Decoder, lr *limitReader, maxRow int64) (*rowIndex, error) {
	ix := &rowIndex{noCase: -1}
	if _, err := dec.ReadToken(); err != nil {
		return nil, err
	}
	ix.start = dec.InputOffset() - 1 // the "["
	var row Row
	for i := 0; dec.PeekKind() != ']'; i++ {
		if dec.PeekKind() == 0 {
			_, err := dec.ReadToken()
			return nil, err
		}
		lr.start, lr.limit, lr.what = dec.InputOffset(), maxRow, fmt.Sprintf("row %d", i+1)
		val, err := dec.ReadValue()
		if err != nil {
			return nil, err
		}
		if int64(len(val)) > maxRow {
			lr.start = dec.InputOffset() - int64(len(val))
			return nil, errTooLong
		}
		lr.start = -1
		at := dec.InputOffset() - int64(len(val))
		row = Row{}
		if err := json.Unmarshal(val, &row); err != nil {
			var me *json.SemanticError
			if errors.As(err, &me) {
				me.ByteOffset += at
				me.JSONPointer = jsontext.Pointer(fmt.Sprintf("/rows/%d", i)) + me.JSONPointer
				return nil, me
			}
			var se *jsontext.SyntacticError
			if errors.As(err, &se) {
				se.ByteOffset += at
				return nil, se
			}
			return nil, err
		}
		if !contains(ix.arms, row.Arm) {
			ix.arms = append(ix.arms, row.Arm)
			ix.armRow = append(ix.armRow, i)
			ix.armAt = append(ix.armAt, at+contract.PointerOffset(val, "/arm"))
		}
		if row.CaseID == "" && ix.noCase < 0 {
			ix.noCase, ix.noCaseAt = i, at
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, err
	}
	ix.end = dec.InputOffset()
	ix.lines = countLines(lr.src, ix.start, ix.end)
	return ix, nil
}

// appendAt appends bytes [from, to) of src.
func appendAt(dst []byte, src io.ReaderAt, from, to int64) []byte {
	n := len(dst)
	dst = append(dst, make([]byte, to-from)...)
	m, _ := src.ReadAt(dst[n:], from)
	return dst[:n+m]
}

// countLines counts the line breaks in bytes [from, to) of src.
func countLines(src io.ReaderAt, from, to int64) int {
	buf := make([]byte, 64<<10)
	n := 0
	for from < to {
		m, err := src.ReadAt(buf[:min(int64(len(buf)), to-from)], from)
		n += bytes.Count(buf[:m], []byte{'\n'})
		from += int64(m)
		if err != nil || m == 0 {
			break
		}
	}
	return n
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// source reads the rows again from src, one at a time; the row it yields is
// reused. src was read whole once, so an error now means it changed: it ends
// the rows early, and the writer reports it.
func (ix *rowIndex) source(src io.ReaderAt) iter.Seq[*Row] {
	return func(yield func(*Row) bool) {
		dec := jsontext.NewDecoder(io.NewSectionReader(src, ix.start, ix.end-ix.start))
		if _, err := dec.ReadToken(); err != nil {
			ix.err = err
			return
		}
		var row Row
		for dec.PeekKind() != ']' {
			row = Row{}
			if err := json.UnmarshalDecode(dec, &row); err != nil {
				ix.err = err
				return
			}
			if !yield(&row) {
				return
			}
		}
	}
}

func limitFlag(what string) string {
	if bytes.HasPrefix([]byte(what), []byte("row ")) {
		return "--max-line-bytes"
	}
	return "--max-file-bytes"
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
