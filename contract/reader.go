package contract

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"

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
	// AnyDocument says that every kind of file fbeval reads or writes is a
	// record to the caller (fbeval validate): a whole-file document too long to
	// read is then not named as no file of records.
	AnyDocument bool
	// MaxLineBytes bounds one JSONL line (0: DefaultMaxLineBytes).
	MaxLineBytes int
	// LimitHint is the advice given with a record over MaxLineBytes (empty: raise
	// the limit with --max-line-bytes). A program without that flag says its own.
	LimitHint string
	// CutHint is the advice given with a last line that ends inside a JSON
	// value with no line end after it, which a writer cut short leaves (empty:
	// none): a scorer names the runner's resume, a runner the export.
	CutHint string
	// WrongFileHint, when set, is the advice given with a whole-file document
	// named by its schema_version as no file of records (a fixture, a study, a
	// report), or "" for none: what the reader's program does with such a file.
	WrongFileHint func(name, version string) string
	// TextHint, when set, is given the first bytes (up to 4 KiB) of an input
	// that starts as no JSON value, and returns what the file is and what to
	// do with it (one of fbeval's own text, HTML or XML outputs, say), or ""
	// when it cannot tell: the file is then that one error, not every line of
	// it rejected as invalid JSON.
	TextHint func(head []byte) string
	// ObjectHint, when set, is given the member names of a whole-file object
	// that is neither one record nor holds the records, and returns what to
	// do with it ("" for nothing more).
	ObjectHint func(names []string) string
	// LoneSurrogates accepts \u escapes of lone UTF-16 surrogates, as Python's json
	// reads them, for a suite whose decoder keeps them (strictjson.KeepSurrogates).
	// The bytes of the file must still be valid UTF-8.
	LoneSurrogates bool
	// RecordsChecked says that the caller parses every record strictly and
	// refuses what is no JSON, as it must a JSONL line: the elements of a list
	// or of a batch object's list are then handed over as the document
	// scanner finds them, by their structure, not parsed here first. An element
	// that is no JSON is then the caller's to refuse, as a JSONL line is, where
	// otherwise it ends the scan.
	RecordsChecked bool
}

// Record is one record of a file, or one line that could not be read as a record.
// Raw is the record's JSON text; in a JSONL file it has not been parsed yet (the
// suite's decoder parses it once, strictly) and it is valid only until the next
// call to Scan: copy what you keep.
type Record struct {
	File  string
	Line  int // 1-based line of the record's first byte
	Col   int // 1-based byte column of the record's first byte
	Index int // 0-based position among the file's records
	// Offset is where Raw begins in the input, in bytes from its first byte (a byte
	// order mark counted), so a reader of the same input can read the record again
	// (contract.Spool's ReadAt): the input's bytes at Offset are Raw.
	Offset int64
	Raw    []byte
	Err    error // non-nil: the line was rejected (an *InputError)
	inline bool  // Raw sits on one line
}

// Errorf returns an *InputError located at byte offset off of the record's text, of kind
// ErrField (set another with Of).
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
	return &InputError{File: r.File, Line: line, Col: col, Msg: fmt.Sprintf(format, args...), Kind: ErrField}
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
	single   *Record

	// JSONL state
	pending     []byte // a first line read while detecting the shape
	pendingLine int
	pendingCol  int
	pendingLong bool // the pending first line was over the limit
	colSkip     int  // blanks already consumed on the next line while detecting the shape
	lineBuf     []byte
	longHead    []byte // the first headBytes of the last line over the limit
	pos         int64  // bytes of the input consumed
	lineOff     int64  // where the line readLine last returned began
	pendingOff  int64  // where the pending first line began

	owned []*bufio.Reader // the read buffers, given back when done (release)

	// whole-file state
	doc   *docScanner // a list's elements, or an object's members
	first bool        // no list element read yet
	// stray is the place of the last list element when it starts with a
	// byte no JSON value starts with (a form feed, a comma): the fault is
	// there, not at the element after it
	stray      bool
	strayLine  int
	strayCol   int
	strayFirst rune
	// where the whole-file document begins in the input, and how its first line
	// was given back to the scanner (see docOffset)
	docStart, prefixLen, prefixDelta int64
	obj                              objectState // a whole-file object's
}

// objectState is where the reading of a whole-file object stands.
type objectState struct {
	line, col int   // of its '{'
	off       int64 // its offset in the document
	started   bool  // a member was read
	names     []string
	taped     []member          // the members read before its list, checked when the list starts
	headerPos map[string][2]int // line and column of each header value
	lists     []listMember      // the members that may hold the records, as found
	inList    bool              // reading the elements of its list
	listKey   string            // the member whose list is read ("" before one is)
}

// member is a member of a whole-file object read before its list: its name
// and value as the document scanner found them, and where each begins.
type member struct {
	name, raw           []byte
	nameLine, nameCol   int
	valueLine, valueCol int
}

// listMember is a member of a whole-file object named as the list of records
// may be (ReadOptions.ListKeys, OtherListKeys): whether its value is a list, and
// where the value begins.
type listMember struct {
	key       string
	isList    bool
	line, col int
}

// NewReader returns a Reader of r, which is named name in messages.
func NewReader(name string, r io.Reader, opts ReadOptions) *Reader {
	if opts.LimitHint == "" {
		opts.LimitHint = "raise the limit with --max-line-bytes"
	}
	if opts.MaxLineBytes <= 0 {
		opts.MaxLineBytes = DefaultMaxLineBytes
	}
	rd := &Reader{name: name, opts: opts}
	rd.br = rd.buffered(r)
	return rd
}

// Shape is the file's layout, known after the first call to Scan.
func (r *Reader) Shape() Shape { return r.shape }

// Lines is the number of physical lines read so far (JSONL), or of the whole file.
func (r *Reader) Lines() int { return r.lines }

// Warnings are soft problems noticed while reading (a byte order mark, say).
func (r *Reader) Warnings() []string { return r.warnings }

// Header holds the members of a batch object other than its record list.
func (r *Reader) Header() map[string]jsontext.Value { return r.header }

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
			r.release()
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
		r.release()
	}
	return ok
}

// readBufSize is the size of a Reader's read buffer.
const readBufSize = 256 << 10

// bufPool holds the read buffers of Readers that are done, so that the
// Readers of many files one after another (a batch engine's shards) read with
// the buffer of the one before, rather than new memory every file.
var bufPool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, readBufSize) }}

// buffered returns a read buffer over src from the pool, which the Reader
// gives back when it is done.
func (r *Reader) buffered(src io.Reader) *bufio.Reader {
	br := bufPool.Get().(*bufio.Reader)
	br.Reset(src)
	r.owned = append(r.owned, br)
	return br
}

// release gives the read buffers back once the scan is done: no record it
// returned is valid after the Scan that returned false.
func (r *Reader) release() {
	for _, br := range r.owned {
		br.Reset(nil)
		bufPool.Put(br)
	}
	r.owned, r.br, r.doc = nil, nil, nil
}

func (r *Reader) fail(kind error, line, col int, format string, args ...any) bool {
	r.err = &InputError{File: r.name, Line: line, Col: col, Msg: fmt.Sprintf(format, args...), Kind: kind}
	return false
}

// detect reads past a byte order mark and leading blank space and decides the shape.
func (r *Reader) detect() bool {
	if b, err := r.br.Peek(3); err == nil && bytes.Equal(b, utf8BOM) {
		r.br.Discard(3)
		r.pos += 3
		r.warnings = append(r.warnings, r.name+": a UTF-8 byte order mark was skipped")
	}
	if b, _ := r.br.Peek(EncodingMagic); len(b) > 0 {
		if err := WrongEncoding(r.name, b); err != nil {
			r.err = err.(*InputError)
			return false
		}
	}
	first, err := r.peekNonSpace()
	if err == io.EOF {
		return false
	}
	if ie := (*InputError)(nil); errors.As(err, &ie) {
		r.err = ie // the source's own word on what it read
		return false
	}
	if err != nil {
		r.err = &InputError{Kind: ErrRead, File: r.name, Msg: readErrMsg(err)}
		return false
	}
	switch first {
	case 0:
		// JSON text never holds a NUL byte, not even in a string
		return r.fail(ErrSyntax, r.lines+1, r.colSkip+1, "a NUL byte: this is not a JSON text file (JSONL, a JSON list or a JSON object)")
	case '[':
		r.shape = ShapeList
		return r.startWholeFile(nil, r.lines+1, r.colSkip+1)
	case '{':
		if r.longBatchHead() {
			// a batch object on one line longer than the buffer: read member
			// by member from here, not held as a line first
			r.shape = ShapeObject
			return r.startWholeFile(nil, r.lines+1, r.colSkip+1)
		}
		r.pendingCol, r.colSkip = r.colSkip, 0
		line, complete, err := r.readLine()
		if err == errBinary {
			return r.fail(ErrSyntax, r.lines+1, 0, "%s", err)
		}
		if err != nil && err != io.EOF {
			return r.fail(ErrRead, 0, 0, "%s", readErrMsg(err))
		}
		line = bytes.Clone(line) // it may sit in br's buffer, which peeking moves
		r.pendingLine = r.lines
		r.pendingOff = r.lineOff
		if !complete {
			// The first line is over the limit: a JSONL line to reject, unless it is
			// the whole file, then a JSON object too large to read.
			if _, perr := r.peekNonSpace(); perr == io.EOF {
				if version := VersionOf(r.longHead); version != "" && !r.opts.AnyDocument {
					if kind := FileKind(version); kind != "" && !RecordVersion(version) {
						return r.fail(ErrWrongFile, r.pendingLine, r.pendingCol+1, "this is %s (%s), not a file of records%s", kind, version, r.wrongFileHint(version, ""))
					}
				}
				return r.fail(ErrLimit, r.pendingLine, r.pendingCol+1, "one line of more than %d bytes: a JSON object this large cannot be read (%s, or write JSONL)", r.opts.MaxLineBytes, r.opts.LimitHint)
			} else if perr != nil {
				return r.fail(ErrRead, r.lines+1, 0, "%s", readErrMsg(perr))
			}
			r.shape = ShapeJSONL
			r.pendingLong = true
			return true
		}
		trimmed := bytes.TrimSpace(line)
		if r.batchWithRepeats(trimmed) {
			// a lone line that is a batch object but for a member given
			// twice: read as the object, which says which
			if _, perr := r.peekNonSpace(); perr == io.EOF {
				r.shape = ShapeObject
				r.lines--
				return r.startWholeFile(line, r.pendingLine, r.pendingCol+1)
			}
		}
		if jsontext.Value(trimmed).IsValid(r.jsonOptions()...) && r.validUTF8(trimmed) {
			// Only the end of the input makes a lone object a whole-file document; any
			// other byte (a NUL included) is the next JSONL line, read on its own.
			_, perr := r.peekNonSpace()
			if perr == io.EOF {
				r.shape = ShapeObject
				r.lines--
				return r.startWholeFile(line, r.pendingLine, r.pendingCol+1)
			}
			if perr != nil {
				return r.fail(ErrRead, r.lines+1, 0, "%s", readErrMsg(perr))
			}
			if v := VersionOf(trimmed); BatchVersion(v) {
				// a batch object on one line, then more: read as JSON
				// lines, its records were one rejected line
				return r.fail(ErrSyntax, r.lines+1, r.colSkip+1, "more follows the batch object of line %d (%s), which is a whole file: give the records one a line (JSONL), or all in the batch object's list", r.pendingLine, v)
			}
			r.shape = ShapeJSONL
			r.pending = line
			return true
		}
		if isIncomplete(trimmed) {
			r.shape = ShapeObject
			r.lines--
			return r.startWholeFile(line, r.pendingLine, r.pendingCol+1)
		}
		r.shape = ShapeJSONL
		r.pending = line
		return true
	}
	if r.opts.TextHint != nil {
		head, _ := r.br.Peek(4 << 10) // less at the end of the input
		if msg := r.opts.TextHint(head); msg != "" {
			return r.fail(ErrWrongFile, r.lines+1, r.colSkip+1, "%s", msg)
		}
	}
	r.shape = ShapeJSONL
	return true
}

// batchWithRepeats reports whether line is a JSON object that holds a
// member that may hold the records as a list, and is valid JSON but for a
// member name given twice.
func (r *Reader) batchWithRepeats(line []byte) bool {
	v := jsontext.Value(line)
	if len(v) == 0 || v[0] != '{' || v.IsValid(r.jsonOptions()...) || !v.IsValid(append(r.jsonOptions(), jsontext.AllowDuplicateNames(true))...) {
		return false
	}
	keys := slices.Concat(r.opts.ListKeys, r.opts.OtherListKeys)
	return FindMember(line, func(name string, kind jsontext.Kind) bool {
		return kind == '[' && slices.Contains(keys, name)
	})
}

// longBatchHead reports whether the input, at an object, is a batch object
// whose first line is longer than the read buffer: no line end in the buffer,
// and its members there lead to a list that may hold the records. Such a line
// is read as the object it is, member by member, where a line is read whole.
// A JSONL record has no such list, so a long first record is read as a line.
func (r *Reader) longBatchHead() bool {
	head, _ := r.br.Peek(r.br.Size())
	if len(head) < r.br.Size() || bytes.IndexByte(head, '\n') >= 0 {
		return false
	}
	keys := slices.Concat(r.opts.ListKeys, r.opts.OtherListKeys)
	return FindMember(head, func(name string, kind jsontext.Kind) bool {
		return kind == '[' && slices.Contains(keys, name)
	})
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
			r.pos++
			r.colSkip++
		case '\n':
			r.br.Discard(1)
			r.pos++
			r.lines++
			r.colSkip = 0
		default:
			return b[0], nil
		}
	}
}

// jsonOptions are the options of every jsontext check of the reader: invalid
// UTF-8 allowed with LoneSurrogates, as it is the only way to have jsontext pass a
// lone surrogate escape; validUTF8 then refuses what jsontext let through.
func (r *Reader) jsonOptions() []jsontext.Options {
	if r.opts.LoneSurrogates {
		return []jsontext.Options{jsontext.AllowInvalidUTF8(true)}
	}
	return nil
}

// validUTF8 reports whether text is valid UTF-8, where that is not left to jsontext.
func (r *Reader) validUTF8(text []byte) bool {
	return !r.opts.LoneSurrogates || utf8.Valid(text)
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
	r.lineOff = r.pos
	for {
		chunk, e := r.br.ReadSlice('\n')
		r.pos += int64(len(chunk))
		if e == nil && len(r.lineBuf) == 0 && len(chunk) <= r.opts.MaxLineBytes {
			r.lines++
			line = chunk[:len(chunk)-1]
			if n := len(line); n > 0 && line[n-1] == '\r' {
				line = line[:n-1]
			}
			return line, true, nil
		}
		if len(r.lineBuf)+len(chunk) > r.opts.MaxLineBytes {
			// its start, to say what a file of one long line is (VersionOf)
			head := append(r.longHead[:0], r.lineBuf[:min(len(r.lineBuf), headBytes)]...)
			r.longHead = append(head, chunk[:min(len(chunk), headBytes-len(head))]...)
			// skip the rest of the line; a NUL byte in it means the input is not
			// text at all (an endless /dev/zero has no line end to wait for)
			binary := bytes.IndexByte(r.lineBuf, 0) >= 0
			for !binary && e == bufio.ErrBufferFull {
				binary = bytes.IndexByte(chunk, 0) >= 0
				chunk, e = r.br.ReadSlice('\n')
				r.pos += int64(len(chunk))
			}
			if binary || bytes.IndexByte(chunk, 0) >= 0 {
				return nil, false, errBinary
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

// errBinary ends the reading of a line over the limit that holds a NUL byte.
var errBinary = errors.New("a NUL byte in a line longer than the limit: this is not a JSON text file")

// utf8BOM is the UTF-8 byte order mark.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

func (r *Reader) scanLine() bool {
	for {
		var line []byte
		var complete, unterminated bool
		lineNo, lead, off := r.pendingLine, r.pendingCol, r.pendingOff
		if r.pendingLong {
			r.pendingLong = false
		} else if r.pending != nil {
			line, complete, r.pending = r.pending, true, nil
		} else {
			lead, r.colSkip = r.colSkip, 0
			var err error
			line, complete, err = r.readLine()
			if err == io.EOF && line == nil {
				return false
			}
			unterminated = err == io.EOF
			if err == errBinary {
				return r.fail(ErrSyntax, r.lines+1, 0, "%s", err)
			}
			if err != nil && err != io.EOF {
				return r.fail(ErrRead, r.lines+1, 0, "%s", readErrMsg(err))
			}
			lineNo, off = r.lines, r.lineOff
		}
		if !complete {
			r.rec = Record{File: r.name, Line: lineNo, Col: 1, Index: r.index, Offset: off, inline: true,
				Err: &InputError{Kind: ErrLimit, File: r.name, Line: lineNo, Col: 1,
					Msg: fmt.Sprintf("line is longer than %d bytes (%s)", r.opts.MaxLineBytes, r.opts.LimitHint)}}
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
		r.rec = Record{File: r.name, Line: lineNo, Col: col, Index: r.index, Offset: off + int64(start), Raw: line[start:end], inline: true}
		if r.rec.Raw[0] == 0xEF { // a byte order mark's first byte
			r.markMidFile()
		}
		if unterminated {
			if msg, at := lastLineCut(line[start:end]); msg != "" {
				if r.opts.CutHint != "" {
					msg += " (" + r.opts.CutHint + ")"
				}
				r.rec.Err = &InputError{Kind: ErrSyntax, File: r.name, Line: lineNo, Col: col + at, Msg: msg, Advised: r.opts.CutHint != ""}
			}
		}
		r.index++
		return true
	}
}

// markMidFile makes the record an error when it begins with a byte order
// mark: the file's own was read past (detect), so this one came with a file
// joined to it (cat keeps each file's).
func (r *Reader) markMidFile() {
	if bytes.HasPrefix(r.rec.Raw, utf8BOM) {
		r.rec.Err = &InputError{Kind: ErrSyntax, File: r.name, Line: r.rec.Line, Col: r.rec.Col, Msg: "the line begins with a UTF-8 byte order mark, which only a file's start may have (files joined with cat keep each one's): give the files on their own, or strip the marks (sed 's/^\\xEF\\xBB\\xBF//')"}
	}
}

// lastLineCut says how a last line with no line end was cut short while it was
// written, and where (an offset in raw), or returns "" for a line that is read
// as any line is. Zero bytes at its end are what a crash leaves where the last
// writes were (the file's size was set, its data not written): they end the
// record wherever it stops.
func lastLineCut(raw []byte) (msg string, at int) {
	const cut = "the file was cut short while it was written"
	body := bytes.TrimRight(raw, "\x00")
	if zeros := len(raw) - len(body); zeros > 0 {
		if len(bytes.TrimSpace(body)) == 0 {
			return Plural(zeros, "zero byte", "zero bytes") + " where a record should be, on a last line with no line end: " + cut, 0
		}
		return "invalid JSON: the record ends in " + Plural(zeros, "zero byte", "zero bytes") + ", on a last line with no line end: " + cut, len(body)
	}
	if cutShort(raw) {
		// placed where the value stops, as the decoder would place it
		return "invalid JSON: the record ends inside a JSON value, on a last line with no line end: " + cut, len(raw)
	}
	return "", 0
}

// cutShort reports whether raw is the start of a JSON value that the end of
// the input cut short, not a value that is wrong where it stops.
func cutShort(raw []byte) bool {
	_, err := jsontext.NewDecoder(bytes.NewReader(raw), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)).ReadValue()
	return errors.Is(err, io.ErrUnexpectedEOF)
}

// startWholeFile sets up the document scanner over the rest of the file, prefixed by
// text already read (the first line, which began at line, col).
func (r *Reader) startWholeFile(prefix []byte, line, col int) bool {
	r.docStart = r.pos
	if prefix != nil {
		// the prefix is the pending first line, given back with the line end
		// it had where that was "\r\n" (a record that goes on past it is
		// then the file's bytes, at its offset), else with a '\n' in place of
		// the line end it had (none, or "\n" with a byte order mark cut
		// before the line)
		end := lineEnd
		if r.pos-r.pendingOff-int64(len(prefix)) == 2 {
			end = crlf
		}
		r.docStart = r.pendingOff
		r.prefixLen = int64(len(prefix) + len(end))
		r.prefixDelta = r.pos - r.pendingOff - r.prefixLen
		// the prefix was one physical line counted by readLine; its newline was cut
		src := io.MultiReader(bytes.NewReader(prefix), bytes.NewReader(end), r.br)
		r.br = r.buffered(src)
	}
	r.lineBuf = nil // no more lines are read: a long first line's buffer goes
	r.doc = &docScanner{br: r.br, line: line, col: col, limit: r.opts.MaxLineBytes, maxDepth: MaxDepth}
	switch r.shape {
	case ShapeList:
		r.doc.skip()                  // '['
		r.doc.maxDepth = MaxDepth - 1 // the list is one level
		r.first = true
		return true
	default:
		return r.startObject()
	}
}

// startObject reads a whole-file object member by member. Until a member
// that may hold the records (ListKeys, OtherListKeys) opens a list, the
// object's bytes are kept (the document scanner's tape, up to the limit): an
// object that ends without such a list is decided whole (wholeObject), as one
// record or the error that says what it is. A list is read one element at a
// time, as a whole-file list is, so a batch object of any size is read in the
// memory of one record; the members after it are read as those before it were,
// and the object is checked at its end (endObject).
func (r *Reader) startObject() bool {
	d := r.doc
	r.obj = objectState{line: d.line, col: d.col, off: d.off, headerPos: map[string][2]int{}}
	r.header = map[string]jsontext.Value{}
	d.taping, d.tape, d.tapeOver = true, nil, false
	d.skip() // '{'
	return r.members()
}

// members reads the object's members up to its list, which it starts (true:
// records follow), or up to its end (endObject).
func (r *Reader) members() bool {
	d := r.doc
	for {
		b, err := d.space()
		if err != nil {
			return r.docFail(err)
		}
		if b == '}' {
			d.skip()
			return r.endObject()
		}
		if r.obj.started {
			if b != ',' {
				return r.fail(ErrSyntax, d.line, d.col, "invalid JSON: expected ',' or '}' after an object member, found %s", quoteByte(b))
			}
			d.skip()
			if b, err = d.space(); err != nil {
				return r.docFail(err)
			}
		}
		r.obj.started = true
		if b != '"' {
			return r.fail(ErrSyntax, d.line, d.col, "invalid JSON: expected a member name, found %s", quoteByte(b))
		}
		m := member{nameLine: d.line, nameCol: d.col}
		raw, tooLong, err := d.value()
		if err != nil {
			return r.docFail(err)
		}
		if tooLong {
			return r.memberTooLong(m.nameLine, m.nameCol)
		}
		m.name = bytes.Clone(raw)
		if b, err = d.space(); err != nil {
			return r.docFail(err)
		}
		if b != ':' {
			return r.fail(ErrSyntax, d.line, d.col, "invalid JSON: expected ':' after an object member name, found %s", quoteByte(b))
		}
		d.skip()
		if b, err = d.space(); err != nil {
			return r.docFail(err)
		}
		m.valueLine, m.valueCol = d.line, d.col
		if b == '[' && r.obj.listKey == "" && !d.tapeOver {
			if key, ok := r.listKeyOf(m.name); ok && !r.recordSoFar(key) {
				// the list of records: the members before it are checked
				// now, the tape dropped, and the list read element by element
				r.obj.lists = append(r.obj.lists, listMember{key: key, isList: true, line: m.valueLine, col: m.valueCol})
				r.obj.listKey = key
				if !r.keepTaped(m) {
					return false
				}
				d.taping, d.tape = false, nil
				d.skip() // '['
				d.maxDepth = MaxDepth - 2
				r.obj.inList, r.first = true, true
				return true
			}
		}
		raw, tooLong, err = d.value()
		if err != nil {
			return r.docFail(err)
		}
		if tooLong {
			return r.memberTooLong(m.valueLine, m.valueCol)
		}
		m.raw = raw
		if r.obj.listKey == "" {
			// before the list: kept as read, for the object whole or for
			// checking when the list starts
			m.raw = bytes.Clone(raw)
			r.obj.taped = append(r.obj.taped, m)
			continue
		}
		if !r.keepMember(m) {
			return false
		}
	}
}

// recordSoFar reports whether the members read before the list, with the
// list's own, already make the object one record (ReadOptions.SingleRecord):
// it is then read whole, as such a record is, its list a member of it.
func (r *Reader) recordSoFar(key string) bool {
	if r.opts.SingleRecord == nil {
		return false
	}
	names := []string{key}
	for _, m := range r.obj.taped {
		if tok, err := jsontext.NewDecoder(bytes.NewReader(m.name), jsontext.AllowInvalidUTF8(true)).ReadToken(); err == nil {
			names = append(names, tok.String())
		}
	}
	return r.opts.SingleRecord(names)
}

// listKeyOf reports whether the member name (its JSON text) is one of the
// members that may hold the records, and which.
func (r *Reader) listKeyOf(name []byte) (string, bool) {
	for _, key := range slices.Concat(r.opts.ListKeys, r.opts.OtherListKeys) {
		if string(name) == strconv.Quote(key) {
			return key, true
		}
	}
	// a name written with escapes
	if bytes.IndexByte(name, '\\') >= 0 {
		if tok, err := jsontext.NewDecoder(bytes.NewReader(name), r.jsonOptions()...).ReadToken(); err == nil {
			n := tok.String()
			for _, key := range slices.Concat(r.opts.ListKeys, r.opts.OtherListKeys) {
				if n == key {
					return key, true
				}
			}
		}
	}
	return "", false
}

// keepTaped checks the members read before the list (up to the list's own
// member, m) strictly, as the object whole would have been, and keeps them in
// the header.
func (r *Reader) keepTaped(list member) bool {
	for _, m := range r.obj.taped {
		if !r.keepMember(m) {
			return false
		}
	}
	r.obj.taped = nil
	return r.keepMember(list) // its raw is nil: its value is the list being read
}

// keepMember checks a member's name and value strictly and keeps it in the
// header, or among the members that may hold the records (a value that is
// not the list being read); a nil raw is the list's own member, whose name
// alone is checked.
func (r *Reader) keepMember(m member) bool {
	name := &Record{File: r.name, Line: m.nameLine, Col: m.nameCol, Raw: m.name}
	if !r.checkValue(name) {
		return false
	}
	tok, err := jsontext.NewDecoder(bytes.NewReader(m.name), jsontext.AllowInvalidUTF8(true)).ReadToken()
	if err != nil {
		return r.fail(ErrSyntax, m.nameLine, m.nameCol, "invalid JSON: %v", err)
	}
	n := tok.String()
	if slices.Contains(r.obj.names, n) {
		if _, ok := r.listKeyOf(m.name); ok {
			return r.fail(ErrShape, m.nameLine, m.nameCol, "the object holds %q twice: keep the records in one list (Python's json, which the reference scorer reads with, keeps the last; other readers the first)", n)
		}
		return r.fail(ErrSyntax, m.nameLine, m.nameCol, "invalid JSON: %s", DuplicateMember(n))
	}
	r.obj.names = append(r.obj.names, n)
	if m.raw == nil {
		return true
	}
	value := &Record{File: r.name, Line: m.valueLine, Col: m.valueCol, Raw: m.raw}
	if !r.checkValue(value) {
		return false
	}
	if key, ok := r.listKeyOf(m.name); ok {
		r.obj.lists = append(r.obj.lists, listMember{key: key, isList: m.raw[0] == '[', line: m.valueLine, col: m.valueCol})
		return true
	}
	r.header[n] = jsontext.Value(bytes.Clone(m.raw))
	r.obj.headerPos[n] = [2]int{m.valueLine, m.valueCol}
	return true
}

// endObject decides the object at its '}': read whole when no list was, else
// a batch whose records were read, checked now as the object whole would
// have been.
func (r *Reader) endObject() bool {
	d := r.doc
	if r.obj.listKey == "" {
		if d.tapeOver {
			return r.objectTooLong()
		}
		obj := d.tape
		d.taping, d.tape = false, nil
		r.obj.taped = nil
		return r.wholeObject(obj)
	}
	if !r.atEOF() {
		return false
	}
	if r.opts.SingleRecord != nil && r.opts.SingleRecord(r.obj.names) {
		// read whole, this object would have been one record, its list a
		// member of it; its records are read already (a record's members
		// before the list are met in time: recordSoFar)
		return r.fail(ErrShape, r.obj.line, r.obj.col, "the object is one record (it has the members of one) and holds a list of records in %q: give one or the other", r.obj.listKey)
	}
	// as the object whole would be decided: the members in the order of
	// preference, the first a list, and no second
	found := ""
	for _, key := range slices.Concat(r.opts.ListKeys, r.opts.OtherListKeys) {
		i := slices.IndexFunc(r.obj.lists, func(l listMember) bool { return l.key == key })
		if i < 0 {
			continue
		}
		l := r.obj.lists[i]
		if found != "" {
			return r.fail(ErrShape, l.line, l.col, "the object holds both %q and %q: keep the records in one list (the reference scorer reads only %q)", found, key, found)
		}
		found = key
		if !l.isList {
			return r.fail(ErrShape, l.line, l.col, "%q must be a JSON list of records", key)
		}
	}
	return false
}

// memberTooLong is the error of a member name or value (at line, col) over
// the limit: before the list, the object's (the object must then be read
// whole, which it cannot be); after it, the member's own.
func (r *Reader) memberTooLong(line, col int) bool {
	if r.obj.listKey == "" {
		return r.objectTooLong()
	}
	return r.fail(ErrLimit, line, col, "a member of the object after its list of records is longer than %d bytes (%s)", r.opts.MaxLineBytes, r.opts.LimitHint)
}

// objectTooLong is the error of an object whose members before its list
// (or the whole of it) are over the limit: what it is, when its schema_version
// says so, else the limit.
func (r *Reader) objectTooLong() bool {
	head := r.doc.tapeHead
	if version := VersionOf(head); version != "" && !r.opts.AnyDocument {
		if kind := FileKind(version); kind != "" && !RecordVersion(version) {
			return r.fail(ErrWrongFile, r.obj.line, r.obj.col, "this is %s (%s), not a file of records%s", kind, version, r.wrongFileHint(version, ""))
		}
	}
	return r.fail(ErrLimit, r.obj.line, r.obj.col, "a JSON object longer than %d bytes cannot be read whole (%s; or write JSONL, which is read one line at a time)", r.opts.MaxLineBytes, r.opts.LimitHint)
}

// wholeObject decides an object with no list of records, read whole: one
// record, or the error that says what it is.
func (r *Reader) wholeObject(raw []byte) bool {
	line, col := r.obj.line, r.obj.col
	obj := jsontext.Value(raw)
	at := &Record{File: r.name, Line: line, Col: col, Offset: r.docOffset(r.obj.off), Raw: obj}
	if !r.checkValue(at) || !r.atEOF() {
		return false
	}
	names, members, err := splitObject(obj, r.jsonOptions()...)
	if err != nil {
		return r.fail(ErrSyntax, line, col, "invalid JSON: %v", err)
	}
	if r.opts.ListKeys != nil {
		// a dataframe's table, one object for the whole file (by columns
		// it has a record's member names)
		if what := TableForm(obj); what != "" {
			return r.fail(ErrShape, line, col, "this is %s", what)
		}
	}
	if r.opts.SingleRecord != nil && r.opts.SingleRecord(names) {
		r.single = at
		return true
	}
	// a member that may hold the records is here no list (a list would have
	// been read as one: startObject)
	cursor := lineCursor{data: obj, line: line, col: col}
	for _, key := range slices.Concat(r.opts.ListKeys, r.opts.OtherListKeys) {
		if v, ok := members[key]; ok {
			l, c := cursor.at(memberOffset(obj, v))
			return r.fail(ErrShape, l, c, "%q must be a JSON list of records", key)
		}
	}
	if len(r.opts.ListKeys) == 0 {
		return r.fail(ErrShape, line, col, "expected JSON lines or a JSON list of records, found one JSON object")
	}
	// a document that is no file of records (a provider's reply, a report, a
	// fixture, a study) says what it is
	if what := ProviderRecord(obj); what != "" {
		return r.fail(ErrWrongFile, line, col, "this is %s", what)
	}
	if v, ok := members["schema_version"]; ok && v.Kind() == '"' {
		if tok, err := jsontext.NewDecoder(bytes.NewReader(v)).ReadToken(); err == nil {
			if version, kind := tok.String(), FileKind(tok.String()); kind != "" && !RecordVersion(version) {
				return r.fail(ErrWrongFile, line, col, "this is %s (%s), not a file of records%s", kind, version,
					r.wrongFileHint(version, fmt.Sprintf("a JSON object must be one record or hold the records in %s", quoteList(r.opts.ListKeys))))
			}
		}
	}
	msg := "a JSON object must be one record or hold the records in " + quoteList(r.opts.ListKeys)
	if r.opts.SingleRecord == nil {
		msg = "a JSON object must hold the records in " + quoteList(r.opts.ListKeys)
	}
	if r.opts.ObjectHint != nil {
		if hint := r.opts.ObjectHint(names); hint != "" {
			msg += ": " + hint
		}
	}
	return r.fail(ErrShape, line, col, "%s", msg)
}

// wrongFileHint is the advice given with a document of version that is no file
// of records: the caller's (ReadOptions.WrongFileHint), else otherwise; with
// the colon that puts it after the message.
func (r *Reader) wrongFileHint(version, otherwise string) string {
	hint := otherwise
	if r.opts.WrongFileHint != nil {
		if h := r.opts.WrongFileHint(r.name, version); h != "" {
			hint = h
		}
	}
	if hint == "" {
		return ""
	}
	return ": " + hint
}

// HeaderPosition returns the line and column of the value of the batch object's
// member name (see Header); 0, 0 when there is none.
func (r *Reader) HeaderPosition(name string) (line, col int) {
	p, ok := r.obj.headerPos[name]
	if !ok {
		return 0, 0
	}
	return p[0], p[1]
}

// checkValue parses the text of a value found by the document scanner strictly; a
// syntax error ends the scan at its position.
func (r *Reader) checkValue(rec *Record) bool {
	d := jsontext.NewDecoder(bytes.NewReader(rec.Raw), r.jsonOptions()...)
	_, err := d.ReadValue()
	if err == nil && !r.validUTF8(rec.Raw) {
		// what jsontext passed only because invalid UTF-8 was allowed
		d = jsontext.NewDecoder(bytes.NewReader(rec.Raw))
		_, err = d.ReadValue()
	}
	var off int64
	msg := ""
	var se *jsontext.SyntacticError
	switch {
	case errors.As(err, &se):
		off, msg = se.ByteOffset, se.Err.Error()
		if errors.Is(se.Err, io.ErrUnexpectedEOF) {
			msg = "the value ends too early"
		}
	case err != nil:
		msg = "the value ends too early"
		off = int64(len(rec.Raw))
	case d.InputOffset() != int64(len(rec.Raw)):
		off, msg = d.InputOffset(), "unexpected data after a JSON value"
	default:
		return true
	}
	e := rec.Errorf(off, "invalid JSON: %s", msg).Of(ErrSyntax)
	r.err = e
	return false
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
func splitObject(obj jsontext.Value, opts ...jsontext.Options) ([]string, map[string]jsontext.Value, error) {
	d := jsontext.NewDecoder(bytes.NewReader(obj), opts...)
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
		r.rec.Index = r.index
		r.index++
		return true
	}
	if r.shape == ShapeList || r.obj.inList {
		return r.scanListElement()
	}
	return false
}

// scanListElement reads the next element of a whole-file list.
func (r *Reader) scanListElement() bool {
	d := r.doc
	if d == nil {
		return false
	}
	b, err := d.space()
	if err != nil {
		return r.docFail(err)
	}
	if b == ']' {
		d.skip()
		if r.shape == ShapeObject {
			// the batch object's list ends: its other members, then its end
			r.obj.inList = false
			d.maxDepth = MaxDepth
			return r.members()
		}
		r.doc = nil
		r.atEOFDoc(d)
		return false
	}
	if !r.first {
		if b != ',' {
			if r.stray {
				// as the record's own check words it (jsontext's)
				return r.fail(ErrSyntax, r.strayLine, r.strayCol, "invalid JSON: invalid character %s at start of value", strconv.QuoteRune(r.strayFirst))
			}
			return r.fail(ErrSyntax, d.line, d.col, "invalid JSON: expected ',' or ']' after a list element, found %s", quoteByte(b))
		}
		line, col := d.line, d.col
		d.skip()
		next, err := d.space()
		if err != nil {
			return r.docFail(err)
		}
		if next == ']' {
			return r.fail(ErrSyntax, line, col, "invalid JSON: a comma before the closing ']', which JSON does not allow: remove it")
		}
	}
	r.first = false
	line, col, off := d.line, d.col, d.off
	raw, tooLong, err := d.value()
	if err != nil {
		return r.docFail(err)
	}
	r.rec = Record{File: r.name, Line: line, Col: col, Index: r.index, Offset: r.docOffset(off), Raw: raw}
	r.index++
	r.stray = len(raw) > 0 && !valueStart(raw[0])
	if r.stray {
		first, _ := utf8.DecodeRune(raw) // a character, not its first byte (“)
		r.strayLine, r.strayCol, r.strayFirst = line, col, first
	}
	if tooLong {
		r.rec.Raw = nil
		r.rec.Err = &InputError{Kind: ErrLimit, File: r.name, Line: line, Col: col,
			Msg: fmt.Sprintf("a record longer than %d bytes (%s)", r.opts.MaxLineBytes, r.opts.LimitHint)}
		return true
	}
	if r.opts.RecordsChecked {
		return true
	}
	return r.checkValue(&r.rec)
}

// valueStart reports whether a JSON value may start with byte b (a word,
// nope, is a value to reject too: only bytes that start none are stray).
func valueStart(b byte) bool {
	switch {
	case b == '{', b == '[', b == '"', b == '-', b >= '0' && b <= '9', b >= 'a' && b <= 'z', b >= 'A' && b <= 'Z':
		return true
	}
	return false
}

func quoteByte(b byte) string {
	if b < 0x20 || b >= 0x7f {
		return fmt.Sprintf("byte 0x%02x", b)
	}
	return strconv.QuoteRune(rune(b))
}

// docOffset is the input offset of the byte at offset off of the whole-file document.
func (r *Reader) docOffset(off int64) int64 {
	if r.prefixLen > 0 && off >= r.prefixLen {
		off += r.prefixDelta
	}
	return r.docStart + off
}

// atEOF checks that only white space follows the whole-file document.
func (r *Reader) atEOF() bool { return r.atEOFDoc(r.doc) }

func (r *Reader) atEOFDoc(d *docScanner) bool {
	b, err := d.space()
	r.lines = d.line - 1
	if d.col > 1 {
		r.lines++ // a last line without its line end is a line too, as in JSON lines
	}
	if err == io.EOF {
		return true
	}
	if err != nil {
		return r.docFail(err)
	}
	if b == '{' {
		// `jq . responses.jsonl > out.jsonl`: each record over several lines
		return r.fail(ErrSyntax, d.line, d.col, "another JSON object follows the first: records pretty-printed one after another (as jq writes them without -c) are not read; give one record a line (jq -c), a JSON list or a batch object")
	}
	return r.fail(ErrSyntax, d.line, d.col, "unexpected data after the JSON document")
}

// docFail ends the scan on an error of the document scanner, at its position.
func (r *Reader) docFail(err error) bool {
	d := r.doc
	switch {
	case err == io.ErrUnexpectedEOF || err == io.EOF:
		return r.fail(ErrSyntax, d.line, d.col, "invalid JSON: the file ends inside a JSON value (truncated?)")
	case errors.As(err, new(errTooDeep)):
		return r.fail(ErrLimit, d.line, d.col-1, "invalid JSON: exceeded max depth")
	}
	return r.fail(ErrRead, 0, 0, "%s", readErrMsg(err))
}

// lineCursor turns offsets into a text held in memory into lines and columns,
// walking forward from the last offset asked for.
type lineCursor struct {
	data      []byte
	off       int64
	line, col int
	line0     int
	col0      int
	started   bool
}

func (c *lineCursor) at(off int64) (line, col int) {
	if !c.started {
		c.started, c.line0, c.col0 = true, c.line, c.col
	}
	if off < c.off {
		c.off, c.line, c.col = 0, c.line0, c.col0
	}
	if off > int64(len(c.data)) {
		off = int64(len(c.data))
	}
	for _, b := range c.data[c.off:off] {
		if b == '\n' {
			c.line++
			c.col = 1
		} else {
			c.col++
		}
	}
	c.off = off
	return c.line, c.col
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
