package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScoreLeavesNoTempFiles: toolcall scoring spools the details of failed
// attempts to a temporary file in TMPDIR; none is left there after a run, nor
// after a run that stops at an input error once records were read.
func TestScoreLeavesNoTempFiles(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dir := t.TempDir()
	_, jsonl := quickResponses(t, 0)
	good := filepath.Join(dir, "r.jsonl")
	// the same records as a JSON list that breaks off after them
	broken := filepath.Join(dir, "broken.json")
	list := "[" + strings.Join(strings.Split(strings.TrimSpace(string(jsonl)), "\n"), ",") + ",{"
	for path, data := range map[string]string{good: string(jsonl), broken: list} {
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name string
		args []string
		code int
	}{
		{"a run", []string{"--responses", good, "--cases-out", filepath.Join(dir, "cases.jsonl")}, 0},
		{"an input error", []string{"--responses", broken}, 2},
	} {
		code, stdout, stderr := runMain(t, nil, append([]string{"score", "toolcall-quick"}, tt.args...)...)
		if code != tt.code {
			t.Fatalf("%s: exit %d, want %d: %s", tt.name, code, tt.code, stderr)
		}
		if tt.code == 0 && !strings.Contains(stdout, `"code":"`) {
			t.Fatalf("%s: the report quotes no failed attempt's errors:\n%.300s", tt.name, stdout)
		}
		if left, _ := os.ReadDir(tmp); len(left) > 0 {
			t.Errorf("%s: TMPDIR still holds %s", tt.name, left[0].Name())
		}
	}
}
