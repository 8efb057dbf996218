package study

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/contract/strictjson"
	tc "github.com/fbeval/fbeval/score/toolcall"
)

// An attempt's detail is what its rows and case results quote and the
// aggregates do not need: the output text, the provider error, and every judge
// error in full (code, path, keyword, message, expected, actual, details). It is
// not kept in memory: it is written to a spool file and read back by offset.
//
// Encoding of one entry (all counts and lengths unsigned varints):
//
//	entry  = flags output [code message] count error*   (code, message when flags&1)
//	error  = code path keyword message value value count error*
//	value  = 0 (none) | 1 text                           (an expected or actual value)
//	string = length bytes                              (a contract field)
type detail struct {
	output   string
	provider *contract.ProviderError
	errors   []tc.Error
	codes    []string // the codes of errors, in order (settledRange sets them)
}

const detailProvider = 1

// maxDetailDepth bounds the nesting of error details a decoder follows: the
// judge nests one level (a candidate schema error's details).
const maxDetailDepth = 8

// appendDetail appends the encoding of an entry to b.
func appendDetail(b []byte, output []byte, provider *contract.ProviderError, errs []tc.Error) []byte {
	if provider != nil {
		return appendProviderDetail(b, output, provider.Code, provider.Message, errs)
	}
	b = append(b, 0)
	b = contract.AppendField(b, output)
	return appendErrors(b, errs)
}

// appendProviderDetail is appendDetail for a provider error of that code and
// message.
func appendProviderDetail[S ~string | ~[]byte](b []byte, output []byte, code, message S, errs []tc.Error) []byte {
	b = append(b, detailProvider)
	b = contract.AppendField(b, output)
	b = contract.AppendField(b, code)
	b = contract.AppendField(b, message)
	return appendErrors(b, errs)
}

func appendErrors(b []byte, errs []tc.Error) []byte {
	b = binary.AppendUvarint(b, uint64(len(errs)))
	for i := range errs {
		e := &errs[i]
		b = contract.AppendField(b, e.Code)
		b = contract.AppendField(b, e.Path)
		b = contract.AppendField(b, e.Keyword)
		b = contract.AppendField(b, e.Message)
		b = appendValue(b, e.Expected)
		b = appendValue(b, e.Actual)
		b = appendErrors(b, e.Details)
	}
	return b
}

// appendValue writes an expected or actual value as JSON text; the judge gives
// nil or strictjson.JSONText, and anything else is written as ErrorInfo would.
func appendValue(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, 0)
	case strictjson.JSONText:
		return contract.AppendField(append(b, 1), string(x))
	}
	return contract.AppendField(append(b, 1), jsonText(v))
}

var errBadDetail = errors.New("a detail entry of the scoring spool is damaged")

// decodeDetail decodes one entry that fills b exactly. With outputOnly, only the
// output and provider error are decoded (the errors are left out).
func decodeDetail(b []byte, outputOnly bool) (detail, error) {
	// one string for the whole entry: its strings are parts of it
	return decodeDetailString(string(b), outputOnly, nil)
}

// decodeDetailString decodes one entry that fills s exactly; the strings of the
// detail are parts of s. The lists of errors are taken from errs when it is not
// nil.
func decodeDetailString(s string, outputOnly bool, errs *arena[tc.Error]) (detail, error) {
	d := detailDecoder{s: s, errs: errs}
	var out detail
	flags := d.byte()
	out.output = d.str()
	if flags&detailProvider != 0 {
		out.provider = &contract.ProviderError{Code: d.str(), Message: d.str()}
	}
	if flags&^detailProvider != 0 {
		d.err = true
	}
	if outputOnly {
		return out, d.check(false)
	}
	out.errors = d.errors(0)
	return out, d.check(true)
}

type detailDecoder struct {
	s    string // what is left to decode
	err  bool
	errs *arena[tc.Error] // where lists of errors are taken from, if not nil
}

func (d *detailDecoder) check(whole bool) error {
	if d.err || (whole && len(d.s) != 0) {
		return errBadDetail
	}
	return nil
}

func (d *detailDecoder) byte() byte {
	if d.err || len(d.s) == 0 {
		d.err = true
		return 0
	}
	c := d.s[0]
	d.s = d.s[1:]
	return c
}

func (d *detailDecoder) uvarint() uint64 {
	if d.err {
		return 0
	}
	n, rest, ok := contract.CutUvarint(d.s)
	d.s, d.err = rest, !ok
	return n
}

func (d *detailDecoder) str() string {
	if d.err {
		return ""
	}
	f, rest, ok := contract.CutField(d.s)
	d.s, d.err = rest, !ok
	return f
}

func (d *detailDecoder) value() any {
	switch d.byte() {
	case 0:
		return nil
	case 1:
		return strictjson.JSONText(d.str())
	}
	d.err = true
	return nil
}

func (d *detailDecoder) errors(depth int) []tc.Error {
	n := d.uvarint()
	if n == 0 || d.err {
		return nil
	}
	// an error takes at least 7 bytes: a count larger than that is damage
	if depth > maxDetailDepth || n > uint64(len(d.s))/7 {
		d.err = true
		return nil
	}
	var out []tc.Error
	if d.errs != nil {
		out = d.errs.take(int(n))[:n]
	} else {
		out = make([]tc.Error, n)
	}
	for i := range out {
		e := &out[i]
		e.Code, e.Path, e.Keyword, e.Message = d.str(), d.str(), d.str(), d.str()
		e.Expected, e.Actual = d.value(), d.value()
		e.Details = d.errors(depth + 1)
		if d.err {
			return nil
		}
	}
	return out
}

// spool is the temporary file (contract.TempFile) details are written to and
// read back from.
type spool struct {
	f    *contract.TempFile
	w    *bufio.Writer
	size int64 // bytes written, flushed or not
	err  error
}

func (s *spool) open() error {
	if s.f != nil || s.err != nil {
		return s.err
	}
	f, err := contract.CreateTemp("fbeval-details-*", "scoring details")
	if err != nil {
		s.err = err
		return s.err
	}
	s.f = f
	s.w = bufio.NewWriterSize(f, 256<<10)
	return nil
}

// write appends one entry and returns its offset.
func (s *spool) write(entry []byte) (int64, error) {
	if err := s.open(); err != nil {
		return 0, err
	}
	off := s.size
	if _, err := s.w.Write(entry); err != nil {
		s.err = err // a contract.TempFile's: it says what to do
		return 0, s.err
	}
	s.size += int64(len(entry))
	return off, nil
}

// flush makes everything written readable by offset.
func (s *spool) flush() error {
	if s.err != nil || s.w == nil {
		return s.err
	}
	s.err = s.w.Flush()
	return s.err
}

func (s *spool) readAt(b []byte, off int64) error {
	if _, err := s.f.ReadAt(b, off); err != nil {
		return fmt.Errorf("reading scoring details back from a temporary file: %w", err)
	}
	return nil
}

func (s *spool) close() {
	if s.f == nil {
		return
	}
	s.f.Close()
	s.f, s.w = nil, nil
}
