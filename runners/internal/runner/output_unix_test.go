//go:build unix

package runner_test

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/fbeval/fbeval/runners/internal/runner"
)

// TestOpenOutputPipe: an -o that is a pipe (a FIFO, or /dev/stdout piped to
// another command) is written as it is, with nothing resumed: reading it first
// waited for what the run itself was to write, and the run hung.
func TestOpenOutputPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo) // waits for the writer
		if err != nil {
			got <- "open: " + err.Error()
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- string(b)
	}()
	opened := make(chan error, 1)
	var out *runner.Output
	go func() {
		var err error
		out, err = runner.OpenOutput(fifo, runner.Resume{Fresh: true})
		opened <- err
	}()
	select {
	case err := <-opened:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("OpenOutput of a FIFO did not return")
	}
	if err := out.Write([]byte(`{"request_id":"a","output":"x"}` + "\n")); err != nil {
		t.Fatal(err)
	}
	out.Close()
	if s := <-got; s != `{"request_id":"a","output":"x"}`+"\n" {
		t.Errorf("the reader got %q", s)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v", err)
	}
}

// TestOpenOutputOnce: a response file a run is writing is not opened by a
// second run (a runner started twice, in two terminals): the second is
// refused before it reads, cuts or empties anything (--fresh included), and
// the file opens again once the first run has closed it.
func TestOpenOutputOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.jsonl")
	first, err := runner.OpenOutput(path, runner.Resume{})
	if err != nil {
		t.Fatal(err)
	}
	// the first run is half way through a record
	half := `{"request_id":"a","output":"x"}` + "\n" + `{"request_id":"b","out`
	if err := first.Write([]byte(half)); err != nil {
		t.Fatal(err)
	}
	for _, fresh := range []bool{false, true} {
		o, err := runner.OpenOutput(path, runner.Resume{Fresh: fresh})
		if err == nil {
			o.Close()
			t.Fatalf("fresh %v: a second run opened the file", fresh)
		}
		if want := "-o " + path + ": another run is writing it (a runner started twice?): let that run end, or write to another file"; err.Error() != want {
			t.Errorf("fresh %v: %v, want %q", fresh, err, want)
		}
		if data, _ := os.ReadFile(path); string(data) != half {
			t.Errorf("fresh %v: the file is now %q", fresh, data)
		}
	}
	first.Close()
	again, err := runner.OpenOutput(path, runner.Resume{})
	if err != nil {
		t.Fatal(err)
	}
	again.Close()
}

// TestOpenOutputAppendsOnly: a record another writer appends to the file a
// run is writing (a second runner's >> FILE, which the lock does not stop)
// is kept: the run's writes went to its own offset, over it.
func TestOpenOutputAppendsOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.jsonl")
	os.WriteFile(path, []byte(`{"request_id":"a","output":"x"}`+"\n"+`{"request_id":"b","ou`), 0o644)
	o, err := runner.OpenOutput(path, runner.Resume{})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	other, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	for _, w := range []struct {
		write func([]byte) error
		line  string
	}{
		{o.Write, `{"request_id":"b","output":"y"}`},
		{func(b []byte) error { _, err := other.Write(b); return err }, `{"request_id":"c","output":"theirs"}`},
		{o.Write, `{"request_id":"d","output":"z"}`},
	} {
		if err := w.write([]byte(w.line + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	want := `{"request_id":"a","output":"x"}` + "\n" + `{"request_id":"b","output":"y"}` + "\n" + `{"request_id":"c","output":"theirs"}` + "\n" + `{"request_id":"d","output":"z"}` + "\n"
	if data, _ := os.ReadFile(path); string(data) != want {
		t.Errorf("the file is\n%s\nwant\n%s", data, want)
	}
}

// TestReadAnsweredPipe: responses read from a FIFO (or a shell's <(...), or
// /dev/stdin piped) are read once, whole: a first open to look at the file's
// start took its head, and a second read the rest (the records of the head
// were taken as unanswered, and asked again), or waited for ever on a FIFO.
func TestReadAnsweredPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	var text []byte
	for i := range 300 {
		text = append(text, `{"request_id": "case-`...)
		text = append(text, byte('0'+i/100), byte('0'+i/10%10), byte('0'+i%10))
		text = append(text, `.a1", "output": "{\"action\": \"refuse\", \"reason\": \"padding padding padding padding padding padding padding padding padding padding padding\"}"}`+"\n"...)
	}
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.Write(text)
		f.Close()
	}()
	done := make(chan struct{})
	var o *runner.Output
	var err error
	go func() {
		o, err = runner.ReadAnswered(fifo, runner.Resume{})
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("ReadAnswered of a FIFO did not return")
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"case-000.a1", "case-150.a1", "case-299.a1"} {
		if !o.Answered(id) {
			t.Errorf("%s is not answered", id)
		}
	}
}
