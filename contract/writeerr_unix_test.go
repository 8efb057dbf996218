//go:build unix

package contract

import (
	"io/fs"
	"os"
	"syscall"
	"testing"
)

// TestWriteFailureLine: fbeval's and fbeval-batch's failed writes are worded
// by one owner: the reason without a file name, what became of the file
// (standard output is told nothing of it), and what to do.
func TestWriteFailureLine(t *testing.T) {
	batch := WriteFailure{Output: "the batch", Kept: "no batch file is left cut short under its name", Instead: "give another --out-dir"}
	report := WriteFailure{Output: "it", Kept: "nothing was written to it"}
	for _, tc := range []struct {
		w    WriteFailure
		path string
		err  error
		want string
	}{
		{report, "report.json", &fs.PathError{Op: "write", Path: "/tmp/.report.json-123", Err: syscall.ENOSPC},
			"cannot write report.json: no space left on device (nothing was written to it): make room there, or write it to another disk"},
		{report, "report.json", &fs.PathError{Op: "write", Path: "report.json", Err: syscall.EFBIG},
			"cannot write report.json: file too large (nothing was written to it): raise the limit on the size of a file this process may write (ulimit -f)"},
		{report, "standard output", &fs.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.ENOSPC},
			"cannot write standard output: no space left on device: make room there, or write it to another disk"},
		{batch, "b/batch-0001.jsonl", &os.LinkError{Op: "rename", Old: "b/.batch-0001.jsonl-9", New: "b/batch-0001.jsonl", Err: syscall.EACCES},
			"cannot write b/batch-0001.jsonl: permission denied (no batch file is left cut short under its name): make it (or the folder) writable for this user, or give another --out-dir"},
		{batch, "b/batch-0001.jsonl", &fs.PathError{Op: "write", Path: "b/.batch-0001.jsonl-9", Err: syscall.EDQUOT},
			"cannot write b/batch-0001.jsonl: disk quota exceeded (no batch file is left cut short under its name): make room there, or write the batch to another disk"},
		{batch, "b/batch-0001.jsonl", &fs.PathError{Op: "write", Path: "b/.batch-0001.jsonl-9", Err: syscall.EIO},
			"cannot write b/batch-0001.jsonl: input/output error (no batch file is left cut short under its name)"},
	} {
		if got := tc.w.Line(tc.path, tc.err); got != tc.want {
			t.Errorf("%q\nwant %q", got, tc.want)
		}
	}
}
