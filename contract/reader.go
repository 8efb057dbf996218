package contract

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// Shape is the layout of a record file.
type Shape int

// The three record file shapes.
const (
	ShapeJSONL  Shape = iota // one JSON object per line
	ShapeList                // one JSON list of objects
	ShapeObject              // one JSON object: a single record or a batch holding a list
)

func (s Shape) String() string {
	return [...]string{"jsonl", "list", "object"}[s]
}

// DefaultMaxLineBytes is the longest JSONL line read before the line is rejected.
const DefaultMaxLineBytes = 64 << 20

// MaxDepth is the deepest nesting a whole-file JSON document may have (the JSON
// decoder's own limit).
const MaxDepth = 10000

// ReadOptions configures a Reader.
type ReadOptions struct {
	// ListKeys are the members of a batch object that may hold the records, in
	// order of preference ("responses" before "answers").
	ListKeys []string
	// OtherListKeys are read like ListKeys but not named in errors as accepted:
	// a caller reads them only to say what a file is (a request batch given as
	// responses).
	OtherListKeys []string
	// SingleRecord reports whether a whole-file object with these member names is
	// itself one record rather than a batch. Nil: never.
	SingleRecord func(names []string) bool
	// MaxLineBytes bounds one JSONL line (0: DefaultMaxLineBytes).
	MaxLineBytes int
}

// Record is one record of a file, or one line that could not be read as a record.
// Raw is the record's JSON text; in a JSONL file it has not been parsed yet (the
// suite's decoder parses it once, strictly) and it is valid only until the next
// call to Scan: copy what you keep.
type Record struct {
	File   string
	Line   int // 1-based line of the record's first byte
	Col    int // 1-based byte column of the record's first byte
	Index  int // 0-based position among the file's records
	Raw    []byte
	Err    error // non-nil: the line was rejected (an *InputError)
	inline bool  // Raw sits on one line
}

// Errorf returns an *InputError located at byte offset off of the record's text.
func (r *Record) Errorf(off int64, format string, args ...any) *InputError {
	line, col := r.Line, r.Col
	if off < 0 {
		off = 0
	}
	if off > int64(len(r.Raw)) {
		off = int64(len(r.Raw))
	}
	if r.inline {
		col += int(off)
	} else {
		for _, c := range r.Raw[:off] {
			if c == '\n' {
				line++
				col = 1
			} else {
				col++
			}
		}
	}
	return &InputError{File: r.File, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// Reader reads the records of a JSONL file, a JSON list or a JSON batch object, one
// at a time, in the manner of bufio.Scanner: Scan, then Record, and Err at the end.
// A JSONL line that cannot be read is handed back as a Record with Err set and the
// reading goes on; a broken whole-file document ends the scan with Err.
type Reader struct {
	name string
	opts ReadOptions
	br   *bufio.Reader

	shape    Shape
	started  bool
	done     bool
	err      error
	rec      Record
	index    int
	lines    int
	warnings []string
	header   map[string]jsontext.Value
	headerAt int64          // offset of the batch object, for HeaderPosition
	headerOf jsontext.Value // the batch object, which the header values slice
	single   *Record

	// JSONL state
	pending     []byte // a first line read while detecting the shape
	pendingLine int
	pendingCol  int
	colSkip     int // blanks already consumed on the next line while detecting the shape
	lineBuf     []byte

	// whole-file state
	dec  *jsontext.Decoder
	nl   *newlineIndex
	base int64 // offset of dec's input within the file
}

// NewReader returns a Reader of r, which is named name in messages.
func NewReader(name string, r io.Reader, opts ReadOptions) *Reader {
	if opts.MaxLineBytes <= 0 {
		opts.MaxLineBytes = DefaultMaxLineBytes
	}
	return &Reader{name: name, opts: opts, br: bufio.NewReaderSize(r, 256<<10)}
}

// Shape is the file's layout, known after the first call to Scan.
func (r *Reader) Shape() Shape { return r.shape }

// Lines is the number of physical lines read so far (JSONL), or of the whole file.
func (r *Reader) Lines() int { return r.lines }

// Warnings are soft problems noticed while reading (a byte order mark, say).
func (r *Reader) Warnings() []string { return r.warnings }

// Header holds the members of a batch object other than its record list.
func (r *Reader) Header() map[string]jsontext.Value { return r.header }

// HeaderPosition returns the line and column of the value of the batch object's
// member key (see Header); 0, 0 when there is none.
func (r *Reader) HeaderPosition(key string) (line, col int) {
	v, ok := r.header[key]
	if !ok || r.nl == nil {
		return 0, 0
	}
	return r.nl.position(r.headerAt + memberOffset(r.headerOf, v))
}

// Record returns the record found by the last call to Scan.
func (r *Reader) Record() *Record { return &r.rec }

// Err returns the error that ended the scan, if any.
func (r *Reader) Err() error { return r.err }

// Scan advances to the next record (or rejected line). It returns false at the end
// of the input or on an error that ends the scan.
func (r *Reader) Scan() bool {
	if r.done {
		return false
	}
	if !r.started {
		r.started = true
		if !r.detect() {
			r.done = true
			return false
		}
	}
	var ok bool
	switch r.shape {
	case ShapeJSONL:
		ok = r.scanLine()
	default:
		ok = r.scanElement()
	}
	if !ok {
		r.done = true
	}
	return ok
}

func (r *Reader) fail(line, col int, format string, args ...any) bool {
	r.err = &InputError{File: r.name, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
	return false
}

// detect reads past a byte order mark and leading blank space and decides the shape.
func (r *Reader) detect() bool {
	if b, err := r.br.Peek(3); err == nil && bytes.Equal(b, []byte{0xEF, 0xBB, 0xBF}) {
		r.br.Discard(3)
		r.warnings = append(r.warnings, r.name+": a UTF-8 byte order mark was skipped")
	}
	first, err := r.peekNonSpace()
	if err == io.EOF {
		return false
	}
	if err != nil {
		r.err = &InputError{File: r.name, Msg: readErrMsg(err)}
		return false
	}
	switch first {
	case '[':
		r.shape = ShapeList
		return r.startWholeFile(nil)
	case '{':
		r.pendingCol, r.colSkip = r.colSkip, 0
		line, complete, err := r.readLine()
		if err != nil && err != io.EOF {
			return r.fail(0, 0, "%s", readErrMsg(err))
		}
		line = bytes.Clone(line) // it may sit in br's buffer, which peeking moves
		r.pendingLine = r.lines
		trimmed := bytes.TrimSpace(line)
		if complete && jsontext.Value(trimmed).IsValid() {
			// Only the end of the input makes a lone object a whole-file document; any
			// other byte (a NUL included) is the next JSONL line, read on its own.
			_, perr := r.peekNonSpace()
			if perr == io.EOF {
				r.shape = ShapeObject
				return r.startWholeFile(line)
			}
			if perr != nil {
				return r.fail(r.lines+1, 0, "%s", readErrMsg(perr))
			}
			r.shape = ShapeJSONL
			r.pending = line
			return true
		}
		if isIncomplete(trimmed) {
			r.shape = ShapeObject
			return r.startWholeFile(line)
		}
		r.shape = ShapeJSONL
		r.pending = line
		return true
	}
	r.shape = ShapeJSONL
	return true
}

// peekNonSpace skips JSON white space and returns the next byte without reading it.
// Lines skipped are counted.
func (r *Reader) peekNonSpace() (byte, error) {
	for {
		b, err := r.br.Peek(1)
		if err != nil {
			return 0, err
		}
		switch b[0] {
		case ' ', '\t', '\r':
			r.br.Discard(1)
			r.colSkip++
		case '\n':
			r.br.Discard(1)
			r.lines++
			r.colSkip = 0
		default:
			return b[0], nil
		}
	}
}

// isIncomplete reports whether text is a prefix of a JSON value cut short by the end
// of the line (rather than wrong in itself).
func isIncomplete(text []byte) bool {
	d := jsontext.NewDecoder(bytes.NewReader(text))
	_, err := d.ReadValue()
	return errors.Is(err, io.ErrUnexpectedEOF)
}

// readLine reads one physical line (without its newline) up to MaxLineBytes.
// complete is false when the line was cut at the limit; the rest is then skipped.
// A line that fits in br's buffer is returned in place, without a copy: it is
// valid until the next read.
func (r *Reader) readLine() (line []byte, complete bool, err error) {
	r.lineBuf = r.lineBuf[:0]
	for {
		chunk, e := r.br.ReadSlice('\n')
		if e == nil && len(r.lineBuf) == 0 && len(chunk) <= r.opts.MaxLineBytes {
			r.lines++
			line = chunk[:len(chunk)-1]
			if n := len(line); n > 0 && line[n-1] == '\r' {
				line = line[:n-1]
			}
			return line, true, nil
		}
		if len(r.lineBuf)+len(chunk) > r.opts.MaxLineBytes {
			// skip the rest of the line
			for e == bufio.ErrBufferFull {
				_, e = r.br.ReadSlice('\n')
			}
			r.lines++
			return nil, false, nil
		}
		r.lineBuf = append(r.lineBuf, chunk...)
		if e == bufio.ErrBufferFull {
			continue
		}
		if e != nil && e != io.EOF {
			return nil, false, e
		}
		if len(r.lineBuf) == 0 && e == io.EOF {
			return nil, false, io.EOF
		}
		r.lines++
		line = r.lineBuf
		if n := len(line); n > 0 && line[n-1] == '\n' {
			line = line[:n-1]
		}
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		return line, true, e
	}
}

func (r *Reader) scanLine() bool {
	for {
		var line []byte
		var complete bool
		lineNo, lead := r.pendingLine, r.pendingCol
		if r.pending != nil {
			line, complete, r.pending = r.pending, true, nil
		} else {
			lead, r.colSkip = r.colSkip, 0
			var err error
			line, complete, err = r.readLine()
			if err == io.EOF && line == nil {
				return false
			}
			if err != nil && err != io.EOF {
				return r.fail(r.lines+1, 0, "%s", readErrMsg(err))
			}
			lineNo = r.lines
		}
		if !complete {
			r.rec = Record{File: r.name, Line: lineNo, Col: 1, Index: r.index, inline: true,
				Err: &InputError{File: r.name, Line: lineNo, Col: 1,
					Msg: fmt.Sprintf("line is longer than %d bytes (raise the limit with --max-line-bytes)", r.opts.MaxLineBytes)}}
			r.index++
			return true
		}
		start := 0
		for start < len(line) && (line[start] == ' ' || line[start] == '\t') {
			start++
		}
		end := len(line)
		for end > start && (line[end-1] == ' ' || line[end-1] == '\t' || line[end-1] == '\r') {
			end--
		}
		if start == end {
			continue
		}
		col := start + 1 + lead
		r.rec = Record{File: r.name, Line: lineNo, Col: col, Index: r.index, Raw: line[start:end], inline: true}
		r.index++
		return true
	}
}

// startWholeFile sets up a streaming decoder over the rest of the file, prefixed by
// text already read.
func (r *Reader) startWholeFile(prefix []byte) bool {
	r.nl = &newlineIndex{}
	// Offsets count from the first byte of the document; lines already skipped are
	// added back when positions are computed.
	r.nl.lineBase = r.lines
	if prefix != nil {
		// the prefix was one physical line counted by readLine; its newline was cut
		r.nl.lineBase = r.lines - 1
		prefix = append(append([]byte(nil), prefix...), '\n')
	}
	src := io.MultiReader(bytes.NewReader(prefix), r.br)
	r.dec = jsontext.NewDecoder(r.nl.wrap(src))
	switch r.shape {
	case ShapeList:
		if _, err := r.dec.ReadToken(); err != nil {
			return r.decodeFail(err)
		}
		return true
	default:
		return r.startObject()
	}
}

// startObject reads a whole-file object into memory and decides whether it is one
// record or a batch.
func (r *Reader) startObject() bool {
	start := r.dec.InputOffset()
	val, err := r.dec.ReadValue()
	if err != nil {
		return r.decodeFail(err)
	}
	obj := append(jsontext.Value(nil), val...) // val is only valid until the next read
	if !r.atEOF() {
		return false
	}
	r.lines = r.nl.lineBase + r.nl.count()
	names, members, err := splitObject(obj)
	if err != nil {
		return r.decodeFail(err)
	}
	if r.opts.SingleRecord != nil && r.opts.SingleRecord(names) {
		r.single = &Record{File: r.name, Index: 0, Raw: obj}
		r.single.Line, r.single.Col = r.nl.position(start)
		r.dec = nil
		return true
	}
	r.header, r.headerAt, r.headerOf = members, start, obj
	for _, key := range slices.Concat(r.opts.ListKeys, r.opts.OtherListKeys) {
		list, ok := members[key]
		if !ok {
			continue
		}
		delete(r.header, key)
		if list.Kind() != '[' {
			l, c := r.nl.position(start + memberOffset(obj, list))
			return r.fail(l, c, "%q must be a JSON list of records", key)
		}
		base := start + memberOffset(obj, list)
		r.base = base
		r.dec = jsontext.NewDecoder(bytes.NewReader(list))
		r.dec.ReadToken()
		return true
	}
	l, c := r.nl.position(start)
	if len(r.opts.ListKeys) == 0 {
		return r.fail(l, c, "expected JSON lines or a JSON list of records, found one JSON object")
	}
	return r.fail(l, c, "a JSON object must be one record or hold the records in %s", quoteList(r.opts.ListKeys))
}

func quoteList(keys []string) string {
	s := ""
	for i, k := range keys {
		if i > 0 {
			s += " or "
		}
		s += strconv.Quote(k)
	}
	return s
}

// memberOffset returns the offset of sub (a slice of obj) within obj.
func memberOffset(obj, sub []byte) int64 {
	if len(sub) == 0 {
		return 0
	}
	return int64(cap(obj) - cap(sub))
}

// splitObject returns the member names of obj in order and its members by name
// (values are slices of obj).
func splitObject(obj jsontext.Value) ([]string, map[string]jsontext.Value, error) {
	d := jsontext.NewDecoder(bytes.NewReader(obj))
	if _, err := d.ReadToken(); err != nil {
		return nil, nil, err
	}
	var names []string
	members := map[string]jsontext.Value{}
	for d.PeekKind() != '}' {
		tok, err := d.ReadToken()
		if err != nil {
			return nil, nil, err
		}
		name := tok.String()
		off := d.InputOffset()
		v, err := d.ReadValue()
		if err != nil {
			return nil, nil, err
		}
		// re-slice obj so that the value keeps its position within obj
		vs := bytes.Index(obj[off:], v)
		members[name] = jsontext.Value(obj[off+int64(vs) : off+int64(vs)+int64(len(v))])
		names = append(names, name)
	}
	return names, members, nil
}

func (r *Reader) scanElement() bool {
	if r.single != nil {
		r.rec, r.single = *r.single, nil
		r.index++
		return true
	}
	if r.dec == nil {
		return false
	}
	if r.dec.PeekKind() == ']' {
		r.dec.ReadToken()
		if r.shape == ShapeList {
			r.atEOF()
			r.lines = r.nl.lineBase + r.nl.count()
		}
		r.dec = nil
		return false
	}
	off := r.dec.InputOffset()
	val, err := r.dec.ReadValue()
	if err != nil {
		return r.decodeFail(err)
	}
	lead := r.leadingSpace(off, val)
	line, col := r.nl.position(r.base + off + lead)
	r.rec = Record{File: r.name, Line: line, Col: col, Index: r.index, Raw: val}
	r.index++
	return true
}

// leadingSpace is how many bytes of separators and white space precede val in the
// input after offset off. jsontext reports the offset before the separator.
func (r *Reader) leadingSpace(off int64, val []byte) int64 {
	end := r.dec.InputOffset()
	return end - off - int64(len(val))
}

// atEOF checks that only white space follows the document.
func (r *Reader) atEOF() bool {
	off := r.dec.InputOffset()
	_, err := r.dec.ReadToken()
	if err == io.EOF {
		return true
	}
	l, c := r.nl.position(r.base + off)
	if err != nil {
		return r.decodeFail(err)
	}
	return r.fail(l, c, "unexpected data after the JSON document")
}

func (r *Reader) decodeFail(err error) bool {
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		l, c := r.nl.position(r.base + se.ByteOffset)
		msg := se.Err.Error()
		if errors.Is(se.Err, io.ErrUnexpectedEOF) {
			msg = "the file ends inside a JSON value (truncated?)"
		}
		return r.fail(l, c, "invalid JSON: %s", msg)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return r.fail(r.nl.lineBase+r.nl.count()+1, 0, "the file ends inside a JSON value (truncated?)")
	}
	return r.fail(0, 0, "%s", readErrMsg(err))
}

// readErrMsg words an I/O error of the input without repeating the file name the
// message already starts with ("read f: input/output error" becomes "cannot read:
// input/output error").
func readErrMsg(err error) string {
	// the innermost error is the operating system's word for it; the wrappers
	// (a path, the JSON decoder's "read error") only repeat what the line says
	for u := errors.Unwrap(err); u != nil; u = errors.Unwrap(u) {
		err = u
	}
	return "cannot read: " + err.Error()
}

// newlineIndex records the offsets of the newlines read through it, so byte offsets
// of a streamed document can be turned into line and column.
type newlineIndex struct {
	offsets  []int64
	read     int64
	lineBase int // physical lines before the document's first byte
}

func (n *newlineIndex) wrap(r io.Reader) io.Reader { return &nlReader{r: r, n: n} }

func (n *newlineIndex) count() int { return len(n.offsets) }

func (n *newlineIndex) position(off int64) (line, col int) {
	i := sort.Search(len(n.offsets), func(i int) bool { return n.offsets[i] >= off })
	line = n.lineBase + i + 1
	if i == 0 {
		return line, int(off) + 1
	}
	return line, int(off - n.offsets[i-1])
}

type nlReader struct {
	r io.Reader
	n *newlineIndex
}

func (t *nlReader) Read(p []byte) (int, error) {
	k, err := t.r.Read(p)
	for i := 0; i < k; {
		j := bytes.IndexByte(p[i:k], '\n')
		if j < 0 {
			break
		}
		t.n.offsets = append(t.n.offsets, t.n.read+int64(i+j))
		i += j + 1
	}
	t.n.read += int64(k)
	return k, err
}
