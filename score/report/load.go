package report

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/contract/strictjson"
)

// Kind says which saved report a Doc holds.
type Kind int

// The kinds of saved report fbeval renders.
const (
	KindToolcall Kind = iota + 1 // fbeval-report/v1, suite toolcall
	KindCogLang                  // coglang-generation-eval-result/v0.1
)

// Doc is one saved report, decoded. Exactly one of Toolcall and CogLang is set,
// as Kind says.
type Doc struct {
	Name     string // the file name it was read from, shown in titles
	Kind     Kind
	Toolcall *ToolcallReport
	CogLang  *CogLangResult
	reread   *reread // the lists Open reads again from the input, or nil
}

// Err returns the error of reading a list (rows, cases, failure cases) again
// from the report's input after Open: nil unless the input changed while it was
// being rendered.
func (d Doc) Err() error {
	if d.reread == nil || d.reread.err == nil {
		return nil
	}
	return fmt.Errorf("%s: the report changed while it was read: %s", d.Name, oneLine(d.reread.err))
}

// Load decodes a saved report, detecting its kind from schema_version. Unknown keys
// are skipped so newer reports still render, but a known key holding the wrong JSON
// type, a duplicate key or invalid UTF-8 is an error. name is used in errors and
// titles. A report's long lists are read from data as they are rendered (Open).
func Load(name string, data []byte) (Doc, error) {
	return Open(name, bytes.NewReader(data), OpenOptions{})
}

// loadWhole decodes a saved report held whole, rows and all.
func loadWhole(name string, data []byte) (Doc, error) {
	var head struct {
		SchemaVersion string `json:"schema_version"`
	}
	if err := json.Unmarshal(data, &head, readOptions); err != nil {
		return Doc{}, notAReport(name, data, err)
	}
	doc := Doc{Name: name}
	switch head.SchemaVersion {
	case contract.ReportV1:
		var r ToolcallReport
		if err := json.Unmarshal(data, &r, readOptions); err != nil {
			return Doc{}, notAReport(name, data, err)
		}
		if r.Suite != contract.SuiteToolcall {
			return Doc{}, fmt.Errorf("%s: suite %q is not rendered from an %s report; want %q", at(name, data, "/suite"), r.Suite, contract.ReportV1, contract.SuiteToolcall)
		}
		if ptr, msg := r.check(); msg != "" {
			return Doc{}, fmt.Errorf("%s: %s", at(name, data, ptr), msg)
		}
		doc.Kind, doc.Toolcall = KindToolcall, &r
	case contract.CogLangResult:
		var r CogLangResult
		if err := json.Unmarshal(data, &r, readOptions); err != nil {
			return Doc{}, notAReport(name, data, err)
		}
		if r.Summary == nil || r.Maturity == nil {
			return Doc{}, fmt.Errorf("%s:1:1: result has no summary or maturity block", name)
		}
		doc.Kind, doc.CogLang = KindCogLang, &r
	case "":
		if what, way := contract.Foreign(data); what != "" {
			// HESchema's report, a provider's reply: named, with the way to a report
			return Doc{}, fmt.Errorf("%s:1:1: expected an fbeval report (%s or %s), found %s: %s; fbeval score --format json then writes a report", name, contract.ReportV1, contract.CogLangResult, what, way)
		}
		return Doc{}, fmt.Errorf("%s:1:1: expected an fbeval report (%s or %s), found no schema_version: write one with fbeval score --format json", name, contract.ReportV1, contract.CogLangResult)
	default:
		return Doc{}, fmt.Errorf("%s: expected an fbeval report, found %s%s", at(name, data, "/schema_version"), contract.ShortLine(head.SchemaVersion), whatToDo(head.SchemaVersion))
	}
	return doc, nil
}

// whatToDo says what to do with a contract file that is not a report.
func whatToDo(version string) string {
	switch version {
	case contract.RequestV1, contract.RequestBatchV1, contract.CogLangRequest, contract.CogLangRequestBatch:
		return ": this is a request file: run it through a runner, score the responses with fbeval score --format json, and render that report"
	case contract.ResponseV1, contract.ResponseBatchV1, contract.CogLangResponse, contract.CogLangResponseBatch:
		return ": this is a response file: score it with fbeval score --format json, and render that report"
	case contract.CompareV1:
		return ": this is fbeval compare's JSON, which fbeval writes but does not read back: give fbeval compare the two reports of fbeval score again (its --format renders the comparison in another format)"
	}
	if other := contract.OtherVersion(version, contract.ReportV1, contract.CogLangResult); other != "" {
		return other
	}
	return fmt.Sprintf(" (want %s or %s): write one with fbeval score --format json", contract.ReportV1, contract.CogLangResult)
}

// notAReport turns a decoding error into one line at the file:line:col of the
// problem that says the file is not a report, and what it looks like.
func notAReport(name string, data []byte, err error) error {
	if len(bytes.TrimLeft(data, " \t\r\n")) == 0 {
		// what a runner or a score that failed before writing leaves
		return fmt.Errorf("%s:1:1: the file is empty: expected an fbeval report (fbeval score --format json writes one)", name)
	}
	if what, again := writtenFormat(data); what != "" {
		return fmt.Errorf("%s:1:1: expected an fbeval report (JSON), found %s, which fbeval writes but does not read back: %s", name, what, again)
	}
	if notJSONText(bytes.TrimLeft(data, "\ufeff \t\r\n")) {
		// notes, a CSV, a log: no JSON value starts so
		return fmt.Errorf("%s:1:1: expected an fbeval report (JSON), found text that is not JSON: give the JSON report fbeval score writes (--format json, or -o report.json)", name)
	}
	off := int64(-1)
	var se *jsontext.SyntacticError
	var me *json.SemanticError
	switch {
	case errors.As(err, &se):
		off = se.ByteOffset
	case errors.As(err, &me):
		off = me.ByteOffset
	}
	line, col := 1, 1
	if off >= 0 && off <= int64(len(data)) {
		line = 1 + bytes.Count(data[:off], []byte("\n"))
		col = 1 + int(off) - (bytes.LastIndexByte(data[:off], '\n') + 1)
	}
	// JSON lines: the first value is a record of some contract file
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	first, derr := dec.ReadValue()
	first = first.Clone() // PeekKind may reuse the buffer
	if derr == nil && dec.PeekKind() != 0 {
		var rec struct {
			SchemaVersion string `json:"schema_version"`
		}
		json.Unmarshal(first, &rec)
		if rec.SchemaVersion != "" {
			return fmt.Errorf("%s:%d:%d: expected an fbeval report (one JSON document), found JSON lines of %s%s", name, line, col, contract.PrintableLine(rec.SchemaVersion), whatToDo(rec.SchemaVersion))
		}
		return fmt.Errorf("%s:%d:%d: expected an fbeval report (one JSON document), found JSON lines: write a report with fbeval score --format json", name, line, col)
	}
	if derr == nil && first.Kind() != '{' {
		return fmt.Errorf("%s:1:1: expected an fbeval report (a JSON object), found %s: write a report with fbeval score --format json", name, kindName(first.Kind()))
	}
	var lex strictjson.LexError
	if me != nil && errors.As(me.Err, &lex) {
		// a string the report's reader unquotes itself (wtf8.go)
		return fmt.Errorf("%s:%d:%d: expected an fbeval report: %s at %s", name, line, col, lex, me.JSONPointer)
	}
	if me != nil && me.JSONPointer != "" {
		p := string(me.JSONPointer)
		return fmt.Errorf("%s:%d:%d: expected an fbeval report: %q must be %s", name, line, col, p[strings.LastIndexByte(p, '/')+1:], kindWord(me))
	}
	if hint := contract.NotJSON(data, off); hint != "" {
		// a byte order mark, a comment, a trailing comma: what a hand edit leaves
		return fmt.Errorf("%s:%d:%d: expected an fbeval report: invalid JSON: %s", name, line, col, hint)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%s:%d:%d: %w", name, line, col, errCutShort)
	}
	return fmt.Errorf("%s:%d:%d: expected an fbeval report: %s", name, line, col, oneLine(err))
}

// notJSONText reports whether t starts as no JSON value does, nor NaN or
// Infinity (which a Python writer leaves, and a hint names): notes, a CSV,
// a log. Empty t (a byte order mark alone) is not: its own hint names it.
func notJSONText(t []byte) bool {
	if len(t) == 0 || strings.ContainsRune("{[\"-0123456789", rune(t[0])) {
		return false
	}
	for _, w := range []string{"null", "true", "false", "NaN", "Infinity"} {
		if bytes.HasPrefix(t, []byte(w)) {
			return false
		}
	}
	return true
}

// errCutShort is a report that ends inside its JSON: the library's words
// ("jsontext: unexpected EOF within \"/arms/minimal_schema\"") said where, not
// what happened.
var errCutShort = errors.New("expected an fbeval report: the file ends inside a JSON value (cut short: a score stopped while it wrote, a disk that filled, a copy not finished?): score again, or copy the whole file")

// writtenFormat names the format of fbeval's, other than JSON, that data
// starts as, and says how to write it again; "" when it starts as none.
func writtenFormat(data []byte) (what, again string) {
	what, command, format := Written(data)
	switch command {
	case "":
		return "", ""
	case "fbeval compare":
		return what, "compare the two JSON reports again (fbeval compare a.json b.json --format " + format + ")"
	case "fbeval export":
		return what, "a report comes of scoring the responses to the requests (fbeval score --responses FILE --format json -o report.json)"
	}
	return what, "render it again from the JSON report (fbeval score --format json -o report.json, then fbeval report report.json --format " + format + ")"
}

// WrittenName names the rendering of fbeval's, other than JSON, that head
// starts as, with what writes it, for a message about a file given where JSON
// belongs: "JUnit XML, which fbeval writes (--format junit)"; "" when head
// starts as none of them (see Written).
func WrittenName(head []byte) string {
	what, command, format := Written(head)
	if what == "" {
		return ""
	}
	return fmt.Sprintf("%s, which %s writes (--format %s)", what, strings.TrimSuffix(command, " report"), format)
}

// Written names the rendering of fbeval's, other than JSON, that head (the
// first bytes of a file; 4 KiB are enough) starts as: what it is, the command
// that writes it ("fbeval report", which writes every format of fbeval score,
// or "fbeval compare") and its --format. All three are "" when head starts as
// none of them. A reader of JSON files uses it to name such a file given in
// place of one, rather than reject its lines one by one.
func Written(head []byte) (what, command, format string) {
	head = bytes.TrimLeft(head[:min(len(head), 4096)], "\ufeff \t\r\n")
	has := func(prefix string) bool {
		return len(head) >= len(prefix) && strings.EqualFold(string(head[:len(prefix)]), prefix)
	}
	const report, compare = "fbeval report", "fbeval compare"
	html := has("<!DOCTYPE html") || has("<html")
	switch {
	case has("<?xml") && bytes.Contains(head, []byte("<testsuites")):
		return "JUnit XML", report, "junit"
	case html && bytes.Contains(head, []byte("<title>fbeval comparison")):
		return "an HTML comparison", compare, "html"
	case html:
		return "an HTML page", report, "html"
	case has("## fbeval comparison"):
		return "a Markdown comparison", compare, "markdown"
	case has("## fbeval ") || has("## CogLang "):
		return "a Markdown report", report, "markdown"
	case has("comparison: "):
		return "a comparison table", compare, "table"
	case has("toolcall report: ") || has("coglang result: "):
		return "a table or text report", report, "table"
	case has("CogLang generation eval: "):
		// the heading of an older fbeval's CogLang table
		return "a CogLang table", report, "table"
	case contract.IsRequestSummary(head):
		return "the summary of a request file", "fbeval export", "text"
	case has("schema_version: "):
		return "a text report", report, "text"
	}
	return "", "", ""
}

func kindName(k jsontext.Kind) string {
	switch k {
	case '[':
		return "a JSON list"
	case '"':
		return "a JSON string"
	case '0':
		return "a JSON number"
	case '{':
		return "a JSON object"
	}
	return "a JSON literal"
}

// kindWord names what a report field holds, from a decoding error.
func kindWord(me *json.SemanticError) string {
	msg := me.Error()
	if i := strings.Index(msg, ": want "); i >= 0 {
		want, got, _ := strings.Cut(msg[i+len(": want "):], ", got ")
		switch {
		case me.JSONKind != 0:
			return want + ", not " + kindName(me.JSONKind)
		case len(got) == 1:
			return want + ", not " + kindName(jsontext.Kind(got[0]))
		case got != "":
			return want + ", not a JSON " + got
		}
		return want
	}
	return "of another type (" + oneLine(me) + ")"
}

// oneLine keeps decoder errors to one line, as every fbeval error is.
func oneLine(err error) string {
	return string(bytes.ReplaceAll([]byte(err.Error()), []byte("\n"), []byte(" ")))
}

// check rejects reports whose parts contradict each other in ways a renderer
// would otherwise show as nonsense. It returns the JSON Pointer of the value at
// fault and what is wrong, or "" when nothing is.
func (r *ToolcallReport) check() (ptr, msg string) {
	if len(r.Arms) == 0 {
		return "/arms", "report has no arms; want at least one of no_schema, minimal_schema, input_schema"
	}
	for i, row := range r.Rows {
		if _, ok := r.Arms.Get(row.Arm); !ok {
			return fmt.Sprintf("/rows/%d/arm", i), fmt.Sprintf("row %d: arm %q is not among the report's arms", i+1, row.Arm)
		}
		if row.CaseID == "" {
			return fmt.Sprintf("/rows/%d", i), fmt.Sprintf("row %d: no case_id", i+1)
		}
	}
	return "", ""
}

// at returns "name:line:col" of the value a JSON Pointer names in data.
func at(name string, data []byte, ptr string) string {
	off := contract.PointerOffset(data, ptr)
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := 1 + int(off) - (bytes.LastIndexByte(data[:off], '\n') + 1)
	return fmt.Sprintf("%s:%d:%d", name, line, col)
}

var errNoKind = errors.New("report: document has no kind; build it with Load")
