package schemas

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/contract/usage"
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
}

// Stats counts what a validation saw.
type Stats struct {
	Records int // records read, including unreadable lines
	Invalid int // records with at least one problem
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
// order of position: records are checked one at a time as they are read, so a long
// JSONL file needs no more memory than its longest line.
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
	var ps []Problem
	for rd.Scan() {
		rec := rd.Record()
		st.Records++
		if st.Records == 1 && opts.Schema == "" && rec.Err == nil {
			// a provider's own file (an OpenAI Batch output, say): one problem
			// that names the step skipped, not one per line
			if what := contract.ProviderRecord(rec.Raw); what != "" {
				emit(Problem{File: rec.File, Line: rec.Line, Col: rec.Col, Message: "this is " + what + "; fbeval validate checks the contract files fbeval reads and writes", Read: true})
				for rd.Scan() { // counted, each as the first
					st.Records++
				}
				st.Invalid = st.Records
				return st
			}
		}
		ps = v.record(rec, opts, ps[:0])
		if len(ps) > 0 {
			st.Invalid++
		}
		sortProblems(ps)
		for _, p := range ps {
			emit(p)
		}
	}
	if err := rd.Err(); err != nil {
		emit(readProblem(file, err))
		st.Invalid++
	} else if st.Records == 0 {
		// nothing checked is no pass: an export, a runner or a score that
		// failed before it wrote leaves an empty file
		emit(Problem{File: file, Line: 1, Col: 1, Message: "the file holds no records: nothing to check (an export, a runner or a score that failed before it wrote leaves it empty)", Read: true})
		st.Invalid++
	}
	return st
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
	// jsontext first: it rejects duplicate names and invalid UTF-8, which the
	// decoder below would let through, and says where.
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
		return append(ps, Problem{File: rec.File, Line: at.Line, Col: at.Col, Message: "invalid JSON: " + strings.TrimPrefix(msg, "jsontext: "), Read: true})
	}
	if _, err := d.ReadToken(); err != io.EOF {
		at := rec.Errorf(d.InputOffset(), "")
		return append(ps, Problem{File: rec.File, Line: at.Line, Col: at.Col, Message: "invalid JSON: unexpected data after the value", Read: true})
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(rec.Raw))
	if err != nil {
		at := rec.Errorf(0, "")
		return append(ps, Problem{File: rec.File, Line: at.Line, Col: at.Col, Message: "invalid JSON: " + err.Error(), Read: true})
	}
	name, p := chooseSchema(doc, opts)
	if name == "" {
		p.File = rec.File
		p.Line, p.Col = position(rec, p.Pointer)
		return append(ps, p)
	}
	err = v.schemas[name].Validate(doc)
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

// Reason is one mistake a validation error tree says: where in the instance,
// and what.
type Reason struct {
	Loc []string
	Msg string
}

// Reasons flattens a validation error tree to its mistakes, one each, in
// document order: the leaves, but for an anyOf or oneOf only the branches that
// were meant (alternatives), and a branch's error not where another error is
// about the same value already (the type of error beside the error branch's
// says the same again).
func Reasons(ve *jsonschema.ValidationError) []Reason {
	var found, branches []Reason // branches: from the branches of an anyOf or oneOf
	var walk func(e *jsonschema.ValidationError, in *[]Reason)
	walk = func(e *jsonschema.ValidationError, in *[]Reason) {
		for l := range Leaves(e, keptWhole) {
			switch {
			case isPropertyNames(l.ErrorKind):
				// about the object whose member is misnamed; the causes' locations are
				// relative to the name, so they go in the message
				*in = append(*in, Reason{l.Parent, propertyNamesMessage(l)})
			case isAlternatives(l.ErrorKind):
				reached, missing := alternatives(l.ValidationError)
				if len(reached) == 0 {
					*in = append(*in, Reason{l.InstanceLocation, missing})
				}
				for _, b := range reached {
					walk(b, &branches)
				}
			case isWrapper(l.ErrorKind):
			default:
				*in = append(*in, Reason{l.InstanceLocation, reasonText(l.ErrorKind)})
			}
		}
	}
	walk(ve, &found)
	for _, b := range branches {
		if !slices.ContainsFunc(found, func(r Reason) bool { return slices.Equal(r.Loc, b.Loc) }) {
			found = append(found, b)
		}
	}
	return found
}

// keptWhole tells the errors whose causes Validate reads itself: propertyNames
// (its causes are about the name) and anyOf or oneOf (their branches' failures
// are not each a reason).
func keptWhole(k jsonschema.ErrorKind) bool { return isPropertyNames(k) || isAlternatives(k) }

// isAlternatives tells an anyOf or oneOf that no branch passed.
func isAlternatives(k jsonschema.ErrorKind) bool {
	switch k.(type) {
	case *kind.AnyOf, *kind.OneOf:
		return true
	}
	return false
}

// alternatives says why no branch of the anyOf or oneOf e passed. A branch that
// failed only for want of members it requires, or for a member it requires
// being null (which fbeval's contracts read as absent), was not meant; the
// others (reached) were, and their errors say what is wrong: a member that is
// there with a wrong value. When every branch wants members, missing says so
// at once: "missing one of the properties 'output', 'text', 'completion',
// 'error' ('output' is null)", "missing property 'files', or properties
// 'sha256' and 'shape'".
func alternatives(e *jsonschema.ValidationError) (reached []*jsonschema.ValidationError, missing string) {
	var wants [][]string // each wanting branch's members
	var nulls []string
	for _, b := range e.Causes {
		if r, ok := b.ErrorKind.(*kind.Required); ok && len(b.Causes) == 0 && slices.Equal(b.InstanceLocation, e.InstanceLocation) {
			wants = append(wants, r.Missing)
			continue
		}
		if name := nullMember(b, e.InstanceLocation); name != "" {
			wants, nulls = append(wants, []string{name}), append(nulls, name)
			continue
		}
		reached = append(reached, b)
	}
	if len(reached) > 1 {
		// a branch that wants another type than the value's was not meant
		// when another wants the value's own (a type name mistyped: the enum
		// of names is meant, not the list of them)
		meant := slices.DeleteFunc(slices.Clone(reached), func(b *jsonschema.ValidationError) bool { return onlyType(b, e.InstanceLocation) })
		if len(meant) > 0 {
			reached = meant
		}
		// a branch that failed inside the value matched its shape, and says
		// more than one that failed on the value whole (a list of type
		// names with one mistyped: the name, not "want one name")
		inside := slices.DeleteFunc(slices.Clone(reached), func(b *jsonschema.ValidationError) bool { return !allInside(b, e.InstanceLocation) })
		if len(inside) > 0 {
			reached = inside
		}
	}
	if len(reached) > 0 || len(wants) == 0 {
		return reached, ""
	}
	quote := func(names []string) string { return "'" + strings.Join(names, "', '") + "'" }
	quoteAnd := func(names []string) string {
		q := make([]string, len(names))
		for i, n := range names {
			q[i] = "'" + n + "'"
		}
		return contract.JoinWords(q)
	}
	single := !slices.ContainsFunc(wants, func(m []string) bool { return len(m) != 1 })
	switch {
	case single && len(wants) == 1:
		missing = "missing property " + quote(wants[0])
	case single:
		missing = "missing one of the properties " + quote(slices.Concat(wants...))
	default:
		phrases := make([]string, len(wants))
		for i, m := range wants {
			if len(m) == 1 {
				phrases[i] = "property " + quote(m)
			} else {
				phrases[i] = "properties " + quoteAnd(m)
			}
		}
		missing = "missing " + strings.Join(phrases, ", or ")
	}
	if len(nulls) > 0 {
		missing += " (" + quoteAnd(nulls) + " " + contract.Pick(len(nulls), "is", "are") + " null)"
	}
	return nil, missing
}

// onlyType reports whether branch b failed on the type of the value at loc
// and on nothing else.
func onlyType(b *jsonschema.ValidationError, loc []string) bool {
	n := 0
	for l := range Leaves(b, nil) {
		if isWrapper(l.ErrorKind) {
			continue
		}
		if _, ok := l.ErrorKind.(*kind.Type); !ok || !slices.Equal(l.InstanceLocation, loc) {
			return false
		}
		n++
	}
	return n > 0
}

// allInside reports whether every failure of branch b is inside the value at
// loc, none at loc itself.
func allInside(b *jsonschema.ValidationError, loc []string) bool {
	n := 0
	for l := range Leaves(b, nil) {
		if isWrapper(l.ErrorKind) {
			continue
		}
		if len(l.InstanceLocation) <= len(loc) {
			return false
		}
		n++
	}
	return n > 0
}

// nullMember returns the name of the member of the object at loc that branch
// b failed on for being null, and on nothing else ("" otherwise).
func nullMember(b *jsonschema.ValidationError, loc []string) string {
	name := ""
	for l := range Leaves(b, nil) {
		if isWrapper(l.ErrorKind) {
			continue
		}
		t, ok := l.ErrorKind.(*kind.Type)
		at := l.InstanceLocation
		if !ok || t.Got != "null" || len(at) != len(loc)+1 || !slices.Equal(at[:len(loc)], loc) || (name != "" && at[len(loc)] != name) {
			return ""
		}
		name = at[len(loc)]
	}
	return name
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
		return "", Problem{Message: "no schema_version: name the schema with --schema NAME (fbeval schema lists them)"}
	}
	s, isString := sv.(string)
	if !isString {
		return "", Problem{Pointer: "/schema_version", Message: "schema_version must be a string"}
	}
	name, ok := ForVersion(s)
	if !ok {
		return "", Problem{Pointer: "/schema_version", Message: fmt.Sprintf("unknown schema_version %q", s)}
	}
	return name, Problem{}
}

func isPropertyNames(k jsonschema.ErrorKind) bool {
	_, ok := k.(*kind.PropertyNames)
	return ok
}

// isWrapper tells the error that only says a schema failed, whose causes say why.
func isWrapper(k jsonschema.ErrorKind) bool {
	_, ok := k.(*kind.Schema)
	return ok
}

// propertyNamesMessage says which names are wrong, with why, sorted.
func propertyNamesMessage(l Leaf) string {
	var why []string
	for _, c := range l.Causes {
		for inner := range Leaves(c, nil) {
			why = append(why, reasonText(inner.ErrorKind))
		}
	}
	sort.Strings(why)
	msg := Message(l.ErrorKind)
	if len(why) > 0 {
		msg += ": " + strings.Join(why, "; ")
	}
	return msg
}

// reasonText is the text of one error. Enum and const values are written as JSON
// (the library writes null as <nil> and lists as "value"), with the value found.
func reasonText(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = jsonText(w)
		}
		if len(want) == 1 {
			return "value must be " + want[0] + ", got " + jsonText(k.Got)
		}
		msg := "value must be one of " + strings.Join(want, ", ") + "; got " + jsonText(k.Got)
		if got, ok := k.Got.(string); ok {
			// a typo of one of the strings it takes ("strin" for "string")
			var strs []string
			for _, w := range k.Want {
				if s, ok := w.(string); ok {
					strs = append(strs, s)
				}
			}
			if near := usage.Nearest(got, strs); near != "" {
				msg += "; did you mean " + jsonText(near)
			}
		}
		return msg
	case *kind.Const:
		return "value must be " + jsonText(k.Want) + ", got " + jsonText(k.Got)
	case *kind.Type:
		// a type of every kind but null: the member is there, null
		if k.Got == "null" && len(k.Want) == 5 && !slices.Contains(k.Want, "null") {
			return "got null, want any value but null"
		}
	}
	return Message(k)
}

// jsonText writes v as compact JSON, cut short when long.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 80 {
		return string(b[:77]) + "..."
	}
	return string(b)
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
