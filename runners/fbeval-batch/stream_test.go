package main

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/export"
	"github.com/fbeval/fbeval/fixtures/synth"
	"github.com/fbeval/fbeval/runners/internal/runner"
	"github.com/go-json-experiment/json/jsontext"
)

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeTemp(t *testing.T, dir, name, data string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFromReadsResultsAgain: the results are read once to index them and again by
// offset to write them, so the records do not depend on where the results come
// from: a file, standard input (kept in a spooled copy), the lines in another
// order, CRLF line ends, a JSON list. They follow the request file's order.
func TestFromReadsResultsAgain(t *testing.T) {
	dir := t.TempDir()
	output := readTestdata(t, "openai_output.jsonl")
	errs := readTestdata(t, "openai_errors.jsonl")
	all := output + errs
	lines := strings.Split(strings.TrimSuffix(all, "\n"), "\n")
	list := "[\n" + strings.Join(lines, ",\n") + "\n]\n"
	slices.Reverse(lines)
	reversed := strings.Join(lines, "\n") + "\n"
	code, want, wantErr := runBatch(t, "", "from-openai", "--requests", "testdata/requests.jsonl", "testdata/openai_output.jsonl", "testdata/openai_errors.jsonl")
	if code != 1 || strings.Count(want, "\n") != 4 {
		t.Fatalf("exit %d:\n%s", code, want)
	}
	for _, tt := range []struct {
		name, stdin string
		args        []string
	}{
		{"stdin", output, []string{"-", "testdata/openai_errors.jsonl"}},
		{"stdin after a file", errs, []string{"testdata/openai_output.jsonl", "-"}},
		{"one file", "", []string{writeTemp(t, dir, "all.jsonl", all)}},
		{"reversed", reversed, []string{"-"}},
		{"crlf", "", []string{writeTemp(t, dir, "crlf.jsonl", "\ufeff"+strings.ReplaceAll(all, "\n", "\r\n"))}},
		{"list", "", []string{writeTemp(t, dir, "list.json", list)}},
		{"list from stdin", list, []string{"-"}},
	} {
		code, out, errb := runBatch(t, tt.stdin, append([]string{"from-openai", "--requests", "testdata/requests.jsonl"}, tt.args...)...)
		if code != 1 || out != want {
			t.Errorf("%s: exit %d, records:\n%s\nwant:\n%s", tt.name, code, out, want)
		}
		if summary := wantErr[strings.LastIndex(wantErr[:len(wantErr)-1], "\n")+1:]; !strings.HasSuffix(errb, summary) {
			t.Errorf("%s: stderr %q, want it to end %q", tt.name, errb, summary)
		}
	}
}

// TestFromNotes: duplicates, results of requests not in the request file and
// requests without a result are each named, in this order: duplicates in reading
// order, missing results in request order, unknown ids in the order they first
// appear, at the line whose result wins. Results of another batch are all unknown.
func TestFromNotes(t *testing.T) {
	dir := t.TempDir()
	output := readTestdata(t, "openai_output.jsonl")
	lines := strings.SplitAfter(output, "\n")
	// line 1: hotels-020, 2: flights-000, 3: payments-070, 4: unknown-id
	first := writeTemp(t, dir, "a.jsonl", lines[3]+lines[1]+strings.Replace(lines[3], `"unknown-id"`, `"other-id"`, 1)+lines[3])
	second := writeTemp(t, dir, "b.jsonl", lines[1]+lines[0])
	code, out, errb := runBatch(t, "", "from-openai", "--requests", "testdata/requests.jsonl", first, second)
	want := []string{
		"fbeval-batch: " + first + `:4: custom id "unknown-id" repeats; the last answer wins (an error only when no line answers)`,
		"fbeval-batch: " + second + `:1: custom id "flights-000.input_schema.r0.a1" repeats; the last answer wins (an error only when no line answers)`,
		"fbeval-batch: testdata/requests.jsonl:3: request payments-070.input_schema.r0.a1 has no result",
		"fbeval-batch: testdata/requests.jsonl:4: request inventory-003.input_schema.r0.a2 has no result",
		"fbeval-batch: testdata/requests.jsonl:5: request search-011.input_schema.r0.a3 has no result",
		"fbeval-batch: " + first + `:4: custom id "unknown-id" is not in testdata/requests.jsonl`,
		"fbeval-batch: " + first + `:3: custom id "other-id" is not in testdata/requests.jsonl`,
		"fbeval-batch: 6 results: 2 answered, 0 errors, 2 duplicates, 2 unknown, 3 missing",
	}
	if got := strings.Split(strings.TrimSuffix(errb, "\n"), "\n"); code != 1 || !slices.Equal(got, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant:\n%s", code, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if strings.Count(out, "\n") != 2 || !strings.HasPrefix(out, `{"schema_version":"fbeval-response/v1","request_id":"flights-000.input_schema.r0.a1"`) {
		t.Errorf("records:\n%s", out)
	}
	// The results of another batch, not one of which answers a request: bad
	// usage, one line, nothing written.
	other := writeTemp(t, dir, "other.jsonl", strings.ReplaceAll(output, `"custom_id":"`, `"custom_id":"x`))
	code, out, errb = runBatch(t, "", "from-openai", "--requests", "testdata/requests.jsonl", other)
	if want := "fbeval-batch: " + other + `:1: custom id "xhotels-020.input_schema.r0.a1" is not in testdata/requests.jsonl, nor is any other of the 4 results: give --requests the request file this batch was made from (testdata/requests.jsonl holds 5 requests)` + "\n"; code != 2 || out != "" || errb != want {
		t.Errorf("another batch: exit %d, records %q, stderr:\n%s\nwant\n%s", code, out, errb, want)
	}
}

// TestFromNotesCapped: each kind of note names its first maxNotes and counts
// the rest in one line, so that results of another batch or a request file of
// another export (a line per result or request) stay a screenful.
func TestFromNotesCapped(t *testing.T) {
	dir := t.TempDir()
	lines := strings.SplitAfter(readTestdata(t, "openai_output.jsonl"), "\n")
	reqLines := strings.SplitAfter(readTestdata(t, "requests.jsonl"), "\n")
	known := lines[1] // flights-000.input_schema.r0.a1, the request at line 1
	var results, requests strings.Builder
	results.WriteString(known)
	for range maxNotes + 4 { // lines 2-15: the known id again
		results.WriteString(known)
	}
	for i := range maxNotes + 7 { // lines 16-32: ids no request has
		results.WriteString(strings.Replace(known, `"flights-000.input_schema.r0.a1"`, fmt.Sprintf(`"other-%02d"`, i), 1))
	}
	requests.WriteString(reqLines[0])
	for i := range maxNotes + 5 { // requests at lines 2-16 without a result
		requests.WriteString(strings.ReplaceAll(reqLines[0], "flights-000.input_schema.r0.a1", fmt.Sprintf("flights-%03d.input_schema.r0.a1", i+100)))
	}
	res := writeTemp(t, dir, "results.jsonl", results.String())
	req := writeTemp(t, dir, "requests.jsonl", requests.String())
	code, out, errb := runBatch(t, "", "from-openai", "--requests", req, res)
	got := strings.Split(strings.TrimSuffix(errb, "\n"), "\n")
	if code != 1 || strings.Count(out, "\n") != 1 || len(got) != 3*maxNotes+4 {
		t.Fatalf("exit %d, %d records, %d lines on stderr:\n%s", code, strings.Count(out, "\n"), len(got), errb)
	}
	for _, want := range []string{
		"fbeval-batch: " + res + `:11: custom id "flights-000.input_schema.r0.a1" repeats; the last answer wins (an error only when no line answers)`,
		"fbeval-batch: and 4 more lines whose custom id an earlier line has",
		"fbeval-batch: " + req + ":11: request flights-109.input_schema.r0.a1 has no result",
		"fbeval-batch: and 5 more requests without a result",
		"fbeval-batch: " + res + `:25: custom id "other-09" is not in ` + req,
		"fbeval-batch: and 7 more custom ids not in " + req,
		"fbeval-batch: 32 results: 1 answered, 0 errors, 14 duplicates, 17 unknown, 15 missing",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb)
		}
	}
	if strings.Contains(errb, "request flights-110.") || strings.Contains(errb, `"other-10"`) {
		t.Errorf("a note past the first %d of its kind:\n%s", maxNotes, errb)
	}
}

// TestFromResultsChanged: a results file that changes between the two readings is
// an error, not a record of another result.
func TestFromResultsChanged(t *testing.T) {
	dir := t.TempDir()
	output := readTestdata(t, "openai_output.jsonl")
	path := writeTemp(t, dir, "out.jsonl", output)
	rs, err := indexResults([]string{path}, nil, parseOpenAIResult, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.close()
	if r, err := rs.read(rs.entries.at(1)); err != nil || r.customID != "flights-000.input_schema.r0.a1" || r.where != path+":2" {
		t.Fatalf("read again: %+v %v", r, err)
	}
	writeTemp(t, dir, "out.jsonl", strings.Replace(output, "hotels-020", "hotels-021", 1))
	if _, err := rs.read(rs.entries.at(0)); err == nil || !strings.Contains(err.Error(), "changed while it was read") {
		t.Errorf("a changed line: %v", err)
	}
	writeTemp(t, dir, "out.jsonl", output[:100])
	if _, err := rs.read(rs.entries.at(3)); err == nil || !strings.Contains(err.Error(), "cannot read "+path+" again") {
		t.Errorf("a cut file: %v", err)
	}
}

// batchFiles exports the built-in toolcall study with repeats, converts it with
// to-PROVIDER and answers it with the synthetic batch engine (fixtures/synth), the
// results shuffled as a batch engine returns them: the paths of the request file
// and the results file, and the request count.
func batchFiles(b testing.TB, provider string, repeats int) (requests, results string, n int) {
	b.Helper()
	s, err := export.LoadStudy("toolcall")
	if err != nil {
		b.Fatal(err)
	}
	if s, err = export.Resolve(s, export.Overrides{Repeats: &repeats}); err != nil {
		b.Fatal(err)
	}
	p, err := export.PlanToolcall(s)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	var in bytes.Buffer
	if err := export.StreamRequests(&in, &p.Study, p.RequestCount(), "jsonl", func(yield func(*contract.Request) error) error {
		return p.Each(true, yield)
	}); err != nil {
		b.Fatal(err)
	}
	requests = filepath.Join(dir, "requests.jsonl")
	if err := os.WriteFile(requests, in.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	var batch, answers, shuffled bytes.Buffer
	if code := run([]string{"to-" + provider, "--model", "m", requests}, nil, &batch, io.Discard); code != 0 {
		b.Fatalf("to-%s: exit %d", provider, code)
	}
	engine, err := synth.NewBatchResults(provider, 1)
	if err != nil {
		b.Fatal(err)
	}
	if err := engine.Answer(&answers, "batch", &batch); err != nil {
		b.Fatal(err)
	}
	if err := synth.Shuffle(&shuffled, answers.Bytes(), 1); err != nil {
		b.Fatal(err)
	}
	results = filepath.Join(dir, "results.jsonl")
	if err := os.WriteFile(results, shuffled.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	return requests, results, p.RequestCount()
}

// BenchmarkFrom converts the shuffled batch results of the built-in toolcall study
// with --repeats 10 (14,400 requests) back to response records, with the request
// file (see .ci/perf, PERF_ONLY=runners, for the whole process at 100,800 and
// 1,008,000 requests).
func BenchmarkFrom(b *testing.B) {
	for _, provider := range []string{"openai", "anthropic"} {
		b.Run(provider, func(b *testing.B) {
			requests, results, n := batchFiles(b, provider, 10)
			b.ReportAllocs()
			for b.Loop() {
				if code := run([]string{"from-" + provider, "--requests", requests, results}, nil, io.Discard, io.Discard); code != 1 {
					b.Fatalf("exit %d, want 1 (the results hold errors)", code)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "requests/s")
		})
	}
}

// syntheticResults is the synthetic batch engine's results for the to-PROVIDER
// file of testdata/requests.jsonl.
func syntheticResults(t *testing.T, provider string) string {
	t.Helper()
	_, batch, errs := runBatch(t, "", "to-"+provider, "--model", "m", "testdata/requests.jsonl")
	engine, err := synth.NewBatchResults(provider, 7)
	if err != nil {
		t.Fatal(err)
	}
	var results bytes.Buffer
	if err := engine.Answer(&results, "batch", strings.NewReader(batch)); err != nil {
		t.Fatalf("%s: %v (%s)", provider, err, errs)
	}
	return results.String()
}

// TestSyntheticBatchEngine: the synthetic batch engine the benchmarks and .ci/perf
// use answers every request of a to-* file in lines from-* reads: every request has
// its record, none is unknown.
func TestSyntheticBatchEngine(t *testing.T) {
	for _, provider := range []string{"openai", "anthropic"} {
		code, out, errs := runBatch(t, syntheticResults(t, provider), "from-"+provider, "--requests", "testdata/requests.jsonl", "-")
		if code > 1 || strings.Count(out, "\n") != 5 || !strings.HasSuffix(errs, "0 duplicates, 0 unknown, 0 missing\n") {
			t.Errorf("%s: exit %d, stderr %q:\n%s", provider, code, errs, out)
		}
	}
}

// FuzzIndexResults: a results file indexed and each line read again by its offset
// gives the results one reading of the whole file gives, in every shape the reader
// takes, or the same refusal.
func FuzzIndexResults(f *testing.F) {
	for _, name := range []string{"openai_output.jsonl", "openai_errors.jsonl"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add([]byte("[" + strings.ReplaceAll(strings.TrimSuffix(string(data), "\n"), "\n", ",\r\n") + "]"))
	}
	f.Add([]byte("\ufeff{\"custom_id\":\"a\",\"error\":\"x\"}\r\n\r\n {\"custom_id\":\"b\",\"error\":{\"code\":\"c\"}}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		whole, werr := readOpenAIResults("<stdin>", bytes.NewReader(b))
		rs, err := indexResults([]string{"-"}, bytes.NewReader(b), parseOpenAIResult, nil)
		if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
			t.Fatalf("indexed: %v; read whole: %v", err, werr)
		}
		if err != nil {
			return
		}
		defer rs.close()
		if rs.entries.len() != len(whole) {
			t.Fatalf("%d entries, %d results", rs.entries.len(), len(whole))
		}
		for i := range uint32(rs.entries.len()) {
			r, err := rs.read(rs.entries.at(i))
			if err != nil {
				t.Fatalf("line %d read again: %v", i, err)
			}
			a, _ := runner.AppendRecord(nil, &contract.Request{RequestID: r.customID}, &r.res)
			w, _ := runner.AppendRecord(nil, &contract.Request{RequestID: whole[i].customID}, &whole[i].res)
			if r.where != whole[i].where || !bytes.Equal(a, w) {
				t.Fatalf("line %d read again: %s at %s; read whole: %s at %s", i, a, r.where, w, whole[i].where)
			}
		}
	})
}

// FuzzQuickResultLines: a results line the quick readers split is split the
// same by decoding it: every part the same bytes. Lines are the reader's, so
// valid JSON (others are not asked).
func FuzzQuickResultLines(f *testing.F) {
	for _, name := range []string{"openai_output.jsonl", "openai_errors.jsonl"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		for line := range strings.Lines(string(data)) {
			f.Add(strings.TrimSpace(line))
		}
	}
	for _, s := range []string{
		`{"custom_id":"a","result":{"type":"succeeded","message":{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"hi"}]}}}`,
		`{"custom_id":"a","result":{"type":"errored","error":{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}}}`,
		`{"custom_id":"a","result":{"type":"expired"}}`,
		`{"custom_id":"a","result":null}`,
		`{"custom_id":"a","Result":{"type":"expired"}}`,
		`{"custom_id":"a","response":{"status_code":200,"choices":null,"body":null}}`,
		`{"custom_id":"a","response":{"status_code":200.0,"body":{}}}`,
		`{"custom_id":"a","response":{"Status_Code":500,"body":{}}}`,
		`{"custom_id":"a","response":{"choices":[],"object":"chat.completion"},"error":null}`,
		`{"custom_id":"a\u0062","response":{"status_code":-1,"body":"x"},"error":"e"}`,
		`{"custom_id":"","error":"e"}`,
		`{"custom_id":null,"error":"e"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if !jsontext.Value(line).IsValid() {
			return
		}
		rec := &contract.Record{File: "f", Line: 1, Col: 1, Raw: []byte(line)}
		var o openAILine
		if quickOpenAILine(rec.Raw, &o) {
			d, err := decodeOpenAILine(rec)
			if err != nil || d.customID != o.customID || !bytes.Equal(d.response, o.response) || !bytes.Equal(d.body, o.body) ||
				!bytes.Equal(d.errRaw, o.errRaw) || d.choices != o.choices || (d.status == nil) != (o.status == nil) || d.status != nil && *d.status != *o.status {
				t.Fatalf("quick %+v, decoded %+v (%v)", o, d, err)
			}
		}
		var a anthropicLine
		if quickAnthropicLine(rec.Raw, &a) {
			d, err := decodeAnthropicLine(rec)
			if err != nil || d.customID != a.customID || d.kind != a.kind || !bytes.Equal(d.message, a.message) || !bytes.Equal(d.errRaw, a.errRaw) {
				t.Fatalf("quick %+v, decoded %+v (%v)", a, d, err)
			}
		}
	})
}

// TestQuickResultLinesTaken: the lines the providers write are split by the
// quick readers, not left to the decoding: every line of the recorded files
// and of the synthetic batch engine's.
func TestQuickResultLinesTaken(t *testing.T) {
	lines := []string{`{"custom_id":"a","response":{"status_code":200,"choices":null,"body":null}}`}
	for _, name := range []string{"openai_output.jsonl", "openai_errors.jsonl"} {
		for line := range strings.Lines(readTestdata(t, name)) {
			lines = append(lines, strings.TrimSpace(line))
		}
	}
	for _, provider := range []string{"openai", "anthropic"} {
		for line := range strings.Lines(syntheticResults(t, provider)) {
			lines = append(lines, strings.TrimSpace(line))
		}
	}
	for _, line := range lines {
		var o openAILine
		var a anthropicLine
		if !quickOpenAILine([]byte(line), &o) && !quickAnthropicLine([]byte(line), &a) {
			t.Errorf("left to the decoding: %s", line)
		}
	}
}

// TestFromSameAtAnyWorkers: the records are made on the goroutines that
// decode the requests and written in request order: the same bytes, notes
// and summary with one goroutine as with several, from a file and from
// standard input.
func TestFromSameAtAnyWorkers(t *testing.T) {
	for _, provider := range []string{"openai", "anthropic"} {
		requests, results, n := batchFiles(t, provider, 2)
		data, err := os.ReadFile(results)
		if err != nil {
			t.Fatal(err)
		}
		from := func(procs int, stdin bool) (int, string, string) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			if stdin {
				return runBatch(t, string(data), "from-"+provider, "--requests", requests, "-")
			}
			return runBatch(t, "", "from-"+provider, "--requests", requests, results)
		}
		code, want, wantErr := from(1, false)
		if code != 1 || strings.Count(want, "\n") != n {
			t.Fatalf("%s: exit %d, %d records; want 1, %d", provider, code, strings.Count(want, "\n"), n)
		}
		for _, procs := range []int{2, 4} {
			for _, stdin := range []bool{false, true} {
				if code, out, errs := from(procs, stdin); code != 1 || out != want || errs != wantErr {
					t.Errorf("%s at %d goroutines (stdin %v): exit %d, the records or notes differ from one goroutine's", provider, procs, stdin, code)
				}
			}
		}
	}
}

// TestToSameAtAnyWorkers: the files are planned from entries built on the
// goroutines that decode the requests: the same files, split at the same
// requests, with one goroutine as with several.
func TestToSameAtAnyWorkers(t *testing.T) {
	requests, _, n := batchFiles(t, "openai", 2)
	for _, provider := range []string{"openai", "anthropic"} {
		files := func(procs int) map[string]string {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			dir := filepath.Join(t.TempDir(), "batches")
			if code, _, errs := runBatch(t, "", "to-"+provider, "--model", "m", "--max-per-file", "1000", "--out-dir", dir, requests); code != 0 {
				t.Fatalf("%s at %d goroutines: exit %d, stderr %q", provider, procs, code, errs)
			}
			out := map[string]string{}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				b, err := os.ReadFile(filepath.Join(dir, e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				out[e.Name()] = string(b)
			}
			return out
		}
		want := files(1)
		if len(want) != (n+999)/1000 {
			t.Fatalf("%s: %d files for %d requests at 1,000 a file", provider, len(want), n)
		}
		if got := files(4); !maps.Equal(got, want) {
			t.Errorf("%s: the files at 4 goroutines differ from one goroutine's", provider)
		}
	}
}
