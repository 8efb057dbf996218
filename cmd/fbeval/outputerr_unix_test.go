//go:build unix

package main

import (
	"io/fs"
	"syscall"
	"testing"
)

// TestOutputWriteError: a write a full disk or the size limit (ulimit -f)
// stops says what to do (the size limit was said as "file too large" alone).
func TestOutputWriteError(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&fs.PathError{Op: "write", Path: "report.json", Err: syscall.ENOSPC}, "cannot write report.json: no space left on device (nothing was written to it): make room there, or write it to another disk"},
		{&fs.PathError{Op: "write", Path: "report.json", Err: syscall.EFBIG}, "cannot write report.json: file too large (nothing was written to it): raise the limit on the size of a file this process may write (ulimit -f)"},
		{&fs.PathError{Op: "write", Path: "report.json", Err: syscall.EIO}, "cannot write report.json: input/output error (nothing was written to it)"},
	} {
		if got := outputWriteError("report.json", tc.err).Error(); got != tc.want {
			t.Errorf("%q, want %q", got, tc.want)
		}
	}
}
