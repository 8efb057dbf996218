package coglang

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/fixtures"
	"github.com/fbeval/fbeval/fixtures/synth"
	"github.com/fbeval/fbeval/score"
)

// The per-stage benchmarks all work on the same synthetic CogLang file: 100,000
// records for the default fixture, seed 1 (package synth), about 70% right.
const benchRecords = 100000

var benchData = sync.OnceValues(func() ([]byte, [][]byte) {
	var b bytes.Buffer
	if err := synth.CogLangResponses(&b, fixtures.DefaultCogLangFixture(), benchRecords, 1); err != nil {
		panic(err)
	}
	data := b.Bytes()
	return data, bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
})

// benchOutputs returns the decoded output text of every record.
func benchOutputs(b *testing.B) []string {
	_, lines := benchData()
	out := make([]string, len(lines))
	for i, l := range lines {
		r, err := DecodeResponse(l)
		if err != nil {
			b.Fatal(err)
		}
		out[i] = *r.Output
	}
	return out
}

func reportRate(b *testing.B, perOp int) {
	b.ReportMetric(float64(perOp)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkStageRead: the contract reader alone (line splitting, no decoding).
func BenchmarkStageRead(b *testing.B) {
	data, _ := benchData()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		rd := contract.NewReader("bench", bytes.NewReader(data), contract.ReadOptions{})
		n := 0
		for rd.Scan() {
			n++
		}
		if n != benchRecords {
			b.Fatalf("%d records", n)
		}
	}
	reportRate(b, benchRecords)
}

// BenchmarkStageFilter: the response filter alone (pyText: Python's line
// breaks, white space and non-finite numbers outside strings).
func BenchmarkStageFilter(b *testing.B) {
	data, _ := benchData()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		n, err := io.Copy(io.Discard, newPyText(bytes.NewReader(data)))
		if err != nil || n != int64(len(data)) {
			b.Fatalf("%d bytes, %v", n, err)
		}
	}
	reportRate(b, benchRecords)
}

// BenchmarkStageDecode: one strict JSON parse of each record into a Response.
func BenchmarkStageDecode(b *testing.B) {
	data, lines := benchData()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			if _, err := DecodeResponse(l); err != nil {
				b.Fatal(err)
			}
		}
	}
	reportRate(b, benchRecords)
}

// BenchmarkStageParse: M-expression parsing of each output.
func BenchmarkStageParse(b *testing.B) {
	outs := benchOutputs(b)
	var p Parser
	b.ReportAllocs()
	for b.Loop() {
		for _, o := range outs {
			p.Parse(o)
		}
	}
	reportRate(b, benchRecords)
}

// BenchmarkStageCanonical: canonical text of each parsed output (parse excluded).
func BenchmarkStageCanonical(b *testing.B) {
	outs := benchOutputs(b)
	exprs := make([]*Expr, len(outs))
	for i, o := range outs {
		exprs[i] = Parse(o)
	}
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		for _, e := range exprs {
			buf = e.AppendCanonical(buf[:0])
		}
	}
	reportRate(b, benchRecords)
}

// BenchmarkStageCheck: validation, hallucinated heads and the preflight decision,
// which are one walk of the tree (parse excluded).
func BenchmarkStageCheck(b *testing.B) {
	outs := benchOutputs(b)
	exprs := make([]*Expr, len(outs))
	for i, o := range outs {
		exprs[i] = Parse(o)
	}
	var c Checker
	b.ReportAllocs()
	for b.Loop() {
		for _, e := range exprs {
			c.Check(e)
		}
	}
	reportRate(b, benchRecords)
}

// BenchmarkReadThenScore100k: the whole path of `fbeval score coglang` short of
// writing the result: read, decode, keep the last record per case, score.
func BenchmarkReadThenScore100k(b *testing.B) {
	data, _ := benchData()
	fx := fixtures.DefaultCogLangFixture()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		got, err := ReadResponses(fx, []score.Source{{Name: "bench", R: bytes.NewReader(data)}}, score.Options{})
		if err != nil {
			b.Fatal(err)
		}
		res := Score(fx, got.Responses, Options{AnswerSource: "bench"})
		if res.RecordsRead != len(fx.Cases) {
			b.Fatal(res.RecordsRead)
		}
	}
	reportRate(b, benchRecords)
}

// BenchmarkScoreFiles100k: ScoreFiles, which scores every record as it
// arrives, at 1 worker and at GOMAXPROCS workers.
func BenchmarkScoreFiles100k(b *testing.B) {
	data, _ := benchData()
	src := fixtures.DefaultCogLangSource()
	for _, w := range []int{1, 0} {
		name := "workers=1"
		if w == 0 {
			name = "workers=max"
		}
		b.Run(name, func(b *testing.B) {
			benchScoreFiles(b, src, [][]byte{data}, w)
		})
	}
}

// BenchmarkScoreFilesShards: the records of BenchmarkScoreFiles100k over
// 1,000 sources, as a batch engine's shards come back: what each file costs
// beyond its records (its readers and their buffers, its hash, its checks).
func BenchmarkScoreFilesShards(b *testing.B) {
	data, _ := benchData()
	lines := bytes.SplitAfter(data, []byte("\n"))
	const shards = 1000
	per := (len(lines) + shards - 1) / shards
	var parts [][]byte
	for i := 0; i < len(lines); i += per {
		parts = append(parts, bytes.Join(lines[i:min(i+per, len(lines))], nil))
	}
	benchScoreFiles(b, fixtures.DefaultCogLangSource(), parts, 0)
}

// benchScoreFiles times ScoreFiles of files (benchRecords records in all) at
// the given number of workers.
func benchScoreFiles(b *testing.B, src fixtures.CogLangSource, files [][]byte, workers int) {
	size := 0
	for _, f := range files {
		size += len(f)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		sources := make([]score.Source, len(files))
		for i, f := range files {
			sources[i] = score.Source{Name: "bench", R: bytes.NewReader(f)}
		}
		res, _, err := ScoreFiles(src, sources, score.Options{}, Options{AnswerSource: "bench", Workers: workers})
		if err != nil {
			b.Fatal(err)
		}
		if res.RecordsRead != benchRecords {
			b.Fatal(res.RecordsRead)
		}
		res.Close()
	}
	reportRate(b, benchRecords)
}

// BenchmarkIndexFixture100k: the first phase of BenchmarkScoreFixture100k alone,
// reading the fixture file into the case store (a slot per case, the ids and
// prompts spooled).
func BenchmarkIndexFixture100k(b *testing.B) {
	path := filepath.Join(b.TempDir(), "fixture.json")
	var buf bytes.Buffer
	if err := synth.WriteCogLangFixture(&buf, synth.CogLangFixture(fixtures.DefaultCogLangFixture(), 100_000)); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		fx, err := IndexFixture(fixtures.CogLangSource{Name: path})
		if err != nil {
			b.Fatal(err)
		}
		fx.Close()
	}
	b.ReportMetric(100_000*float64(b.N)/b.Elapsed().Seconds(), "cases/s")
}

// BenchmarkScoreFixture100k and BenchmarkScoreFixture1M are the CogLang rows of
// the study-scale targets: a fixture of N distinct cases (synth.CogLangFixture),
// one response per case (synth.CogLangResponses, seed 1), and the whole path of
// `fbeval score coglang --fixture FX --format json`: read the fixture file,
// read and score the responses, write the JSON result with every case.
func BenchmarkScoreFixture100k(b *testing.B) { benchScoreFixture(b, 100_000, false) }

func BenchmarkScoreFixture1M(b *testing.B) {
	if testing.Short() {
		b.Skip("a 1,000,000-case fixture (-short)")
	}
	benchScoreFixture(b, 1_000_000, false)
}

// BenchmarkScoreFixtureShuffled100k and 1M are the same with the responses
// shuffled (synth.Shuffle, seed 1), as merged batch shards come back: the
// details file is written a block per range of cases (detailFile), so the
// result is read back in about the bytes it holds.
func BenchmarkScoreFixtureShuffled100k(b *testing.B) { benchScoreFixture(b, 100_000, true) }

func BenchmarkScoreFixtureShuffled1M(b *testing.B) {
	if testing.Short() {
		b.Skip("a 1,000,000-case fixture (-short)")
	}
	benchScoreFixture(b, 1_000_000, true)
}

func benchScoreFixture(b *testing.B, n int, shuffled bool) {
	fx := synth.CogLangFixture(fixtures.DefaultCogLangFixture(), n)
	path := filepath.Join(b.TempDir(), "fixture.json")
	var buf bytes.Buffer
	if err := synth.WriteCogLangFixture(&buf, fx); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	buf.Reset()
	if err := synth.CogLangResponses(&buf, fx, n, 1); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	if shuffled {
		var sh bytes.Buffer
		if err := synth.Shuffle(&sh, data, 1); err != nil {
			b.Fatal(err)
		}
		data = sh.Bytes()
	}
	fx = nil
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, _, err := ScoreFiles(fixtures.CogLangSource{Name: path}, []score.Source{{Name: "bench", R: bytes.NewReader(data)}}, score.Options{}, Options{AnswerSource: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		if err := res.WriteJSON(io.Discard, ModeFull); err != nil {
			b.Fatal(err)
		}
		if err := res.Err(); err != nil {
			b.Fatal(err)
		}
		res.Close()
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "responses/s")
}
