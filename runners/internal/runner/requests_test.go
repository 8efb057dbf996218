package runner_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
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
	// the same ids of another study, rewritten in place: each answer would
	// be written as the other study's, a file of two studies
	toolcall := func(study string) string {
		return `{"schema_version":"fbeval-request/v1","request_id":"A","case_id":"c","suite":"toolcall","study":"` + study + `","recipe":"sha256:0000000000000001","attempt":1,"seed":1,"messages":[{"role":"user","content":"x"}]}` + "\n"
	}
	if err := os.WriteFile(path, []byte(toolcall("sha256:aaaaaaaaaaaaaaaa")), 0o644); err != nil {
		t.Fatal(err)
	}
	f2, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f2.Close()
	tc, err := runner.OpenRequests(path, f2, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()
	if err := os.WriteFile(path, []byte(toolcall("sha256:bbbbbbbbbbbbbbbb")), 0o644); err != nil {
		t.Fatal(err)
	}
	err = tc.Each(func(*runner.Item) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "changed while it was read") {
		t.Errorf("another study's requests between the passes: err %v", err)
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

// TestRequestsInOrderAcrossBatches: requests are decoded on several
// goroutines, in batches, but every callback sees them in file order, each
// once, decoded as contract.DecodeRequest decodes it; the first bad record
// or the first refusal ends the pass there, whatever comes after it.
func TestRequestsInOrderAcrossBatches(t *testing.T) {
	const n = 5000
	var lines []string
	for i := range n {
		lines = append(lines, fmt.Sprintf(`{"schema_version":"fbeval-request/v1","request_id":"r%05d","case_id":"c%d","suite":"toolcall","attempt":1,"seed":%d,"prompt":%q,"messages":[{"role":"user","content":"x"}]}`, i, i%7, i, strings.Repeat("p", i%300)))
	}
	data := strings.Join(lines, "\n") + "\n"
	check := func(seen *[]int) runner.Check {
		return func(it *runner.Item) error {
			*seen = append(*seen, it.Line)
			return nil
		}
	}
	var seen []int
	q, err := runner.OpenRequests("req.jsonl", strings.NewReader(data), check(&seen))
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	var got []runner.Item
	if err := q.Each(func(it *runner.Item) error { got = append(got, *it); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(seen) != n || len(got) != n {
		t.Fatalf("checked %d, read %d; want %d", len(seen), len(got), n)
	}
	for i, it := range got {
		want, err := contract.DecodeRequest(&contract.Record{File: "req.jsonl", Line: i + 1, Col: 1, Raw: []byte(lines[i])})
		if err != nil {
			t.Fatal(err)
		}
		if seen[i] != i+1 || it.Line != i+1 || !reflect.DeepEqual(it.Req, want) {
			t.Fatalf("request %d: checked line %d, read line %d %+v; want line %d %+v", i, seen[i], it.Line, it.Req, i+1, want)
		}
	}

	// a bad record at line 3001: the requests before it are checked, in
	// order, and none after
	bad := slices.Clone(lines)
	bad[3000] = `{"schema_version":"fbeval-request/v1","request_id":7}`
	bad[4000] = `not json`
	seen = nil
	_, err = runner.OpenRequests("req.jsonl", strings.NewReader(strings.Join(bad, "\n")+"\n"), check(&seen))
	if err == nil || !strings.HasPrefix(err.Error(), "req.jsonl:3001:") {
		t.Errorf("err = %v, want the record at line 3001's", err)
	}
	if len(seen) != 3000 || seen[2999] != 3000 {
		t.Errorf("checked %d requests before the bad one, want 3000", len(seen))
	}

	// a refusal at line 2500 ends the pass there
	seen = nil
	refuse := errors.New("refused")
	_, err = runner.OpenRequests("req.jsonl", strings.NewReader(data), func(it *runner.Item) error {
		seen = append(seen, it.Line)
		if it.Line == 2500 {
			return refuse
		}
		return nil
	})
	if err != refuse || len(seen) != 2500 {
		t.Errorf("err = %v after %d requests, want the refusal after 2500", err, len(seen))
	}
}
