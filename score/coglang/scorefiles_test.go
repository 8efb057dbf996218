package coglang

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/fixtures"
	"github.com/fbeval/fbeval/fixtures/synth"
	"github.com/fbeval/fbeval/score"
)

func synthCogLang(t testing.TB, n int, seed uint64) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := synth.CogLangResponses(&b, fixtures.DefaultCogLangFixture(), n, seed); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// reference scores the files the way `fbeval score` did before ScoreFiles:
// ReadResponses, then Score.
func reference(t *testing.T, fx *fixtures.CogLangFixture, files [][]byte, copts Options) ([]byte, error) {
	loaded, err := ReadResponses(fx, sources(files), score.Options{})
	if err != nil {
		return nil, err
	}
	res := Score(fx, loaded.Responses, copts)
	res.RecordsRead = loaded.Read
	res.ResponseFile = loaded.Block()
	return render(t, res), nil
}

// sourceOf returns fx as a fixture source, its JSON held in memory.
func sourceOf(t testing.TB, fx *fixtures.CogLangFixture) fixtures.CogLangSource {
	t.Helper()
	var b bytes.Buffer
	if err := synth.WriteCogLangFixture(&b, fx); err != nil {
		t.Fatal(err)
	}
	return fixtures.CogLangSource{Name: "fixture.json", Data: b.Bytes()}
}

func sources(files [][]byte) []score.Source {
	var out []score.Source
	for i, f := range files {
		out = append(out, score.Source{Name: fmt.Sprintf("f%d.jsonl", i), R: bytes.NewReader(f)})
	}
	return out
}

func render(t *testing.T, res *Result) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := res.WriteJSON(&b, ModeFull); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestScoreFilesWorkers: the same bytes at 1, 2 and 4 workers, and the same
// bytes as reading first and scoring the last record per case.
func TestScoreFilesWorkers(t *testing.T) {
	fx := fixtures.DefaultCogLangFixture()
	fx.Cases = fx.Cases[:50] // some ids unknown
	list := `[{"case_id": "FB-L1-001", "output": "Equal[1, 1]"}, {"case_id": "nope", "output": "X"}]`
	// provider error records: one superseded by the next file, two left last, one unknown
	errs := `{"case_id": "FB-L1-002", "error": {"code": "http_500", "message": "m"}}
{"case_id": "FB-L1-003", "error": "overloaded"}
{"case_id": "FB-L1-004", "output": "Equal[1, 1]"}
{"case_id": "FB-L1-004", "output": null, "error": {"message": "no code"}}
{"case_id": "nope", "error": {"code": "x"}}
`
	files := [][]byte{synthCogLang(t, 5000, 1), []byte(list), synthCogLang(t, 1234, 2), {}, []byte(errs), []byte(`{"case_id": "FB-L1-002", "output": "Equal[1, 1]"}`)}
	for _, strict := range []bool{false, true} {
		copts := Options{Strict: strict, AnswerSource: "t"}
		want, err := reference(t, fx, files, copts)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range []int{1, 2, 4} {
			copts.Workers = w
			res, loaded, err := ScoreFiles(sourceOf(t, fx), sources(files), score.Options{}, copts)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Close()
			if loaded.Read != 5000+2+1234+5+1 || res.RecordsRead != loaded.Read {
				t.Errorf("workers %d: read %d, %d", w, loaded.Read, res.RecordsRead)
			}
			if loaded.ProviderErrors != 4 || strings.Join(loaded.ErrorCases, " ") != "FB-L1-003 FB-L1-004" {
				t.Errorf("workers %d: %d provider error records, cases %v", w, loaded.ProviderErrors, loaded.ErrorCases)
			}
			if n, codes := res.ProviderErrorCases(), res.ProviderErrorCodes.String(); n != 2 || codes != "no code in 1 record, overloaded in 1" {
				// the codes of the cases' last records: not the superseded http_500, not the unknown id's x
				t.Errorf("workers %d: %d provider error cases, codes %q", w, n, codes)
			}
			if got := render(t, res); !bytes.Equal(got, want) {
				t.Errorf("strict=%v workers %d: the result differs from ReadResponses + Score", strict, w)
			}
		}
	}
}

// TestScoreFilesErrors: the first bad record in input order is the error,
// whichever batch or worker meets it, as ReadResponses reports it.
func TestScoreFilesErrors(t *testing.T) {
	fx := fixtures.DefaultCogLangFixture()
	lines := strings.SplitAfter(string(synthCogLang(t, 3000, 3)), "\n")
	with := func(at int, bad string) []byte {
		l := append([]string(nil), lines...)
		l[at] = bad + "\n"
		return []byte(strings.Join(l, ""))
	}
	long := `{"case_id": "FB-L1-001", "output": "` + strings.Repeat("x", 2000) + `"}`
	cases := []struct {
		name  string
		files [][]byte
		opts  score.Options
	}{
		{"bad record late", [][]byte{with(2999, `{"case_id": 1`)}, score.Options{}},
		{"bad record at a batch edge", [][]byte{with(512, `{"output": "x"}`)}, score.Options{}},
		{"two bad records", [][]byte{with(700, `{"case_id": "a"}`), []byte("{\n")}, score.Options{}},
		{"decode error before a reader error", [][]byte{with(10, `[1]`), []byte(long + "\n")}, score.Options{MaxLineBytes: 1000}},
		{"reader error", [][]byte{with(1500, long)}, score.Options{MaxLineBytes: 1000}},
		{"batch version", [][]byte{[]byte(`{"schema_version": "v9", "responses": [{"case_id": "FB-L1-001", "output": "Equal[1, 1]"}]}`)}, score.Options{StrictBatch: true}},
		{"broken list", [][]byte{[]byte(`[{"case_id": "FB-L1-001", "output": "Equal[1, 1]"}, `)}, score.Options{}},
	}
	for _, tc := range cases {
		_, want := ReadResponses(fx, sources(tc.files), tc.opts)
		if want == nil {
			t.Fatalf("%s: ReadResponses accepts the input", tc.name)
		}
		for _, w := range []int{1, 2, 4} {
			res, _, got := ScoreFiles(sourceOf(t, fx), sources(tc.files), tc.opts, Options{Workers: w})
			if res != nil {
				res.Close()
			}
			if got == nil || got.Error() != want.Error() {
				t.Errorf("%s, workers %d: got %v, want %v", tc.name, w, got, want)
			}
		}
	}
}

// heapProbe is a reader that, when first read, records the heap in use after
// a collection, then reads r.
type heapProbe struct {
	r     io.Reader
	inUse uint64
	done  bool
}

func (h *heapProbe) Read(p []byte) (int, error) {
	if !h.done {
		h.done = true
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		h.inUse = ms.HeapInuse
	}
	return h.r.Read(p)
}

// TestScoreFilesManyFiles: scoring a file lets go of what reading the one
// before held (its reader's buffer, its read-ahead chunks): a study read from
// many shards holds no more at once than from one, and scores them the same.
// TestScoreFilesOpensOneAtATime: files given to be opened when read are
// opened in turn, each closed once read (a thousand shards are not a thousand
// descriptors at once), and an error opening one ends the scoring with it.
func TestScoreFilesOpensOneAtATime(t *testing.T) {
	fx := fixtures.DefaultCogLangFixture()
	var files [][]byte
	for _, c := range fx.Cases[:20] {
		files = append(files, fmt.Appendf(nil, `{"case_id": %q, "output": "Equal[1, 1]"}`+"\n", c.CaseID))
	}
	open, most, opened := 0, 0, 0
	var srcs []score.Source
	for i, b := range files {
		srcs = append(srcs, score.Source{Name: fmt.Sprintf("f%d.jsonl", i), Open: func() (io.Reader, func(), error) {
			open, opened = open+1, opened+1
			most = max(most, open)
			return bytes.NewReader(b), func() { open-- }, nil
		}})
	}
	res, _, err := ScoreFiles(sourceOf(t, fx), srcs, score.Options{}, Options{AnswerSource: "t", Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	res.Close()
	if opened != len(files) || most != 1 || open != 0 {
		t.Errorf("opened %d of %d files, at most %d at once, %d left open; want each once, one at a time, none left", opened, len(files), most, open)
	}
	want, err := reference(t, fx, files, Options{AnswerSource: "t"})
	if err != nil {
		t.Fatal(err)
	}
	res, _, err = ScoreFiles(sourceOf(t, fx), srcs, score.Options{}, Options{AnswerSource: "t", Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	if got := render(t, res); !bytes.Equal(got, want) {
		t.Errorf("the result differs from ReadResponses + Score")
	}

	missing := errors.New("f9.jsonl: no such file or directory")
	srcs[9].Open = func() (io.Reader, func(), error) { return nil, nil, missing }
	if _, _, err := ScoreFiles(sourceOf(t, fx), srcs, score.Options{}, Options{AnswerSource: "t"}); err != missing {
		t.Errorf("err = %v, want the open's %v", err, missing)
	}
	if open != 0 {
		t.Errorf("%d files left open after the error", open)
	}
}

func TestScoreFilesManyFiles(t *testing.T) {
	fx := fixtures.DefaultCogLangFixture()
	const n = 300
	files := make([][]byte, n)
	for i := range files {
		c := fx.Cases[i%len(fx.Cases)]
		files[i] = fmt.Appendf(nil, `{"case_id": %q, "output": "Equal[1, 1]"}`+"\n", c.CaseID)
	}
	first, last := &heapProbe{r: bytes.NewReader(files[1])}, &heapProbe{r: bytes.NewReader(files[n-1])}
	srcs := sources(files)
	srcs[1].R, srcs[n-1].R = first, last
	res, _, err := ScoreFiles(sourceOf(t, fx), srcs, score.Options{}, Options{AnswerSource: "t", Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	// each file held its reader's 256 KiB and a 256 KiB chunk until the end:
	// 300 files, 150 MB
	if grew := int64(last.inUse) - int64(first.inUse); grew > 16<<20 {
		t.Errorf("the heap grew by %d MB over %d files", grew>>20, n)
	}
	want, err := reference(t, fx, files, Options{AnswerSource: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if got := render(t, res); !bytes.Equal(got, want) {
		t.Errorf("the result differs from ReadResponses + Score")
	}
}

// TestScoreFilesModels: a record that replaces an earlier answer of another
// model (by "model") is counted, the first named, and cases scored by more than
// one model are counted by model; records of one model, or naming none (or not
// as a string), are neither. Cases of one model scored by runs of other
// settings (run.runner, run.settings) are counted by run; records whose run
// names no settings are not. The same at any number of workers.
func TestScoreFilesModels(t *testing.T) {
	fx := fixtures.DefaultCogLangFixture()
	file := func(n int, model string) []byte {
		var b []byte
		for _, c := range fx.Cases[:n] {
			b = fmt.Appendf(b, `{"case_id": %q, "output": "Equal[1, 1]"%s}`+"\n", c.CaseID, model)
		}
		return b
	}
	first := fx.Cases[0].CaseID
	for _, tc := range []struct {
		name   string
		files  [][]byte
		other  int
		note   string
		models map[string]int
		runs   map[string]int // of model "a"
	}{
		{"two models", [][]byte{file(4, `, "model": "a"`), file(2, `, "model": "b"`)}, 2, "case " + first + ": b's, after a's", map[string]int{"a": 2, "b": 2}, nil},
		{"all replaced", [][]byte{file(4, `, "model": "a"`), file(4, `, "model": "b\u00e9"`)}, 4, "case " + first + ": bé's, after a's", nil, nil},
		{"one model", [][]byte{file(4, `, "model": "a"`), file(2, `, "model": "a"`)}, 0, "", nil, nil},
		{"none named later", [][]byte{file(4, `, "model": "a"`), file(2, ``)}, 0, "", nil, nil},
		{"none named first", [][]byte{file(4, ``), file(2, `, "model": "b"`)}, 0, "", nil, nil},
		{"not a string", [][]byte{file(4, `, "model": null`), file(2, `, "model": 5`)}, 0, "", nil, nil},
		{"one file, two models", [][]byte{append(file(4, `, "model": "a"`), file(1, `, "model": "b"`)...)}, 1, "case " + first + ": b's, after a's", map[string]int{"a": 3, "b": 1}, nil},
		{"two runs", [][]byte{file(4, `, "model": "a", "run": {"runner": "r", "settings": "seed=1"}`), file(1, `, "model": "a", "run": {"runner": "r", "settings": "seed=2"}`)}, 0, "", nil, map[string]int{"r seed=1": 3, "r seed=2": 1}},
		{"two runs, all replaced", [][]byte{file(4, `, "model": "a", "run": {"runner": "r", "settings": "seed=1"}`), file(4, `, "model": "a", "run": {"runner": "r", "settings": "seed=2"}`)}, 0, "", nil, nil},
		{"one run", [][]byte{file(4, `, "model": "a", "run": {"runner": "r", "settings": "seed=1"}`), file(1, `, "model": "a", "run": {"settings": "seed=1", "runner": "r"}`)}, 0, "", nil, nil},
		{"settings named by one", [][]byte{file(4, `, "model": "a", "run": {"runner": "r", "settings": "seed=1"}`), file(1, `, "model": "a", "run": {"runner": "b"}`), file(1, `, "model": "a"`)}, 0, "", nil, nil},
	} {
		for _, workers := range []int{1, 4} {
			var srcs []score.Source
			for i, b := range tc.files {
				srcs = append(srcs, score.Source{Name: fmt.Sprintf("f%d.jsonl", i), R: bytes.NewReader(b)})
			}
			res, loaded, err := ScoreFiles(sourceOf(t, fx), srcs, score.Options{}, Options{AnswerSource: "t", Workers: workers})
			if err != nil {
				t.Fatal(err)
			}
			res.Close()
			m := &res.store.models
			models, runs := m.counts(), m.runs()["a"]
			if len(models) < 2 {
				models = nil
			}
			if len(runs) < 2 {
				runs = nil
			}
			if m.other != tc.other || m.note != tc.note || !maps.Equal(models, tc.models) || !maps.Equal(runs, tc.runs) {
				t.Errorf("%s, %d workers: other %d (%q), models %v, runs %v; want %d (%q), %v, %v", tc.name, workers, m.other, m.note, models, runs, tc.other, tc.note, tc.models, tc.runs)
			}
			if ws := m.warnings(); len(ws) != min(tc.other, 1)+len(tc.models)/2+len(tc.runs)/2 || !slices.Equal(loaded.Warnings[len(loaded.Warnings)-len(ws):], ws) {
				t.Errorf("%s, %d workers: warnings %q, want %q at the end of the result's", tc.name, workers, loaded.Warnings, ws)
			}
		}
	}
}
