package export

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/contract"
)

// wholeBatch is the batch object built whole, as one value: what the streamed
// writer must equal byte for byte.
func wholeBatch(t *testing.T, s *contract.Study, reqs []contract.Request) []byte {
	t.Helper()
	objs := make([]contract.Object, len(reqs))
	for i := range reqs {
		objs[i] = reqs[i].Object()
	}
	out, err := contract.Marshal(contract.Object{
		{Key: "schema_version", Value: contract.RequestBatchV1},
		{Key: "suite", Value: s.Suite},
		{Key: "study", Value: s.Object()},
		{Key: "request_count", Value: len(reqs)},
		{Key: "requests", Value: objs},
	}, contract.PythonIndent)
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}

func TestStreamRequestsBytes(t *testing.T) {
	p := quickPlan(t, Overrides{Decoding: contract.DecodingNativeTools})
	reqs, err := p.Requests(true)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 1, 2, len(reqs)} {
		var got bytes.Buffer
		err := StreamRequests(&got, &p.Study, n, "json", func(yield func(*contract.Request) error) error {
			for i := range reqs[:n] {
				if err := yield(&reqs[i]); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if want := wholeBatch(t, &p.Study, reqs[:n]); !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%d requests: the streamed batch object differs from the whole one:\n%.400s\nwant\n%.400s", n, got.Bytes(), want)
		}
	}
	var lines bytes.Buffer
	if err := StreamRequests(&lines, &p.Study, p.RequestCount(), "jsonl", func(yield func(*contract.Request) error) error {
		return p.Each(true, yield)
	}); err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(lines.String(), "\n"), "\n")
	if len(got) != len(reqs) {
		t.Fatalf("%d lines, want %d", len(got), len(reqs))
	}
	for i := range reqs {
		want, _ := contract.Marshal(reqs[i].Object(), contract.Compact)
		if got[i] != string(want) {
			t.Fatalf("line %d differs from the request built alone:\n%s\nwant\n%s", i+1, got[i], want)
		}
	}
}

func TestStreamRequestsCountChecked(t *testing.T) {
	p := quickPlan(t, Overrides{})
	err := StreamRequests(io.Discard, &p.Study, p.RequestCount()+1, "json", func(yield func(*contract.Request) error) error {
		return p.Each(false, yield)
	})
	if err == nil || !strings.Contains(err.Error(), "announced") {
		t.Fatalf("a batch object with fewer requests than its request_count: err %v", err)
	}
}

// BenchmarkExportToolcallStream writes the built-in toolcall study with --repeats
// 10 (14,400 requests) as JSONL, one request at a time (see .ci/perf for the whole
// process at 100,800 and 1,008,000 requests).
func BenchmarkExportToolcallStream(b *testing.B) {
	s, err := LoadStudy("toolcall")
	if err != nil {
		b.Fatal(err)
	}
	repeats := 10
	if s, err = Resolve(s, Overrides{Repeats: &repeats}); err != nil {
		b.Fatal(err)
	}
	p, err := PlanToolcall(s)
	if err != nil {
		b.Fatal(err)
	}
	cw := &countWriter{}
	b.ReportAllocs()
	for b.Loop() {
		if err := StreamRequests(cw, &p.Study, p.RequestCount(), "jsonl", func(yield func(*contract.Request) error) error {
			return p.Each(true, yield)
		}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(p.RequestCount())*float64(b.N)/b.Elapsed().Seconds(), "requests/s")
	b.SetBytes(cw.n / int64(b.N))
}

type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

// TestStreamRequestsCompact: each JSONL line of an export, in every decoding and
// with references, is the request's object as contract.AppendJSON writes it
// compact (the request writer and its memo of long texts change no byte).
func TestStreamRequestsCompact(t *testing.T) {
	for _, decoding := range []string{"prompt_only", "native_schema", "native_tools"} {
		s, err := LoadStudy("toolcall")
		if err != nil {
			t.Fatal(err)
		}
		reps := 2
		if s, err = Resolve(s, Overrides{Decoding: decoding, Repeats: &reps}); err != nil {
			t.Fatal(err)
		}
		p, err := PlanToolcall(s)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		var want []byte
		if err := StreamRequests(&out, &p.Study, p.RequestCount(), "jsonl", func(yield func(*contract.Request) error) error {
			return p.Each(true, func(req *contract.Request) error {
				line, err := contract.AppendJSON(nil, req.Object(), contract.Compact, 0)
				if err != nil {
					return err
				}
				want = append(append(want, line...), '\n')
				return yield(req)
			})
		}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), want) {
			t.Errorf("%s: the export differs from the requests' objects written compact", decoding)
		}
		if n := bytes.Count(want, []byte("\n")); n != p.RequestCount() {
			t.Errorf("%s: %d lines for %d requests", decoding, n, p.RequestCount())
		}
	}
}
