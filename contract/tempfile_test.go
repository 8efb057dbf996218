package contract

import (
	"os"
	"runtime"
	"strings"
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
