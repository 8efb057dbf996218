package contract

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// WriteFailure is how one program words a write of its outputs that failed:
// the one owner of the line, so fbeval and the runners say a full disk, the
// size limit and a file the user cannot write alike.
type WriteFailure struct {
	// Output is what the advice for a full disk writes elsewhere: "it",
	// "the batch".
	Output string
	// Kept says what became of the file, after the reason ("nothing was
	// written to it"); standard output is told nothing of it.
	Kept string
	// Instead is the other way out of a file the user may not write, after
	// making it writable ("give another --out-dir"); "" for none.
	Instead string
}

// Line is the one line of a write of the output named path (standard output
// for "standard output") that failed with err: the system's reason without a
// file name (a temporary file's is none of the user's, the output's is said
// once), what became of the file, and what to do where the reason is one the
// user can mend.
func (w WriteFailure) Line(path string, err error) string {
	msg := fmt.Sprintf("cannot write %s: %v", path, Reason(err))
	if path != "standard output" && w.Kept != "" {
		msg += " (" + w.Kept + ")"
	}
	switch {
	case DiskFull(err):
		msg += ": make room there, or write " + w.Output + " to another disk"
	case TooLarge(err):
		msg += ": " + SizeLimitAdvice
	case errors.Is(err, fs.ErrPermission):
		msg += ": make it (or the folder) writable for this user"
		if w.Instead != "" {
			msg += ", or " + w.Instead
		}
	}
	return msg
}

// SizeLimitAdvice is what to do when a write passes the largest file the
// process may write (TooLarge).
const SizeLimitAdvice = "raise the limit on the size of a file this process may write (ulimit -f)"

// Reason is the system's reason err gives for a failed file operation,
// without the file names a fs.PathError or os.LinkError adds to it.
func Reason(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
