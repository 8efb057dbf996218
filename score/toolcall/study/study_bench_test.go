package study

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/export"
	"github.com/fbeval/fbeval/score"
	"github.com/fbeval/fbeval/score/report"
)

// studyFile writes one response record per request of the built-in toolcall
// study at repeats, in study order, to a file: half the records answer with
// the reference output, the other half fail in four ways (a refusal, text that
// is no JSON, the right tool with its arguments emptied, a provider error), so
// about half the rows are judged in full, as with fbeval-mock --mode garble.
func studyFile(b *testing.B, repeats int) (string, *export.ToolcallPlan) {
	b.Helper()
	p, err := builtinPlan(repeats)
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "responses.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	i := 0
	err = p.Each(true, func(r *contract.Request) error {
		rec := contract.Object{{Key: "request_id", Value: r.RequestID}}
		ref := *r.ReferenceOutput
		switch i % 8 {
		case 1:
			rec = append(rec, contract.Member{Key: "output", Value: `{"action":"refuse","tool":null,"arguments":{},"missingFields":[],"reason":"no"}`})
		case 3:
			rec = append(rec, contract.Member{Key: "output", Value: "I would call the tool with these arguments."})
		case 5:
			if k := strings.Index(ref, `"arguments":{`); k >= 0 {
				ref = ref[:k] + `"arguments":{},"x":{` + ref[k+len(`"arguments":{`):]
			}
			rec = append(rec, contract.Member{Key: "output", Value: ref})
		case 7:
			rec = append(rec, contract.Member{Key: "error", Value: contract.Object{{Key: "code", Value: "rate_limit"}, {Key: "message", Value: "slow down"}}})
		default:
			rec = append(rec, contract.Member{Key: "output", Value: ref})
		}
		rec = append(rec, contract.Member{Key: "model", Value: "bench"}, contract.Member{Key: "latency_ms", Value: float64(100 + i%50)},
			contract.Member{Key: "input_token_count", Value: 300 + i%7}, contract.Member{Key: "output_token_count", Value: 40 + i%5})
		line, err := contract.Marshal(rec, contract.Compact)
		if err != nil {
			return err
		}
		w.Write(line)
		i++
		return w.WriteByte('\n')
	})
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		b.Fatal(err)
	}
	return path, p
}

// BenchmarkToolcallStudy is the toolcall rows of the study-scale targets
// (docs/performance.md) in one process: one record per request of the built-in
// study at --repeats 70 (100,800 requests) and 700 (1,008,000), read from a
// file, with the JSON report and the case results (--cases-out) written to
// io.Discard. It reports requests per second; run it with -benchmem for the
// bytes it allocates, and .ci/perf for peak RSS.
func BenchmarkToolcallStudy(b *testing.B) {
	for _, repeats := range []int{70, 700} {
		b.Run(fmt.Sprintf("requests=%d", 1440*repeats), func(b *testing.B) {
			path, _ := studyFile(b, repeats)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				p, err := builtinPlan(repeats)
				if err != nil {
					b.Fatal(err)
				}
				run, err := New(p)
				if err != nil {
					b.Fatal(err)
				}
				f, err := os.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				_, err = run.Read(score.Source{Name: path, R: f}, score.Options{})
				f.Close()
				if err != nil {
					b.Fatal(err)
				}
				rep, err := run.Report()
				if err != nil {
					b.Fatal(err)
				}
				// as fbeval score --format json --cases-out writes them: in one pass
				doc := rep.Doc()
				parts := report.NewCaseResultParts(io.Discard, doc.Toolcall.ExpectedRows)
				run.CaseResultsBeside(parts)
				if err := report.WriteJSON(io.Discard, doc); err != nil {
					b.Fatal(err)
				}
				if err := parts.Close(); err != nil {
					b.Fatal(err)
				}
				if err := run.Err(); err != nil {
					b.Fatal(err)
				}
				run.Close()
			}
			b.ReportMetric(float64(1440*repeats)*float64(b.N)/b.Elapsed().Seconds(), "requests/s")
		})
	}
}
