package toolcall

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fbeval/fbeval/export"
	"github.com/fbeval/fbeval/fixtures/fixturetest"
)

// testdata/garble.jsonl holds real failing outputs: the first 400 records of
// `fbeval export toolcall --repeats 70 --include-reference | fbeval-mock --mode
// garble --seed 3`, shuffled by `fbeval-synth shuffle --seed 1`, that the mock
// garbled, with their case ids and the garble the mock named. They are the records
// a study of that shape judges in full, in its mix of kinds.

// garbleRecord is one line of testdata/garble.jsonl.
type garbleRecord struct {
	CaseID string `json:"case_id"`
	Garble string `json:"garble"`
	Output string `json:"output"`
}

// garbleItem is a garbled output with the judge and case of the built-in study
// that scores it.
type garbleItem struct {
	garbleRecord
	judge *Judge
	c     *Case
}

var garbleItems = sync.OnceValues(func() ([]garbleItem, error) {
	s, err := export.LoadStudy("toolcall")
	if err != nil {
		return nil, err
	}
	if s, err = export.Resolve(s, export.Overrides{}); err != nil {
		return nil, err
	}
	p, err := export.PlanToolcall(s)
	if err != nil {
		return nil, err
	}
	judges := map[string]*Judge{}
	for d, tool := range p.Tools {
		if judges[d], err = NewJudge(tool, p.Candidate[d]); err != nil {
			return nil, err
		}
	}
	cases := map[string]*Case{}
	domains := map[string]string{}
	for _, c := range p.Cases {
		if cases[c.ID], err = PrepareCase(c); err != nil {
			return nil, err
		}
		domains[c.ID] = c.Domain
	}
	data, err := os.ReadFile(filepath.Join("testdata", "garble.jsonl"))
	if err != nil {
		return nil, err
	}
	var items []garbleItem
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		var r garbleRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, err
		}
		items = append(items, garbleItem{r, judges[domains[r.CaseID]], cases[r.CaseID]})
	}
	return items, sc.Err()
})

func loadGarble(tb testing.TB) []garbleItem {
	tb.Helper()
	items, err := garbleItems()
	if err != nil {
		tb.Fatal(err)
	}
	if len(items) != 400 {
		tb.Fatalf("%d garbled outputs, want 400", len(items))
	}
	for _, it := range items {
		if it.judge == nil || it.c == nil {
			tb.Fatalf("case %s is not in the built-in study", it.CaseID)
		}
	}
	return items
}

// TestScoreGarbleGolden holds the whole Result of every garbled output (codes,
// paths, keywords, messages, expected and actual texts, details, verdicts) to a
// golden file, so a change to how the judge works cannot change what it says.
func TestScoreGarbleGolden(t *testing.T) {
	var sb strings.Builder
	for _, it := range loadGarble(t) {
		r := it.judge.Score(it.Output, it.c)
		if r.Success {
			t.Errorf("%s (%s): a garbled output succeeds", it.CaseID, it.Garble)
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		sb.WriteString(it.CaseID + " " + it.Garble + "\n")
		sb.Write(b)
		sb.WriteString("\n")
		if q, ok := it.judge.Quick([]byte(it.Output), it.c); ok {
			t.Errorf("%s (%s): Quick passes a failing output: %+v", it.CaseID, it.Garble, q)
		}
	}
	fixturetest.Golden(t, filepath.Join("testdata", "garble.golden"), []byte(sb.String()))
}

// BenchmarkScoreGarble: the full judgment of real failing outputs in the mix
// fbeval-mock --mode garble gives (testdata/garble.jsonl), per output.
func BenchmarkScoreGarble(b *testing.B) {
	items := loadGarble(b)
	b.ReportAllocs()
	cpu := cpuTime()
	for b.Loop() {
		for i := range items {
			items[i].judge.Score(items[i].Output, items[i].c)
		}
	}
	reportPerOutput(b, len(items), cpu)
}

// reportPerOutput reports wall and CPU nanoseconds per output of a benchmark that
// judged n outputs per op, having used cpu CPU time before its loop.
func reportPerOutput(b *testing.B, n int, cpu time.Duration) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/output")
	if cpu > 0 {
		b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(b.N*n), "cpu-ns/output")
	}
}

// BenchmarkQuickGarble: the quick check of the same outputs, per output.
func BenchmarkQuickGarble(b *testing.B) {
	items := loadGarble(b)
	outs := make([][]byte, len(items))
	for i := range items {
		outs[i] = []byte(items[i].Output)
	}
	b.ReportAllocs()
	cpu := cpuTime()
	for b.Loop() {
		for i := range items {
			items[i].judge.Quick(outs[i], items[i].c)
		}
	}
	reportPerOutput(b, len(items), cpu)
}
