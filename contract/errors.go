package contract

import (
	"errors"
	"fmt"
)

// The kinds of input error. An *InputError unwraps to its kind, so callers and tests
// ask errors.Is(err, contract.ErrLimit) rather than reading the message.
var (
	// ErrRead: the file could not be read (a missing file, a directory, an I/O error).
	ErrRead = errors.New("unreadable input")
	// ErrSyntax: not JSON text, or invalid JSON (including a NUL byte or bad UTF-8).
	ErrSyntax = errors.New("invalid JSON")
	// ErrLimit: a file, line, record or value over one of the reading limits.
	ErrLimit = errors.New("over a limit")
	// ErrShape: valid JSON of the wrong shape (a JSON object that is neither a record
	// nor a batch, a batch whose records are not a list, data after the document).
	ErrShape = errors.New("wrong document shape")
	// ErrField: a record field that is missing, unknown, or of the wrong type or value.
	ErrField = errors.New("bad record field")
	// ErrVersion: a schema_version that is not the one expected.
	ErrVersion = errors.New("wrong schema_version")
	// ErrWrongFile: a readable file of the wrong kind for its place (request records
	// given as responses, the other suite's responses, a file that answers no request
	// of the study).
	ErrWrongFile = errors.New("wrong kind of file")
	// ErrUsage: a flag value that cannot be used (a malformed gate, an unknown study).
	ErrUsage = errors.New("bad usage")
)

// InputError is a problem with an input file, located by file, line and column
// (1-based; a zero Line or Col is left out). It is reported as one line and makes the
// command exit 2. Kind, when set, is one of the Err kinds above.
type InputError struct {
	File string
	Line int
	Col  int
	Msg  string
	Kind error
	// Member is the JSON Pointer of the record's member the error is about,
	// where the decoder names one ("/error").
	Member string
	// Advised: Msg says what to do (make the file again with this fbeval,
	// write the ids unboxed), so whoever reports it adds no advice of its own.
	Advised bool
}

func (e *InputError) Error() string {
	// the file's name one printable line (a line break in it was taken
	// for the message's and made "; ")
	file := PrintableLine(e.File)
	switch {
	case e.File == "":
		return e.Msg
	case e.Line == 0:
		return fmt.Sprintf("%s: %s", file, e.Msg)
	case e.Col == 0:
		return fmt.Sprintf("%s:%d: %s", file, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", file, e.Line, e.Col, e.Msg)
}

// Unwrap returns the error's kind, so errors.Is(err, ErrLimit) and the like work.
func (e *InputError) Unwrap() error { return e.Kind }

// Of sets the error's kind and returns the error.
func (e *InputError) Of(kind error) *InputError {
	e.Kind = kind
	return e
}

// Advising marks e as saying what to do when advised is true (Advised).
func (e *InputError) Advising(advised bool) *InputError {
	e.Advised = advised
	return e
}

// ExitCode is 2: bad input.
func (e *InputError) ExitCode() int { return 2 }
