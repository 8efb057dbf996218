package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/fbeval/fbeval/fixtures/fixturetest"
	"github.com/fbeval/fbeval/runners/internal/runner"
)

// writeIn writes text to the file name in dir and returns its path.
func writeIn(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func runBatch(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestToOpenAIAndAnthropic(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs := runBatch(t, "", "to-openai", "--model", "m", "--max-tokens", "256", "testdata/requests.jsonl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	fixturetest.Golden(t, filepath.Join("testdata", "to_openai.golden"), []byte(out))
	code, out, errs = runBatch(t, "", "to-anthropic", "--model", "c", "testdata/requests.jsonl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	fixturetest.Golden(t, filepath.Join("testdata", "to_anthropic.golden"), []byte(out))
	// --out-dir - is standard output, as "-" is in every flag: the same
	// bytes, and no folder named "-"
	t.Chdir(t.TempDir())
	code, dash, errs := runBatch(t, "", "to-anthropic", "--model", "c", "--out-dir", "-", filepath.Join(wd, "testdata", "requests.jsonl"))
	if code != 0 || dash != out {
		t.Errorf("--out-dir -: exit %d, %d bytes of %d: %s", code, len(dash), len(out), errs)
	}
	if _, err := os.Stat("-"); err == nil {
		t.Error("--out-dir - made a folder named -")
	}
}

func TestSplit(t *testing.T) {
	dir := t.TempDir()
	code, _, errs := runBatch(t, "", "to-openai", "--model", "m", "--max-per-file", "2", "--out-dir", dir, "testdata/requests.jsonl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for i, want := range []int{2, 2, 1} {
		data, err := os.ReadFile(filepath.Join(dir, "batch-000"+string(rune('1'+i))+".jsonl"))
		if err != nil || bytes.Count(data, []byte("\n")) != want {
			t.Errorf("file %d: %d lines, want %d (%v)", i+1, bytes.Count(data, []byte("\n")), want, err)
		}
	}
	// each file is named on stderr with its count, the last one's singular
	for i, want := range []string{"batch-0001.jsonl (2 requests)\n", "batch-0002.jsonl (2 requests)\n", "batch-0003.jsonl (1 request)\n"} {
		if !strings.Contains(errs, filepath.Join(dir, want)) {
			t.Errorf("stderr names file %d as %q? got %q", i+1, want, errs)
		}
	}
	// A byte limit splits too; without --out-dir that is a usage error.
	code, out, errs := runBatch(t, "", "to-anthropic", "--model", "c", "--max-bytes", "600", "testdata/requests.jsonl")
	if code != 2 || out != "" || !strings.Contains(errs, "give --out-dir") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	code, _, errs = runBatch(t, "", "to-anthropic", "--model", "c", "--max-bytes", "100", "testdata/requests.jsonl")
	// a request that fits no batch file is the input's fault or the flag's:
	// exit 2, where it was 1, a run's failure
	if code != 2 || errs != "fbeval-batch: testdata/requests.jsonl:1: the request alone is 197 bytes, over the 100-byte file limit (--max-bytes, else the provider's)\n" {
		t.Errorf("one request over the limit: exit %d, %q", code, errs)
	}
}

// TestSplitIntoUsedDir: a run into an --out-dir that holds batch files it
// does not write again (an earlier run's, split finer or for the other
// provider) is refused before anything is written, so no earlier batch is
// sent with the new ones; the files this run writes again are replaced, and
// an --out-dir that is a file is named.
func TestSplitIntoUsedDir(t *testing.T) {
	dir := t.TempDir()
	if code, _, errs := runBatch(t, "", "to-openai", "--model", "m", "--max-per-file", "2", "--out-dir", dir, "testdata/requests.jsonl"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// the same split again replaces its own files
	if code, _, errs := runBatch(t, "", "to-openai", "--model", "m2", "--max-per-file", "2", "--out-dir", dir, "testdata/requests.jsonl"); code != 0 {
		t.Fatalf("the same split again: exit %d: %s", code, errs)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "batch-0001.jsonl")); !strings.Contains(string(data), `"model":"m2"`) {
		t.Errorf("batch-0001.jsonl was not written again: %.200s", data)
	}
	before, _ := os.ReadFile(filepath.Join(dir, "batch-0001.jsonl"))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"to-openai", "--model", "m", "--max-per-file", "4"}, "fbeval-batch: --out-dir " + dir + " holds batch-0003.jsonl, which this run (2 batch files) does not write again: an earlier run's batches would be sent with these; remove them, or give an empty --out-dir\n"},
		{[]string{"to-openai", "--model", "m"}, "holds batch-0002.jsonl, batch-0003.jsonl, which this run (1 batch file) does not write again"},
		{[]string{"to-anthropic", "--model", "c", "--max-per-file", "2"}, "holds batch-0001.jsonl, batch-0002.jsonl, batch-0003.jsonl, which this run (3 batch files) does not write again"},
	} {
		code, out, errs := runBatch(t, "", append(tc.args, "--out-dir", dir, "testdata/requests.jsonl")...)
		if code != 2 || out != "" || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errs, tc.want)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "batch-0001.jsonl")); !bytes.Equal(before, after) {
		t.Errorf("a refused run wrote batch-0001.jsonl")
	}
	if _, err := os.Stat(filepath.Join(dir, "batch-0001.json")); !os.IsNotExist(err) {
		t.Errorf("a refused run wrote batch-0001.json: %v", err)
	}
	file := filepath.Join(dir, "batch-0001.jsonl")
	code, _, errs := runBatch(t, "", "to-openai", "--model", "m", "--out-dir", file, "testdata/requests.jsonl")
	if code != 2 || errs != "fbeval-batch: --out-dir "+file+" is not a directory: name a directory (a missing one is made)\n" {
		t.Errorf("--out-dir a file: exit %d, %q", code, errs)
	}
}

// TestOutDirNotOverOther: a batch file is not written over the request file
// the run reads (kept in --out-dir under a batch file's name), a response
// file or another file a user keeps there: refused before anything is
// written (the request file was replaced, or left empty). Each file is
// written beside its name and renamed into place whole, so no temporary file
// is left.
func TestOutDirNotOverOther(t *testing.T) {
	reqs, err := os.ReadFile("testdata/requests.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	responses, err := os.ReadFile("testdata/from_openai.golden")
	if err != nil {
		t.Fatal(err)
	}
	// a batch of its own whose first line is longer than the 64 KiB looked
	// at (a long prompt) is written again
	long := t.TempDir()
	if err := os.WriteFile(filepath.Join(long, "batch-0001.jsonl"), []byte(`{"custom_id":"x","method":"POST","url":"/v1/chat/completions","body":{"messages":[{"role":"user","content":"`+strings.Repeat("x", 70000)+`"}]}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runBatch(t, "", "to-openai", "--model", "m", "--out-dir", long, "testdata/requests.jsonl"); code != 0 {
		t.Errorf("over a batch with a long first line: exit %d: %s", code, errs)
	}
	for _, tc := range []struct {
		cmd, name, text, want string
		input                 bool // the file named is the run's input
	}{
		{"to-openai", "batch-0001.jsonl", string(reqs), "batch-0001.jsonl is the request file this run reads, which its batch file of that name would replace: give another --out-dir", true},
		{"to-openai", "batch-0001.jsonl", string(responses), "batch-0001.jsonl holds a response file (fbeval-response/v1), which the batch file of that name would replace: move it, or give another --out-dir", false},
		{"to-anthropic", "batch-0001.json", `{"notes": "mine"}`, "batch-0001.json holds a file that is no batch file of this kind, which the batch file of that name would replace", false},
		// a results file starts with a custom_id too
		{"to-openai", "batch-0001.jsonl", `{"custom_id":"flights-000.no_schema.r1.a1","result":{"type":"succeeded","message":{"id":"msg_01","content":[{"type":"text","text":"x"}]}}}` + "\n", "batch-0001.jsonl holds a file that is no batch file of this kind", false},
	} {
		dir := t.TempDir()
		path := writeIn(t, dir, tc.name, tc.text)
		input := "testdata/requests.jsonl"
		if tc.input {
			input = path
		}
		code, out, errs := runBatch(t, "", tc.cmd, "--model", "m", "--out-dir", dir, input)
		if code != 2 || out != "" || !strings.Contains(errs, tc.want) {
			t.Errorf("%s over %s: exit %d, stderr %q; want 2 and %q", tc.cmd, tc.name, code, errs, tc.want)
		}
		if data, _ := os.ReadFile(path); string(data) != tc.text {
			t.Errorf("%s over %s: the file was changed", tc.cmd, tc.name)
		}
	}
	dir := t.TempDir()
	if code, _, errs := runBatch(t, "", "to-openai", "--model", "m", "--max-per-file", "2", "--out-dir", dir, "testdata/requests.jsonl"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// run again over its own files: one made private keeps its mode
	if err := os.Chmod(filepath.Join(dir, "batch-0002.jsonl"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runBatch(t, "", "to-openai", "--model", "m", "--max-per-file", "2", "--out-dir", dir, "testdata/requests.jsonl"); code != 0 {
		t.Fatalf("again: exit %d: %s", code, errs)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !batchName.MatchString(e.Name()) {
			t.Errorf("%s left in --out-dir", e.Name())
		}
		want := os.FileMode(0o644)
		if e.Name() == "batch-0002.jsonl" {
			want = 0o600
		}
		if info, _ := e.Info(); info.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", e.Name(), info.Mode(), want)
		}
	}
}

func TestFromOpenAI(t *testing.T) {
	code, out, errs := runBatch(t, "", "from-openai", "--requests", "testdata/requests.jsonl", "testdata/openai_output.jsonl", "testdata/openai_errors.jsonl")
	if code != 1 {
		t.Errorf("exit %d, want 1 (errors, unknown and missing ids)", code)
	}
	fixturetest.Golden(t, filepath.Join("testdata", "from_openai.golden"), []byte(out))
	for _, want := range []string{
		`testdata/requests.jsonl:5: request search-011.input_schema.r0.a3 has no result`,
		`testdata/openai_output.jsonl:4: custom id "unknown-id" is not in testdata/requests.jsonl`,
		`5 results: 2 answered, 2 errors, 0 duplicates, 1 unknown, 1 missing`,
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if strings.Contains(errs, "without --requests") {
		t.Errorf("with --requests, stderr says it is without:\n%s", errs)
	}
	// Without the request file: every result, sorted by id, the older vLLM shape
	// too, and a note that the records cannot be checked against a study.
	code, out, errs = runBatch(t, "", "from-openai", "testdata/openai_output.jsonl")
	if code != 1 || strings.Count(out, "\n") != 4 || !strings.Contains(out, `{"schema_version":"fbeval-response/v1","request_id":"unknown-id","output":"old vllm"`) {
		t.Errorf("exit %d:\n%s", code, out)
	}
	if want := "fbeval-batch: without --requests the records carry no case id, study or recipe, so fbeval score cannot tell them from answers to another export's prompts: give --requests the request file the batch was made from\n"; !strings.Contains(errs, want) {
		t.Errorf("stderr lacks %q:\n%s", want, errs)
	}
}

func TestAnthropicRoundTrip(t *testing.T) {
	_, body, _ := runBatch(t, "", "to-anthropic", "--model", "c", "testdata/requests.jsonl")
	// Answer every request as the Message Batches results file would, in reverse.
	ids := strings.Split(body, `"custom_id":"`)[1:]
	var results []string
	types := []string{
		`{"type":"succeeded","message":{"id":"msg_1","type":"message","model":"c-1","content":[{"type":"text","text":"hello"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":1,"cache_read_input_tokens":4}}}`,
		`{"type":"errored","error":{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}}`,
		`{"type":"expired"}`,
		`{"type":"canceled"}`,
		`{"type":"succeeded","message":{"id":"msg_5","type":"message","model":"c-1","content":[],"stop_reason":"refusal","usage":{"input_tokens":3,"output_tokens":0}}}`,
	}
	for i := len(ids) - 1; i >= 0; i-- {
		cid := ids[i][:strings.IndexByte(ids[i], '"')]
		results = append(results, `{"custom_id":"`+cid+`","result":`+types[i]+`}`)
	}
	in := strings.Join(results, "\n") + "\n"
	code, out, errs := runBatch(t, in, "from-anthropic", "-")
	if code != 1 {
		t.Errorf("exit %d: %s", code, errs)
	}
	fixturetest.Golden(t, filepath.Join("testdata", "from_anthropic.golden"), []byte(out))
	// With the request file: request order and case ids, the same answers.
	code, out2, _ := runBatch(t, in, "from-anthropic", "--requests", "testdata/requests.jsonl", "-")
	if code != 1 || !strings.HasPrefix(out2, `{"schema_version":"fbeval-response/v1","request_id":"flights-000.input_schema.r0.a1","case_id":"flights-000","output":"hello","provider":"anthropic","model":"c-1","raw_response_id":"msg_1","input_token_count":7`) {
		t.Errorf("with requests:\n%s", out2)
	}
}

func TestAnthropicCustomIDs(t *testing.T) {
	long := strings.Repeat("x.", 40)
	for _, tt := range []struct{ id, want string }{
		{"plain-id_1", "plain-id_5f1"},
		{"flights-000.a1", "flights-000_2ea1"},
		{"é", "_c3_a9"},
		{long, "_h"},
	} {
		got := anthropicCustomID(tt.id)
		if !anthropicID.MatchString(got) || !strings.HasPrefix(got, tt.want) {
			t.Errorf("%q -> %q, want %q", tt.id, got, tt.want)
		}
		back, ok := decodeAnthropicID(got)
		if tt.want != "_h" && (!ok || back != tt.id) {
			t.Errorf("%q -> %q -> %q %v", tt.id, got, back, ok)
		}
	}
	code, _, errs := runBatch(t, `{"custom_id":"_h0123","result":{"type":"expired"}}`+"\n", "from-anthropic", "-")
	if code != 2 || !strings.Contains(errs, "give --requests") {
		t.Errorf("a hashed id without requests: exit %d %q", code, errs)
	}
}

// TestBatchCustomIDs: a request with a recipe has its custom id tagged with
// the recipe's first eight hex digits (Anthropic's escaped and, past 54, hashed,
// so that the whole stays within 64), the tag comes off again, and the
// request id is found from the custom id as before; one without a recipe has
// the custom id batches had before the tag.
func TestBatchCustomIDs(t *testing.T) {
	const recipe = "sha256:0f28a999da7113fd"
	long := strings.Repeat("x.", 40)
	for _, tt := range []struct {
		anth          bool
		id, recipe    string
		want, request string // request: "" when it cannot be known from the custom id
	}{
		{false, "flights-000.a1", recipe, "flights-000.a1#r0f28a999", "flights-000.a1"},
		{false, "flights-000.a1", "", "flights-000.a1", "flights-000.a1"},
		{false, "flights-000.a1", "sha256:XYZ", "flights-000.a1", "flights-000.a1"},
		{false, "a#r0f28a999", "", "a#r0f28a999", "a"}, // read as tagged: an id of that form is not fbeval's
		{true, "flights-000.a1", recipe, "flights-000_2ea1_r0f28a999", "flights-000.a1"},
		{true, "flights-000.a1", "", "flights-000_2ea1", "flights-000.a1"},
		{true, strings.Repeat("y", 54), recipe, strings.Repeat("y", 54) + "_r0f28a999", strings.Repeat("y", 54)},
		{true, strings.Repeat("y", 55), recipe, "_h", ""},
		{true, long, recipe, "_h", ""},
	} {
		got := batchCustomID(tt.anth, tt.id, tt.recipe)
		if tt.want == "_h" {
			if !strings.HasPrefix(got, "_h") || !strings.HasSuffix(got, "_r0f28a999") || len(got) != 64 {
				t.Errorf("%v %q: %q, want a hashed id of 64 with the tag", tt.anth, tt.id, got)
			}
		} else if got != tt.want {
			t.Errorf("%v %q %q: %q, want %q", tt.anth, tt.id, tt.recipe, got, tt.want)
		}
		if tt.anth && !anthropicID.MatchString(got) {
			t.Errorf("%q breaks Anthropic's pattern", got)
		}
		id, ok := requestOf(tt.anth, got)
		if ok != (tt.request != "") || ok && id != tt.request {
			t.Errorf("%v %q: request %q %v, want %q", tt.anth, got, id, ok, tt.request)
		}
	}
}

// TestFromAnotherExport: results joined to the requests of another export of
// the study (the same request ids, another schema: other prompts) are refused,
// exit 2 and one line, where they were written as answers to prompts they
// never saw; the export they were made from joins them; results of a batch
// made before custom ids carried the tag join as before.
func TestFromAnotherExport(t *testing.T) {
	dir := t.TempDir()
	reqs := func(recipe string) string {
		var b strings.Builder
		for _, id := range []string{"flights-000.input_schema.r1.a1", "flights-001.input_schema.r1.a1"} {
			fmt.Fprintf(&b, `{"schema_version":"fbeval-request/v1","request_id":%q,"case_id":%q,"suite":"toolcall","study":"sha256:1111111111111111","recipe":%q,"arm":"input_schema","repeat":1,"attempt":1,"prompt":"p","messages":[{"role":"user","content":"p"}]}`+"\n", id, id[:11], recipe)
		}
		return b.String()
	}
	write := func(name, text string) string { return writeIn(t, dir, name, text) }
	mine := write("reference.jsonl", reqs("sha256:0f28a999da7113fd"))
	other := write("weak.jsonl", reqs("sha256:a6db0cd33b401ea4"))
	for _, anth := range []bool{false, true} {
		cmd, result := "from-openai", func(cid string) string {
			return `{"id":"batch_req_1","custom_id":"` + cid + `","response":{"status_code":200,"request_id":"r","body":{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"{}"},"finish_reason":"stop"}]}},"error":null}`
		}
		if anth {
			cmd, result = "from-anthropic", func(cid string) string {
				return `{"custom_id":"` + cid + `","result":{"type":"succeeded","message":{"id":"msg_1","type":"message","role":"assistant","model":"c","content":[{"type":"text","text":"{}"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}}}`
			}
		}
		results := func(recipe string) string {
			var b strings.Builder
			for _, id := range []string{"flights-000.input_schema.r1.a1", "flights-001.input_schema.r1.a1"} {
				b.WriteString(result(batchCustomID(anth, id, recipe)) + "\n")
			}
			return b.String()
		}
		tagged := write(cmd+".jsonl", results("sha256:0f28a999da7113fd"))
		code, _, errs := runBatch(t, "", cmd, "--requests", other, tagged)
		cid := batchCustomID(anth, "flights-000.input_schema.r1.a1", "sha256:0f28a999da7113fd")
		want := fmt.Sprintf("fbeval-batch: %s:1: custom id %q was made from request flights-000.input_schema.r1.a1 of another export (its recipe tag 0f28a999, where %s's recipe is sha256:a6db0cd33b401ea4), and not one of the 2 results answers a request of %s: they answer the requests of another dataset, schema, prompt template, decoding, seed, max_tokens or temperature: give --requests the request file this batch was made from\n", tagged, cid, other, other)
		if code != 2 || errs != want {
			t.Errorf("%s with another export's requests: exit %d\n%s\nwant\n%s", cmd, code, errs, want)
		}
		for name, file := range map[string]string{"tagged": tagged, "untagged": write(cmd+"-old.jsonl", results(""))} {
			code, out, errs := runBatch(t, "", cmd, "--requests", mine, file)
			if code != 0 || strings.Count(out, `"recipe":"sha256:0f28a999da7113fd"`) != 2 {
				t.Errorf("%s, %s results with their requests: exit %d %s\n%s", cmd, name, code, errs, out)
			}
			// joined by request id alone, which another export's share: said
			if noted := strings.Contains(errs, "2 results have custom ids without the recipe tag"); noted != (name == "untagged") {
				t.Errorf("%s, %s results: the note of untagged ids %v:\n%s", cmd, name, noted, errs)
			}
		}
	}
}

func FuzzAnthropicCustomID(f *testing.F) {
	f.Add("flights-000.input_schema.r0.a1")
	f.Add("")
	f.Add("_h")
	f.Fuzz(func(t *testing.T, id string) {
		cid := anthropicCustomID(id)
		if !anthropicID.MatchString(cid) {
			t.Fatalf("%q -> %q breaks the pattern", id, cid)
		}
		if back, ok := decodeAnthropicID(cid); ok && back != id {
			t.Fatalf("%q -> %q -> %q", id, cid, back)
		}
		decodeAnthropicID(id)
		tagged := batchCustomID(true, id, "sha256:0f28a999da7113fd")
		if !anthropicID.MatchString(tagged) {
			t.Fatalf("%q -> %q breaks the pattern", id, tagged)
		}
		if back, ok := requestOf(true, tagged); ok && back != id {
			t.Fatalf("%q -> %q -> %q", id, tagged, back)
		}
		requestOf(true, id)
	})
}

func FuzzReadOpenAIResults(f *testing.F) {
	data, _ := os.ReadFile("testdata/openai_output.jsonl")
	f.Add(data)
	f.Add([]byte(`{"custom_id":"a","response":{"status_code":500,"body":"x"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		rs, err := readOpenAIResults("f", bytes.NewReader(b))
		for _, r := range rs {
			if err == nil && r.res.Error == nil && r.res.Output == nil {
				t.Fatal("a result with neither output nor error")
			}
		}
		readAnthropicResults("f", bytes.NewReader(b))
	})
}

// TestReadVLLMResults reads the lines vLLM's run-batch writes: a success with the
// chat completion in response.body, and failures whose error is a bare message or
// an ErrorResponse object, beside a response holding only the status; and a
// line of Groq's tool_use_failed.
func TestReadVLLMResults(t *testing.T) {
	for _, tt := range []struct {
		line, code, message, output string
	}{
		{`{"id":"vllm-1","custom_id":"a","response":{"status_code":200,"request_id":"vllm-batch-1","body":{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}},"error":null}`, "", "", "hi"},
		{`{"id":"vllm-2","custom_id":"a","response":{"status_code":400,"request_id":"vllm-batch-2","body":null},"error":"Only POST method is supported"}`, "http_400", "HTTP 400 Bad Request: Only POST method is supported", ""},
		{`{"id":"vllm-3","custom_id":"a","response":{"status_code":400,"request_id":"vllm-batch-3"},"error":{"object":"error","message":"bad model","type":"BadRequestError","param":null,"code":400}}`, "http_400", "HTTP 400 Bad Request (BadRequestError): bad model", ""},
		{`{"id":"vllm-4","custom_id":"a","response":{"status_code":404,"request_id":"vllm-batch-4"},"error":{"error":{"message":"no such model","type":"NotFoundError","param":null,"code":404}}}`, "http_404", "HTTP 404 Not Found (NotFoundError): no such model", ""},
		{`{"id":"batch_req_5","custom_id":"a","response":null,"error":{"code":"batch_expired","message":"expired"}}`, "expired", "the batch request was expired: expired", ""},
		{`{"id":"batch_req_6","custom_id":"a","response":null,"error":{"code":"token_limit_exceeded","message":"too many"}}`, "batch_error", "the batch request failed (token_limit_exceeded): too many", ""},
		// Groq's tool_use_failed: the model's answer, which did not parse as a
		// tool call, is the record's output (a failure), not an error
		{`{"id":"batch_req_7","custom_id":"a","response":{"status_code":400,"request_id":"req_7","body":{"error":{"message":"Failed to call a function. Please adjust your prompt. See 'failed_generation' for more details.","type":"invalid_request_error","code":"tool_use_failed","failed_generation":"<function=f>{}</function>"}}},"error":null}`, "", "", "<function=f>{}</function>"},
	} {
		rs, err := readOpenAIResults("out.jsonl", strings.NewReader(tt.line))
		if err != nil || len(rs) != 1 {
			t.Fatalf("%s: %v", tt.line, err)
		}
		res := rs[0].res
		switch {
		case tt.code == "" && (res.Error != nil || res.Output == nil || *res.Output != tt.output):
			t.Errorf("%s: %+v, want output %q", tt.line, res, tt.output)
		case tt.code != "" && (res.Error == nil || res.Error.Code != tt.code || res.Error.Message != tt.message):
			t.Errorf("%s: error %+v, want %s %q", tt.line, res.Error, tt.code, tt.message)
		}
	}
}

// TestCustomIDsSharingAHash: results are found by the hash of their custom id,
// which ids chosen to collide can share; a result joined to a request whose
// custom id is another is refused, not written as that request's answer.
func TestCustomIDsSharingAHash(t *testing.T) {
	shared := runner.IDOf("shared")
	defer func(f func(string) runner.ID) { idOf = f }(idOf)
	idOf = func(id string) runner.ID {
		if id == "flights-000.input_schema.r0.a1" || id == "hotels-020.input_schema.r0.a1" {
			return shared
		}
		return runner.IDOf(id)
	}
	code, out, errs := runBatch(t, "", "from-openai", "--requests", "testdata/requests.jsonl", "testdata/openai_output.jsonl")
	if code != 1 || out != "" || !strings.Contains(errs, `custom id "flights-000.input_schema.r0.a1" is joined to request "hotels-020.input_schema.r0.a1", whose custom id "hotels-020.input_schema.r0.a1" shares its hash`) {
		t.Errorf("exit %d, stderr %q, stdout:\n%s", code, errs, out)
	}
}

// TestWrongFilesGivenAsResults: a file fbeval knows given to from-openai or
// from-anthropic (the request file, the batch to send, the converted responses,
// the other provider's results) says what it is and what to do, exit 2.
func TestWrongFilesGivenAsResults(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string { return writeIn(t, dir, name, text) }
	_, openaiIn, _ := runBatch(t, "", "to-openai", "--model", "m", "testdata/requests.jsonl")
	_, anthropicIn, _ := runBatch(t, "", "to-anthropic", "--model", "c", "testdata/requests.jsonl")
	oin, ain := write("openai_in.jsonl", openaiIn), write("anthropic_in.json", anthropicIn)
	// a Message Batches results line around the Messages API reply recorded from the SDK's shape
	msg, err := os.ReadFile("../internal/anthropic/testdata/message_text.json")
	if err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, msg); err != nil {
		t.Fatal(err)
	}
	ares := write("anthropic_results.jsonl", `{"custom_id":"a","result":{"type":"succeeded","message":`+compact.String()+`}}`+"\n")
	for _, tt := range []struct {
		cmd, file, want string
	}{
		{"from-openai", "testdata/requests.jsonl", "testdata/requests.jsonl:1:1: this is a request file (fbeval-request/v1), not batch results: fbeval-batch to-openai turns it into the file to send to the batch API, and from-openai reads the results the batch API returns"},
		{"from-anthropic", "testdata/from_openai.golden", "testdata/from_openai.golden:1:1: this is a response file (fbeval-response/v1), not batch results: fbeval-batch from-anthropic writes such files; score it with fbeval score"},
		{"from-openai", oin, oin + ":1:1: this is a line of an OpenAI Batch input file (custom_id, method, url, body), the file to send: from-openai reads the output file the batch API returns"},
		{"from-anthropic", ain, ain + ":1:1: this is an Anthropic Message Batches request body ({\"requests\": [...]}), the batch to send: from-anthropic reads the results the batch API returns"},
		{"from-openai", ares, ares + ":1:1: this is an Anthropic Message Batches result line (custom_id, result): convert the file with fbeval-batch from-anthropic"},
		{"from-anthropic", "testdata/openai_output.jsonl", "testdata/openai_output.jsonl:1:1: this is an OpenAI Batch output line (custom_id, response): convert the file with fbeval-batch from-openai"},
		// a batch's status object, and an API's reply saved as it came, where
		// each was "a batch result line needs custom_id"
		{"from-openai", "../../contract/testdata/providers/openai_batch_object.json", "../../contract/testdata/providers/openai_batch_object.json:1:1: this is an OpenAI Batch object (the batch's status, as GET /v1/batches/ID returns it), not a batch result line: download the file its output_file_id names (and error_file_id's), convert them with fbeval-batch from-openai FILE --requests REQUESTS and score what it writes"},
		{"from-anthropic", "../../contract/testdata/providers/anthropic_message_batch.json", "../../contract/testdata/providers/anthropic_message_batch.json:1:1: this is an Anthropic Message Batch object (the batch's status), not a batch result line: download the file its results_url names, convert it with fbeval-batch from-anthropic FILE --requests REQUESTS and score what it writes"},
		{"from-openai", "../internal/openai/testdata/chat_text.json", "../internal/openai/testdata/chat_text.json:1:1: this is an OpenAI chat completion (the API's reply), not a batch result line: let fbeval-openai call the API and write the records, or write one {\"request_id\", \"output\"} line per request (docs/contract.md)"},
		{"from-anthropic", "../internal/anthropic/testdata/message_text.json", "../internal/anthropic/testdata/message_text.json:1:1: this is an Anthropic Messages API reply, not a batch result line: let fbeval-anthropic call the API and write the records, or write one {\"request_id\", \"output\"} line per request (docs/contract.md)"},
	} {
		code, out, errs := runBatch(t, "", tt.cmd, tt.file)
		if code != 2 || out != "" || errs != "fbeval-batch: "+tt.want+"\n" {
			t.Errorf("%s %s: exit %d, stderr:\n%s\nwant:\n%s", tt.cmd, tt.file, code, errs, tt.want)
		}
	}
}

// TestCogLangWithoutRequests: a CogLang batch's custom ids carry a tag a
// request (its recipe is its own text's), so without --requests they are one
// export, converted and resumed into an -o file (a first cut refused them as
// the batches of as many exports as cases).
func TestCogLangWithoutRequests(t *testing.T) {
	dir := t.TempDir()
	result := func(id, recipe string) string {
		return `{"id":"batch_req_1","custom_id":"` + batchCustomID(false, id, recipe) + `","response":{"status_code":200,"request_id":"r","body":{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Equal[1, 1]"},"finish_reason":"stop"}]}},"error":null}` + "\n"
	}
	first := writeIn(t, dir, "first.jsonl", result("FB-L1-001", "crc32c:01f58a93")+result("FB-L1-002", "crc32c:0cc96987"))
	second := writeIn(t, dir, "second.jsonl", result("FB-L1-003", "crc32c:5d2e9f10"))
	if code, out, errs := runBatch(t, "", "from-openai", first); code != 0 || strings.Count(out, "\n") != 2 || strings.Contains(out, "recipe_tag") {
		t.Errorf("one CogLang batch: exit %d\n%s\n%s", code, out, errs)
	}
	resp := filepath.Join(dir, "responses.jsonl")
	for _, f := range []string{first, second} {
		if code, _, errs := runBatch(t, "", "from-openai", "-o", resp, f); code != 0 {
			t.Errorf("%s into -o: exit %d\n%s", f, code, errs)
		}
	}
	// a toolcall batch's results into that file, or the reverse, or the two
	// in one conversion: another export's, refused (a first cut of the
	// CogLang tags let the first two through)
	tool := writeIn(t, dir, "tool.jsonl", result("flights-000.input_schema.r1.a1", "sha256:0f28a999da7113fd"))
	if code, _, errs := runBatch(t, "", "from-openai", "-o", resp, tool); code != 2 || !strings.Contains(errs, "its records answer CogLang requests (FB-L1-001), and custom id \"flights-000.input_schema.r1.a1#r0f28a999\" is a toolcall request's: the results of another export's batch") {
		t.Errorf("toolcall results into CogLang records: exit %d\n%s", code, errs)
	}
	toolResp := filepath.Join(dir, "tool_responses.jsonl")
	runBatch(t, "", "from-openai", "-o", toolResp, tool)
	if code, _, errs := runBatch(t, "", "from-openai", "-o", toolResp, second); code != 2 || !strings.Contains(errs, "its records answer toolcall requests (flights-000.input_schema.r1.a1), and custom id \"FB-L1-003#r5d2e9f10\" is a CogLang request's") {
		t.Errorf("CogLang results into toolcall records: exit %d\n%s", code, errs)
	}
	if code, _, errs := runBatch(t, "", "from-openai", tool, second); code != 2 || !strings.Contains(errs, "the results answer the batches of two exports, a toolcall one") {
		t.Errorf("both in one conversion: exit %d\n%s", code, errs)
	}
}

// TestBrokenResultLine: a line broken inside a results file (a provider
// writes each whole: an editor's, two downloads joined) says to fetch the
// file again, as one cut at the file's end does; it said nothing to do.
func TestBrokenResultLine(t *testing.T) {
	data, err := os.ReadFile("testdata/openai_output.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	lines[1] = lines[1][:120] + "\n"
	broken := writeIn(t, t.TempDir(), "out.jsonl", strings.Join(lines, ""))
	code, out, errs := runBatch(t, "", "from-openai", broken)
	if want := "fbeval-batch: " + broken + ":2:121: invalid JSON: the record ends inside a JSON value: a provider writes each result whole, so the file was changed after it was written: fetch it from the provider again\n"; code != 2 || out != "" || errs != want {
		t.Errorf("exit %d, stderr:\n%s\nwant:\n%s", code, errs, want)
	}
	// a file that is no results at all (a CSV) is not told to be fetched again
	csv := writeIn(t, t.TempDir(), "data.csv", "case,output\nflights-000,{}\n")
	if code, _, errs := runBatch(t, "", "from-openai", csv); code != 2 || strings.Contains(errs, "fetch it from the provider again") {
		t.Errorf("a CSV: exit %d, stderr:\n%s", code, errs)
	}
}

// TestResultsPattern: results files given as a quoted pattern are the files
// it matches, as fbeval score takes its shards; a pattern that matches none,
// and files joined by commas, are named with what to do (each was "cannot
// read results: open ...: no such file or directory").
func TestResultsPattern(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("testdata/openai_output.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	a := writeIn(t, dir, "out_1.jsonl", lines[0]+lines[1])
	b := writeIn(t, dir, "out_2.jsonl", strings.Join(lines[2:], ""))
	wholeCode, whole, _ := runBatch(t, "", "from-openai", "testdata/openai_output.jsonl")
	if code, out, errs := runBatch(t, "", "from-openai", filepath.Join(dir, "out_*.jsonl")); code != wholeCode || out != whole {
		t.Errorf("a pattern: exit %d\n%s\n%s", code, out, errs)
	}
	for _, tt := range []struct{ arg, want string }{
		{filepath.Join(dir, "none_*.jsonl"), filepath.Join(dir, "none_*.jsonl") + ": no file matches the pattern"},
		{a + "," + b, a + "," + b + ": no such file; an argument is one file, so give each apart: " + a + " " + b},
	} {
		if code, out, errs := runBatch(t, "", "from-openai", tt.arg); code != 2 || out != "" || errs != "fbeval-batch: "+tt.want+"\n" {
			t.Errorf("%s: exit %d\n%s", tt.arg, code, errs)
		}
	}
}

// TestUsageWords: a command without its arguments, or a flag without its value,
// is named as the command's help names it, with the command's help to see.
func TestUsageWords(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"from-openai"}, "fbeval-batch: missing RESULTS: fbeval-batch from-openai RESULTS ... (see fbeval-batch from-openai --help)\n"},
		{[]string{"from-anthropic", "r.jsonl", "--requests"}, "fbeval-batch: --requests needs a value: --requests STRING (see fbeval-batch from-anthropic --help)\n"},
		{[]string{"to-openai", "--model"}, "fbeval-batch: --model needs a value: --model STRING (see fbeval-batch to-openai --help)\n"},
		// a temperature the API does not take, before a request is read
		{[]string{"to-openai", "--model", "m", "--temperature", "7", "missing.jsonl"}, "fbeval-batch: --temperature 7: the API takes 0 to 2; did you mean 0.7\n"},
		{[]string{"to-anthropic", "--model", "m", "--max-tokens", "9", "--temperature", "1.5", "missing.jsonl"}, "fbeval-batch: --temperature 1.5: the API takes 0 to 1 (OpenAI's API takes 0 to 2)\n"},
	} {
		code, out, errs := runBatch(t, "", tc.args...)
		if code != 2 || out != "" || errs != tc.want {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.args, code, out, errs, tc.want)
		}
	}
}

// TestRefusedAnswerCounted: a result whose answer the provider's parser refuses
// (read whole only when its record is written) is written as bad_response and
// counted as an error, as an error the batch API reported is; and a run that
// resumes its -o file counts the same.
func TestRefusedAnswerCounted(t *testing.T) {
	ids := []string{"flights-000.input_schema.r0.a1", "hotels-020.input_schema.r0.a1"}
	for _, tt := range []struct{ provider, refused, good string }{
		{"openai",
			`{"custom_id":"%s","response":{"status_code":200,"body":{"id":"chatcmpl-1","object":"chat.completion","model":"m","choices":[]}},"error":null}`,
			`{"custom_id":"%s","response":{"status_code":200,"body":{"id":"chatcmpl-2","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"{}"},"finish_reason":"stop"}]}},"error":null}`},
		{"anthropic",
			`{"custom_id":"%s","result":{"type":"succeeded","message":{"id":"msg_1","type":"message","role":"assistant","content":"not a list"}}}`,
			`{"custom_id":"%s","result":{"type":"succeeded","message":{"id":"msg_2","type":"message","role":"assistant","content":[{"type":"text","text":"{}"}],"stop_reason":"end_turn"}}}`},
	} {
		custom := func(id string) string {
			if tt.provider == "anthropic" {
				return anthropicCustomID(id)
			}
			return id
		}
		dir := t.TempDir()
		results := filepath.Join(dir, "results.jsonl")
		os.WriteFile(results, []byte(fmt.Sprintf(tt.refused, custom(ids[0]))+"\n"+fmt.Sprintf(tt.good, custom(ids[1]))+"\n"), 0o644)
		out := filepath.Join(dir, "responses.jsonl")
		want := "fbeval-batch: 2 results: 1 answered, 1 error, 0 duplicates, 0 unknown, 3 missing\n"
		code, _, errs := runBatch(t, "", "from-"+tt.provider, "--requests", "testdata/requests.jsonl", "-o", out, results)
		written, _ := os.ReadFile(out)
		if code != 1 || !strings.HasSuffix(errs, want) || !strings.Contains(string(written), `"request_id":"`+ids[0]+`"`) || !strings.Contains(string(written), `"code":"bad_response"`) {
			t.Errorf("%s: exit %d, stderr %q:\n%s", tt.provider, code, errs, written)
		}
		code, _, errs = runBatch(t, "", "from-"+tt.provider, "--requests", "testdata/requests.jsonl", "-o", out, results)
		// the answered request is skipped, and the error, which the same
		// results give however often they are converted, is not written
		// again (a live run asks it again; a rerun here appended a copy,
		// which the scorer counted a duplicate)
		if again, _ := os.ReadFile(out); code != 1 || !strings.HasSuffix(errs, want) || !strings.Contains(errs, "1 request already answered, skipped") || !strings.Contains(errs, "1 result already recorded as errors, not written again") || string(again) != string(written) {
			t.Errorf("%s, resumed: exit %d, stderr %q:\n%s", tt.provider, code, errs, again)
		}
	}
}

// TestToBatchNativeSchema: a request exported with --decoding native_schema
// goes into a batch line with its structured output, to either provider, with
// no flag (the old --native-schema is still taken, and changes nothing).
func TestToBatchNativeSchema(t *testing.T) {
	req := `{"schema_version":"fbeval-request/v1","request_id":"r0","case_id":"c0","suite":"toolcall","attempt":1,"seed":1,"messages":[{"role":"user","content":"p"}],` +
		`"response_format":{"type":"json_schema","json_schema":{"name":"tool_call_envelope","schema":{"type":"object"},"strict":false}}}` + "\n"
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"to-openai", "--model", "m"}, `"response_format":{"type":"json_schema","json_schema":{"name":"tool_call_envelope","schema":{"type":"object"},"strict":false}}`},
		{[]string{"to-openai", "--model", "m", "--api", "responses"}, `"text":{"format":{"type":"json_schema","name":"tool_call_envelope","schema":{"type":"object"},"strict":false}}`},
		{[]string{"to-openai", "--model", "m", "--native-schema"}, `"response_format":{"type":"json_schema"`},
		{[]string{"to-anthropic", "--model", "c"}, `"output_config":{"format":{"type":"json_schema","schema":{"type":"object"}}}`},
	} {
		code, out, errs := runBatch(t, req, tt.args...)
		if code != 0 || !strings.Contains(out, tt.want) {
			t.Errorf("%v: exit %d %s\n%s\nwant a line with %s", tt.args, code, errs, out, tt.want)
		}
	}
}

// TestFromNamesRefusedTemperature: a batch whose requests carried their study's
// temperature, answered by a model that refuses it (OpenAI's reasoning models,
// Anthropic's after Claude Opus 4.6, the refusals recorded as reported), comes
// back with the way on in each error record, as a live run's; a request that
// carried none gets the provider's words alone.
func TestFromNamesRefusedTemperature(t *testing.T) {
	data, err := os.ReadFile("testdata/requests.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(data), "\n", 3)
	var first, second struct {
		RequestID string `json:"request_id"`
	}
	if json.Unmarshal([]byte(lines[0]), &first) != nil || json.Unmarshal([]byte(lines[1]), &second) != nil {
		t.Fatal("testdata/requests.jsonl: no two requests")
	}
	dir := t.TempDir()
	reqs := filepath.Join(dir, "requests.jsonl")
	// the first request carries its study's temperature, the second none
	withTemperature := strings.Replace(lines[0], "{", `{"temperature":0,`, 1)
	if err := os.WriteFile(reqs, []byte(withTemperature+"\n"+lines[1]+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		provider, body string
		line           func(id, body string) string
	}{
		{"openai", "../internal/openai/testdata/error_400_temperature.json", func(id, body string) string {
			return `{"id":"batch_req_1","custom_id":"` + id + `","response":{"status_code":400,"request_id":"req_1","body":` + body + `},"error":null}`
		}},
		{"anthropic", "../internal/anthropic/testdata/error_400_temperature.json", func(id, body string) string {
			return `{"custom_id":"` + anthropicCustomID(id) + `","result":{"type":"errored","error":` + body + `}}`
		}},
	} {
		b, err := os.ReadFile(tt.body)
		if err != nil {
			t.Fatal(err)
		}
		body := strings.Join(strings.Fields(string(b)), " ")
		results := filepath.Join(dir, tt.provider+".jsonl")
		if err := os.WriteFile(results, []byte(tt.line(first.RequestID, body)+"\n"+tt.line(second.RequestID, body)+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errs := runBatch(t, "", "from-"+tt.provider, "--requests", reqs, results)
		if code != 1 {
			t.Fatalf("%s: exit %d: %s", tt.provider, code, errs)
		}
		var recs []struct {
			Error struct{ Code, Message string } `json:"error"`
		}
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			var r struct {
				Error struct{ Code, Message string } `json:"error"`
			}
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatal(err)
			}
			recs = append(recs, r)
		}
		// the result does not say what its line sent: the request's, or
		// to-* --temperature's, which the second request's must have been
		cmd := "fbeval-batch to-" + tt.provider
		want := []string{
			"was sent one in its batch line (its request's 0, or " + cmd + " --temperature's): set the study's temperature to 1 or leave it out and export again (and make the batch without --temperature), or give " + cmd + " --temperature 1 to send these requests 1)",
			"was sent one in its batch line, given to " + cmd + " --temperature (its request carries none): make the batch again with --temperature 1 or without it)",
		}
		if len(recs) != 2 {
			t.Fatalf("%s: %+v", tt.provider, recs)
		}
		for i, r := range recs {
			if r.Error.Code != "http_400" || !strings.HasSuffix(r.Error.Message, want[i]) {
				t.Errorf("%s: record %d: %+v, want the message to end %q", tt.provider, i+1, r, want[i])
			}
		}
	}
}

// TestToAnthropicTemperatureNote: a batch whose requests carry a temperature
// (the request's, or --temperature's) is sent at the API version its creator
// chooses, and 2026-10-21 refuses any: to-anthropic says which to send, once;
// a batch without one says nothing.
func TestToAnthropicTemperatureNote(t *testing.T) {
	data, err := os.ReadFile("testdata/requests.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	carrying := filepath.Join(t.TempDir(), "requests.jsonl")
	if err := os.WriteFile(carrying, []byte(strings.Replace(string(data), "{", `{"temperature":0.2,`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	const note = "create the batch with the header anthropic-version: 2023-06-01, as fbeval-anthropic sends (at 2026-10-21 the API refuses any temperature), for a model that takes it (Claude models released after Claude Opus 4.6 take only 1, or none)\n"
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"testdata/requests.jsonl"}, ""},
		{[]string{"--temperature", "0", "testdata/requests.jsonl"}, "fbeval-batch: the requests carry temperature 0: " + note},
		{[]string{carrying}, "fbeval-batch: the requests carry temperature 0.2: " + note},
	} {
		code, _, errs := runBatch(t, "", append([]string{"to-anthropic", "--model", "c"}, tt.args...)...)
		if code != 0 || errs != tt.want {
			t.Errorf("%v: exit %d, stderr %q, want %q", tt.args, code, errs, tt.want)
		}
	}
}

// TestToStdoutIsTheRequestFile: `fbeval-batch to-openai requests.jsonl >>
// requests.jsonl` appended the batch lines to the requests, exit 0; now
// either converter refuses a standard output that is its request file, before
// a byte is written, and the file stays as it was. A batch file written
// elsewhere, or into --out-dir, is no such case.
func TestToStdoutIsTheRequestFile(t *testing.T) {
	data, err := os.ReadFile("testdata/requests.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	req := filepath.Join(t.TempDir(), "req.jsonl")
	if err := os.WriteFile(req, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]string{{"to-openai", "--model", "m"}, {"to-anthropic", "--model", "m", "--max-tokens", "9"}} {
		f, err := os.OpenFile(req, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		var errb bytes.Buffer
		code := run(append(cmd, req), strings.NewReader(""), f, &errb)
		f.Close()
		want := "fbeval-batch: standard output is " + req + ", which the run reads (a shell's > empties it before the run starts, >> appends to it): write the batch to another file\n"
		if code != 2 || errb.String() != want {
			t.Errorf("%s >> the request file: exit %d %q", cmd[0], code, errb.String())
		}
		if got, _ := os.ReadFile(req); string(got) != string(data) {
			t.Fatalf("%s: the request file changed", cmd[0])
		}
		if code, _, errs := runBatch(t, "", append(cmd, req)...); code != 0 {
			t.Errorf("%s to another output: exit %d %s", cmd[0], code, errs)
		}
	}
}

// TestFromNothingToConvert: results that hold none (an empty download, or
// only the output file of a batch whose every request failed) were "0
// results", exit 0, and an empty -o; a results file given twice by any name
// had every result counted a duplicate, exit 0; standard input given as the
// results and as --requests was read as one of them. Each is exit 2 and one
// line now, nothing written.
func TestFromNothingToConvert(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "output.jsonl")
	if err := os.WriteFile(empty, []byte("\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := "testdata/openai_output.jsonl"
	link := filepath.Join(dir, "link.jsonl")
	abs, _ := filepath.Abs(out)
	if err := os.Symlink(abs, link); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		stdin string
		args  []string
		want  string
	}{
		{"", []string{"from-openai", empty}, empty + ": holds no results: give the batch's output file and its error file (a batch whose every request failed has only the error file)"},
		{"", []string{"from-anthropic", "--requests", "testdata/requests.jsonl", empty, empty}, empty + " is given twice: give each results file once"},
		{"", []string{"from-anthropic", "-o", filepath.Join(dir, "r.jsonl"), empty}, empty + ": holds no results: download the batch's results (each line a custom_id and its result) and give that file"},
		{"", []string{"from-openai", out, out}, out + " is given twice: give each results file once"},
		{"", []string{"from-openai", out, link}, out + " and " + link + " are one file: give each results file once"},
		{"x", []string{"from-openai", "--requests", "-", "-"}, "standard input is given twice (-): it can be read once: give one of the results and --requests as a file"},
	} {
		code, stdout, errs := runBatch(t, tt.stdin, tt.args...)
		if code != 2 || stdout != "" || errs != "fbeval-batch: "+tt.want+"\n" {
			t.Errorf("%v: exit %d, stdout %d bytes, stderr %q", tt.args, code, len(stdout), errs)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "r.jsonl")); err == nil {
		t.Error("-o was written")
	}
}

// TestFromResumeOtherProvider: from-* records name their provider in their
// run (openai-compatible or anthropic, or --provider), so an -o file of the
// other provider's results, or of another runner's, is refused rather than
// resumed, where a run that named none skipped every request it answered.
func TestFromResumeOtherProvider(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "responses.jsonl")
	if code, _, errs := runBatch(t, "", "from-openai", "--requests", "testdata/requests.jsonl", "-o", out, "testdata/openai_output.jsonl"); code != 1 {
		t.Fatalf("from-openai: exit %d %s", code, errs)
	}
	before, _ := os.ReadFile(out)
	anth := filepath.Join(dir, "results.jsonl")
	os.WriteFile(anth, []byte(`{"custom_id":"`+anthropicCustomID("flights-000.input_schema.r0.a1")+`","result":{"type":"expired"}}`+"\n"), 0o644)
	code, _, errs := runBatch(t, "", "from-anthropic", "--requests", "testdata/requests.jsonl", "-o", out, anth)
	want := `: written by another run (provider "openai-compatible"; this run's is "anthropic"); write these responses to another file, or start this one over with --fresh, which drops the answers it holds`
	if after, _ := os.ReadFile(out); code != 2 || !strings.Contains(errs, want) || string(after) != string(before) {
		t.Errorf("from-anthropic into from-openai's file: exit %d %q", code, errs)
	}
	code, _, errs = runBatch(t, "", "from-openai", "--provider", "vllm", "--requests", "testdata/requests.jsonl", "-o", out, "testdata/openai_output.jsonl")
	if !strings.Contains(errs, `(provider "openai-compatible"; this run's is "vllm")`) || code != 2 {
		t.Errorf("--provider vllm into openai-compatible's file: exit %d %q", code, errs)
	}
}

// TestToTakesNoOutputFlag: -o, which from-* and the runners take, given to
// to-* says where the batch goes (kong suggested -h for it).
func TestToTakesNoOutputFlag(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"to-openai", "--model", "m", "-o", "b.jsonl", "testdata/requests.jsonl"}, "fbeval-batch: to-openai takes no -o: it writes the batch to standard output (fbeval-batch to-openai ... > batch.jsonl), or split under the provider's limits into --out-dir DIR\n"},
		{[]string{"to-anthropic", "--model", "m", "--output=b.json", "testdata/requests.jsonl"}, "fbeval-batch: to-anthropic takes no --output: it writes the batch to standard output (fbeval-batch to-anthropic ... > batch.json), or split under the provider's limits into --out-dir DIR\n"},
	} {
		if code, out, errs := runBatch(t, "", tt.args...); code != 2 || out != "" || errs != tt.want {
			t.Errorf("%v: exit %d %q", tt.args, code, errs)
		}
	}
}

// TestRetryBatch: the requests a first batch left with an error make a second
// batch (to-openai --answered), whose results converted into the first's -o
// file complete it: exit 0, nothing missing. An answer wins over an error for
// one custom id whatever order the files are given in.
func TestRetryBatch(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string { return writeIn(t, dir, name, text) }
	ids := []string{"flights-000.input_schema.r1.a1", "flights-001.input_schema.r1.a1", "flights-002.input_schema.r1.a1"}
	var rq strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&rq, `{"schema_version":"fbeval-request/v1","request_id":%q,"case_id":%q,"suite":"toolcall","study":"sha256:1111111111111111","recipe":"sha256:0f28a999da7113fd","arm":"input_schema","repeat":1,"attempt":1,"prompt":"p","messages":[{"role":"user","content":"p"}]}`+"\n", id, id[:11])
	}
	reqs := write("requests.jsonl", rq.String())
	answer := func(id string) string {
		return `{"id":"batch_req_1","custom_id":"` + batchCustomID(false, id, "sha256:0f28a999da7113fd") + `","response":{"status_code":200,"request_id":"r","body":{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"{}"},"finish_reason":"stop"}]}},"error":null}` + "\n"
	}
	failure := func(id string) string {
		return `{"id":"batch_req_2","custom_id":"` + batchCustomID(false, id, "sha256:0f28a999da7113fd") + `","response":{"status_code":500,"request_id":"r","body":{"error":{"message":"boom","type":"server_error","param":null,"code":null}}},"error":null}` + "\n"
	}
	first := write("first_output.jsonl", answer(ids[0])+answer(ids[1]))
	firstErrors := write("first_errors.jsonl", failure(ids[2]))
	resp := filepath.Join(dir, "responses.jsonl")
	if code, _, errs := runBatch(t, "", "from-openai", "--requests", reqs, "-o", resp, first, firstErrors); code != 1 || !strings.Contains(errs, "2 answered, 1 error, 0 duplicates, 0 unknown, 0 missing") {
		t.Fatalf("first batch: exit %d\n%s", code, errs)
	}
	// the batch of the rest: the one request left with an error
	code, out, errs := runBatch(t, "", "to-openai", "--model", "m", "--answered", resp, reqs)
	if code != 0 || strings.Count(out, "\n") != 1 || !strings.Contains(out, ids[2]) || !strings.Contains(errs, "2 requests answered already, left out") {
		t.Fatalf("to-openai --answered: exit %d\n%s\n%s", code, out, errs)
	}
	retry := write("retry_output.jsonl", answer(ids[2]))
	code, _, errs = runBatch(t, "", "from-openai", "--requests", reqs, "-o", resp, retry)
	if code != 0 || !strings.Contains(errs, "1 answered, 0 errors, 0 duplicates, 0 unknown, 0 missing") || !strings.Contains(errs, "2 requests have no result here and an answer there already") {
		t.Errorf("retry into the first's file: exit %d\n%s", code, errs)
	}
	// every file at once, the errors last: the answer wins
	for _, order := range [][]string{{first, retry, firstErrors}, {firstErrors, retry, first}} {
		args := append([]string{"from-openai", "--requests", reqs}, order...)
		if code, out, errs := runBatch(t, "", args...); code != 0 || strings.Contains(out, `"error"`) || !strings.Contains(errs, "3 answered, 0 errors, 1 duplicate") {
			t.Errorf("%v: exit %d\n%s", order, code, errs)
		}
	}
	// a request still left with an error in the -o file is no success
	resp2 := filepath.Join(dir, "responses2.jsonl")
	runBatch(t, "", "from-openai", "--requests", reqs, "-o", resp2, first, firstErrors)
	code, _, errs = runBatch(t, "", "from-openai", "--requests", reqs, "-o", resp2, first)
	if code != 1 || !strings.Contains(errs, "1 request has no result here and an error there") || !strings.Contains(errs, "the requests left with an error make the next batch: fbeval-batch to-openai "+reqs+" --model MODEL --answered "+resp2+" (the model this batch asked)") || !strings.Contains(errs, "2 results: 2 answered, 0 errors, 0 duplicates, 0 unknown, 0 missing, 1 left with an error in "+resp2) {
		t.Errorf("an error left in the file: exit %d\n%s", code, errs)
	}
}

// TestCogLangFromAnotherFixture: a CogLang custom id carries its request's
// recipe (the CRC-32C of its text), so results of a batch made from another
// fixture's prompts are refused, not written as answers to these.
func TestCogLangFromAnotherFixture(t *testing.T) {
	dir := t.TempDir()
	request := func(prompt string) string {
		return `{"schema_version": "coglang-generation-eval-request/v0.1", "case_id": "FB-L1-001", "level": "L1", "instructions": "Return one expression.", "prompt": "` + prompt + `", "expected_top_level_heads": ["Equal"]}` + "\n"
	}
	mine := writeIn(t, dir, "mine.jsonl", request("Check whether 2 equals 2."))
	edited := writeIn(t, dir, "edited.jsonl", request("Please check whether 2 equals 2."))
	code, batch, _ := runBatch(t, "", "to-openai", "--model", "m", mine)
	if code != 0 || !strings.Contains(batch, `"custom_id":"FB-L1-001#r`) {
		t.Fatalf("to-openai: exit %d\n%s", code, batch)
	}
	var line struct {
		CustomID string `json:"custom_id"`
	}
	if err := json.Unmarshal([]byte(batch), &line); err != nil {
		t.Fatal(err)
	}
	results := writeIn(t, dir, "output.jsonl", `{"id":"batch_req_1","custom_id":"`+line.CustomID+`","response":{"status_code":200,"request_id":"r","body":{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Equal[2, 2]"},"finish_reason":"stop"}]}},"error":null}`+"\n")
	if code, _, errs := runBatch(t, "", "from-openai", "--requests", mine, results); code != 0 {
		t.Errorf("its own requests: exit %d\n%s", code, errs)
	}
	if code, out, errs := runBatch(t, "", "from-openai", "--requests", edited, results); code != 2 || out != "" || !strings.Contains(errs, "was made from request FB-L1-001 of another export") {
		t.Errorf("another fixture's requests: exit %d\n%s", code, errs)
	}
}

// TestBatchFileAsRequests: a batch's results or the batch sent, given as
// --requests, is named with where each goes (the request reader's advice,
// to convert the file with from-*, was the command being run).
func TestBatchFileAsRequests(t *testing.T) {
	dir := t.TempDir()
	results := writeIn(t, dir, "output.jsonl", `{"id":"batch_req_1","custom_id":"a","response":{"status_code":200,"request_id":"r","body":{}},"error":null}`+"\n")
	sent := writeIn(t, dir, "batch.jsonl", `{"custom_id":"a","method":"POST","url":"/v1/chat/completions","body":{}}`+"\n")
	for file, want := range map[string]string{
		results: "fbeval-batch: --requests " + results + ": this is an OpenAI Batch output line (custom_id, response), not the request file: give it before --requests with the other results files, and give --requests the request file the batch was made from (fbeval export's)\n",
		sent:    "fbeval-batch: --requests " + sent + ": this is an OpenAI Batch input line (custom_id, method, url, body), the batch sent, not the request file: give --requests the request file the batch was made from (fbeval export's)\n",
	} {
		if code, _, errs := runBatch(t, "", "from-openai", "--requests", file, results); code != 2 || errs != want {
			t.Errorf("%s: exit %d\n%s\nwant\n%s", file, code, errs, want)
		}
	}
}

// TestRetryBatchMistakes: the retry procedure done wrong is refused or said:
// the batch written over the --answered file (its answers would be lost),
// --answered given another export's answers (which answer none of these),
// a file that answers none, the first batch converted after the retry (its
// errors are superseded, no failure), another export's results converted
// into the file without --requests.
func TestRetryBatchMistakes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string { return writeIn(t, dir, name, text) }
	ids := []string{"flights-000.input_schema.r1.a1", "flights-001.input_schema.r1.a1"}
	requests := func(recipe string) string {
		var b strings.Builder
		for _, id := range ids {
			fmt.Fprintf(&b, `{"schema_version":"fbeval-request/v1","request_id":%q,"case_id":%q,"suite":"toolcall","study":"sha256:%s","recipe":%q,"arm":"input_schema","repeat":1,"attempt":1,"prompt":"p","messages":[{"role":"user","content":"p"}]}`+"\n", id, id[:11], recipe[7:23], recipe)
		}
		return b.String()
	}
	const mine, weak = "sha256:0f28a999da7113fd", "sha256:a6db0cd33b401ea4"
	reqs, weakReqs := write("requests.jsonl", requests(mine)), write("weak.jsonl", requests(weak))
	result := func(id, recipe string, ok bool) string {
		if !ok {
			return `{"id":"batch_req_2","custom_id":"` + batchCustomID(false, id, recipe) + `","response":{"status_code":500,"request_id":"r","body":{"error":{"message":"boom","type":"server_error","param":null,"code":null}}},"error":null}` + "\n"
		}
		return `{"id":"batch_req_1","custom_id":"` + batchCustomID(false, id, recipe) + `","response":{"status_code":200,"request_id":"r","body":{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"{}"},"finish_reason":"stop"}]}},"error":null}` + "\n"
	}
	first := write("first.jsonl", result(ids[0], mine, true)+result(ids[1], mine, false))
	retry := write("retry.jsonl", result(ids[1], mine, true))
	resp := filepath.Join(dir, "responses.jsonl")
	runBatch(t, "", "from-openai", "--requests", reqs, "-o", resp, first)
	// written to standard output, the next batch is named too (it was only
	// with -o)
	if code, _, errs := runBatch(t, "", "from-openai", "--requests", reqs, first); code != 1 || !strings.Contains(errs, "the requests left with an error make the next batch: fbeval-batch to-openai "+reqs+" --model MODEL --answered FILE, FILE the file these records went to") {
		t.Errorf("errors written to standard output: exit %d\n%s", code, errs)
	}

	// the batch written over the --answered file, as >> would
	out, err := os.OpenFile(resp, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	code := run([]string{"to-openai", "--model", "m", "--answered", resp, reqs}, strings.NewReader(""), out, &errb)
	out.Close()
	if code != 2 || !strings.Contains(errb.String(), "standard output is "+resp) {
		t.Errorf("the batch over --answered: exit %d\n%s", code, errb.String())
	}
	// --out-dir over it
	od := filepath.Join(dir, "od")
	if err := os.MkdirAll(od, 0o755); err != nil {
		t.Fatal(err)
	}
	copyResp, err := os.ReadFile(resp)
	if err != nil {
		t.Fatal(err)
	}
	inDir := write("od/batch-0001.jsonl", string(copyResp))
	if code, _, errs := runBatch(t, "", "to-openai", "--model", "m", "--answered", inDir, "--out-dir", od, reqs); code != 2 || !strings.Contains(errs, "is a batch file name in --out-dir") {
		t.Errorf("--out-dir over --answered: exit %d\n%s", code, errs)
	}
	// another export's answers answer none of these requests
	weakResp := filepath.Join(dir, "weak_responses.jsonl")
	runBatch(t, "", "from-openai", "--requests", weakReqs, "-o", weakResp, write("weak_out.jsonl", result(ids[0], weak, true)+result(ids[1], weak, true)))
	if code, _, errs := runBatch(t, "", "to-openai", "--model", "m", "--answered", weakResp, reqs); code != 2 || !strings.Contains(errs, "answers the requests of another run") {
		t.Errorf("--answered of another export: exit %d\n%s", code, errs)
	}
	// a file that answers none: said
	if code, _, errs := runBatch(t, "", "to-openai", "--model", "m", "--answered", write("empty.jsonl", ""), reqs); code != 0 || !strings.Contains(errs, "--answered answers none of these requests: the batch holds them all") {
		t.Errorf("--answered of nothing: exit %d\n%s", code, errs)
	}
	// the retry converted first, then the first batch: complete, exit 0
	swapped := filepath.Join(dir, "swapped.jsonl")
	runBatch(t, "", "from-openai", "--requests", reqs, "-o", swapped, retry)
	if code, _, errs := runBatch(t, "", "from-openai", "--requests", reqs, "-o", swapped, first); code != 0 || !strings.Contains(errs, "2 answered, 0 errors") {
		t.Errorf("first after the retry: exit %d\n%s", code, errs)
	}
	// another export's results into the file, without --requests
	if code, _, errs := runBatch(t, "", "from-openai", "-o", resp, write("weak_retry.jsonl", result(ids[1], weak, true))); code != 2 || !strings.Contains(errs, "the results of another export's batch") {
		t.Errorf("another export's results without --requests: exit %d\n%s", code, errs)
	}
	// two exports' results in one conversion without --requests: refused
	// (they were joined by request id, the one sorted last winning)
	both := write("both.jsonl", result(ids[0], mine, false)+result(ids[0], weak, true))
	if code, out, errs := runBatch(t, "", "from-openai", both); code != 2 || out != "" || errs != `fbeval-batch: the results answer the batches of 2 exports (custom id "flights-000.input_schema.r1.a1#r0f28a999", recipe tag 0f28a999; custom id "flights-000.input_schema.r1.a1#ra6db0cd3", recipe tag a6db0cd3): convert each export's results apart, with --requests the request file its batch was made from`+"\n" {
		t.Errorf("two exports' results without --requests: exit %d\n%s\n%s", code, out, errs)
	}
	// a file converted without --requests names its results' recipe tag,
	// and another export's results are refused into it (its records named
	// no recipe, and nothing was checked)
	bare := filepath.Join(dir, "bare.jsonl")
	if code, _, errs := runBatch(t, "", "from-openai", "-o", bare, first); code != 1 {
		t.Fatalf("first batch without --requests: exit %d\n%s", code, errs)
	}
	if data, _ := os.ReadFile(bare); !strings.Contains(string(data), `"recipe_tag":"0f28a999"`) {
		t.Errorf("records without --requests name no recipe tag:\n%s", data)
	}
	if code, _, errs := runBatch(t, "", "from-openai", "-o", bare, write("weak_retry2.jsonl", result(ids[1], weak, true))); code != 2 || !strings.Contains(errs, "its records answer the requests of the recipe tagged 0f28a999, and custom id \"flights-001.input_schema.r1.a1#ra6db0cd3\" was made from another (its recipe tag a6db0cd3): the results of another export's batch") {
		t.Errorf("another export's results into a file converted without --requests: exit %d\n%s", code, errs)
	}
	if code, _, errs := runBatch(t, "", "from-openai", "-o", bare, retry); code != 0 {
		t.Errorf("this export's retry into a file converted without --requests: exit %d\n%s", code, errs)
	}
}

// TestFromOpenAIStatuses: a line is an answer at status 2xx alone; a redirect
// or an interim status is a provider error of that status, a status that is
// none or no HTTP status an error at its place, and a line the quick split
// gives up on is named at its place in fbeval's words (it was the decoder's:
// "Mismatch type int64 with value ... at index 404", at 1:1).
func TestFromOpenAIStatuses(t *testing.T) {
	dir := t.TempDir()
	const ok = `{"id":"b","custom_id":"x","response":{"status_code":STATUS,"body":{"id":"c","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"{}"},"finish_reason":"stop"}]}},"error":null}`
	for _, tc := range []struct {
		status   string
		code     int
		out, err string
	}{
		{"200", 0, `"output":"{}"`, ""},
		{"201", 0, `"output":"{}"`, ""},
		{"302", 1, `"error":{"code":"http_302","message":"status 302, which is neither an answer (200) nor an error the API sends (400 or more): no answer to score"}`, ""},
		{"199", 1, `"code":"http_199"`, ""},
		{"0", 2, "", "r.jsonl:1:53: status_code 0 is no HTTP status (200 for an answer, 400 or more for an error)"},
		{"-200", 2, "", "r.jsonl:1:53: status_code -200 is no HTTP status"},
		{"200.0", 2, "", "r.jsonl:1:53: want an integer, got a JSON number at /response/status_code"},
		{`"200"`, 2, "", "r.jsonl:1:53: want an integer, got a JSON string at /response/status_code"},
	} {
		path := writeIn(t, dir, "r.jsonl", strings.Replace(ok, "STATUS", tc.status, 1)+"\n")
		code, out, errs := runBatch(t, "", "from-openai", path)
		if code != tc.code || !strings.Contains(out, tc.out) || tc.err != "" && !strings.Contains(errs, tc.err) || strings.Contains(errs, "index") {
			t.Errorf("status %s: exit %d, stdout %q, stderr %q; want exit %d, %q, %q", tc.status, code, out, errs, tc.code, tc.out, tc.err)
		}
	}
	path := writeIn(t, dir, "r.jsonl", `{"id":"b","custom_id":"x","response":{"request_id":"r","body":{"id":"c"}},"error":null}`+"\n")
	if code, _, errs := runBatch(t, "", "from-openai", path); code != 2 || !strings.Contains(errs, "r.jsonl:1:38: the response has no status_code") {
		t.Errorf("no status: exit %d, %q", code, errs)
	}
}

// TestFromOpenAISlowPathLenient: a line the quick split gives up on (a name
// in another letter case) is decoded as leniently as its answer is read: a
// lone surrogate escape, invalid UTF-8 and a member twice in the body are the
// provider's parser's to judge, as on the quick path and live (the decoding
// refused the whole file, exit 2).
func TestFromOpenAISlowPathLenient(t *testing.T) {
	dir := t.TempDir()
	line := func(content string) string {
		return `{"id":"b","Custom_ID":"x","response":{"status_code":200,"body":{"id":"c","object":"chat.completion","model":"m","model":"m2","choices":[{"index":0,"message":{"role":"assistant","content":"` + content + `"},"finish_reason":"stop"}]}},"error":null}` + "\n"
	}
	for name, content := range map[string]string{"lone surrogate": `caf\ud83d`, "invalid UTF-8": "caf\xff"} {
		path := writeIn(t, dir, "r.jsonl", line(content))
		code, out, errs := runBatch(t, "", "from-openai", path)
		if code != 0 || !strings.Contains(out, `"output":"caf`+"\uFFFD"+`"`) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", name, code, out, errs)
		}
	}
}

// failingWriter fails every write, as a full disk does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// TestBatchWriteFails: a batch that cannot be written (a full disk, a folder
// this user cannot write) is exit 2 and one line that says what stopped it and
// what to do (it was exit 1 and the bare error, naming the temporary file).
func TestBatchWriteFails(t *testing.T) {
	var errb bytes.Buffer
	code := run([]string{"to-openai", "--model", "m", "testdata/requests.jsonl"}, strings.NewReader(""), failingWriter{}, &errb)
	if want := "fbeval-batch: cannot write standard output: no space left on device: make room there, or write the batch to another disk\n"; code != 2 || errb.String() != want {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, errb.String(), want)
	}
	if os.Geteuid() == 0 {
		return // root writes any folder
	}
	dir := filepath.Join(t.TempDir(), "ro")
	os.Mkdir(dir, 0o555)
	code, _, errs := runBatch(t, "", "to-openai", "--model", "m", "--out-dir", dir, "testdata/requests.jsonl")
	if want := "cannot write " + filepath.Join(dir, "batch-0001.jsonl") + ": permission denied: make it (or the folder) writable for this user, or give another --out-dir"; code != 2 || !strings.Contains(errs, want) {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, errs, want)
	}
}
