//go:build unix

package runner

import (
	"os"
	"path/filepath"
	"testing"
)

// TestOutputCloseError: a response file whose close fails (a network file
// system may report a failed write only then) is an error a run reports
// before it says it is done, not one a deferred close drops; closed again, it
// is nothing. The failing close is a descriptor no file has.
func TestOutputCloseError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.jsonl")
	o, err := OpenOutput(path, Resume{})
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Write([]byte(`{"request_id":"a","output":"x"}` + "\n")); err != nil {
		t.Fatal(err)
	}
	o.f.Close()
	o.f = os.NewFile(1<<20-1, path)
	err = o.Close()
	want := "cannot write the responses: close " + path + ": bad file descriptor: run the same command again: it goes on from the responses the file holds"
	if err == nil || err.Error() != want {
		t.Errorf("Close: %v, want %q", err, want)
	}
	if err := o.Close(); err != nil {
		t.Errorf("closed again: %v", err)
	}
}
