package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A file name with a line break in it is written as its escape in an error's
// one line, where the break was taken for the message's own and made "; ",
// naming a file that does not exist.
func TestErrorNamesALineBreak(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "bad\nname.json")
	if err := os.WriteFile(name, []byte(`{"schema_version": "nope/v1"}`), 0o644); err != nil {
		t.Skip("no such file names here:", err)
	}
	code, _, stderr := runMain(t, nil, "report", name)
	want := strings.ReplaceAll(name, "\n", `\n`) + ":1:20: "
	if code != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr %q, want one line naming %q", code, stderr, want)
	}
}
