package runner

import (
	"os"
	"strings"
	"testing"
)

// TestOutputFull: a response that does not fit on the disk of an -o file
// says to make room and run the command again, which goes on from the
// records written (the file holds whole records and at most a torn last
// line, which OpenOutput cuts off); one written to a pipe or device, which a
// run again does not go on with, says only the system's reason.
func TestOutputFull(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full here:", err)
	}
	defer full.Close()
	for _, tc := range []struct {
		resumes bool
		want    string
	}{
		{true, "cannot write a response: write /dev/full: no space left on device: make room there and run the same command again: it goes on from the responses written"},
		{false, "cannot write a response: write /dev/full: no space left on device: make room there, or write the responses to another disk"},
	} {
		o := &Output{w: full, f: full, resumes: tc.resumes}
		err := o.Write([]byte("{}\n"))
		if err == nil || err.Error() != tc.want {
			t.Errorf("resumes %v: %v, want %q", tc.resumes, err, tc.want)
		}
	}
	o, err := OpenOutput("/dev/full", Resume{})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if err := o.Write([]byte("{}\n")); err == nil || strings.Contains(err.Error(), "run the same command again") {
		t.Errorf("-o /dev/full: %v", err)
	}
}
