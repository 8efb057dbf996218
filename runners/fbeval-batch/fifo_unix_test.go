//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRequestsFromAPipe: from-* --requests given a FIFO (or a shell's <(...),
// /dev/stdin piped) reads the requests once: a look at the file's start first
// took its head, and the request reader was left the rest ("invalid JSON:
// text, not a JSON object").
func TestRequestsFromAPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	reqs, err := os.ReadFile("testdata/requests.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.Write(reqs)
		f.Close()
	}()
	_, want, _ := runBatch(t, "", "from-openai", "--requests", "testdata/requests.jsonl", "testdata/openai_output.jsonl")
	type result struct {
		code      int
		out, errs string
	}
	got := make(chan result, 1)
	go func() {
		code, out, errs := runBatch(t, "", "from-openai", "--requests", fifo, "testdata/openai_output.jsonl")
		got <- result{code, out, errs}
	}()
	var r result
	select {
	case r = <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("from-openai --requests FIFO did not return")
	}
	code, out, errs := r.code, r.out, r.errs
	if code > 1 || out != want || strings.Contains(errs, "invalid JSON") {
		t.Errorf("exit %d, stderr %q; %d bytes of %d", code, errs, len(out), len(want))
	}
}
