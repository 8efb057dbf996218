package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/fixtures/fixturetest"
	"github.com/fbeval/fbeval/runners/internal/runner"
)

func runMock(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// responses decodes the response records of out with the contract reader.
func responses(t *testing.T, out string) []contract.Response {
	t.Helper()
	rd := contract.NewReader("out", strings.NewReader(out), contract.ReadOptions{})
	var got []contract.Response
	for rd.Scan() {
		rec := rd.Record()
		if rec.Err != nil {
			t.Fatalf("bad response line: %v", rec.Err)
		}
		// CogLang records carry their own version; check the rest with the v1 decoder.
		raw := bytes.Replace(rec.Raw, []byte(`"schema_version":"`+contract.CogLangResponse+`",`), nil, 1)
		r, err := contract.DecodeResponse(&contract.Record{File: rec.File, Line: rec.Line, Raw: raw})
		if err != nil {
			t.Fatalf("bad response record: %v", err)
		}
		got = append(got, r)
	}
	if rd.Err() != nil {
		t.Fatal(rd.Err())
	}
	return got
}

func readItems(t *testing.T, path string) []runner.Item {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	items, err := runner.ReadRequests(path, f)
	if err != nil {
		t.Fatal(err)
	}
	return items
}

func TestModes(t *testing.T) {
	for _, file := range []string{"testdata/toolcall_requests.jsonl", "testdata/coglang_requests.jsonl"} {
		items := readItems(t, file)
		cog := items[0].Req.Suite == contract.SuiteCogLang
		for _, mode := range []string{"reference", "refuse"} {
			t.Run(filepath.Base(file)+"/"+mode, func(t *testing.T) {
				code, out, errs := runMock(t, "", "--mode", mode, file)
				if code != 0 || errs != "" {
					t.Fatalf("exit %d, stderr %q", code, errs)
				}
				got := responses(t, out)
				if len(got) != len(items) {
					t.Fatalf("%d responses for %d requests", len(got), len(items))
				}
				for i, r := range got {
					want := *items[i].Req.ReferenceOutput
					if mode == "refuse" {
						want = toolcallRefusal
						if cog {
							want = coglangRefusal
						}
					}
					if r.Output != want || r.ID() != items[i].Req.RequestID {
						t.Errorf("record %d: id %q output %q, want id %q output %q", i, r.ID(), r.Output, items[i].Req.RequestID, want)
					}
				}
				if cog && !strings.HasPrefix(out, `{"schema_version":"coglang-generation-eval-response/v0.1","case_id":"T-L1-01","output":`) {
					t.Errorf("CogLang record not in its family: %s", out[:80])
				}
				if !cog && !strings.HasPrefix(out, `{"schema_version":"fbeval-response/v1","request_id":"flights-000.input_schema.r0.a1","case_id":"flights-000","output":`) {
					t.Errorf("toolcall record keys out of order: %s", out[:100])
				}
			})
		}
	}
}

func TestGolden(t *testing.T) {
	for _, tt := range []struct{ in, golden string }{
		{"testdata/toolcall_requests.jsonl", "testdata/toolcall_garble_seed2.golden"},
		{"testdata/coglang_requests.jsonl", "testdata/coglang_garble_seed2.golden"},
	} {
		code, out, errs := runMock(t, "", "--mode", "garble", "--seed", "2", tt.in)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		fixturetest.Golden(t, tt.golden, []byte(out))
	}
}

func TestGarbleIndependentOfOrder(t *testing.T) {
	data, err := os.ReadFile("testdata/toolcall_requests.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	reversed := make([]string, len(lines))
	for i, l := range lines {
		reversed[len(lines)-1-i] = strings.TrimSuffix(l, "\n") + "\n"
	}
	_, a, _ := runMock(t, string(data), "--mode", "garble", "--seed", "3")
	_, a2, _ := runMock(t, string(data), "--mode", "garble", "--seed", "3")
	_, b, _ := runMock(t, strings.Join(reversed, ""), "--mode", "garble", "--seed", "3")
	if a != a2 {
		t.Fatal("two runs with the same seed differ")
	}
	outA := strings.SplitAfter(strings.TrimSuffix(a, "\n"), "\n")
	outB := strings.SplitAfter(strings.TrimSuffix(b, "\n"), "\n")
	for i := range outA {
		if strings.TrimSuffix(outA[i], "\n") != strings.TrimSuffix(outB[len(outB)-1-i], "\n") {
			t.Errorf("answer %d depends on request order:\n%s\n%s", i, outA[i], outB[len(outB)-1-i])
		}
	}
	_, c, _ := runMock(t, string(data), "--mode", "garble", "--seed", "4")
	if c == a {
		t.Error("a different seed gave the same answers")
	}
}

func TestGarbleRecoversOnRepair(t *testing.T) {
	ref := `{"action":"call_tool","tool":"search_web","arguments":{"query":"q","maxResults":3,"topic":"news"},"missingFields":[],"reason":""}`
	const n = 2000
	for _, tt := range []struct {
		attempt int
		lo, hi  float64
	}{{1, 0.50, 0.60}, {2, 0.76, 0.84}, {3, 0.93, 0.97}, {5, 0.93, 0.97}} {
		right := 0
		kinds := map[string]int{}
		for i := range n {
			req := contract.Request{RequestID: fmt.Sprintf("c%d.a%d", i, tt.attempt), Suite: contract.SuiteToolcall, Attempt: tt.attempt, ReferenceOutput: &ref}
			out, kind := garble(1, &req)
			kinds[kind]++
			if kind == "right" {
				right++
				if out != ref {
					t.Fatalf("a right answer differs from the reference: %s", out)
				}
			} else if out == ref {
				t.Fatalf("a %s answer equals the reference", kind)
			}
		}
		rate := float64(right) / n
		if rate < tt.lo || rate > tt.hi {
			t.Errorf("attempt %d: right %.3f, want in [%.2f, %.2f]", tt.attempt, rate, tt.lo, tt.hi)
		}
		if tt.attempt == 1 && len(kinds) != 1+len(textMistakes)+len(envelopeMistakes)+len(argumentMistakes)+len(numberMistakes) {
			t.Errorf("not every mistake kind was drawn: %v", kinds)
		}
	}
}

func TestGarbleMistakes(t *testing.T) {
	ref := `{"action":"call_tool","tool":"search_web","arguments":{"query":"q","maxResults":3,"topic":"news"},"missingFields":[],"reason":""}`
	seen := map[string]bool{}
	for i := 0; len(seen) < 11 && i < 5000; i++ {
		req := contract.Request{RequestID: fmt.Sprint(i), Attempt: 1, ReferenceOutput: &ref}
		out, kind := garble(9, &req)
		if seen[kind] {
			continue
		}
		seen[kind] = true
		ok := true
		switch kind {
		case "markdown_fence":
			ok = strings.HasPrefix(out, "```json\n")
		case "prose_prefix":
			ok = strings.HasPrefix(out, "Here is")
		case "truncated_json":
			ok = strings.HasPrefix(ref, out) && len(out) < len(ref)
		case "duplicate_key":
			ok = strings.Count(out, `"action"`) == 2
		case "wrong_action":
			ok = strings.Contains(out, `"action":"ask_clarification"`) && strings.Contains(out, `"tool":null`)
		case "extra_argument":
			ok = strings.Contains(out, `"notes":`)
		case "missing_argument":
			ok = strings.Count(out, `:`) == strings.Count(ref, `:`)-1
		case "wrong_value":
			ok = strings.Contains(out, "(approx.)") || strings.Contains(out, `"maxResults":4`)
		case "out_of_range":
			ok = strings.Contains(out, `"maxResults":1000000`)
		case "number_as_string":
			ok = strings.Contains(out, `"maxResults":"3"`)
		}
		if !ok {
			t.Errorf("%s: unexpected output %s", kind, out)
		}
	}
	if len(seen) != 11 {
		t.Errorf("kinds seen: %v", seen)
	}
}

func TestCogLangMistakes(t *testing.T) {
	ref := `Compare[{"k": 1}, {"k": 3}]`
	seen := map[string]bool{}
	for i := 0; len(seen) < 5 && i < 5000; i++ {
		req := contract.Request{RequestID: fmt.Sprint(i), Suite: contract.SuiteCogLang, Attempt: 1, ReferenceOutput: &ref}
		out, kind := garble(2, &req)
		seen[kind] = true
		var ok bool
		switch kind {
		case "right":
			ok = out == ref
		case "unclosed_bracket":
			ok = out == `Compare[{"k": 1}, {"k": 3}`
		case "hallucinated_head":
			head, _ := splitHead(out)
			ok = head != "" && head != "Compare" && !strings.Contains(strings.Join(swapHeads, " "), head)
		case "wrong_top_head":
			head, rest := splitHead(out)
			ok = head != "Compare" && rest == `[{"k": 1}, {"k": 3}]`
		case "prose":
			ok = strings.HasPrefix(out, "Sure!") && strings.HasSuffix(out, ref)
		}
		if !ok {
			t.Errorf("%s: unexpected output %s", kind, out)
		}
	}
	if len(seen) != 5 {
		t.Errorf("kinds seen: %v", seen)
	}
}

func TestMissingReference(t *testing.T) {
	dir := t.TempDir()
	outFile := filepath.Join(dir, "out.jsonl")
	in := `{"schema_version":"fbeval-request/v1","request_id":"a","case_id":"a","suite":"toolcall","attempt":1,"messages":[{"role":"user","content":"x"}],"reference_output":"{}"}` + "\n" +
		`{"schema_version":"fbeval-request/v1","request_id":"b","case_id":"b","suite":"toolcall","attempt":1,"messages":[{"role":"user","content":"x"}]}` + "\n"
	for _, mode := range []string{"reference", "garble"} {
		code, out, errs := runMock(t, in, "--mode", mode, "-o", outFile)
		want := "fbeval-mock: <stdin>:2: request b has no reference output; export with --include-reference\n"
		if code != 2 || out != "" || errs != want {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and %q", mode, code, out, errs, want)
		}
		if _, err := os.Stat(outFile); !os.IsNotExist(err) {
			t.Errorf("%s: the output file was written", mode)
		}
	}
	if code, out, _ := runMock(t, in, "--mode", "refuse"); code != 0 || strings.Count(out, "\n") != 2 {
		t.Errorf("refuse needs no reference: exit %d, %q", code, out)
	}
}

func TestUsageAndInputErrors(t *testing.T) {
	for _, tt := range []struct {
		name  string
		stdin string
		args  []string
		code  int
		err   string
	}{
		{"bad mode", "", []string{"--mode", "wild"}, 2, "--mode wild: not one of reference, refuse, garble"},
		{"unknown flag", "", []string{"--nope"}, 2, "unknown flag --nope"},
		{"missing file", "", []string{"testdata/none.jsonl"}, 2, "cannot read requests"},
		{"bad json", "{\"a\":\n", nil, 2, "<stdin>:2:1: invalid JSON"},
		{"duplicate id", strings.Repeat(`{"schema_version":"fbeval-request/v1","request_id":"a","messages":[{"role":"user","content":"x"}],"reference_output":"x"}`+"\n", 2), nil, 2, "<stdin>:2:1: request id \"a\" repeats"},
		{"help", "", []string{"--help"}, 0, ""},
		{"empty input", "", nil, 2, "<stdin>: holds no requests: write them with fbeval export (an export that failed before a pipe leaves it empty)"},
		{"blank lines and an empty list", "\n\n[]\n", nil, 2, "<stdin>: holds no requests"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errs := runMock(t, tt.stdin, tt.args...)
			if code != tt.code || !strings.Contains(errs, tt.err) || strings.Count(errs, "\n") > 1 {
				t.Errorf("exit %d, stderr %q; want exit %d and %q on one line", code, errs, tt.code, tt.err)
			}
		})
	}
}

func FuzzGarble(f *testing.F) {
	f.Add(int64(1), "r1", 1, `{"action":"call_tool","tool":"t","arguments":{"a":1,"b":"x"},"missingFields":[],"reason":""}`, false)
	f.Add(int64(2), "r2", 2, `{"action":"refuse","tool":null,"arguments":{},"missingFields":[],"reason":"no"}`, false)
	f.Add(int64(3), "c", 1, `Equal[1, 1]`, true)
	f.Add(int64(4), "c", 1, `[`, true)
	f.Add(int64(5), "é", 1, `{"arguments":{"x":1e999}}`, false)
	f.Fuzz(func(t *testing.T, seed int64, id string, attempt int, ref string, cog bool) {
		req := contract.Request{RequestID: id, Attempt: attempt, ReferenceOutput: &ref, Suite: contract.SuiteToolcall}
		if cog {
			req.Suite = contract.SuiteCogLang
		}
		out, kind := garble(seed, &req)
		out2, kind2 := garble(seed, &req)
		if out != out2 || kind != kind2 {
			t.Fatal("garble is not deterministic")
		}
		if kind == "right" && out != ref {
			t.Fatal("a right answer differs from the reference")
		}
		if utf8.ValidString(ref) && !utf8.ValidString(out) {
			t.Fatalf("garble broke UTF-8: %q", out)
		}
	})
}

func BenchmarkGarble(b *testing.B) {
	ref := `{"action":"call_tool","tool":"search_web","arguments":{"query":"q","maxResults":3,"topic":"news"},"missingFields":[],"reason":""}`
	for i := 0; b.Loop(); i++ {
		req := contract.Request{RequestID: fmt.Sprint(i), Attempt: 1, ReferenceOutput: &ref}
		garble(1, &req)
	}
}

// TestOutputResumes: -o means what it means for the networked runners: a file of
// the same run is resumed (nothing asked twice), a file of another mode (model) or
// study is refused with exit 2 naming --fresh, and --fresh starts it over.
func TestOutputResumes(t *testing.T) {
	reqs, err := os.ReadFile("testdata/toolcall_requests.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "responses.jsonl")
	if code, _, errs := runMock(t, string(reqs), "--mode", "refuse", "-o", out); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	first, _ := os.ReadFile(out)
	code, _, errs := runMock(t, string(reqs), "--mode", "refuse", "-o", out)
	if again, _ := os.ReadFile(out); code != 0 || !bytes.Equal(again, first) || !strings.Contains(errs, "already answered, skipped") {
		t.Errorf("resuming a finished file: exit %d, changed %v: %s", code, !bytes.Equal(again, first), errs)
	}
	code, _, errs = runMock(t, string(reqs), "--mode", "reference", "-o", out)
	if again, _ := os.ReadFile(out); code != 2 || !bytes.Equal(again, first) || !strings.Contains(errs, `written by another run (model "mock-refuse"; this run's is "mock-reference"); write these responses to another file`) {
		t.Errorf("another mode: exit %d: %s", code, errs)
	}
	// a seed is the garble mode's: given another mode it changes nothing,
	// and recorded it refused every resume without it
	code, _, errs = runMock(t, string(reqs), "--mode", "refuse", "--seed", "8")
	if code != 2 || !strings.Contains(errs, "--seed 8 is for --mode garble: --mode refuse answers the same whatever the seed; leave it out") {
		t.Errorf("a seed of the refuse mode: exit %d: %s", code, errs)
	}
	code, _, errs = runMock(t, string(reqs), "--mode", "refuse", "--seed", "8", "-o", out)
	if again, _ := os.ReadFile(out); code != 2 || !bytes.Equal(again, first) || !strings.Contains(errs, `written by another run (settings "seed=0"; this run's are "seed=8")`) {
		t.Errorf("a seed of the refuse mode, resuming a file of none: exit %d: %s", code, errs)
	}
	// a file that records such a seed (written before it was refused) is
	// resumed with it
	seeded := filepath.Join(t.TempDir(), "seeded.jsonl")
	if err := os.WriteFile(seeded, bytes.ReplaceAll(first, []byte(`"settings":"seed=0"`), []byte(`"settings":"seed=8"`)), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runMock(t, string(reqs), "--mode", "refuse", "--seed", "8", "-o", seeded); code != 0 || !strings.Contains(errs, "already answered, skipped") {
		t.Errorf("resuming a file of seed 8: exit %d: %s", code, errs)
	}
	// another garble seed makes other answers: an interrupted run resumed
	// with it would mix two runs in one file
	garbled := filepath.Join(t.TempDir(), "garbled.jsonl")
	refs, err := os.ReadFile("testdata/toolcall_requests.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runMock(t, string(refs), "--mode", "garble", "--seed", "3", "-o", garbled); code != 0 {
		t.Fatalf("garble: exit %d: %s", code, errs)
	}
	code, _, errs = runMock(t, string(refs), "--mode", "garble", "--seed", "8", "-o", garbled)
	if code != 2 || !strings.Contains(errs, `written by another run (settings "seed=3"; this run's are "seed=8"); write these responses to another file`) {
		t.Errorf("another seed: exit %d: %s", code, errs)
	}
	other := strings.Replace(string(reqs), `"prompt":"`, `"prompt":"x`, 1)
	code, _, errs = runMock(t, other, "--mode", "refuse", "-o", out)
	if code != 2 || !strings.Contains(errs, "written by another run (study sha256:") {
		t.Errorf("another study: exit %d: %s", code, errs)
	}
	if code, _, errs = runMock(t, string(reqs), "--mode", "reference", "--fresh", "-o", out); code != 0 {
		t.Fatalf("--fresh: exit %d: %s", code, errs)
	}
	data, _ := os.ReadFile(out)
	if bytes.Count(data, []byte("\n")) != bytes.Count(first, []byte("\n")) || bytes.Contains(data, []byte("mock-refuse")) {
		t.Errorf("--fresh did not start over:\n%s", data)
	}
	if code, _, _ = runMock(t, string(reqs), "--fresh"); code != 2 {
		t.Errorf("--fresh without -o: exit %d, want 2", code)
	}
}

// TestOutputResumesAWiderStudy: a file of another study whose records were
// made from the same recipe (the same prompts, only selected otherwise: more
// repeats, arms or cases) resumes, and only the new requests are asked; one
// of another recipe is refused.
func TestOutputResumesAWiderStudy(t *testing.T) {
	data, err := os.ReadFile("testdata/toolcall_requests.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	stamp := func(lines []string, study, recipe string) string {
		var b strings.Builder
		for _, l := range lines {
			b.WriteString(strings.Replace(l, `"suite":"toolcall",`, `"suite":"toolcall","study":"`+study+`","recipe":"`+recipe+`",`, 1))
		}
		return b.String()
	}
	out := filepath.Join(t.TempDir(), "responses.jsonl")
	narrow := stamp(lines[:len(lines)-1], "sha256:1111111111111111", "sha256:aaaaaaaaaaaaaaaa")
	if code, _, errs := runMock(t, narrow, "--mode", "refuse", "-o", out); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	wide := stamp(lines, "sha256:2222222222222222", "sha256:aaaaaaaaaaaaaaaa")
	code, _, errs := runMock(t, wide, "--mode", "refuse", "-o", out)
	got, _ := os.ReadFile(out)
	if want := fmt.Sprintf("%d of %d requests already answered, skipped", len(lines)-1, len(lines)); code != 0 || !strings.Contains(errs, want) || bytes.Count(got, []byte("\n")) != len(lines) {
		t.Errorf("a wider study of the same recipe: exit %d, %d records, stderr %q; want %q", code, bytes.Count(got, []byte("\n")), errs, want)
	}
	other := stamp(lines, "sha256:3333333333333333", "sha256:bbbbbbbbbbbbbbbb")
	code, _, errs = runMock(t, other, "--mode", "refuse", "-o", out)
	if again, _ := os.ReadFile(out); code != 2 || !bytes.Equal(again, got) || !strings.Contains(errs, "written by another run (study sha256:1111111111111111; this run's requests are of sha256:3333333333333333)") {
		t.Errorf("another recipe: exit %d: %s", code, errs)
	}
}

// TestOutputIsTheRequestFile: -o naming the request file (resumed, --fresh,
// or by a link) is exit 2 and one line, and the request file is left as it was;
// before, --fresh emptied it and resuming appended responses to it.
func TestOutputIsTheRequestFile(t *testing.T) {
	data, err := os.ReadFile("testdata/toolcall_requests.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	req := filepath.Join(dir, "req.jsonl")
	if err := os.WriteFile(req, data, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(req, link); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{req, "-o", req}, {req, "-o", req, "--fresh"}, {req, "-o", link, "--fresh"}} {
		code, stdout, errs := runMock(t, "", args...)
		if code != 2 || stdout != "" || !strings.Contains(errs, "the run reads that file ("+req+"); write the responses to another file") || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
		if got, _ := os.ReadFile(req); string(got) != string(data) {
			t.Fatalf("%v: the request file changed (%d bytes, was %d)", args, len(got), len(data))
		}
	}
	// fbeval-mock req.jsonl >> req.jsonl
	f, err := os.OpenFile(req, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var errb bytes.Buffer
	if code := run([]string{req}, strings.NewReader(""), f, &errb); code != 2 || !strings.Contains(errb.String(), "standard output is "+req+", which the run reads") {
		t.Errorf(">> onto the request file: exit %d, stderr %q", code, errb.String())
	}
	if got, _ := os.ReadFile(req); string(got) != string(data) {
		t.Fatalf(">>: the request file changed (%d bytes, was %d)", len(got), len(data))
	}
}

// TestUsageWords: a flag given last with no value is named with what it takes,
// as fbeval names it, not in kong's words (`expected string value but got "EOL"`).
func TestUsageWords(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--mode"}, "fbeval-mock: --mode needs a value: one of reference, refuse, garble (see fbeval-mock --help)\n"},
		{[]string{"--mode", "reference", "--seed"}, "fbeval-mock: --seed needs a value: --seed INT (see fbeval-mock --help)\n"},
		// "$OUT" with OUT unset: refused, where it was "open : no such file or directory"
		{[]string{"-o", "", "requests.jsonl"}, "fbeval-mock: --output \"\": an empty value names nothing (a shell variable that is not set?): give a value, or leave the flag out\n"},
		{[]string{""}, "fbeval-mock: an empty argument INPUT (a shell variable that is not set?): give INPUT\n"},
		// the last was taken, silently
		{[]string{"--mode", "garble", "--mode", "reference", "requests.jsonl"}, "fbeval-mock: --mode is given more than once, and takes one value (the last, \"reference\", would be used alone): give it once\n"},
	} {
		code, out, errs := runMock(t, "", tc.args...)
		if code != 2 || out != "" || errs != tc.want {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.args, code, out, errs, tc.want)
		}
	}
	// two request files (ls | xargs fbeval-mock): said what to do, where it
	// was "unexpected argument"
	second := filepath.Join(t.TempDir(), "b.jsonl")
	if err := os.WriteFile(second, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	want := "fbeval-mock: " + second + ": a second request file, where one is read: run fbeval-mock once a file (each resuming one -o FILE appends its answers), or join them first (cat a.jsonl b.jsonl | fbeval-mock -o FILE)\n"
	if code, out, errs := runMock(t, "", second, second); code != 2 || out != "" || errs != want {
		t.Errorf("two request files: exit %d, stdout %q, stderr %q; want exit 2 and %q", code, out, errs, want)
	}
}
