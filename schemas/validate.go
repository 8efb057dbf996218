package schemas

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/contract/pipeline"
)

// Problem is one reason a file does not match its schema, located at the value it
// is about.
type Problem struct {
	File    string
	Line    int    // 1-based; 0 when unknown
	Col     int    // 1-based byte column; 0 when unknown
	Pointer string // RFC 6901 pointer into the record ("" is the record itself)
	Message string
	// Read is true when the record could not be read at all (bad JSON, a line too
	// long); Pointer is then meaningless.
	Read bool
}

// String formats the problem as file:line:col: pointer: message, the root pointer
// written as "(root)" and a read problem without a pointer.
func (p Problem) String() string {
	e := contract.InputError{File: p.File, Line: p.Line, Col: p.Col, Msg: p.Message}
	if !p.Read {
		ptr := p.Pointer
		if ptr == "" {
			ptr = "(root)"
		}
		e.Msg = ptr + ": " + p.Message
	}
	return e.Error()
}

// sortProblems orders problems by position, then pointer and message: the
// validator finds them in no fixed order.
func sortProblems(ps []Problem) {
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		if a.Pointer != b.Pointer {
			return a.Pointer < b.Pointer
		}
		return a.Message < b.Message
	})
}

// Options configures a validation.
type Options struct {
	// Schema, when set, is the schema every record is checked against, whatever
	// its schema_version says (a wrong version is then reported by the schema).
	// When empty, each record's schema_version chooses its schema, and a record
	// without one is a problem.
	Schema string
	// MaxLineBytes bounds one JSONL line (0: contract.DefaultMaxLineBytes).
	MaxLineBytes int
	// TextHint names a file that starts as no JSON value, as one problem
	// (contract.ReadOptions.TextHint); nil: its lines are each invalid JSON.
	TextHint func(head []byte) string
	// Workers is how many goroutines check records (0: one per core); the
	// problems are the same, in the same order, at any number.
	Workers int
	// Document, when set, checks a file that is one JSON object beyond its
	// schema, as the command that reads such a file checks it (fbeval
	// validate passes a contract's loader: a misspelt keyword checks
	// nothing): its error is a problem of the file.
	Document func(file string, raw []byte) error

	// fileVersion is the schema_version of the file's first record when it
	// is a record's (a request or a response): every record of the file
	// must be of its kind, as the command reading the file takes one.
	fileVersion string
	// fileToolcall is set when the file's first record is a toolcall
	// response (fbeval-response/v1 with a request_id): the toolcall scorer
	// rejects a CogLang response among them, which the CogLang scorer would
	// read beside its own.
	fileToolcall bool
}

// refuseBOM are the schemas of the files fbeval's commands refuse with a
// byte order mark (a contract, a report, a CogLang result, a context, a
// dataset): response and request files, a CogLang fixture and a study, which
// the readers take with one, are not among them.
var refuseBOM = []string{"fbeval-contract", "fbeval-report", "coglang-generation-eval-result", "fbeval-context", "fbeval-toolcall-case"}

// Stats counts what a validation saw.
type Stats struct {
	Records int // records read, including unreadable lines
	Invalid int // records with at least one problem
	// Schema is the schema every record was checked against, when one was
	// (Options.Schema, or the one a file without schema_version is of: a
	// toolcall dataset's); "" when each record's version chose its own
	Schema string
}

// Validator checks contract files against the embedded schemas. It is safe for
// concurrent use.
type Validator struct {
	schemas map[string]*jsonschema.Schema
}

// NewValidator returns a Validator. The schemas are compiled once per process.
func NewValidator() (*Validator, error) {
	m, err := compiled()
	if err != nil {
		return nil, errors.New(oneLine(err))
	}
	return &Validator{schemas: m}, nil
}

// ValidateFile validates data, the contents of the file called file, and returns its
// problems sorted. See Validate.
func ValidateFile(file string, data []byte, opts Options) []Problem {
	v, err := NewValidator()
	if err != nil {
		return []Problem{{File: file, Message: err.Error(), Read: true}}
	}
	return v.ValidateFile(file, data, opts)
}

// ValidateFile validates data, the contents of the file called file, and returns its
// problems sorted. See Validate.
func (v *Validator) ValidateFile(file string, data []byte, opts Options) []Problem {
	var out []Problem
	v.Validate(file, bytes.NewReader(data), opts, func(p Problem) { out = append(out, p) })
	return out
}

// Validate reads the records of r (JSONL, a JSON list of records, or one JSON
// document), checks each against its schema and calls emit for every problem, in
// order of position: records are checked as they are read, a batch at a time on
// opts.Workers goroutines, and emit is called on one goroutine at a time, so a
// long JSONL file needs no more memory than the batches in flight (a few
// hundred KB a worker) and its longest line.
func (v *Validator) Validate(file string, r io.Reader, opts Options, emit func(Problem)) Stats {
	var st Stats
	if opts.Schema != "" {
		if _, ok := v.schemas[opts.Schema]; !ok {
			emit(Problem{File: file, Message: fmt.Sprintf("unknown schema %q (known: %s)", opts.Schema, strings.Join(Names(), ", ")), Read: true})
			return st
		}
	}
	rd := contract.NewReader(file, r, contract.ReadOptions{
		// A whole-file object is one document; batches are described by their own
		// schemas rather than split into records.
		SingleRecord: func([]string) bool { return true },
		AnyDocument:  true,
		MaxLineBytes: opts.MaxLineBytes,
		TextHint:     opts.TextHint,
	})
	// records are checked on the workers, a batch at a time, and their
	// problems emitted in input order
	p := pipeline.New(opts.Workers, func() func(*pipeline.Batch[[]Problem]) {
		return func(b *pipeline.Batch[[]Problem]) {
			for i := range b.Len() {
				rec := contract.Record{File: file, Line: b.Lines[i], Col: b.Cols[i], Raw: b.Record(i), Err: b.Errs[i]}
				ps := v.record(&rec, opts, b.Out[i][:0])
				sortProblems(ps)
				b.Out[i] = ps
			}
		}
	}, func(b *pipeline.Batch[[]Problem]) bool {
		for _, ps := range b.Out {
			if len(ps) > 0 {
				st.Invalid++
			}
			for _, p := range ps {
				emit(p)
			}
		}
		return true
	})
	var first []byte // the file's first record, its one JSON object when rd.Shape() is one
	whole := false   // a problem of the whole file was said (its byte order mark first)
	for rd.Scan() {
		rec := rd.Record()
		st.Records++
		if st.Records == 1 && rec.Err == nil {
			first = slices.Clone(rec.Raw)
			if opts.Schema == "" {
				// the files fbeval reads that have no schema_version: their
				// schema by their members (read by the workers after this
				// record is added)
				opts.Schema = unversioned(first)
			}
			if _, version := contract.KindOf(first); contract.RecordVersion(version) && opts.Schema == "" {
				opts.fileVersion = version // read by the workers after this record is added
				keys, _ := contract.TopLevel(first)
				opts.fileToolcall = version == contract.ResponseV1 && keys["request_id"]
			}
			if p, ok := bomProblem(file, first, rd.Warnings(), opts); ok {
				emit(p)
				whole = true
			}
		}
		if st.Records == 1 && opts.Schema == "" && rec.Err == nil {
			// a provider's own file (an OpenAI Batch output, say): one problem
			// that names the step skipped, not one per line
			if what := contract.ProviderRecord(rec.Raw); what != "" {
				p.Close()
				emit(Problem{File: rec.File, Line: rec.Line, Col: rec.Col, Message: "this is " + what + "; fbeval validate checks the contract files fbeval reads and writes", Read: true})
				for rd.Scan() { // counted, each as the first
					st.Records++
				}
				st.Invalid = st.Records
				return st
			}
		}
		p.Add(0, rec)
	}
	p.Close()
	st.Schema = opts.Schema
	if err := rd.Err(); err != nil {
		emit(readProblem(file, err))
		st.Invalid++
	} else if first != nil {
		document := rd.Shape() == contract.ShapeObject && st.Records == 1
		if opts.Document != nil && document && st.Invalid == 0 {
			// a file of one JSON object that meets its schema: what the
			// command reading it refuses beyond the schema
			if err := opts.Document(file, first); err != nil {
				emit(readProblem(file, err))
				whole = true
			}
		}
		if whole {
			st.Invalid = max(st.Invalid, 1)
		}
	} else if st.Records == 0 {
		// nothing checked is no pass: an export, a runner or a score that
		// failed before it wrote leaves an empty file
		emit(Problem{File: file, Line: 1, Col: 1, Message: "the file holds no records: nothing to check (an export, a runner or a score that failed before it wrote leaves it empty)", Read: true})
		st.Invalid++
	}
	return st
}

// unversioned is the schema of a file fbeval reads whose records carry no
// schema_version, by the members of its first (raw): a toolcall dataset
// (HESchema's case format) or a context; "" for any other.
func unversioned(raw []byte) string {
	keys, _ := contract.TopLevel(raw)
	switch {
	case keys["schema_version"]:
		return ""
	case contract.DatasetCase(raw):
		return "fbeval-toolcall-case"
	case keys["version"] && keys["approved"] && keys["facts"]:
		return "fbeval-context"
	}
	return ""
}

// bomProblem is the problem of a file that starts with a byte order mark
// (warnings, the reader's after the first record) where the command reading it
// refuses one: refuseBOM's files, by opts.Schema or the version of first, the
// file's first record.
func bomProblem(file string, first []byte, warnings []string, opts Options) (Problem, bool) {
	name := opts.Schema
	if name == "" {
		_, version := contract.KindOf(first)
		name, _ = ForVersion(version)
	}
	if !slices.Contains(refuseBOM, name) || !slices.ContainsFunc(warnings, func(w string) bool { return strings.Contains(w, "byte order mark") }) {
		return Problem{}, false
	}
	return Problem{File: file, Line: 1, Col: 1, Message: "the file starts with a UTF-8 byte order mark, as Notepad and PowerShell's UTF8 encoding save one, which fbeval refuses in a file of " + name + ": save it as UTF-8 without it", Read: true}, true
}

func readProblem(file string, err error) Problem {
	var ie *contract.InputError
	if errors.As(err, &ie) {
		return Problem{File: ie.File, Line: ie.Line, Col: ie.Col, Message: ie.Msg, Read: true}
	}
	return Problem{File: file, Message: err.Error(), Read: true}
}

// record appends the problems of one record to ps.
func (v *Validator) record(rec *contract.Record, opts Options, ps []Problem) []Problem {
	if rec.Err != nil {
		return append(ps, readProblem(rec.File, rec.Err))
	}
	doc, quick := quickInstance(rec.Raw)
	if !quick {
		var p *Problem
		if doc, p = slowInstance(rec); p != nil {
			return append(ps, *p)
		}
	}
	name, p := chooseSchema(doc, opts)
	if name == "" {
		p.File = rec.File
		p.Line, p.Col = position(rec, p.Pointer)
		return append(ps, p)
	}
	if opts.fileVersion != "" {
		// of another kind (a request among responses): the CogLang scorer
		// reads fbeval-response/v1 records beside its own, so the family may
		// differ where the kind does not
		if sv := doc.(map[string]any)["schema_version"].(string); contract.FileKind(sv) != contract.FileKind(opts.fileVersion) {
			line, col := position(rec, "/schema_version")
			kind := contract.FileKind(sv)
			if kind == "" {
				kind = "another file"
			}
			ps = append(ps, Problem{File: rec.File, Line: line, Col: col, Pointer: "/schema_version", Message: fmt.Sprintf(
				"this record is %s's (%s) in %s (its first record: %s): the command that reads the file takes one kind of record, and rejects this one (keep each kind in a file of its own)", kind, sv, contract.FileKind(opts.fileVersion), opts.fileVersion)})
		} else if opts.fileToolcall && (sv == contract.CogLangResponse || sv == contract.CogLangResponseBatch) {
			line, col := position(rec, "/schema_version")
			ps = append(ps, Problem{File: rec.File, Line: line, Col: col, Pointer: "/schema_version", Message: fmt.Sprintf(
				"this record is a CogLang response (%s) in a toolcall response file (its first record: %s with a request_id): fbeval score toolcall rejects it (keep each suite's responses in a file of its own)", sv, opts.fileVersion)})
		}
	}
	err := v.schemas[name].Validate(doc)
	var ve *jsonschema.ValidationError
	if err == nil || !errors.As(err, &ve) {
		return ps
	}
	for _, r := range Reasons(ve) {
		ptr := string(Pointer(r.Loc))
		line, col := position(rec, ptr)
		ps = append(ps, Problem{File: rec.File, Line: line, Col: col, Pointer: ptr, Message: r.Msg})
	}
	return dedupe(ps)
}

// slowInstance reads a record quickInstance gave up on: jsontext first, which
// rejects duplicate names and invalid UTF-8 (the decoder after it would let
// them through) and says where; a problem when the record is no JSON it reads.
func slowInstance(rec *contract.Record) (any, *Problem) {
	d := jsontext.NewDecoder(bytes.NewReader(rec.Raw))
	if err := d.SkipValue(); err != nil {
		var off int64
		msg := err.Error()
		var se *jsontext.SyntacticError
		if errors.As(err, &se) {
			off = se.ByteOffset
			msg = se.Err.Error()
			if se.JSONPointer != "" {
				msg += " at " + string(se.JSONPointer)
			}
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			msg = "the record ends inside a JSON value"
		}
		at := rec.Errorf(off, "")
		return nil, &Problem{File: rec.File, Line: at.Line, Col: at.Col, Message: "invalid JSON: " + strings.TrimPrefix(msg, "jsontext: "), Read: true}
	}
	end := d.InputOffset()
	if _, err := d.ReadToken(); err != io.EOF {
		// where the data after the value starts, as the scorer says it
		rest := rec.Raw[end:]
		next := bytes.TrimLeft(rest, " \t\r\n")
		at := rec.Errorf(end+int64(len(rest)-len(next)), "")
		msg := "invalid JSON: unexpected data after the value"
		if len(next) > 0 && next[0] == '{' {
			msg = contract.TwoRecordsOnALine
		}
		return nil, &Problem{File: rec.File, Line: at.Line, Col: at.Col, Message: msg, Read: true}
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(rec.Raw))
	if err != nil {
		at := rec.Errorf(0, "")
		return nil, &Problem{File: rec.File, Line: at.Line, Col: at.Col, Message: "invalid JSON: " + err.Error(), Read: true}
	}
	return doc, nil
}

// chooseSchema returns the schema for doc, or a problem saying why there is none.
func chooseSchema(doc any, opts Options) (string, Problem) {
	if opts.Schema != "" {
		return opts.Schema, Problem{}
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return "", Problem{Message: "a record must be a JSON object with a schema_version (or name its schema with --schema NAME: fbeval schema lists them)"}
	}
	sv, ok := obj["schema_version"]
	if !ok || sv == nil {
		// a response record of one's own runner, most times: the schema its
		// members name
		switch _, request := obj["request_id"]; {
		case request:
			return "", Problem{Message: "no schema_version: name the schema with --schema NAME (this looks like a toolcall response: --schema fbeval-response; fbeval schema lists them)"}
		case obj["case_id"] != nil:
			return "", Problem{Message: "no schema_version: name the schema with --schema NAME (this looks like a CogLang response: --schema coglang-generation-eval-response; fbeval schema lists them)"}
		}
		return "", Problem{Message: "no schema_version: name the schema with --schema NAME (fbeval schema lists them)"}
	}
	s, isString := sv.(string)
	if !isString {
		return "", Problem{Pointer: "/schema_version", Message: "schema_version must be a string"}
	}
	name, ok := ForVersion(s)
	if !ok {
		if s == contract.CompareV1 {
			// fbeval writes it, but no command reads it, and no schema is
			// published for it
			return "", Problem{Pointer: "/schema_version", Message: "this is fbeval compare's JSON (" + s + "), an output no fbeval command reads, which has no published schema: nothing to check it against"}
		}
		return "", Problem{Pointer: "/schema_version", Message: fmt.Sprintf("unknown schema_version %q", s)}
	}
	return name, Problem{}
}

// dedupe drops repeated problems from sorted-or-not ps (the same leaf can be reached
// through two branches).
func dedupe(ps []Problem) []Problem {
	sortProblems(ps)
	out := ps[:0]
	for i, p := range ps {
		if i > 0 && p == ps[i-1] {
			continue
		}
		out = append(out, p)
	}
	return out
}

// position returns the line and column of the value ptr points at within the record,
// or of the record itself when the value cannot be found.
func position(rec *contract.Record, ptr string) (line, col int) {
	at := rec.Errorf(locate(rec.Raw, ptr), "")
	return at.Line, at.Col
}

// locate returns the byte offset of the value ptr points at in raw (valid JSON), or
// of the deepest value on the way that exists.
func locate(raw []byte, ptr string) int64 {
	for p := jsontext.Pointer(ptr); p != ""; p = p.Parent() {
		if off := contract.PointerOffset(raw, string(p)); off > 0 {
			return off
		}
	}
	return 0
}
