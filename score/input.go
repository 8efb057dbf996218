package score

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"strconv"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/score/report"
	"github.com/go-json-experiment/json/jsontext"
)

// Options tune scoring without changing results.
type Options struct {
	MaxLineBytes int // longest response line read (0: the contract default)
	// Workers is how many goroutines decode and judge records (0:
	// runtime.GOMAXPROCS). Results are the same for any number.
	Workers int
	// StrictBatch (CogLang --strict): a batch object's own schema_version, when
	// present and not null, must be the response-batch version. The reference
	// ignores it, and so does the default.
	StrictBatch bool
}

// Source is one response file to read.
type Source struct {
	Name string // as given by the user ("-" is standard input)
	R    io.Reader
}

// InputStats accounts for every line of one response file: read = accepted +
// rejected, and how many accepted records repeated an earlier id or named none.
type InputStats struct {
	Path       string
	SHA256     string
	Shape      string
	Lines      int
	Records    int
	Accepted   int
	Duplicates int
	Unknown    int
	// FirstUnknown is the id of the first record that answers no request, and
	// UnknownAt its line and column.
	FirstUnknown string
	UnknownAt    [2]int
	Rejected     []Rejection // the first MaxListed rejections
	// RejectedCount counts every rejected record, listed or not.
	RejectedCount int
	Warnings      []string
}

// MaxListed bounds the rejected lines a report lists for one file (and names on
// stderr): counts stay exact, the list says how many it leaves out, and a file of
// millions of bad lines does not make a report of gigabytes.
const MaxListed = 1000

// Reject counts a rejected record and lists it while the list has room.
func (s *InputStats) Reject(r Rejection) {
	s.RejectedCount++
	if len(s.Rejected) < MaxListed {
		s.Rejected = append(s.Rejected, r)
	}
}

// Rejection is one line that could not be used, and why.
type Rejection struct {
	Line   int
	Reason string // the whole one-line error, with file:line:col
}

// Input returns the stats as the report's entry for the file.
func (s *InputStats) Input() report.Input {
	rej := make([]report.Rejected, len(s.Rejected))
	for i, r := range s.Rejected {
		rej[i] = report.Rejected{Line: r.Line, Reason: r.Reason}
	}
	return report.Input{
		Role:              "responses",
		Path:              s.Path,
		SHA256:            s.SHA256,
		Shape:             s.Shape,
		Lines:             &s.Lines,
		Records:           &s.Records,
		Accepted:          &s.Accepted,
		Duplicates:        &s.Duplicates,
		Unknown:           &s.Unknown,
		Rejected:          rej,
		RejectedNotListed: s.RejectedCount - len(s.Rejected),
	}
}

// HashingReader hashes everything read through it, for the sha256 a report
// gives of each input.
type HashingReader struct {
	r io.Reader
	h hash.Hash
}

// NewHashingReader returns a reader of r that hashes what it reads.
func NewHashingReader(r io.Reader) *HashingReader {
	return &HashingReader{r: r, h: sha256.New()}
}

func (h *HashingReader) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	h.h.Write(p[:n])
	return n, err
}

// Finish reads whatever the record reader left (trailing blank space) so the
// hash covers the whole file, and returns the hex digest.
func (h *HashingReader) Finish() string {
	io.Copy(io.Discard, h)
	return hex.EncodeToString(h.h.Sum(nil))
}

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// CheckBatchVersion refuses a batch object whose schema_version is present, not
// null, and not want, at the value's position.
func CheckBatchVersion(rd *contract.Reader, name, want string) error {
	v, ok := rd.Header()["schema_version"]
	if !ok || v.Kind() == 'n' {
		return nil
	}
	if s, isStr := stringOf(v); isStr && s == want {
		return nil
	}
	line, col := rd.HeaderPosition("schema_version")
	return &contract.InputError{Kind: contract.ErrVersion, File: name, Line: line, Col: col, Msg: fmt.Sprintf("the batch schema_version must be %q (or absent), got %s", want, contract.ShowValue(v))}
}

func stringOf(v jsontext.Value) (string, bool) {
	if v.Kind() != '"' {
		return "", false
	}
	tok, err := jsontext.NewDecoder(bytesReader(v)).ReadToken()
	if err != nil {
		return "", false
	}
	return tok.String(), true
}

// Plural writes a count with the noun that fits it: "1 record", "2 records".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
