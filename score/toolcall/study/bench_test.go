package study

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/export"
	"github.com/fbeval/fbeval/fixtures/synth"
	"github.com/fbeval/fbeval/score"
	"github.com/fbeval/fbeval/score/report"
	tc "github.com/fbeval/fbeval/score/toolcall"
)

// The toolcall benchmarks work on synthetic response files for the built-in
// toolcall study (package synth, seed 1): about 70% right envelopes, the rest
// wrong arguments, out-of-range numbers, wrong actions, fenced or prose outputs
// and duplicate keys, cycling over the study's 1,440 request ids.
const tcBenchRecords = 100000

var tcBenchPlan = sync.OnceValues(func() (*export.ToolcallPlan, error) { return builtinPlan(0) })

// builtinPlan plans the built-in toolcall study, at repeats when it is not 0.
func builtinPlan(repeats int) (*export.ToolcallPlan, error) {
	s, err := export.LoadStudy("toolcall")
	if err != nil {
		return nil, err
	}
	var o export.Overrides
	if repeats != 0 {
		o.Repeats = &repeats
	}
	if s, err = export.Resolve(s, o); err != nil {
		return nil, err
	}
	return export.PlanToolcall(s)
}

// tcSynth returns n synthetic JSONL response records for the toolcall study.
func tcSynth(tb testing.TB, n int) []byte {
	tb.Helper()
	p, err := tcBenchPlan()
	if err != nil {
		tb.Fatal(err)
	}
	reqs, err := p.Requests(true)
	if err != nil {
		tb.Fatal(err)
	}
	var b bytes.Buffer
	if err := synth.ToolcallResponses(&b, reqs, n, 1); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

var tcBenchData = sync.OnceValue(func() []byte {
	p, err := tcBenchPlan()
	if err != nil {
		panic(err)
	}
	reqs, err := p.Requests(true)
	if err != nil {
		panic(err)
	}
	var b bytes.Buffer
	if err := synth.ToolcallResponses(&b, reqs, tcBenchRecords, 1); err != nil {
		panic(err)
	}
	return b.Bytes()
})

func tcBenchLines() [][]byte {
	return bytes.Split(bytes.TrimSuffix(tcBenchData(), []byte("\n")), []byte("\n"))
}

func tcBenchRun(tb testing.TB) *Run {
	tb.Helper()
	p, err := tcBenchPlan()
	if err != nil {
		tb.Fatal(err)
	}
	run, err := New(p)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { run.Close() })
	return run
}

// BenchmarkToolcallStageDecode: one response record to a contract.Response.
func BenchmarkToolcallStageDecode(b *testing.B) {
	lines := tcBenchLines()
	b.ReportAllocs()
	rec := contract.Record{File: "bench", Line: 1, Col: 1}
	for b.Loop() {
		for _, l := range lines {
			rec.Raw = l
			if _, err := contract.DecodeResponse(&rec); err != nil {
				b.Fatal(err)
			}
		}
	}
	reportRate(b, len(lines))
}

// BenchmarkToolcallStageRead: the contract reader and the input hash alone (line
// splitting, no decoding).
func BenchmarkToolcallStageRead(b *testing.B) {
	data := tcBenchData()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		hr := score.NewHashingReader(bytes.NewReader(data))
		rd := contract.NewReader("bench", hr, contract.ReadOptions{})
		n := 0
		for rd.Scan() {
			n++
		}
		hr.Finish()
		if n != tcBenchRecords {
			b.Fatalf("%d records", n)
		}
	}
	reportRate(b, tcBenchRecords)
}

// BenchmarkToolcallStageScan: one response record through the record scanner,
// the path plain records take instead of contract.DecodeResponse.
func BenchmarkToolcallStageScan(b *testing.B) {
	lines := tcBenchLines()
	b.ReportAllocs()
	var sc tc.RecordScanner
	var f tc.RecordFields
	for b.Loop() {
		for _, l := range lines {
			if !sc.Scan(l, &f) {
				b.Fatalf("declined %s", l)
			}
		}
	}
	reportRate(b, len(lines))
}

// BenchmarkToolcallStageJudge: judging every decoded output (strict parse,
// envelope, schemas, state, policies, oracle), one goroutine.
func BenchmarkToolcallStageJudge(b *testing.B) {
	run := tcBenchRun(b)
	type item struct {
		out string
		sl  slot
	}
	var items []item
	rec := contract.Record{File: "bench", Line: 1, Col: 1}
	for _, l := range tcBenchLines() {
		rec.Raw = l
		resp, err := contract.DecodeResponse(&rec)
		if err != nil {
			b.Fatal(err)
		}
		sl, ok := run.lookup(&resp)
		if !ok {
			b.Fatal("unknown id")
		}
		items = append(items, item{resp.Output, sl})
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, it := range items {
			ci := run.placeOf(it.sl.row).ci
			run.caseJudge[ci].Score(it.out, run.prepared[ci])
		}
	}
	reportRate(b, len(items))
}

// BenchmarkToolcallStageQuick: the quick clean-or-not check of every decoded
// output, the judging Read does per record, one goroutine.
func BenchmarkToolcallStageQuick(b *testing.B) {
	run := tcBenchRun(b)
	type item struct {
		out []byte
		ci  int
	}
	var items []item
	rec := contract.Record{File: "bench", Line: 1, Col: 1}
	for _, l := range tcBenchLines() {
		rec.Raw = l
		resp, err := contract.DecodeResponse(&rec)
		if err != nil {
			b.Fatal(err)
		}
		sl, ok := run.lookup(&resp)
		if !ok {
			b.Fatal("unknown id")
		}
		items = append(items, item{[]byte(resp.Output), run.placeOf(sl.row).ci})
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, it := range items {
			run.caseJudge[it.ci].Quick(it.out, run.prepared[it.ci])
		}
	}
	reportRate(b, len(items))
}

func benchToolcallRead(b *testing.B, workers int) {
	data := tcBenchData()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		run := tcBenchRun(b)
		st, err := run.Read(score.Source{Name: "bench.jsonl", R: bytes.NewReader(data)}, score.Options{Workers: workers})
		if err != nil {
			b.Fatal(err)
		}
		if st.Records != tcBenchRecords {
			b.Fatalf("%d records", st.Records)
		}
	}
	reportRate(b, tcBenchRecords)
}

// BenchmarkToolcallRead100k: the whole of Run.Read (read, decode, judge,
// merge) on 100,000 records, one worker and as many as GOMAXPROCS.
func BenchmarkToolcallRead100k(b *testing.B) {
	b.Run("workers=1", func(b *testing.B) { benchToolcallRead(b, 1) })
	b.Run("workers=max", func(b *testing.B) { benchToolcallRead(b, 0) })
}

// BenchmarkToolcallReport: the report over the rows once responses are in.
func BenchmarkToolcallReport(b *testing.B) {
	run := tcBenchRun(b)
	if _, err := run.Read(score.Source{Name: "bench.jsonl", R: bytes.NewReader(tcBenchData())}, score.Options{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := run.Report(); err != nil {
			b.Fatal(err)
		}
	}
}

// tcMixed returns synthetic records with every kind of outcome mixed in: lines the
// reader rejects, records the decoder rejects, unknown ids, provider errors,
// case-id records, and records only the full decoder reads.
func tcMixed(tb testing.TB, n int) []byte {
	data := tcSynth(tb, n)
	lines := bytes.SplitAfter(data, []byte("\n"))
	extra := []string{
		`not json`,
		`{"request_id":"nope","output":"x"}`,
		`{"request_id":"flights-000.no_schema.r1.a1","error":{"code":"rate_limit","message":"slow"},"output":"partial"}`,
		`{"request_id":"flights-000.minimal_schema.r1.a1","output":"x","output":"y"}`,
		`{"request_id":"hotels-000.input_schema.r1.a1","output":{"action":"refuse"},"metadata":{"k":1}}`,
		`{"request_id":"payments-001.no_schema.r1.a1","output":"{\"action\":\"refuse\",\"tool\":null,\"arguments\":{},\"missingFields\":[],\"reason\":\"\ud83d\ude00\"}","latency_ms":12.5,"input_token_count":10,"output_token_count":3}`,
		`{"request_id":""}`,
	}
	var b bytes.Buffer
	for i, l := range lines {
		if bytes.Contains(l, []byte(`"flights-000.no_schema.r1.a1"`)) {
			// its one record the provider error below: an answer would
			// stand over it
			continue
		}
		b.Write(l)
		if i%97 == 0 {
			b.WriteString(extra[(i/97)%len(extra)])
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

// tcReported reads data into a run of the built-in study with the given number
// of workers and returns the run and its report.
func tcReported(t *testing.T, data []byte, workers int) (*Run, *Aggregates) {
	t.Helper()
	run := tcBenchRun(t)
	if _, err := run.Read(score.Source{Name: "r.jsonl", R: bytes.NewReader(data)}, score.Options{Workers: workers}); err != nil {
		t.Fatal(err)
	}
	rep, err := run.Report()
	if err != nil {
		t.Fatal(err)
	}
	return run, rep
}

// tcOutputs reads data with the given number of workers and returns the JSON
// report and the case results.
func tcOutputs(t *testing.T, data []byte, workers int) (string, string) {
	t.Helper()
	run, rep := tcReported(t, data, workers)
	return runOutputs(t, run, rep)
}

// runOutputs returns the JSON report rep of run and its case results.
func runOutputs(t *testing.T, run *Run, rep *Aggregates) (string, string) {
	t.Helper()
	var js, cases bytes.Buffer
	if err := report.WriteJSON(&js, rep.Doc()); err != nil {
		t.Fatal(err)
	}
	results, err := run.CaseResultRanges()
	if err != nil {
		t.Fatal(err)
	}
	if err := report.WriteCaseResultRanges(&cases, results); err != nil {
		t.Fatal(err)
	}
	return js.String(), cases.String()
}

func TestToolcallReadSameAtAnyWorkers(t *testing.T) {
	data := tcMixed(t, 20000)
	rep1, cases1 := tcOutputs(t, data, 1)
	for _, want := range []string{`"duplicates": `, `"unknown": `, `"PROVIDER_ERROR"`, `"reason": "r.jsonl:`} {
		if !bytes.Contains([]byte(rep1+cases1), []byte(want)) {
			t.Errorf("the mixed file does not exercise %s", want)
		}
	}
	for _, w := range []int{2, 4} {
		rep, cases := tcOutputs(t, data, w)
		if rep != rep1 {
			t.Errorf("workers=%d: the report differs from workers=1", w)
		}
		if cases != cases1 {
			t.Errorf("workers=%d: the case results differ from workers=1", w)
		}
	}
}

// Rows that quote long outputs are written in short ranges (a writer holds a few
// ranges at once), and the bytes are those of ranges of 512 at any length.
func TestToolcallRangesOfLongRows(t *testing.T) {
	data := tcMixed(t, 20000)
	run, _ := tcReported(t, data, 2)
	if n := longestRange(run.rangeEnds()); n != 512 {
		t.Fatalf("the mixed file: ranges of %d rows", n)
	}
	rep512, cases512 := tcOutputs(t, data, 2)
	defer func() { rangeBytes = 2 << 20 }()
	for _, b := range []int{2000, 300000} {
		rangeBytes = b
		run, _ := tcReported(t, data, 2)
		if n := longestRange(run.rangeEnds()); n >= 512 || n < 1 {
			t.Fatalf("rangeBytes %d: ranges of %d rows", b, n)
		}
		if rep, cases := tcOutputs(t, data, 2); rep != rep512 || cases != cases512 {
			t.Errorf("rangeBytes %d: the outputs differ from ranges of 512", b)
		}
	}
	// outputs of 64 KB: ranges of about 30 rows
	rangeBytes = 2 << 20
	lines := bytes.SplitAfter(tcSynth(t, 1440), []byte("\n"))
	long := strings.Repeat("I cannot call the tool. ", 2700)
	var b bytes.Buffer
	for _, l := range lines {
		if len(l) > 0 {
			b.Write(bytes.Replace(l, []byte(`"output":"`), []byte(`"output":"`+long), 1))
		}
	}
	run, _ = tcReported(t, b.Bytes(), 2)
	if n := longestRange(run.rangeEnds()); n < 10 || n > 60 {
		t.Errorf("64 KB outputs: ranges of %d rows", n)
	}
	// a few long outputs among short ones: each range holds about as many
	// bytes, so those of the long rows are short, where every range was of
	// the average row (rangeLen: ranges of 512 rows, 500 of them long, held
	// several at once by each writer: 531 MB at 100,800 rows)
	b.Reset()
	for i, l := range lines {
		if len(l) > 0 && i < 200 {
			l = bytes.Replace(l, []byte(`"output":"`), []byte(`"output":"`+long), 1)
		}
		b.Write(l)
	}
	run, _ = tcReported(t, b.Bytes(), 2)
	ends := run.rangeEnds()
	if ends[0] > 60 || longestRange(ends) != 512 {
		t.Errorf("200 long outputs first: ranges end at %v", ends)
	}
}

// longestRange is the most rows a range of ends holds.
func longestRange(ends []int) int {
	most, lo := 0, 0
	for _, e := range ends {
		most, lo = max(most, e-lo), e
	}
	return most
}

// The writers build each range of rows in the memory of the range before
// (report.Ranges.Builder): the report's rows and the case results they write are
// byte for byte what rows built in memory of their own give (Build, which Seq
// uses for readers that keep rows). The files: every request answered, with
// every kind of outcome, and the first 1,000 records only, so that ranges of
// missing rows follow ranges full of details.
func TestToolcallWritersReuseMemory(t *testing.T) {
	for _, n := range []int{20000, 1000} {
		data := tcMixed(t, n)
		for _, workers := range []int{1, 2} {
			run, rep := tcReported(t, data, workers)
			doc := rep.Doc()
			if doc.Toolcall.RowRanges == nil || doc.Toolcall.RowRanges.Builder == nil || doc.Toolcall.RowRanges.N <= 2*512 {
				t.Fatal("the report's rows are not built by writers over several ranges each")
			}
			var reused, fresh bytes.Buffer
			if err := report.WriteJSON(&reused, doc); err != nil {
				t.Fatal(err)
			}
			doc.Toolcall.RowRanges = nil // the rows of RowSource: Build
			if err := report.WriteJSON(&fresh, doc); err != nil {
				t.Fatal(err)
			}
			if reused.String() != fresh.String() {
				t.Errorf("%d records, %d workers: the report's rows differ from rows built in memory of their own", n, workers)
			}
			results, err := run.CaseResultRanges()
			if err != nil {
				t.Fatal(err)
			}
			reused.Reset()
			fresh.Reset()
			if err := report.WriteCaseResultRanges(&reused, results); err != nil {
				t.Fatal(err)
			}
			results.Builder = nil
			if err := report.WriteCaseResultRanges(&fresh, results); err != nil {
				t.Fatal(err)
			}
			if reused.String() != fresh.String() {
				t.Errorf("%d records, %d workers: the case results differ from ones built in memory of their own", n, workers)
			}
			if err := run.Err(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestToolcallReadJudgesAsScore holds Read, which judges most records with the
// quick check and the rest in full only once every file is read, keeping a
// slot per attempt and the details in a spool file, to judging the last record
// of every request in full with Judge.Score: the same verdict, codes, errors
// (every field, details included) and output. The files: one record per
// request, in study order and shuffled, and one that answers requests many
// times over with junk between. Each is read with the details staged as
// scoring stages them (one band of rows here) and in bands of 50 rows with
// 2 KB buffers (bands written many times over, entries replaced before and
// after their band was written) and with 120-byte buffers (most entries larger
// than a buffer, written as they come).
func TestToolcallReadJudgesAsScore(t *testing.T) {
	one := tcSynth(t, 1440)
	lines := bytes.SplitAfter(one, []byte("\n"))
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	shuffled := bytes.Join(lines, nil)
	mixed := tcMixed(t, 20000)
	// the first 120 requests answered with 64 KB outputs: settle takes them in
	// more than one chunk (settleChunkBytes)
	var long bytes.Buffer
	idOf := regexp.MustCompile(`"request_id"\s*:\s*"([^"]+)"`)
	for i, l := range bytes.SplitAfter(one, []byte("\n")) {
		if m := idOf.FindSubmatch(l); i < 120 && m != nil {
			fmt.Fprintf(&long, "{\"request_id\":%q,\"output\":%q}\n", m[1], strings.Repeat("x", 64<<10))
			continue
		}
		long.Write(l)
	}
	// failing outputs repeated within a case (two of its arms give the same
	// one, the third another), as repeats at temperature 0 give them: settle
	// judges each output of a case once
	var repeated bytes.Buffer
	variants := []string{
		`{"action":"refuse","tool":null,"arguments":{},"missingFields":[],"reason":"no"}`,
		"I would call the tool.",
		`{"action":"call_tool","tool":"search","arguments":{"q":1},"missingFields":[],"reason":""}`,
	}
	cases := map[string]int{}
	for _, l := range bytes.SplitAfter(one, []byte("\n")) {
		if m := idOf.FindSubmatch(l); m != nil {
			id := strings.Split(string(m[1]), ".") // case.arm.repeat.attempt
			if _, ok := cases[id[0]]; !ok {
				cases[id[0]] = len(cases)
			}
			v := cases[id[0]]
			if id[1] == "input_schema" {
				v++
			}
			fmt.Fprintf(&repeated, "{\"request_id\":%q,\"output\":%q}\n", m[1], variants[v%len(variants)])
		}
	}
	for _, f := range []struct {
		name string
		data []byte
	}{{"one per request", one}, {"one per request, shuffled", shuffled}, {"replaced", mixed}, {"long outputs", long.Bytes()}, {"repeated outputs", repeated.Bytes()}} {
		for _, buf := range []int{0, 2 << 10, 120} {
			t.Run(fmt.Sprintf("%s/buffer=%d", f.name, buf), func(t *testing.T) {
				checkJudgesAsScore(t, f.data, buf)
			})
		}
	}
}

// checkJudgesAsScore reads data with details staged in bands of 50 rows with
// buffers of buf bytes, or as scoring stages them when buf is 0.
func checkJudgesAsScore(t *testing.T, data []byte, buf int) {
	type judged struct {
		res tc.Result
		out string
	}
	want := map[slot]judged{}
	ref := tcBenchRun(t)
	rd := contract.NewReader("r.jsonl", bytes.NewReader(data), contract.ReadOptions{})
	for rd.Scan() {
		rec := rd.Record()
		if rec.Err != nil {
			continue
		}
		resp, err := contract.DecodeResponse(rec)
		if err != nil {
			continue
		}
		sl, ok := ref.lookup(&resp)
		if !ok {
			continue
		}
		if resp.Error != nil {
			delete(want, sl)
			continue
		}
		ci := ref.placeOf(sl.row).ci
		want[sl] = judged{ref.caseJudge[ci].Score(resp.Output, ref.prepared[ci]), resp.Output}
	}
	run := tcBenchRun(t)
	if buf > 0 {
		run.stage = sizedStage(run.rows, 50, buf)
	}
	if _, err := run.Read(score.Source{Name: "r.jsonl", R: bytes.NewReader(data)}, score.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := run.settle(); err != nil {
		t.Fatal(err)
	}
	failed, i := 0, -1
	for sr := range run.settledRows {
		i++
		r := sr.r
		for k := range r {
			a, d := &r[k], &sr.dets[k]
			w, ok := want[slot{i, k + 1}]
			if !ok || a.has(fProvider) {
				continue
			}
			if a.has(fPending) {
				t.Fatalf("row %d attempt %d still pending after Read", i, k+1)
			}
			verdict := uint32(fSuccess | fSemantic | fCandValid | fCall)
			if got := a.flags & verdict; got != resultFlags(&w.res) {
				t.Fatalf("row %d attempt %d: flags %b, Score gives %b (%+v)", i, k+1, got, resultFlags(&w.res), w.res)
			}
			if !reflect.DeepEqual(d.errors, w.res.Errors) {
				t.Fatalf("row %d attempt %d: details hold %+v, Score gives %+v", i, k+1, d.errors, w.res.Errors)
			}
			var codes []string
			if k == 0 {
				for _, id := range run.codesOf(a) {
					codes = append(codes, run.codeNames[id])
				}
				var wantCodes []string
				for _, e := range w.res.Errors {
					wantCodes = append(wantCodes, e.Code)
				}
				if !slices.Equal(codes, wantCodes) {
					t.Fatalf("row %d: codes %v, Score gives %v", i, codes, wantCodes)
				}
			}
			if !w.res.Success {
				failed++
				if d.output != w.out {
					t.Fatalf("row %d attempt %d: failed output %q kept as %q", i, k+1, w.out, d.output)
				}
			}
		}
	}
	if err := run.Err(); err != nil {
		t.Fatal(err)
	}
	if failed == 0 || len(want) < 1000 {
		t.Fatalf("the file exercises %d rows, %d of them failed", len(want), failed)
	}
}

// TestToolcallReadMemoryFlat reads 100,000 and then 1,000,000 records (the same
// 100,000 ten times over, streamed) and holds the peak heap in use to a small
// factor of each other: nothing per record outlives its batch.
func TestToolcallReadMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a million records")
	}
	data := tcSynth(t, 100000)
	peak := func(n int) uint64 {
		run := tcBenchRun(t)
		src := &chunkReader{data: data, times: n}
		runtime.GC()
		var max uint64
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			tick := time.NewTicker(20 * time.Millisecond)
			defer tick.Stop()
			var ms runtime.MemStats
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
					runtime.ReadMemStats(&ms)
					max = maxU(max, ms.HeapInuse)
				}
			}
		}()
		st, err := run.Read(score.Source{Name: "r.jsonl", R: src}, score.Options{})
		close(stop)
		<-done
		if err != nil {
			t.Fatal(err)
		}
		if st.Records != 100000*n {
			t.Fatalf("%d records", st.Records)
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return maxU(max, ms.HeapInuse)
	}
	small, large := peak(1), peak(10)
	t.Logf("peak heap in use: %.1f MB at 100k records, %.1f MB at 1M", float64(small)/(1<<20), float64(large)/(1<<20))
	if float64(large) > 1.5*float64(small)+8<<20 {
		t.Errorf("heap grows with the records: %d bytes at 100k, %d at 1M", small, large)
	}
}

func maxU(a, b uint64) uint64 {
	if a > b {
		return a
	}
	return b
}

// chunkReader streams data times times without holding more than one copy.
type chunkReader struct {
	data  []byte
	times int
	off   int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if c.times == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.data[c.off:])
	c.off += n
	if c.off == len(c.data) {
		c.off = 0
		c.times--
	}
	return n, nil
}

// BenchmarkToolcallWhole1440: what `fbeval score toolcall` does for one answer
// per request of the built-in study: plan, judges, reading, report and its JSON.
func BenchmarkToolcallWhole1440(b *testing.B) {
	p, err := tcBenchPlan()
	if err != nil {
		b.Fatal(err)
	}
	reqs, err := p.Requests(true)
	if err != nil {
		b.Fatal(err)
	}
	var data bytes.Buffer
	for _, r := range reqs {
		line, _ := contract.Marshal(contract.Object{{Key: "request_id", Value: r.RequestID}, {Key: "output", Value: *r.ReferenceOutput}}, contract.Compact)
		data.Write(line)
		data.WriteByte('\n')
	}
	b.ReportAllocs()
	for b.Loop() {
		p, err := builtinPlan(0)
		if err != nil {
			b.Fatal(err)
		}
		run, err := New(p)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := run.Read(score.Source{Name: "r.jsonl", R: bytes.NewReader(data.Bytes())}, score.Options{}); err != nil {
			b.Fatal(err)
		}
		rep, err := run.Report()
		if err != nil {
			b.Fatal(err)
		}
		if err := report.WriteJSON(io.Discard, rep.Doc()); err != nil {
			b.Fatal(err)
		}
		run.Close()
	}
}

func reportRate(b *testing.B, perOp int) {
	b.ReportMetric(float64(perOp)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// TestToolcallReadAllAsReadEach: response files read through one pipeline
// (ReadAll) give the report and case results that reading them one by one
// (Read) gives, at any number of workers, each file opened when its turn
// comes and closed once read; the first error, file by file, is the one
// returned: a file none of whose records could be read before a file that
// cannot be opened.
func TestToolcallReadAllAsReadEach(t *testing.T) {
	lines := bytes.SplitAfter(tcMixed(t, 6000), []byte("\n"))
	var files [][]byte
	for len(lines) > 0 {
		n := min(len(files)*400+1, len(lines)) // shards of growing size, the first of one line
		files = append(files, bytes.Join(lines[:n], nil))
		lines = lines[n:]
	}
	files = append(files, nil) // a shard with no records
	outputs := func(run *Run) (string, string) {
		rep, err := run.Report()
		if err != nil {
			t.Fatal(err)
		}
		return runOutputs(t, run, rep)
	}
	open, most := 0, 0
	sources := func() []score.Source {
		var srcs []score.Source
		for i, b := range files {
			srcs = append(srcs, score.Source{Name: fmt.Sprintf("s%d.jsonl", i), Open: func() (io.Reader, func(), error) {
				open++
				most = max(most, open)
				return bytes.NewReader(b), func() { open-- }, nil
			}})
		}
		return srcs
	}
	each := tcBenchRun(t)
	for _, src := range sources() {
		if _, err := each.Read(src, score.Options{Workers: 2}); err != nil {
			t.Fatal(err)
		}
	}
	wantRep, wantCases := outputs(each)
	if !strings.Contains(wantRep, `"path": "s3.jsonl"`) || !strings.Contains(wantRep, "holds no records") {
		t.Fatalf("the shards are not in the report: %.300s", wantRep)
	}
	for _, w := range []int{1, 2, 4} {
		all := tcBenchRun(t)
		if err := all.ReadAll(sources(), score.Options{Workers: w}); err != nil {
			t.Fatal(err)
		}
		if rep, cases := outputs(all); rep != wantRep || cases != wantCases {
			t.Errorf("workers=%d: ReadAll's report or case results differ from Read's, file by file", w)
		}
		if open != 0 || most != 1 {
			t.Errorf("workers=%d: at most %d files open at once, %d left open; want one at a time, none left", w, most, open)
		}
	}

	missing := errors.New("s9.jsonl: no such file or directory")
	gone := score.Source{Name: "s9.jsonl", Open: func() (io.Reader, func(), error) { return nil, nil, missing }}
	junk := score.Source{Name: "junk.jsonl", Open: func() (io.Reader, func(), error) { return strings.NewReader("not json\nnor this\n"), func() {}, nil }}
	good := sources()[1]
	for _, tc := range []struct {
		srcs []score.Source
		want string
	}{
		{[]score.Source{good, gone}, missing.Error()},
		{[]score.Source{good, junk, gone}, "no record of the file could be read (2 records rejected)"},
		{[]score.Source{junk, good}, "no record of the file could be read (2 records rejected)"},
	} {
		err := tcBenchRun(t).ReadAll(tc.srcs, score.Options{Workers: 2})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%d files: %v, want %q", len(tc.srcs), err, tc.want)
		}
	}
}
