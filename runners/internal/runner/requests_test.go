package runner_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/runners/internal/runner"
)

const twoCogLang = `{"case_id": "A", "expected_top_level_heads": [], "instructions": "i", "level": 1, "prompt": "p1", "schema_version": "coglang-generation-eval-request/v0.1"}
{"case_id": "B", "expected_top_level_heads": [], "instructions": "i", "level": 1, "prompt": "p2", "schema_version": "coglang-generation-eval-request/v0.1"}
`

// TestRequestsTwoPasses: a request file read from a stream (spooled) and from a
// regular file gives the same items, ids, count and study identities; a file that
// changes between the passes is an error, not a silent mix.
func TestRequestsTwoPasses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "req.jsonl")
	if err := os.WriteFile(path, []byte(twoCogLang), 0o644); err != nil {
		t.Fatal(err)
	}
	collect := func(q *runner.Requests) []runner.Item {
		var items []runner.Item
		if err := q.Each(func(it *runner.Item) error { items = append(items, *it); return nil }); err != nil {
			t.Fatal(err)
		}
		return items
	}
	stream, err := runner.OpenRequests(path, strings.NewReader(twoCogLang), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	file, err := runner.OpenRequests(path, f, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, b := collect(stream), collect(file)
	if len(a) != 2 || !reflect.DeepEqual(a, b) || !reflect.DeepEqual(stream.Studies(), file.Studies()) {
		t.Fatalf("stream %+v\nfile %+v", a, b)
	}
	if a[0].Study == "" || a[0].Study != a[1].Study || !stream.Has("B") || stream.Has("C") || stream.Len() != 2 {
		t.Errorf("study %q %q, has B %v, len %d", a[0].Study, a[1].Study, stream.Has("B"), stream.Len())
	}
	// twice over: Each starts again from the first record
	if again := collect(file); !reflect.DeepEqual(again, b) {
		t.Errorf("a second Each differs")
	}
	if err := os.WriteFile(path, []byte(strings.Replace(twoCogLang, `"B"`, `"C"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	err = file.Each(func(*runner.Item) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "changed while it was read") {
		t.Errorf("a file changed between the passes: err %v", err)
	}
}

// TestRepeatedIDFirstInReadingOrder: of two repeated ids, the error names the one
// repeated first in the file, at its line and column, from a stream and a file.
func TestRepeatedIDFirstInReadingOrder(t *testing.T) {
	rec := func(id string) string {
		return `{"schema_version":"fbeval-request/v1","request_id":"` + id + `","case_id":"c","suite":"toolcall","attempt":1,"seed":1,"messages":[{"role":"user","content":"x"}]}` + "\n"
	}
	data := rec("a") + rec("b") + rec("b") + rec("c") + rec("a")
	_, err := runner.OpenRequests("req.jsonl", strings.NewReader(data), nil)
	want := `req.jsonl:3:1: request id "b" repeats the request at line 2; request ids must be unique`
	if err == nil || err.Error() != want {
		t.Errorf("stream: %v\nwant %s", err, want)
	}
	path := filepath.Join(t.TempDir(), "req.jsonl")
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := runner.OpenRequests("req.jsonl", f, nil); err == nil || err.Error() != want {
		t.Errorf("file: %v\nwant %s", err, want)
	}
}

// A request file with no requests (empty, blank lines, an empty list or batch)
// is refused at the first pass: it is a mistake upstream, not a run with
// nothing to do.
func TestNoRequests(t *testing.T) {
	for _, in := range []string{"", "\n\n", "[]", `{"schema_version": "fbeval-request-batch/v1", "requests": []}`} {
		q, err := runner.OpenRequests("in.jsonl", strings.NewReader(in), nil)
		if err == nil {
			q.Close()
			t.Errorf("%q: no error", in)
			continue
		}
		const want = "in.jsonl: holds no requests: write them with fbeval export (an export that failed before a pipe leaves it empty)"
		if !errors.Is(err, contract.ErrShape) || err.Error() != want {
			t.Errorf("%q: %v, want %s", in, err, want)
		}
	}
}
