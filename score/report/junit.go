package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
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
)

// WriteJUnit writes doc as JUnit XML.
//
// Toolcall: one <testsuite> per arm named "toolcall/ARM", one <testcase> per (case,
// repeat) named by the case id ("#rN" appended for repeat N > 1). A row passes when
// its final attempt succeeded (so repairs count, as final_success_percent does); a
// failing row is a <failure> whose message lists the final codes; a provider error
// or a missing response is an <error>, never a failure, so the failure count is
// exactly the rows that answered wrongly.
//
// CogLang: one <testsuite> per evaluated level named "coglang/LEVEL"; a case fails
// when it has failure categories (missing output included, as the result counts it).
// When the result lists only failing cases (or none), only the failing cases are
// written and the suite says how many passing cases were not listed.
func WriteJUnit(w io.Writer, doc Doc) error {
	doc = doc.held()
	var s JUnitSuites
	switch doc.Kind {
	case KindToolcall:
		s = junitToolcall(doc.Name, doc.Toolcall)
	case KindCogLang:
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

func junitToolcall(name string, r *ToolcallReport) JUnitSuites {
	out := JUnitSuites{Name: "toolcall: " + r.title()}
	for _, a := range r.Arms {
		class := "toolcall/" + a.Key
		suite := JUnitSuite{Name: class, Properties: []JUnitProperty{
			{"first_pass_success_percent", num(a.Value.FirstPassSuccess, 1)},
			{"final_success_percent", num(a.Value.FinalSuccess, 1)},
		}}
		for _, row := range r.Rows {
			if row.Arm != a.Key {
				continue
			}
			tc := JUnitCase{ClassName: class, Name: caseName(row.CaseID, row.Repeat)}
			detail := fmt.Sprintf("domain: %s\ncategory: %s\nattempts: %d\nfirst attempt codes: %s\nfinal codes: %s",
				row.Domain, row.Category, row.Attempts, list(row.Codes), list(row.FinalCodes))
			if row.Output != nil {
				detail += "\noutput: " + *row.Output
			}
			switch {
			case row.Missing:
				tc.Error = &JUnitProblem{Message: "no response for this request", Type: JUnitMissing, Text: detail}
			case row.ProviderError:
				tc.Error = &JUnitProblem{Message: "the runner reported a provider error", Type: JUnitProviderError, Text: detail}
			case !row.FinalSuccess:
				tc.Failure = &JUnitProblem{Message: codesMessage(row.FinalCodes), Type: JUnitWrongAnswer, Text: detail}
			case !row.FirstPassSuccess:
				tc.SystemOut = fmt.Sprintf("passed after %d attempts; first attempt codes: %s", row.Attempts, list(row.Codes))
			}
			suite.add(tc)
		}
		out.add(suite)
	}
	return out
}

func codesMessage(codes []string) string {
	if len(codes) == 0 {
		return "failed"
	}
	return strings.Join(codes, ", ")
}

func junitCogLang(name string, c *CogLangResult) JUnitSuites {
	out := JUnitSuites{Name: "coglang: " + c.title()}
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
		class := "coglang/" + l.Level
		suite := JUnitSuite{Name: class, Properties: []JUnitProperty{
			{"case_count", strconv.Itoa(l.Summary.CaseCount)},
			{"status", l.Status},
		}}
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
			tc := JUnitCase{ClassName: class, Name: id}
			cs := listed[id]
			f := failing[id]
			cats := []string(nil)
			if f != nil {
				cats = f.FailureCategories
			} else if cs != nil {
				cats = cs.FailureCategories
			}
			if len(cats) > 0 {
				var d strings.Builder
				fmt.Fprintf(&d, "categories: %s", strings.Join(cats, ", "))
				if f != nil && len(f.HallucinatedHeads) > 0 {
					fmt.Fprintf(&d, "\nhallucinated heads: %s", strings.Join(f.HallucinatedHeads, ", "))
				}
				if f != nil && f.ParseError != nil {
					fmt.Fprintf(&d, "\nparse error: %s", *f.ParseError)
				}
				if cs != nil {
					fmt.Fprintf(&d, "\nprompt: %s\noutput: %s\npreflight: %s", cs.Prompt, strOr(cs.Output, "(none)"), strOr(cs.PreflightDecision, "none"))
				}
				p := &JUnitProblem{Message: strings.Join(cats, ", "), Type: JUnitCogLang, Text: d.String()}
				// A provider error is a run that did not happen, as in toolcall.
				if len(cats) == 1 && cats[0] == JUnitProviderError {
					p.Type = JUnitProviderError
					tc.Error = p
				} else {
					tc.Failure = p
				}
			}
			suite.add(tc)
		}
		if !full {
			n := l.Summary.CaseCount - len(ids)
			suite.SystemOut = fmt.Sprintf("%d passing case%s not listed: the result holds failing cases only", n, plural(n))
		}
		out.add(suite)
	}
	return out
}

func (s *JUnitSuite) add(tc JUnitCase) {
	s.Cases = append(s.Cases, tc)
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
