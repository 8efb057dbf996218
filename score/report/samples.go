package report

import (
	_ "embed"
	"io"
	"strconv"

	"github.com/fbeval/fbeval/contract"
)

//go:embed samples.js
var samplesJS string

// The sample browser's data is one JSON object, every request of a toolcall
// report, with repeated strings (arms, domains, categories, codes, pointers,
// messages) written once and referred to by index, so a report of 100,000
// requests stays compact:
//
//	{"arms":[...],"domains":[...],"categories":[...],"codes":[...],
//	 "strings":[...],"cases":[...],"rows":[...]}
//
// strings holds outputs, error paths and messages: a study's repeats often give
// the same output many times. A case is [case id, domain, category, prompt,
// expected answer as JSON text]; a row is [case, arm, repeat, flags, attempts],
// flags: 1 first pass, 2 final, 4 provider error, 8 no response. An attempt is
// [number, output (a string index, -1 for none), errors], an error [code, path,
// message].
//
// The lists of strings come first but are complete only when every row has been
// seen, so cases and rows are written as JSON while the rows are walked (no
// value is boxed, nothing per row is held but its bytes), and the block is
// written from the lists and that JSON at the end. Every string is escaped for a
// script element (see contract.AppendStringForHTML).

// interner numbers strings in the order they are first seen.
type interner struct {
	list []string
	idx  map[string]int
}

func (in *interner) id(s string) int {
	if in.idx == nil {
		in.idx = map[string]int{}
	}
	if i, ok := in.idx[s]; ok {
		return i
	}
	in.idx[s] = len(in.list)
	in.list = append(in.list, s)
	return len(in.list) - 1
}

// sampleData is the sample browser's data being written: the lists of strings
// so far and the cases and rows as JSON.
type sampleData struct {
	arms, domains, categories, codes, strs, caseIDs interner
	cases                                           []byte // "[" and the cases so far
	rows                                            pages  // "[" and the rows so far
	nRows                                           int
	// requests counts the requests the rows answer: a row's attempts, at least one.
	requests int
}

// sampleRows reads every row of r once and writes its sample data, handing each
// row to also (which must not keep it) as it goes. A report written before rows
// carried their attempts gives each row its last attempt: the output of a
// failing row and its final codes.
func sampleRows(r *ToolcallReport, also func(*Row)) *sampleData {
	d := &sampleData{}
	for _, a := range r.Arms {
		d.arms.id(a.Key)
	}
	info := map[string]*CaseInfo{}
	for i := range r.Cases {
		info[r.Cases[i].CaseID] = &r.Cases[i]
	}
	missing := false
	var fallback [1]AttemptResult
	var errs [][3]int
	for row := range r.rows() {
		also(row)
		d.requests += max(1, len(row.AttemptResults))
		missing = missing || row.Missing
		ci, known := d.caseIDs.idx[row.CaseID]
		if !known {
			ci = d.caseIDs.id(row.CaseID)
			prompt, expected := "", ""
			if c := info[row.CaseID]; c != nil {
				prompt, expected = c.Prompt, string(c.Expected)
			}
			d.cases = contract.AppendItem(d.cases, contract.Compact, 0, ci)
			d.cases = contract.AppendStringForHTML(append(d.cases, '['), row.CaseID)
			d.cases = appendIndex(d.cases, d.domains.id(row.Domain))
			d.cases = appendIndex(d.cases, d.categories.id(row.Category))
			d.cases = contract.AppendStringForHTML(append(d.cases, ','), prompt)
			d.cases = contract.AppendStringForHTML(append(d.cases, ','), expected)
			d.cases = append(d.cases, ']')
		}
		flags := 0
		for bit, on := range []bool{row.FirstPassSuccess, row.FinalSuccess, row.ProviderError, row.Missing} {
			if on {
				flags |= 1 << bit
			}
		}
		b := contract.AppendItem(d.rows.room(), contract.Compact, 0, d.nRows)
		d.nRows++
		b = strconv.AppendInt(append(b, '['), int64(ci), 10)
		b = appendIndex(b, d.arms.id(row.Arm))
		b = appendIndex(b, row.Repeat)
		b = appendIndex(b, flags)
		b = append(b, ",["...)
		results := row.AttemptResults
		if results == nil && !row.Missing {
			last := AttemptResult{Attempt: max(row.Attempts, 1), Output: row.Output}
			for _, c := range row.FinalCodes {
				last.Errors = append(last.Errors, AttemptError{Code: c})
			}
			fallback[0] = last
			results = fallback[:]
		}
		for i, a := range results {
			// Errors are numbered before the output, as they always were, so the
			// strings keep their order.
			errs = errs[:0]
			for _, e := range a.Errors {
				errs = append(errs, [3]int{d.codes.id(e.Code), d.strs.id(e.Path), d.strs.id(e.Message)})
			}
			output := -1
			if a.Output != nil {
				output = d.strs.id(*a.Output)
			}
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(append(b, '['), int64(a.Attempt), 10)
			b = append(appendIndex(b, output), ",["...)
			for j, e := range errs {
				if j > 0 {
					b = append(b, ',')
				}
				b = strconv.AppendInt(append(b, '['), int64(e[0]), 10)
				b = append(appendIndex(appendIndex(b, e[1]), e[2]), ']')
			}
			b = append(b, "]]"...)
		}
		d.rows.cur = append(b, "]]"...)
	}
	if missing {
		d.codes.id("MISSING_RESPONSE")
	}
	return d
}

// pages holds bytes written a page at a time. A full page is never regrown, so
// the rows' JSON (34 MB at 1,008,000 rows) is never copied to a larger array,
// nor held twice while it is.
type pages struct {
	full [][]byte
	cur  []byte // append to it after room
}

// maxPage is the size pages grow to, doubling from 4 KB.
const maxPage = 1 << 20

// room returns the page to append the next item to: cur, or a new one when cur
// has less than a row's usual bytes left (a longer row grows it).
func (p *pages) room() []byte {
	if cap(p.cur)-len(p.cur) < 512 {
		size := 4 << 10
		if p.cur != nil {
			p.full = append(p.full, p.cur)
			size = min(2*cap(p.cur), maxPage)
		}
		p.cur = make([]byte, 0, size)
	}
	return p.cur
}

// appendIndex appends "," and n.
func appendIndex(dst []byte, n int) []byte {
	return strconv.AppendInt(append(dst, ','), int64(n), 10)
}

// samplesMark stands for the sample browser in the page the template writes,
// and the block is written in its place: the page is never held with its data.
// html/template writes a NUL in any text as U+FFFD, so no text of the report
// can be taken for it.
const samplesMark = "\x00fbeval-samples\x00"

// writeTo writes the sample data as a JSON script block and the browser's
// script. The JSON escapes <, > and & so no text in it can end the block or be
// read as markup; the script is wrapped so the page stays well-formed XML.
func (d *sampleData) writeTo(w io.Writer) error {
	const flushAt = 64 << 10
	b := make([]byte, 0, 2*flushAt)
	b = append(b, `<script type="application/json" id="fbeval-samples">`...)
	var err error
	flush := func() {
		if err == nil {
			_, err = w.Write(b)
		}
		b = b[:0]
	}
	for i, list := range []struct {
		key string
		in  *interner
	}{{"arms", &d.arms}, {"domains", &d.domains}, {"categories", &d.categories}, {"codes", &d.codes}, {"strings", &d.strs}} {
		b = contract.AppendMember(b, contract.Compact, 0, i, list.key)
		for j, s := range list.in.list {
			b = contract.AppendStringForHTML(contract.AppendItem(b, contract.Compact, 1, j), s)
			if len(b) >= flushAt {
				flush()
			}
		}
		b = contract.AppendClose(b, contract.Compact, 1, len(list.in.list), ']')
	}
	b = contract.AppendMember(b, contract.Compact, 0, 5, "cases")
	flush()
	d.cases = contract.AppendClose(d.cases, contract.Compact, 1, len(d.caseIDs.list), ']')
	if err == nil {
		_, err = w.Write(d.cases)
	}
	b = contract.AppendMember(b, contract.Compact, 0, 6, "rows")
	flush()
	d.rows.cur = contract.AppendClose(d.rows.room(), contract.Compact, 1, d.nRows, ']')
	for _, page := range append(d.rows.full, d.rows.cur) {
		if err == nil {
			_, err = w.Write(page)
		}
	}
	b = append(b, "}</script>\n<script>/*<![CDATA[*/\n"...)
	b = append(b, samplesJS...)
	b = append(b, "/*]]>*/</script>\n"...)
	flush()
	return err
}
