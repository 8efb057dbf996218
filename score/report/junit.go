package report

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/xml"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/fbeval/fbeval/contract"
)

// JUnit XML types, in the common Jenkins/GitLab shape. Exported so tests and CI
// tools can parse a report back.

// JUnitSuites is the <testsuites> root.
type JUnitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []JUnitSuite `xml:"testsuite"`
}

// JUnitSuite is one <testsuite>: an arm (toolcall) or a level (coglang).
type JUnitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Properties []JUnitProperty `xml:"properties>property,omitempty"`
	Cases      []JUnitCase     `xml:"testcase"`
	SystemOut  string          `xml:"system-out,omitempty"`
}

// JUnitProperty is a name and value recorded on a suite.
type JUnitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// JUnitCase is one <testcase>: a (case, repeat) under an arm, or a CogLang case.
type JUnitCase struct {
	ClassName string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Failure   *JUnitProblem `xml:"failure"`
	Error     *JUnitProblem `xml:"error"`
	SystemOut string        `xml:"system-out,omitempty"`
}

// JUnitProblem is a <failure> or <error>: a message, a type and details.
type JUnitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// JUnit failure and error types.
const (
	JUnitWrongAnswer   = "wrong_answer"   // toolcall: the last attempt did not succeed
	JUnitProviderError = "provider_error" // the runner reported an error (coglang: the case's last record)
	JUnitMissing       = "missing_response"
	JUnitCogLang       = "failure_categories" // coglang: the case has failure categories
	JUnitGate          = "gate"               // toolcall: a gate (--gate, --min-success, the study's) failed
)

// WriteJUnit writes doc as JUnit XML.
//
// Toolcall: one <testsuite> per arm named "toolcall/ARM", one <testcase> per (case,
// repeat) named by the case id ("#rN" appended for repeat N > 1), and, when the
// report has gates, a suite "toolcall/gates" of one test case a gate, a failed
// gate a <failure type="gate">. A row passes when
// its final attempt succeeded (so repairs count, as final_success_percent does,
// after a provider error too); a failing row is a <failure> whose message lists
// the final codes; a failing row with a provider error, or a missing response,
// is an <error>, never a failure, so the failure count is exactly the rows that
// answered wrongly and tests minus failures and errors is the rows that passed.
//
// CogLang: one <testsuite> per evaluated level named "coglang/LEVEL"; a case fails
// when it has failure categories (missing output included, as the result counts it).
// When the result lists only failing cases (or none), only the failing cases are
// written and the suite says how many passing cases were not listed.
func WriteJUnit(w io.Writer, doc Doc) error {
	var s JUnitSuites
	switch doc.Kind {
	case KindToolcall:
		if err := junitToolcall(w, doc.Toolcall); err != nil {
			return fmt.Errorf("junit: %w", err)
		}
		return nil
	case KindCogLang:
		if ok, err := junitCogLangStream(w, doc.CogLang); ok || err != nil {
			if err != nil {
				return fmt.Errorf("junit: %w", err)
			}
			return nil
		}
		doc = doc.held()
		s = junitCogLang(doc.Name, doc.CogLang)
	default:
		return errNoKind
	}
	var b bytes.Buffer
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	if err := enc.Encode(s); err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	b.WriteByte('\n')
	_, err := w.Write(b.Bytes())
	return err
}

// junitToolcall writes a toolcall report's JUnit XML as the rows are read: one
// pass, without their attempt results, counts each arm's tests, failures and
// errors for the suites' attributes (or Open kept them: junitCounts), then one
// more, with them, writes the test cases (writeJUnitSuites), so no more than
// one row is held.
func junitToolcall(w io.Writer, r *ToolcallReport) error {
	arms := r.Arms.Keys()
	suites := make([]JUnitSuite, len(arms))
	out := JUnitSuites{Name: contract.Printable("toolcall: " + r.title())}
	if r.junitCounts != nil && r.RowSource != nil && r.Rows == nil {
		for i, a := range arms {
			if n := r.junitCounts[a]; n != nil {
				suites[i].Tests, suites[i].Failures, suites[i].Errors = n.Tests, n.Failures, n.Errors
			}
		}
	} else {
		for row := range r.EachBriefRow() {
			if i := slices.Index(arms, row.Arm); i >= 0 {
				suites[i].count(junitRowOf(row, false))
			}
		}
	}
	for i, a := range r.Arms {
		suites[i].Name = contract.Printable("toolcall/" + a.Key)
		suites[i].Properties = []JUnitProperty{
			{"first_pass_success_percent", num(a.Value.FirstPassSuccess, 1)},
			{"final_success_percent", num(a.Value.FinalSuccess, 1)},
		}
		if len(a.Value.Models) > 0 {
			// the models the arm's answers name, as the report lists them
			suites[i].Properties = append(suites[i].Properties, JUnitProperty{"models", strings.Join(a.Value.Models, ", ")})
		}
		// the report's warnings (answers a runner mangled, rows missing, ...)
		// where a CI reporter shows them, in every suite it may show alone
		suites[i].SystemOut = warningsText(r.Warnings)
	}
	gates := junitGates(r.Gates)
	if gates != nil {
		suites = append(suites, gates.JUnitSuite)
	}
	return writeJUnitSuites(w, out, suites, func(emit func(i int, tc JUnitCase) error) error {
		// whole rows: a failure says its last attempt's errors
		for row := range r.rows() {
			i := slices.Index(arms, row.Arm)
			if i < 0 {
				continue
			}
			tc := junitRow(row)
			tc.ClassName = suites[i].Name
			if err := emit(i, tc); err != nil {
				return err
			}
		}
		if gates != nil {
			for _, tc := range gates.cases {
				if err := emit(len(suites)-1, tc); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// junitGateSuite is the suite of a report's gates and its test cases.
type junitGateSuite struct {
	JUnitSuite
	cases []JUnitCase
}

// junitGates is the "toolcall/gates" suite, one test case a gate, which fails
// as the gate did (JUnitGate, with the actual value), so the test report a CI
// publishes says why the step failed; nil for a report of no gates.
func junitGates(gates []Gate) *junitGateSuite {
	if len(gates) == 0 {
		return nil
	}
	const name = "toolcall/gates"
	g := &junitGateSuite{JUnitSuite: JUnitSuite{Name: name}}
	for _, gate := range gates {
		tc := JUnitCase{ClassName: name, Name: gate.Gate}
		if !gate.Passed {
			actual := "actual " + gate.ActualText()
			if gate.Actual == nil {
				actual = "actual null: the field has no value in this report, and a gate on it fails"
			}
			tc.Failure = &JUnitProblem{Message: actual, Type: JUnitGate, Text: "gate failed: " + gate.Gate + " (" + actual + ")"}
		}
		g.count(tc)
		g.cases = append(g.cases, tc)
	}
	return g
}

// writeJUnitSuites writes JUnit XML as encoding/xml writes out with suites,
// one test case at a time: each suite's attributes, properties and system-out
// from suites (its Cases unused, its counts those of the test cases it will
// have), its test cases as walk emits them, each with the index of its suite
// (in order within a suite, suites in any order). walk is called once: the
// first suite's cases are written as they come and the others' kept in
// temporary files until it ends (junitSpools), or, when those files cannot be
// made, once per suite. out's counts are summed here.
func writeJUnitSuites(w io.Writer, out JUnitSuites, suites []JUnitSuite, walk func(emit func(i int, tc JUnitCase) error) error) error {
	for i := range suites {
		out.Tests += suites[i].Tests
		out.Failures += suites[i].Failures
		out.Errors += suites[i].Errors
	}
	later, err := newJUnitSpools(len(suites))
	if err != nil {
		later = nil // a suite at a time
	}
	defer later.close()
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString(xml.Header)
	enc := xml.NewEncoder(bw)
	enc.Indent("", "  ")
	start := func(name string, attrs ...string) xml.StartElement {
		el := xml.StartElement{Name: xml.Name{Local: name}}
		for i := 0; i < len(attrs); i += 2 {
			el.Attr = append(el.Attr, xml.Attr{Name: xml.Name{Local: attrs[i]}, Value: attrs[i+1]})
		}
		return el
	}
	// A suite's test cases are written as encoding/xml writes them
	// (appendJUnitCase, held to it by TestAppendJUnitCase) straight after
	// its properties, which leave the encoder where a case would; a suite
	// without properties leaves them to the encoder.
	raw := false
	var buf []byte
	write := func(tc JUnitCase) error {
		if !raw {
			return enc.EncodeElement(tc, start("testcase"))
		}
		buf = appendJUnitCase(buf[:0], &tc)
		_, err := bw.Write(buf)
		return err
	}
	itoa := strconv.Itoa
	root := start("testsuites", "name", out.Name, "tests", itoa(out.Tests), "failures", itoa(out.Failures), "errors", itoa(out.Errors))
	if err := enc.EncodeToken(root); err != nil {
		return err
	}
	for i, s := range suites {
		el := start("testsuite", "name", s.Name, "tests", itoa(s.Tests), "failures", itoa(s.Failures), "errors", itoa(s.Errors), "skipped", itoa(s.Skipped))
		if err := enc.EncodeToken(el); err != nil {
			return err
		}
		if len(s.Properties) > 0 {
			props := start("properties")
			if err := enc.EncodeToken(props); err != nil {
				return err
			}
			for _, p := range s.Properties {
				// control and bidi characters and a lone surrogate (of a
				// model's name) as their escapes, as the other human
				// formats write them (XML cannot hold some: U+FFFD)
				p.Value = contract.Printable(p.Value)
				if err := enc.EncodeElement(p, start("property")); err != nil {
					return err
				}
			}
			if err := enc.EncodeToken(props.End()); err != nil {
				return err
			}
		}
		raw = len(s.Properties) > 0
		if raw {
			if err := enc.Flush(); err != nil {
				return err
			}
		}
		var err error
		switch {
		case later == nil:
			err = walk(func(j int, tc JUnitCase) error {
				if j != i {
					return nil
				}
				return write(tc)
			})
		case i == 0:
			err = walk(func(j int, tc JUnitCase) error {
				if j == 0 {
					return write(tc)
				}
				return later.add(j, tc)
			})
		default:
			err = later.each(i, write)
		}
		if err != nil {
			return err
		}
		if s.SystemOut != "" {
			if err := enc.EncodeElement(s.SystemOut, start("system-out")); err != nil {
				return err
			}
		}
		if err := enc.EncodeToken(el.End()); err != nil {
			return err
		}
	}
	if err := errors.Join(enc.EncodeToken(root.End()), enc.Flush()); err != nil {
		return err
	}
	bw.WriteByte('\n')
	return bw.Flush()
}

// appendJUnitCase appends tc as an xml.Encoder indenting by two spaces writes
// it at the depth of a suite's test cases, after its properties: the same
// line breaks, indentation, attributes and escapes.
func appendJUnitCase(b []byte, tc *JUnitCase) []byte {
	b = append(b, "\n    <testcase classname=\""...)
	b = appendXMLEscaped(b, tc.ClassName)
	b = append(b, "\" name=\""...)
	b = appendXMLEscaped(b, tc.Name)
	b = append(b, "\">"...)
	children := false
	for _, p := range []struct {
		name string
		p    *JUnitProblem
	}{{"failure", tc.Failure}, {"error", tc.Error}} {
		if p.p == nil {
			continue
		}
		children = true
		b = append(append(append(b, "\n      <"...), p.name...), " message=\""...)
		b = appendXMLEscaped(b, p.p.Message)
		b = append(b, "\" type=\""...)
		b = appendXMLEscaped(b, p.p.Type)
		b = append(b, "\">"...)
		b = appendXMLEscaped(b, p.p.Text)
		b = append(append(append(b, "</"...), p.name...), '>')
	}
	if tc.SystemOut != "" {
		children = true
		b = append(b, "\n      <system-out>"...)
		b = appendXMLEscaped(b, tc.SystemOut)
		b = append(b, "</system-out>"...)
	}
	if children {
		b = append(b, "\n    "...)
	}
	return append(b, "</testcase>"...)
}

// appendXMLEscaped appends s escaped as encoding/xml escapes text and
// attribute values: the five markup characters, tab, line feed and carriage
// return as references, and what XML cannot hold (invalid UTF-8, control
// characters, U+FFFE and U+FFFF) as U+FFFD.
func appendXMLEscaped(b []byte, s string) []byte {
	last := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < utf8.RuneSelf && c != '"' && c != '\'' && c != '&' && c != '<' && c != '>' {
			i++
			continue
		}
		r, width := utf8.DecodeRuneInString(s[i:])
		var esc string
		switch r {
		case '"':
			esc = "&#34;"
		case '\'':
			esc = "&#39;"
		case '&':
			esc = "&amp;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '\t':
			esc = "&#x9;"
		case '\n':
			esc = "&#xA;"
		case '\r':
			esc = "&#xD;"
		default:
			if xmlChar(r) && !(r == utf8.RuneError && width == 1) {
				i += width
				continue
			}
			esc = "\uFFFD"
		}
		b = append(append(b, s[last:i]...), esc...)
		i += width
		last = i
	}
	return append(b, s[last:]...)
}

// xmlChar reports whether XML can hold r as it is.
func xmlChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D || r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}

// junitSpools hold the test cases of every suite but the first while the
// first is written: a temporary file for each suite that has any, each case a
// byte of flags and its strings, each a field (contract.AppendField).
type junitSpools struct {
	files []*contract.TempFile
	ws    []*bufio.Writer
	buf   []byte
}

const (
	junitHasFailure = 1 << iota
	junitHasError
)

// newJUnitSpools returns the spools of n suites, or an error when a temporary
// file cannot be made: one is made at once when there is more than one suite,
// so that this is known before anything is written.
func newJUnitSpools(n int) (*junitSpools, error) {
	s := &junitSpools{files: make([]*contract.TempFile, n), ws: make([]*bufio.Writer, n)}
	if n > 1 {
		if err := s.open(1); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (s *junitSpools) open(i int) error {
	f, err := contract.CreateTemp("fbeval-junit-*", "the JUnit test cases")
	if err != nil {
		return err
	}
	s.files[i], s.ws[i] = f, bufio.NewWriterSize(f, 64<<10)
	return nil
}

// close removes the files; nil holds none.
func (s *junitSpools) close() {
	if s == nil {
		return
	}
	for _, f := range s.files {
		if f != nil {
			f.Close()
		}
	}
}

// add keeps tc, a test case of suite i.
func (s *junitSpools) add(i int, tc JUnitCase) error {
	if s.files[i] == nil {
		if err := s.open(i); err != nil {
			return err
		}
	}
	b := s.buf[:0]
	var flags byte
	if tc.Failure != nil {
		flags |= junitHasFailure
	}
	if tc.Error != nil {
		flags |= junitHasError
	}
	b = append(b, flags)
	b = contract.AppendField(b, tc.ClassName)
	b = contract.AppendField(b, tc.Name)
	b = contract.AppendField(b, tc.SystemOut)
	for _, p := range []*JUnitProblem{tc.Failure, tc.Error} {
		if p != nil {
			b = contract.AppendField(b, p.Message)
			b = contract.AppendField(b, p.Type)
			b = contract.AppendField(b, p.Text)
		}
	}
	s.buf = b
	_, err := s.ws[i].Write(b) // a contract.TempFile's error says what to do
	return err
}

// each calls fn with suite i's test cases, in the order they were added.
func (s *junitSpools) each(i int, fn func(JUnitCase) error) error {
	f := s.files[i]
	if f == nil {
		return nil
	}
	if err := s.ws[i].Flush(); err != nil {
		return err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	r := bufio.NewReaderSize(f, 64<<10)
	bad := func(err error) error {
		return fmt.Errorf("reading back the JUnit test cases: %v", err)
	}
	var b []byte
	str := func() (string, error) {
		var err error
		b, err = contract.ReadField(r, b)
		return string(b), err
	}
	for {
		flags, err := r.ReadByte()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return bad(err)
		}
		var tc JUnitCase
		fields := []*string{&tc.ClassName, &tc.Name, &tc.SystemOut}
		if flags&junitHasFailure != 0 {
			tc.Failure = &JUnitProblem{}
			fields = append(fields, &tc.Failure.Message, &tc.Failure.Type, &tc.Failure.Text)
		}
		if flags&junitHasError != 0 {
			tc.Error = &JUnitProblem{}
			fields = append(fields, &tc.Error.Message, &tc.Error.Type, &tc.Error.Text)
		}
		for _, field := range fields {
			if *field, err = str(); err != nil {
				return bad(err)
			}
		}
		if err := fn(tc); err != nil {
			return err
		}
	}
}

// lastErrors writes the errors of a row's last answered attempt, one a line
// ("\nerrors of attempt 1:\n- SCHEMA_INVALID at /arguments/guests: maximum:
// got 12, want 8"): why a failed test case failed, which its codes alone do
// not say; "" when the row holds no attempt results (a report read brief, or
// written before they were kept).
func lastErrors(row *Row) string {
	if len(row.AttemptResults) == 0 {
		return ""
	}
	last := &row.AttemptResults[len(row.AttemptResults)-1]
	if len(last.Errors) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nerrors of attempt %d:", last.Attempt)
	for _, e := range last.Errors {
		b.WriteString("\n- " + e.Code)
		if e.Path != "" {
			b.WriteString(" at " + e.Path)
		}
		b.WriteString(": " + e.Message)
	}
	return b.String()
}

// warningsText is a report's warnings as a suite's system-out: one a line,
// "" when there are none.
func warningsText(warnings []string) string {
	if len(warnings) == 0 {
		return ""
	}
	return contract.Printable("warnings:\n- " + strings.Join(warnings, "\n- "))
}

// joinLines joins the texts that are not empty, one a line.
func joinLines(texts ...string) string {
	return strings.Join(slices.DeleteFunc(texts, func(t string) bool { return t == "" }), "\n")
}

// warnings are the warnings of a CogLang result's response files.
func (c *CogLangResult) warnings() []string {
	rf := c.ResponseFile
	if rf == nil {
		return nil
	}
	// the case ids a file repeated or the fixture lacks, which the result
	// lists apart from its warnings, counted, as a toolcall report's warnings
	// count its duplicates and unknown ids
	var ws []string
	if n := len(rf.DuplicateCaseIDs); n > 0 {
		ws = append(ws, fmt.Sprintf("%s answered more than once (the last record wins): %s", contract.Plural(n, "case", "cases"), someOf(rf.DuplicateCaseIDs)))
	}
	if n := len(rf.UnknownCaseIDs) + rf.UnknownNotListed; n > 0 {
		ws = append(ws, fmt.Sprintf("%s of case ids the fixture does not have: %s", contract.Plural(n, "record", "records"), someOf(rf.UnknownCaseIDs)))
	}
	return append(ws, rf.Warnings...)
}

// junitRow is a row's test case (without its class name).
func junitRow(row *Row) JUnitCase { return junitRowOf(row, true).printable() }

// printable is tc with the control and bidi characters and lone surrogates
// of its texts written as their escapes (\x1b, \u202e, \ud800), as the other
// human formats write them (contract.Printable): a CI page shows these texts
// to people, and XML cannot hold some of them (each was U+FFFD).
func (tc JUnitCase) printable() JUnitCase {
	tc.Name, tc.SystemOut = contract.Printable(tc.Name), contract.Printable(tc.SystemOut)
	for _, p := range []**JUnitProblem{&tc.Failure, &tc.Error} {
		if *p != nil {
			c := **p
			c.Message, c.Text = contract.Printable(c.Message), contract.Printable(c.Text)
			*p = &c
		}
	}
	return tc
}

// junitRowOf is junitRow, its failure's or error's details written out only
// when text is set (counting a suite's tests needs none).
func junitRowOf(row *Row, text bool) JUnitCase {
	tc := JUnitCase{Name: caseName(row.CaseID, row.Repeat)}
	problem := func(message, typ string) *JUnitProblem {
		p := &JUnitProblem{Message: message, Type: typ}
		if text {
			p.Text = fmt.Sprintf("domain: %s\ncategory: %s\nattempts: %d\nfirst attempt codes: %s\nfinal codes: %s",
				row.Domain, row.Category, row.Attempts, list(row.Codes), list(row.FinalCodes))
			if row.Output != nil {
				p.Text += "\noutput: " + *row.Output
			}
			p.Text += lastErrors(row)
		}
		return p
	}
	switch {
	case row.Missing:
		tc.Error = problem("no response for this request", JUnitMissing)
	case row.FinalSuccess:
		// a pass, as final_success_percent counts it, a provider error at an
		// earlier attempt included
		if !row.FirstPassSuccess && text {
			tc.SystemOut = fmt.Sprintf("passed after %d attempts; first attempt codes: %s", row.Attempts, list(row.Codes))
			if row.ProviderError {
				tc.SystemOut += "; an earlier attempt was a provider error"
			}
		}
	case row.ProviderError:
		tc.Error = problem("the runner reported a provider error", JUnitProviderError)
	default:
		tc.Failure = problem(codesMessage(row.FinalCodes), JUnitWrongAnswer)
	}
	return tc
}

func codesMessage(codes []string) string {
	if len(codes) == 0 {
		return "failed"
	}
	return strings.Join(codes, ", ")
}

func junitCogLang(name string, c *CogLangResult) JUnitSuites {
	out := JUnitSuites{Name: contract.Printable("coglang: " + c.title())}
	listed := map[string]*CogLangCase{}
	for i := range c.Cases {
		listed[c.Cases[i].CaseID] = &c.Cases[i]
	}
	failing := map[string]*FailureCase{}
	for i := range c.FailureCases {
		failing[c.FailureCases[i].CaseID] = &c.FailureCases[i]
	}
	// The result lists every case only when cases holds as many as were scored.
	full := len(c.Cases) == c.CaseCount
	for _, l := range c.ladder() {
		if l.Summary == nil {
			continue
		}
		class := contract.Printable("coglang/" + l.Level)
		suite := JUnitSuite{Name: class, Properties: c.suiteProperties(l)}
		var ids []string
		if full {
			for _, cs := range c.Cases {
				if cs.Level == l.Level {
					ids = append(ids, cs.CaseID)
				}
			}
		} else {
			for _, f := range c.FailureCases {
				if f.Level == l.Level {
					ids = append(ids, f.CaseID)
				}
			}
		}
		for _, id := range ids {
			suite.add(junitCogCase(class, id, listed[id], failing[id]))
		}
		if !full {
			suite.SystemOut = notListed(l.Summary.CaseCount - len(ids))
		}
		suite.SystemOut = joinLines(suite.SystemOut, warningsText(c.warnings()))
		out.add(suite)
	}
	return out
}

// notListed is the system-out of a level's suite when the result lists only
// failing cases.
func notListed(n int) string {
	return contract.Plural(n, "passing case", "passing cases") + " not listed: the result holds failing cases only"
}

// junitCogCase is the test case of case id, with its scored case and its
// failure case when the result lists them.
func junitCogCase(class, id string, cs *CogLangCase, f *FailureCase) JUnitCase {
	return junitCogCaseOf(class, id, cs, f, true).printable()
}

// junitCogCaseOf is junitCogCase, its failure's or error's details written
// out only when text is set (counting a suite's tests needs none).
func junitCogCaseOf(class, id string, cs *CogLangCase, f *FailureCase, text bool) JUnitCase {
	tc := JUnitCase{ClassName: class, Name: id}
	cats := []string(nil)
	if f != nil {
		cats = f.FailureCategories
	} else if cs != nil {
		cats = cs.FailureCategories
	}
	if len(cats) > 0 {
		p := &JUnitProblem{Message: strings.Join(cats, ", "), Type: JUnitCogLang}
		if text {
			var d strings.Builder
			fmt.Fprintf(&d, "categories: %s", p.Message)
			if f != nil && len(f.HallucinatedHeads) > 0 {
				fmt.Fprintf(&d, "\nhallucinated heads: %s", strings.Join(f.HallucinatedHeads, ", "))
			}
			if f != nil && f.ParseError != nil {
				fmt.Fprintf(&d, "\nparse error: %s", *f.ParseError)
			}
			if cs != nil {
				fmt.Fprintf(&d, "\nprompt: %s\noutput: %s\npreflight: %s", cs.Prompt, strOr(cs.Output, "(none)"), strOr(cs.PreflightDecision, "none"))
			}
			p.Text = d.String()
		}
		// A provider error is a run that did not happen, as in toolcall.
		if len(cats) == 1 && cats[0] == JUnitProviderError {
			p.Type = JUnitProviderError
			tc.Error = p
		} else {
			tc.Failure = p
		}
	}
	return tc
}

// junitCogLangStream writes what junitCogLang builds as the cases are read,
// holding a hash of each case id (to find an id listed twice) and one case at
// a time. It walks the cases and the failure cases in step, so it writes
// nothing and returns false when they do not stand in the same order or an id
// is listed twice: then the result is held and joined by id.
func junitCogLangStream(w io.Writer, c *CogLangResult) (bool, error) {
	var levels []levelRow
	for _, l := range c.ladder() {
		if l.Summary != nil {
			levels = append(levels, l)
		}
	}
	var suites []JUnitSuite
	var caseIDs, failIDs []uint64
	seed := maphash.MakeSeed()
	// count walks the cases as full says, counting each level's tests and the
	// scored cases listed: what Open kept of them when it did (counted)
	counted := c.counted()
	count := func(full bool) (listed int, ok bool) {
		suites = make([]JUnitSuite, len(levels))
		caseIDs, failIDs = caseIDs[:0], failIDs[:0]
		ok = counted.walkBrief(full, func(id, level string, cs *CogLangCase, f *FailureCase) {
			if cs != nil {
				listed++
				caseIDs = append(caseIDs, maphash.String(seed, id))
			}
			if f != nil {
				failIDs = append(failIDs, maphash.String(seed, id))
			}
			for i, l := range levels {
				if l.Level == level {
					suites[i].count(junitCogCaseOf("", id, cs, f, false))
				}
			}
		})
		return listed, ok
	}
	// The result lists every case when its cases are as many as were scored:
	// walked as if it did, and again over the failure cases when it does not.
	full := true
	listed, ok := count(true)
	if listed != c.CaseCount {
		full = false
		_, ok = count(false)
	}
	if !ok || hasTwice(caseIDs) || hasTwice(failIDs) {
		return false, nil
	}
	caseIDs, failIDs = nil, nil
	for i, l := range levels {
		suites[i].Name = contract.Printable("coglang/" + l.Level)
		suites[i].Properties = c.suiteProperties(l)
		if !full {
			suites[i].SystemOut = notListed(l.Summary.CaseCount - suites[i].Tests)
		}
		suites[i].SystemOut = joinLines(suites[i].SystemOut, warningsText(c.warnings()))
	}
	out := JUnitSuites{Name: contract.Printable("coglang: " + c.title())}
	return true, writeJUnitSuites(w, out, suites, func(emit func(i int, tc JUnitCase) error) error {
		var err error
		c.walkJoined(full, nil, func(id, level string, cs *CogLangCase, f *FailureCase) {
			i := slices.IndexFunc(levels, func(l levelRow) bool { return l.Level == level })
			if err == nil && i >= 0 {
				err = emit(i, junitCogCase(suites[i].Name, id, cs, f))
			}
		})
		return err
	})
}

// hasTwice reports whether a value is in list more than once; it sorts list.
func hasTwice(list []uint64) bool {
	slices.Sort(list)
	for i := 1; i < len(list); i++ {
		if list[i] == list[i-1] {
			return true
		}
	}
	return false
}

func (s *JUnitSuite) add(tc JUnitCase) {
	s.Cases = append(s.Cases, tc)
	s.count(tc)
}

// count counts a test case in the suite's totals.
func (s *JUnitSuite) count(tc JUnitCase) {
	s.Tests++
	if tc.Failure != nil {
		s.Failures++
	}
	if tc.Error != nil {
		s.Errors++
	}
}

func (s *JUnitSuites) add(suite JUnitSuite) {
	s.Suites = append(s.Suites, suite)
	s.Tests += suite.Tests
	s.Failures += suite.Failures
	s.Errors += suite.Errors
}

// junitKept is what Open keeps of a saved CogLang result's streamed lists when
// asked (OpenOptions.JUnitCounts), from the reading that checks them: each
// element's case id (hashed), level and JUnit outcome, in the list's order,
// 12 bytes an element. A JUnit report's count of its tests walks these in
// place of the lists, so writing it reads the lists once more, not twice.
type junitKept struct {
	seed    maphash.Seed
	levelOf map[string]uint32
	levels  []string
	// cases and fails are nil when that list was not streamed.
	cases, fails *junitKeptList
}

// junitKeptList is one list's elements: ids[8k:8k+8] the hash of element k's
// case id, tags[k] its level's index shifted left by 2 and its junitOutcome.
type junitKeptList struct {
	ids  []byte
	tags []uint32
}

// junitOutcome is what a JUnit suite counts of a test case.
type junitOutcome uint32

const (
	junitPassed junitOutcome = iota
	junitFailed
	junitErred
)

// junitReplayCategories are the failure categories a kept element is replayed
// with: none, one that fails, and the provider error alone, which errs
// (junitCogCaseOf).
var junitReplayCategories = [...][]string{junitPassed: nil, junitFailed: {JUnitCogLang}, junitErred: {JUnitProviderError}}

func newJUnitKept() *junitKept {
	return &junitKept{seed: maphash.MakeSeed(), levelOf: map[string]uint32{}, cases: &junitKeptList{}, fails: &junitKeptList{}}
}

// keep adds to l the element of case id at level whose test case is tc.
func (k *junitKept) keep(l *junitKeptList, id, level string, tc JUnitCase) {
	li, ok := k.levelOf[level]
	if !ok {
		li = uint32(len(k.levels))
		k.levelOf[level] = li
		k.levels = append(k.levels, level)
	}
	o := junitPassed
	switch {
	case tc.Error != nil:
		o = junitErred
	case tc.Failure != nil:
		o = junitFailed
	}
	l.ids = binary.LittleEndian.AppendUint64(l.ids, maphash.String(k.seed, id))
	l.tags = append(l.tags, li<<2|uint32(o))
}

// keepCase and keepFailure keep a scored case and a failure case, each with
// the test case it alone makes.
func (k *junitKept) keepCase(cs *CogLangCase) {
	k.keep(k.cases, cs.CaseID, cs.Level, junitCogCaseOf("", cs.CaseID, cs, nil, false))
}

func (k *junitKept) keepFailure(f *FailureCase) {
	k.keep(k.fails, f.CaseID, f.Level, junitCogCaseOf("", f.CaseID, nil, f, false))
}

// replay calls yield with each element of l as the id, level and failure
// categories it is replayed with, until yield returns false: the id is its
// hash, 8 bytes, so two elements share an id as their case ids do.
func (k *junitKept) replay(l *junitKeptList, yield func(id, level string, cats []string) bool) {
	if len(l.ids) == 0 {
		return
	}
	// l is not changed once Open has returned: its ids are read as a string
	// in place, not copied.
	ids := unsafe.String(unsafe.SliceData(l.ids), len(l.ids))
	for i, tag := range l.tags {
		if !yield(ids[8*i:8*i+8], k.levels[tag>>2], junitReplayCategories[tag&3]) {
			return
		}
	}
}

// counted returns c with the lists it streamed replaced by what Open kept of
// them, for walkBrief; c itself when nothing was kept or its lists are no
// longer those Open read.
func (c *CogLangResult) counted() *CogLangResult {
	k := c.junitKept
	if k == nil || (k.cases == nil) != (c.CaseSource == nil) || (k.fails == nil) != (c.FailureSource == nil) {
		return c
	}
	v := *c
	v.junitKept = nil
	if l := k.cases; l != nil {
		v.Cases, v.CaseRanges, v.BriefCaseSource, v.casesOf = nil, nil, nil, nil
		v.CaseSource = func(yield func(*CogLangCase) bool) {
			var cs CogLangCase
			k.replay(l, func(id, level string, cats []string) bool {
				cs.CaseID, cs.Level, cs.FailureCategories = id, level, cats
				return yield(&cs)
			})
		}
	}
	if l := k.fails; l != nil {
		v.FailureCases, v.FailureRanges = nil, nil
		v.FailureSource = func(yield func(*FailureCase) bool) {
			var f FailureCase
			k.replay(l, func(id, level string, cats []string) bool {
				f.CaseID, f.Level, f.FailureCategories = id, level, cats
				return yield(&f)
			})
		}
	}
	return &v
}

// suiteProperties are the properties of level l's suite: its case count, its
// status and the models the result scored.
func (c *CogLangResult) suiteProperties(l levelRow) []JUnitProperty {
	ps := []JUnitProperty{
		{"case_count", strconv.Itoa(l.Summary.CaseCount)},
		{"status", l.Status},
	}
	if models := c.models(); len(models) > 0 {
		ps = append(ps, JUnitProperty{"models", strings.Join(models, ", ")})
	}
	return ps
}
