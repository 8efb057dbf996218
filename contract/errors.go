package contract

import "fmt"

// InputError is a problem with an input file, located by file, line and column
// (1-based; a zero Line or Col is left out). It is reported as one line and makes the
// command exit 2.
type InputError struct {
	File string
	Line int
	Col  int
	Msg  string
}

func (e *InputError) Error() string {
	switch {
	case e.File == "":
		return e.Msg
	case e.Line == 0:
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	case e.Col == 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// ExitCode is 2: bad input.
func (e *InputError) ExitCode() int { return 2 }
