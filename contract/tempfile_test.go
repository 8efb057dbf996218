package contract

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// TestTempFileLeavesNothing: a TempFile is gone from its directory once it is
// closed, at once where the system allows it, and its bytes read back while
// it is open.
func TestTempFileLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	t.Setenv("TMP", dir) // Windows
	f, err := CreateTemp("fbeval-test-*", "a test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("kept"); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 4)
	if _, err := f.ReadAt(b, 0); err != nil || string(b) != "kept" {
		t.Fatalf("read back %q, %v", b, err)
	}
	if left, _ := os.ReadDir(dir); runtime.GOOS == "linux" && len(left) > 0 {
		t.Errorf("the open file is still named in its directory: %v", left)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		t.Errorf("closed, the file is still there: %v", left)
	}
}

// TestTempFileNoDirectory: without a writable temporary directory, one line
// says what the file was for and what to set.
func TestTempFileNoDirectory(t *testing.T) {
	t.Setenv("TMPDIR", "/nonexistent/fbeval")
	t.Setenv("TMP", "/nonexistent/fbeval")
	_, err := CreateTemp("fbeval-test-*", "the scored cases")
	if err == nil {
		t.Fatal("made a temporary file in a directory that does not exist")
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "cannot make a temporary file for the scored cases: ") || !strings.HasSuffix(msg, "(set TMPDIR to a writable directory)") || strings.Contains(msg, "\n") {
		t.Errorf("message %q", msg)
	}
}

// TestTempFileFull: a write to a temporary file on a full disk, through each
// way fbeval writes one, is one line naming what the file held and its
// directory, and saying what to set; other failures say the system's reason
// alone.
func TestTempFileFull(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full here:", err)
	}
	defer full.Close()
	tf := &TempFile{File: full, what: "scoring details", dir: "/tmp/x"}
	const want = "cannot write the temporary file of scoring details in /tmp/x: no space left on device: set TMPDIR to a directory with more room (docs/security.md says what fbeval keeps there)"
	bw := bufio.NewWriterSize(tf, 16)
	_, bufErr := bw.Write([]byte("more than sixteen bytes"))
	_, strErr := tf.WriteString("x")
	_, copyErr := bufio.NewWriter(tf).ReadFrom(io.LimitReader(strings.NewReader("x"), 1)) // an empty buffer hands it to tf.ReadFrom
	for name, err := range map[string]error{"Write": writeErr(tf.Write([]byte("x"))), "WriteString": strErr, "bufio": bufErr, "io.Copy": copyErr} {
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", name, err, want)
		}
		if !errors.Is(err, syscall.ENOSPC) {
			t.Errorf("%s: %v is not ENOSPC", name, err)
		}
	}
	other := tf.writeError(&fs.PathError{Op: "write", Path: "/tmp/x/fbeval-details-1", Err: syscall.EIO})
	if got := other.Error(); got != "cannot write the temporary file of scoring details in /tmp/x: input/output error" {
		t.Errorf("EIO: %q", got)
	}
	big := tf.writeError(&fs.PathError{Op: "write", Path: "/tmp/x/fbeval-details-1", Err: syscall.EFBIG})
	if got := big.Error(); got != "cannot write the temporary file of scoring details in /tmp/x: file too large: raise the limit on the size of a file this process may write (ulimit -f)" {
		t.Errorf("EFBIG: %q", got)
	}
	if tf.writeError(nil) != nil {
		t.Error("no error became one")
	}
}

func writeErr(_ int, err error) error { return err }
