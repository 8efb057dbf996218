package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/export"
	"github.com/fbeval/fbeval/runners/internal/runner"
)

// TestStdinAndFileSameBytes: requests read from standard input (spooled to a
// temporary file for the second pass) and from a regular file (read twice where it
// is) give the same records, in both families; a second run resuming the file adds
// nothing.
func TestStdinAndFileSameBytes(t *testing.T) {
	for _, file := range []string{"testdata/toolcall_requests.jsonl", "testdata/coglang_requests.jsonl"} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		code, fromFile, errs := runMock(t, "", "--mode", "garble", "--seed", "3", file)
		if code != 0 || errs != "" {
			t.Fatalf("%s: exit %d, stderr %q", file, code, errs)
		}
		code, fromStdin, errs := runMock(t, string(data), "--mode", "garble", "--seed", "3")
		if code != 0 || errs != "" {
			t.Fatalf("%s from stdin: exit %d, stderr %q", file, code, errs)
		}
		if fromFile != fromStdin || strings.Count(fromFile, "\n") != strings.Count(string(data), "\n") {
			t.Fatalf("%s: %d bytes from the file, %d from stdin", file, len(fromFile), len(fromStdin))
		}
		out := filepath.Join(t.TempDir(), "out.jsonl")
		for i := 0; i < 2; i++ {
			if code, _, errs := runMock(t, string(data), "--mode", "garble", "--seed", "3", "-o", out); code != 0 {
				t.Fatalf("-o run %d: exit %d, stderr %q", i+1, code, errs)
			}
		}
		if got, _ := os.ReadFile(out); string(got) != fromFile {
			t.Errorf("%s: a resumed -o file is not the records of one run", file)
		}
	}
}

// TestBadRecordLateWritesNothing: a bad request near the end of a file is found by
// the first pass, before any answer is written.
func TestBadRecordLateWritesNothing(t *testing.T) {
	data, err := os.ReadFile("testdata/toolcall_requests.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	in := string(data) + "{\"schema_version\":\"fbeval-request/v1\"}\n"
	code, out, errs := runMock(t, in, "--mode", "reference")
	if code != runner.ExitUsage || out != "" || !strings.Contains(errs, "<stdin>:") {
		t.Fatalf("exit %d, %d bytes written, stderr %q; want exit 2, nothing written, the position", code, len(out), errs)
	}
}

// BenchmarkMockStream answers the built-in toolcall study's requests (1,440, as
// exported with --include-reference) from standard input, spooled and read twice,
// in garble mode (see .ci/perf for the whole process at 100,800 and 1,008,000).
func BenchmarkMockStream(b *testing.B) {
	in, n := builtinRequests(b)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if code := run([]string{"--mode", "garble", "--seed", "3"}, bytes.NewReader(in), io.Discard, io.Discard); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "requests/s")
}

// builtinRequests is the request file of the built-in toolcall study (1,440
// requests, with their references), and its request count.
func builtinRequests(tb testing.TB) ([]byte, int) {
	tb.Helper()
	s, err := export.LoadStudy("toolcall")
	if err != nil {
		tb.Fatal(err)
	}
	if s, err = export.Resolve(s, export.Overrides{}); err != nil {
		tb.Fatal(err)
	}
	p, err := export.PlanToolcall(s)
	if err != nil {
		tb.Fatal(err)
	}
	var in bytes.Buffer
	if err := export.StreamRequests(&in, &p.Study, p.RequestCount(), "jsonl", func(yield func(*contract.Request) error) error {
		return p.Each(true, yield)
	}); err != nil {
		tb.Fatal(err)
	}
	return in.Bytes(), p.RequestCount()
}

// TestSameBytesAtAnyWorkers: the answers are made on the goroutines that
// decode the requests and written in request order: the built-in study's
// 1,440 requests (many batches) give the same bytes with one goroutine as
// with several, and a resumed -o file is the records of one run.
func TestSameBytesAtAnyWorkers(t *testing.T) {
	in, n := builtinRequests(t)
	mock := func(procs int, args ...string) string {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		code, out, errs := runMock(t, string(in), append([]string{"--mode", "garble", "--seed", "3"}, args...)...)
		if code != 0 {
			t.Fatalf("%d goroutines: exit %d, stderr %q", procs, code, errs)
		}
		return out
	}
	want := mock(1)
	if strings.Count(want, "\n") != n {
		t.Fatalf("%d records, want %d", strings.Count(want, "\n"), n)
	}
	for _, procs := range []int{2, 4} {
		if got := mock(procs); got != want {
			t.Errorf("%d goroutines: the records differ from one goroutine's", procs)
		}
	}
	// half answered already: the rest, in order
	out := filepath.Join(t.TempDir(), "out.jsonl")
	lines := strings.SplitAfter(want, "\n")
	if err := os.WriteFile(out, []byte(strings.Join(lines[:700], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	mock(4, "-o", out)
	if got, _ := os.ReadFile(out); string(got) != want {
		t.Errorf("a resumed -o file is not the records of one run")
	}
}
