package coglang

import (
	"bytes"
	"fmt"
	"iter"
	"os"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"go.uber.org/goleak"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/fixtures"
	"github.com/fbeval/fbeval/fixtures/synth"
	"github.com/fbeval/fbeval/score"
	"github.com/fbeval/fbeval/score/report"
)

// TestStoreMatchesScore: scoring every record as it arrives into a small slot per
// case gives what Score gives for the same records, in both profiles and every
// mode, with duplicate, unknown and repeated fixture ids and provider errors.
func TestStoreMatchesScore(t *testing.T) {
	fx := fixtures.DefaultCogLangFixture()
	// a fixture that repeats one id (with other expected heads) and lacks some of
	// the ids answered
	again := fx.Cases[3]
	again.ExpectedTopLevelHeads = []string{"Nope"}
	unanswered := fx.Cases[5]
	unanswered.CaseID = "never-answered"
	fx.Cases = append(fx.Cases[:40], again, unanswered)
	var b bytes.Buffer
	if err := synth.CogLangResponses(&b, fixtures.DefaultCogLangFixture(), 700, 5); err != nil {
		t.Fatal(err)
	}
	var shuffled bytes.Buffer
	if err := synth.Shuffle(&shuffled, b.Bytes(), 1); err != nil {
		t.Fatal(err)
	}
	b = shuffled
	b.WriteString(`{"case_id": 12, "output": "Equal[1, 1]"}` + "\n" + `{"case_id": 12, "output": "Equal[1, 2]"}` + "\n")
	b.WriteString(`{"case_id": "FB-L1-005", "error": {"code": "http_429", "message": "m"}}` + "\n")
	// a detail longer than a block (strict, below)
	b.WriteString(`{"case_id": "` + fx.Cases[2].CaseID + `", "output": "Equal[` + strings.Repeat("1, ", 100) + `1]"}` + "\n")
	files := [][]byte{b.Bytes()}
	for _, strict := range []bool{false, true} {
		// strict: cases built in ranges of 3, read back in chunks of 9 (7
		// rounded up to whole ranges), their details out of order, and each range
		// read from at most one case before it; the details written in blocks
		// of 200 bytes shared by 5 cases, a longer detail in a place of its own
		if strict {
			detailChunkBytes, minDetailChunk, rangeCases, caseStride = 1, 7, 3, 2
			detailRangeCases, detailBlockBytes = 5, 200
			defer func() {
				detailChunkBytes, minDetailChunk, rangeCases, caseStride = 1<<20, 1, 1024, 64
				detailRangeCases, detailBlockBytes = 16384, 64<<10
			}()
		}
		opts := Options{Strict: strict, AnswerSource: "t"}
		var responses []Response
		for _, line := range bytes.Split(bytes.TrimSpace(files[0]), []byte("\n")) {
			r, err := DecodeResponse(line)
			if err != nil {
				t.Fatal(err)
			}
			responses = append(responses, r)
		}
		want := Score(fx, responses, opts)
		got, _, err := ScoreFiles(sourceOf(t, fx), sources(files), score.Options{}, opts)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(got.DuplicateCaseIDs, " ") != strings.Join(want.DuplicateCaseIDs, " ") || strings.Join(got.UnknownCaseIDs, " ") != strings.Join(want.UnknownCaseIDs, " ") {
			t.Errorf("strict=%v: duplicate and unknown ids differ", strict)
		}
		if len(got.UnknownCaseIDs) != 24 || len(got.DuplicateCaseIDs) != 64 {
			t.Errorf("strict=%v: %d unknown, %d duplicate ids", strict, len(got.UnknownCaseIDs), len(got.DuplicateCaseIDs))
		}
		got.ResponseFile = nil
		for _, mode := range []Mode{ModeFull, ModeSummaryOnly, ModeFailuresOnly} {
			var wj bytes.Buffer
			want.WriteJSON(&wj, mode)
			// the lists built in ranges on 1 to 4 goroutines, and one case at a
			// time on one
			for _, workers := range []int{1, 2, 4, 0} {
				got.store.workers = workers
				doc := got.Doc(mode)
				if workers == 0 {
					if doc.CogLang.FailureRanges == nil || (mode != ModeSummaryOnly) != (doc.CogLang.CaseRanges != nil) {
						t.Fatalf("strict=%v mode %d: the result's lists have no ranges", strict, mode)
					}
					doc.CogLang.FailureRanges, doc.CogLang.CaseRanges = nil, nil
				}
				var gj bytes.Buffer
				if err := report.WriteJSON(&gj, doc); err != nil || got.Err() != nil {
					t.Fatal(err, got.Err())
				}
				if !bytes.Equal(gj.Bytes(), wj.Bytes()) {
					t.Errorf("strict=%v mode %d, %d workers: the JSON differs from Score's", strict, mode, workers)
				}
			}
			// the brief cases are the cases with their ids, levels and
			// failure categories alone
			doc := got.Doc(mode)
			if (mode != ModeSummaryOnly) != (doc.CogLang.BriefCaseSource != nil) {
				t.Fatalf("strict=%v mode %d: brief cases %v", strict, mode, doc.CogLang.BriefCaseSource != nil)
			}
			var whole, brief []report.CogLangCase
			for _, pair := range []struct {
				src  iter.Seq[*report.CogLangCase]
				into *[]report.CogLangCase
			}{{doc.CogLang.CaseSource, &whole}, {doc.CogLang.BriefCaseSource, &brief}} {
				if pair.src == nil {
					continue
				}
				for cs := range pair.src {
					*pair.into = append(*pair.into, report.CogLangCase{CaseID: cs.CaseID, Level: cs.Level, FailureCategories: cs.FailureCategories})
				}
			}
			if !reflect.DeepEqual(brief, whole) || got.Err() != nil || (mode != ModeSummaryOnly && len(brief) == 0) {
				t.Errorf("strict=%v mode %d: %d brief cases differ from the %d cases (%v)", strict, mode, len(brief), len(whole), got.Err())
			}
		}
		// a writer that stops early stops the reading goroutine too
		ignore := goleak.IgnoreCurrent()
		n := 0
		got.eachCase(ModeFull, func(*CaseResult) bool { n++; return n < 5 })
		if n != 5 || got.Err() != nil {
			t.Errorf("strict=%v: %d cases before the stop, %v", strict, n, got.Err())
		}
		if err := goleak.Find(ignore); err != nil {
			t.Errorf("strict=%v: after an early stop: %v", strict, err)
		}
		got.Close()
	}
}

// TestStoreJUnit: a scored store's JUnit XML, which counts each level's tests
// from the brief cases and is written as the cases are read back, has the
// bytes of Score's, in every mode.
func TestStoreJUnit(t *testing.T) {
	fx := fixtures.DefaultCogLangFixture()
	var b bytes.Buffer
	if err := synth.CogLangResponses(&b, fx, 2*len(fx.Cases), 5); err != nil {
		t.Fatal(err)
	}
	b.WriteString(`{"case_id": "FB-L1-005", "error": {"code": "http_429", "message": "m"}}` + "\n")
	loaded, err := ReadResponses(fx, sources([][]byte{b.Bytes()}), score.Options{})
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{AnswerSource: "t"}
	want := Score(fx, loaded.Responses, opts)
	want.ResponseFile = loaded.Block()
	got, _, err := ScoreFiles(sourceOf(t, fx), sources([][]byte{b.Bytes()}), score.Options{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Close()
	for _, mode := range []Mode{ModeFull, ModeSummaryOnly, ModeFailuresOnly} {
		var gx, wx bytes.Buffer
		if err := report.WriteJUnit(&gx, got.Doc(mode)); err != nil || got.Err() != nil {
			t.Fatal(err, got.Err())
		}
		if err := report.WriteJUnit(&wx, want.Doc(mode)); err != nil {
			t.Fatal(err)
		}
		if gx.String() != wx.String() {
			t.Errorf("mode %d: the JUnit XML differs from Score's:\n%s\nScore's:\n%s", mode, gx.String(), wx.String())
		}
		if n := strings.Count(gx.String(), "<testcase"); n == 0 || !strings.Contains(gx.String(), `type="provider_error"`) {
			t.Errorf("mode %d: %d test cases, a provider error %v", mode, n, strings.Contains(gx.String(), "provider_error"))
		}
	}
}

// TestStoreFewLongAnswers: a few long answers among short ones make short
// ranges and chunks of their own, sized by each case's detail: ranges and
// chunks were of the average detail, so the first 200 cases, each 60 KB, were
// one chunk of 12 MB (several held per writer: 388 MB at 100,000 cases). The
// result is Score's, at 1 and 2 workers.
func TestStoreFewLongAnswers(t *testing.T) {
	fx := synth.CogLangFixture(fixtures.DefaultCogLangFixture(), 3000)
	var b bytes.Buffer
	long := strings.Repeat("Sure! Here is the expression. ", 2000)
	for i, c := range fx.Cases {
		out := c.ReferenceExpr
		if i < 200 {
			out = long + out
		}
		line, _ := contract.Marshal(contract.Object{{Key: "case_id", Value: c.CaseID}, {Key: "output", Value: out}}, contract.Compact)
		b.Write(append(line, '\n'))
	}
	scoredAsScore(t, fx, b.Bytes(), func(l *caseList) {
		if l.ends[0] > 40 || len(l.starts) < 2 || l.starts[1] > 80 || longestRange(l.ends) != rangeCases {
			t.Errorf("ranges end at %v..., chunks start at %v...", l.ends[:min(5, len(l.ends))], l.starts[:min(5, len(l.starts))])
		}
	})
}

// scoredAsScore scores the responses with ScoreFiles at 1 and 2 workers,
// checks its full list with check and its result against Score's.
func scoredAsScore(t *testing.T, fx *fixtures.CogLangFixture, responses []byte, check func(l *caseList)) {
	t.Helper()
	files := [][]byte{responses}
	copts := Options{AnswerSource: "t"}
	want, err := reference(t, fx, files, copts)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []int{1, 2} {
		copts.Workers = w
		res, _, err := ScoreFiles(sourceOf(t, fx), sources(files), score.Options{}, copts)
		if err != nil {
			t.Fatal(err)
		}
		check(res.store.list(ModeFull, false))
		if got := render(t, res); !bytes.Equal(got, want) {
			t.Errorf("%d workers: the result differs from Score's", w)
		}
		res.Close()
	}
}

// TestStoreLongPrompts: a fixture of long prompts is written in short ranges (a
// writer holds a few ranges written out at once), as Score writes it.
func TestStoreLongPrompts(t *testing.T) {
	fx := synth.CogLangFixture(fixtures.DefaultCogLangFixture(), 120)
	for i := range fx.Cases {
		fx.Cases[i].Prompt = strings.Repeat(fmt.Sprintf("case %d, ", i), 4000)
	}
	var b bytes.Buffer
	if err := synth.CogLangResponses(&b, fx, 120, 4); err != nil {
		t.Fatal(err)
	}
	scoredAsScore(t, fx, b.Bytes(), func(l *caseList) {
		if n := longestRange(l.ends); n < 10 || n > 40 {
			t.Errorf("prompts of about 36 KB: ranges of %d cases", n)
		}
	})
}

// TestScoreReferencesMatchesScore: the fixture's own references, scored case by
// case as the fixture is read, give Score's result.
func TestScoreReferencesMatchesScore(t *testing.T) {
	fx := fixtures.DefaultCogLangFixture()
	bad := fx.Cases[0]
	bad.ReferenceExpr = "Equal[1"
	fx.Cases = append(fx.Cases, bad, fx.Cases[1])
	fx.Cases[len(fx.Cases)-1].ReferenceExpr = "Nonsense[1]"
	for _, strict := range []bool{false, true} {
		opts := Options{Strict: strict, FixturePath: "fx"}
		want := Score(fx, nil, opts)
		got, err := ScoreReferences(sourceOf(t, fx), opts)
		if err != nil {
			t.Fatal(err)
		}
		var gj, wj bytes.Buffer
		got.WriteJSON(&gj, ModeFull)
		want.WriteJSON(&wj, ModeFull)
		if !bytes.Equal(gj.Bytes(), wj.Bytes()) || got.Err() != nil {
			t.Errorf("strict=%v: the JSON differs from Score's: %v", strict, got.Err())
		}
		got.Close()
	}
}

func TestScorerErrors(t *testing.T) {
	st, err := newCaseStore(fixtures.DefaultCogLangSource(), false, ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.close()
	sc := st.newScorer(Options{})
	for _, tc := range []string{`{"output": "x"}`, `{"case_id": "a"}`, `{"case_id": "a", "output": "x", "schema_version": "v9"}`, `{`} {
		_, want := DecodeResponse([]byte(tc))
		var s Scored
		got := sc.Score([]byte(tc), &s)
		if got == nil || want == nil || got.Error() != want.Error() {
			t.Errorf("%s: scorer says %v, DecodeResponse says %v", tc, got, want)
		}
	}
}

// TestScorerJudgeAsScore: reading a batch of records and then judging them
// all (the lookups together, as ScoreFiles does) gives each record exactly
// what Score gives it alone, in a batch whose slots held other records before:
// cases the fixture has, right and wrong, an id it lacks, a provider error.
func TestScorerJudgeAsScore(t *testing.T) {
	src := fixtures.DefaultCogLangSource()
	st, err := newCaseStore(src, false, ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.close()
	fx := fixtures.DefaultCogLangFixture()
	var recs []string
	for i, c := range fx.Cases {
		out := c.ReferenceExpr
		switch i % 4 {
		case 1:
			out = "Nonsense[1"
		case 2:
			out = "Foo[Bar[1]]"
		}
		recs = append(recs, fmt.Sprintf(`{"case_id": %q, "output": %q}`, c.CaseID, out))
		if i%5 == 0 {
			recs = append(recs, `{"case_id": "no-such-case", "output": "Equal[1, 1]"}`,
				fmt.Sprintf(`{"case_id": %q, "error": {"code": "http_500", "message": "x"}}`, c.CaseID))
		}
	}
	sc := st.newScorer(Options{})
	want := make([]Scored, len(recs))
	for i, r := range recs {
		if err := sc.Score([]byte(r), &want[i]); err != nil {
			t.Fatal(err)
		}
	}
	got := make([]Scored, len(recs))
	for i := range got {
		got[i] = want[len(recs)-1-i] // slots that held other records
	}
	for i, r := range recs {
		if err := sc.Read([]byte(r), &got[i]); err != nil {
			t.Fatal(err)
		}
	}
	sc.Judge(got)
	unknown, provider := 0, 0
	for i := range recs {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("%s: judged in a batch %+v, alone %+v", recs[i], got[i], want[i])
		}
		if want[i].ID < 0 {
			unknown++
		}
		if want[i].ProviderError {
			provider++
		}
	}
	if unknown == 0 || provider == 0 {
		t.Fatalf("%d unknown ids, %d provider errors: the batch does not hold every kind of record", unknown, provider)
	}
}

// TestStoreHashCollision: a record whose detail names another id than its case
// (two ids sharing a hash) stops the cases with an error instead of a wrong case.
func TestStoreHashCollision(t *testing.T) {
	st, err := newCaseStore(fixtures.DefaultCogLangSource(), false, ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.close()
	s := Scored{ID: 0, slot: int32(st.ids[0].N), CaseID: "not-the-id", Output: "Equal[1, 1]", outcome: newCaseScorer(ParseOptions{}).judge("Equal[1, 1]")}
	if _, _, err := st.add(&s); err != nil {
		t.Fatal(err)
	}
	n := 0
	st.each(ModeFull, false, func(*CaseResult) bool { n++; return true })
	if st.err == nil || !strings.Contains(st.err.Error(), "share a 128-bit hash") {
		t.Errorf("after %d cases: %v", n, st.err)
	}
}

func FuzzDecodeDetail(f *testing.F) {
	cs := newCaseScorer(ParseOptions{})
	for _, s := range []Scored{
		{CaseID: "a", Output: "Equal[1, 1]", outcome: cs.judge("Equal[1, 1]")},
		{CaseID: "b", Output: "Foo[Bar[1]]", outcome: cs.judge("Foo[Bar[1]]")},
		{CaseID: "c", ProviderError: true, ErrorCode: "http_500"},
	} {
		f.Add(appendDetail(nil, &s)[4:])
	}
	f.Add([]byte{1, 'x', 0, 200})
	f.Fuzz(func(t *testing.T, b []byte) {
		var d detail
		if err := decodeDetail(b, &d, &contract.Strings{}, nil); err != nil {
			return
		}
		// what decodes is written and decoded back to the same detail
		s := Scored{CaseID: string(d.caseID), Output: d.output, outcome: outcome{text: d.text, halluc: d.halluc}}
		if d.provider {
			s = Scored{CaseID: string(d.caseID), ProviderError: true, ErrorCode: d.code}
		}
		var again detail
		if err := decodeDetail(appendDetail(nil, &s)[4:], &again, &contract.Strings{}, nil); err != nil || !reflect.DeepEqual(again, d) {
			t.Fatalf("%q decodes to %+v, which reads back as %+v (%v)", b, d, again, err)
		}
		// its strings lying in b, the same detail
		var in detail
		if err := decodeDetail(b, &in, nil, make([]string, 0, 1)); err != nil || !reflect.DeepEqual(in, d) {
			t.Fatalf("%q decodes in place to %+v, not %+v (%v)", b, in, d, err)
		}
	})
}

// TestStoreLeavesNoFiles: the temporary files are unlinked as soon as they are
// made, so nothing is left behind however the process ends.
func TestStoreLeavesNoFiles(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	res, _, err := ScoreFiles(fixtures.DefaultCogLangSource(), sources([][]byte{synthCogLang(t, 100, 1)}), score.Options{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("while the result is open: %d files in TMPDIR", len(left))
	}
	var b bytes.Buffer
	if err := res.WriteJSON(&b, ModeFull); err != nil || res.Err() != nil || !bytes.Contains(b.Bytes(), []byte(`"case_id": "FB-L1-001"`)) {
		t.Fatalf("write: %v %v", err, res.Err())
	}
	res.Close()
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("after Close: %d files in TMPDIR", len(left))
	}
}

// A page list keeps every element where it was put, across page boundaries;
// its first page starts small and doubles to a whole page.
func TestPages(t *testing.T) {
	var l pages[int]
	n := 3<<pageBits + 5
	for i := range n {
		l.add(i * 7)
		switch i + 1 {
		case 10:
			if cap(l.p[0]) != firstPage {
				t.Fatalf("10 elements in a first page of %d", cap(l.p[0]))
			}
		case firstPage + 1:
			if cap(l.p[0]) != 2*firstPage {
				t.Fatalf("%d elements in a first page of %d", i+1, cap(l.p[0]))
			}
		case 1 << pageBits:
			if len(l.p) != 1 || cap(l.p[0]) != 1<<pageBits {
				t.Fatalf("a full first page in %d pages, of %d", len(l.p), cap(l.p[0]))
			}
		}
	}
	if l.n != n || len(l.p) != 4 {
		t.Fatalf("%d elements in %d pages, want %d in 4", l.n, len(l.p), n)
	}
	for _, i := range []int{0, 1<<pageBits - 1, 1 << pageBits, 2<<pageBits + 3, n - 1} {
		if got := *l.at(i); got != i*7 {
			t.Fatalf("element %d is %d, want %d", i, got, i*7)
		}
	}
	*l.at(1 << pageBits) = -1
	if *l.at(1 << pageBits) != -1 || *l.at(1<<pageBits - 1) != (1<<pageBits-1)*7 {
		t.Fatal("a write through at reached the wrong element")
	}
}

// TestPlace: place finds every case id's first case in the fixture's order of
// ids, and says shared for an id the fixture gives more than one case; an id
// the fixture lacks has no place.
func TestPlace(t *testing.T) {
	fx := fixtures.DefaultCogLangFixture()
	again := fx.Cases[3]
	again.ExpectedTopLevelHeads = []string{"Compose"}
	fx.Cases = append(fx.Cases[:10], again)
	st, err := newCaseStore(sourceOf(t, fx), false, ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.close()
	for i, c := range fx.Cases[:10] {
		s := Scored{key: contract.IDOf(c.CaseID)}
		st.place(&s)
		if s.ID < 0 || st.ids[s.ID].ID != s.key || (s.ID > 0 && st.ids[s.ID-1].ID == s.key) {
			t.Fatalf("case %d (%s): placed at %d, not at its id's first entry", i, c.CaseID, s.ID)
		}
		if want := i == 3; s.shared != want {
			t.Errorf("case %d (%s): shared %v, want %v", i, c.CaseID, s.shared, want)
		}
		if int(s.slot) != int(st.ids[s.ID].N) || (!s.shared && int(s.slot) != i) {
			t.Errorf("case %d (%s): slot %d", i, c.CaseID, s.slot)
		}
	}
	s := Scored{key: contract.IDOf("not-in-the-fixture")}
	st.place(&s)
	if s.ID != -1 || s.slot != -1 || s.shared {
		t.Errorf("an unknown id: placed %+v", s)
	}
}

// TestCaseSlotSize: what scoring holds per case stays the 24 bytes the store's
// comment and docs/performance.md give (the recipe's sum and flag live in what
// was padding).
func TestCaseSlotSize(t *testing.T) {
	if n := unsafe.Sizeof(slot{}); n != 24 {
		t.Errorf("a case's slot is %d bytes, want 24", n)
	}
}

// TestLongInt: a JSON integer of more digits than Python's int() reads (the
// reference's json.loads stops on it) is found outside strings; a float's
// long fraction or exponent, and digits in a string, are not one.
func TestLongInt(t *testing.T) {
	long := strings.Repeat("9", pyIntMaxDigits+1)
	for raw, want := range map[string]int{
		`{"case_id": ` + long + `}`:                 pyIntMaxDigits + 1,
		`{"case_id": -` + long + `, "output": "x"}`: pyIntMaxDigits + 1,
		`{"output": [1, ` + long + `]}`:             pyIntMaxDigits + 1,
		`{"case_id": ` + long[1:] + `}`:             0,
		`{"output": 1.` + long + `}`:                0,
		`{"output": ` + long + `.5}`:                0,
		`{"output": ` + long + `e3}`:                0,
		`{"output": 1e` + long + `}`:                0,
		`{"output": "` + long + `"}`:                0,
		`{"output": "a\"` + long + `"}`:             0,
	} {
		if got := longInt([]byte(raw)); got != want {
			t.Errorf("longInt(%.40s...) = %d, want %d", raw, got, want)
		}
	}
}

// longestRange is the most cases a range of ends holds.
func longestRange(ends []int) int {
	most, lo := 0, 0
	for _, e := range ends {
		most, lo = max(most, e-lo), e
	}
	return most
}
