package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
)

// The packages fbeval imports are initialised with the collector off
// (internal/startgc), and main's init turns it back on: this test binary,
// whose main package is fbeval's, collects as usual, and the fbeval command
// runs no collection before main but the one the heap's growth asks for.
func TestNoCollectionBeforeMain(t *testing.T) {
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	if p < 0 && os.Getenv("GOGC") != "off" {
		t.Fatal("the collector is still off after the package initialisation")
	}
	if testing.Short() {
		t.Skip("builds fbeval")
	}
	if hugeHeapBytes == 0 {
		// no heap growth here: the first allocation after the package
		// initialisation starts the collection it put off
		t.Skip("no huge-page heap growth on this system")
	}
	gotool := goTool()
	if gotool == "" {
		t.Skip("no go command on PATH")
	}
	bin := filepath.Join(t.TempDir(), "fbeval")
	build := exec.Command(gotool, "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=gctrace=1", "GOGC=100")
	// the trace alone: the runtime writes a trace line in pieces, and the
	// version printed between two of them would read as a line of its own
	var trace bytes.Buffer
	cmd.Stderr = &trace
	if err := cmd.Run(); err != nil {
		t.Fatalf("fbeval --version: %v\n%s", err, trace.Bytes())
	}
	// collections counted by their starts and by their "(forced)" ends, not
	// line by line: the runtime writes a line in pieces, which a loaded
	// machine's scheduling has seen split
	out := trace.String()
	collections := len(regexp.MustCompile(`(?m)^gc [0-9]+ @`).FindAllString(out, -1))
	forced := strings.Count(out, "(forced)")
	if collections > forced {
		t.Errorf("%d collections, %d of them forced: one fbeval did not ask for:\n%s", collections, forced, out)
	}
	if forced > 1 {
		t.Errorf("%d forced collections, want the heap's growth's one at most", forced)
	}
}
