package score

import (
	"bytes"
	"sync"
	"testing"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/export"
	"github.com/fbeval/fbeval/fixtures/synth"
)

// The toolcall benchmarks work on synthetic response files for the built-in
// toolcall study (package synth, seed 1): about 70% right envelopes, the rest
// wrong arguments, out-of-range numbers, wrong actions, fenced or prose outputs
// and duplicate keys, cycling over the study's 1,440 request ids.
const tcBenchRecords = 100000

var tcBenchPlan = sync.OnceValues(func() (*export.ToolcallPlan, error) {
	s, err := export.LoadStudy("toolcall")
	if err != nil {
		return nil, err
	}
	if s, err = export.Resolve(s, export.Overrides{}); err != nil {
		return nil, err
	}
	return export.PlanToolcall(s)
})

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

func tcBenchRun(tb testing.TB) *ToolcallRun {
	tb.Helper()
	p, err := tcBenchPlan()
	if err != nil {
		tb.Fatal(err)
	}
	run, err := NewToolcallRun(p)
	if err != nil {
		tb.Fatal(err)
	}
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
			row := run.Rows[it.sl.row]
			run.judges[row.Case.Domain].Score(it.out, row.Prepared)
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
		st, err := run.Read(Source{Name: "bench.jsonl", R: bytes.NewReader(data)}, Options{Workers: workers})
		if err != nil {
			b.Fatal(err)
		}
		if st.Records != tcBenchRecords {
			b.Fatalf("%d records", st.Records)
		}
	}
	reportRate(b, tcBenchRecords)
}

// BenchmarkToolcallRead100k: the whole of ToolcallRun.Read (read, decode, judge,
// merge) on 100,000 records, one worker and as many as GOMAXPROCS.
func BenchmarkToolcallRead100k(b *testing.B) {
	b.Run("workers=1", func(b *testing.B) { benchToolcallRead(b, 1) })
	b.Run("workers=max", func(b *testing.B) { benchToolcallRead(b, 0) })
}

// BenchmarkToolcallReport: the report over the rows once responses are in.
func BenchmarkToolcallReport(b *testing.B) {
	run := tcBenchRun(b)
	if _, err := run.Read(Source{Name: "bench.jsonl", R: bytes.NewReader(tcBenchData())}, Options{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := run.Report(); err != nil {
			b.Fatal(err)
		}
	}
}
