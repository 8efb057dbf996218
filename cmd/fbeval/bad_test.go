package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// runMain runs the command in-process and returns its exit code and streams.
func runMain(t testing.TB, stdin io.Reader, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	var out, errb bytes.Buffer
	code = Main(args, stdin, &out, &errb)
	return code, out.String(), errb.String()
}

// smallToolcall is a seven-row toolcall study (one hotels case per category, one
// arm); testdata/bad/toolcall files hold a reference answer for each row.
var smallToolcall = []string{"score", "toolcall", "--domain", "hotels", "--limit", "1", "--arms", "input_schema"}

// inputStats is the responses entry of a toolcall report's inputs.
type inputStats struct {
	Path     string `json:"path"`
	Shape    string `json:"shape"`
	Lines    int    `json:"lines"`
	Records  int    `json:"records"`
	Accepted int    `json:"accepted"`
	Unknown  int    `json:"unknown"`
	Rejected []struct {
		Line   int    `json:"line"`
		Reason string `json:"reason"`
	} `json:"rejected"`
}

// toolcallInputs returns the responses entries of a toolcall JSON report.
func toolcallInputs(t *testing.T, stdout string) []inputStats {
	t.Helper()
	var rep struct {
		Inputs   []json.RawMessage `json:"inputs"`
		Complete bool              `json:"complete"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("report is not JSON: %v", err)
	}
	var out []inputStats
	for _, raw := range rep.Inputs {
		var role struct {
			Role string `json:"role"`
		}
		json.Unmarshal(raw, &role)
		if role.Role != "responses" {
			continue
		}
		var st inputStats
		if err := json.Unmarshal(raw, &st); err != nil {
			t.Fatal(err)
		}
		out = append(out, st)
	}
	return out
}

// checkNothingLost asserts that every record read is accepted or rejected, that
// every rejected line is named on stderr, and that the rejected lines are want.
func checkNothingLost(t *testing.T, stdout, stderr string, wantRejected []int) {
	t.Helper()
	inputs := toolcallInputs(t, stdout)
	if len(inputs) != 1 {
		t.Fatalf("report has %d response inputs, want 1", len(inputs))
	}
	st := inputs[0]
	if st.Records != st.Accepted+len(st.Rejected) {
		t.Errorf("records %d != accepted %d + rejected %d", st.Records, st.Accepted, len(st.Rejected))
	}
	var lines []int
	for _, r := range st.Rejected {
		lines = append(lines, r.Line)
		if !strings.Contains(stderr, "fbeval: "+r.Reason+" (line rejected)\n") {
			t.Errorf("rejected line %d is not on stderr: %s", r.Line, r.Reason)
		}
		if !strings.HasPrefix(r.Reason, st.Path+":") {
			t.Errorf("reason does not start with the file name: %s", r.Reason)
		}
	}
	if !slices.Equal(lines, wantRejected) {
		t.Errorf("rejected lines %v, want %v", lines, wantRejected)
	}
	if n := strings.Count(stderr, "(line rejected)\n"); n != len(st.Rejected) {
		t.Errorf("stderr names %d rejected lines, the report %d", n, len(st.Rejected))
	}
}

// stderrLines splits stderr into lines; none may be empty or hold a stack trace.
func stderrLines(t *testing.T, stderr string) []string {
	t.Helper()
	if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
		t.Fatalf("stderr holds a panic:\n%.2000s", stderr)
	}
	if stderr == "" {
		return nil
	}
	if !strings.HasSuffix(stderr, "\n") {
		t.Errorf("stderr does not end with a newline")
	}
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	// every score ends with its one-line summary; the rest is what a test checks
	if last := lines[len(lines)-1]; summaryLine.MatchString(last) {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return nil
	}
	return lines
}

// summaryLine matches the one-line summary every score writes last on stderr.
var summaryLine = regexp.MustCompile(`^fbeval: [^ ]+: [0-9]+ (rows|cases) from .*; (ok|not ok)$`)

// TestBadInputCogLang: the committed corpus of bad CogLang response files. Every
// loader problem ends the run with exit 2 and one line at file:line:col; files that
// can be read are scored and account for every record.
func TestBadInputCogLang(t *testing.T) {
	tests := []struct {
		file   string
		code   int
		stderr []string // $F is the file's path
		read   int      // records_read of a scored file
	}{
		{"truncated.json", 2, []string{"fbeval: $F:2:23: invalid JSON: the file ends inside a JSON value (truncated?)"}, 0},
		{"trailing_comma.json", 2, []string{"fbeval: $F:2:47: invalid JSON: a comma before the closing ']', which JSON does not allow: remove it"}, 0},
		{"python_repr.jsonl", 2, []string{"fbeval: $F:1:2: invalid JSON: a string in single quotes, as Python's str() of a dict writes it: JSON strings take double quotes (json.dumps writes them)"}, 0},
		{"torn.jsonl", 2, []string{"fbeval: $F:2:29: invalid JSON: the record ends inside a JSON value, on a last line with no line end: the file was cut short while it was written (a runner still writing it, or stopped mid-line, leaves it so: run the runner again with -o FILE to finish it)"}, 0},
		{"badutf8.jsonl", 2, []string{"fbeval: $F:2:34: invalid JSON: invalid UTF-8"}, 0},
		{"bom.jsonl", 1, []string{"fbeval: $F: a UTF-8 byte order mark was skipped"}, 1},
		{"bom_middle.jsonl", 2, []string{`fbeval: $F:2:1: the line begins with a UTF-8 byte order mark, which only a file's start may have (files joined with cat keep each one's): give the files on their own, or strip the marks (sed 's/^\xEF\xBB\xBF//')`}, 0},
		{"joined.jsonl", 2, []string{"fbeval: $F:1:47: invalid JSON: another record follows the first on this line (files joined with cat where one's last line had no line end): give each record a line of its own"}, 0},
		{"crlf.jsonl", 1, nil, 2},
		{"nul.jsonl", 2, []string{`fbeval: $F:2:1: 1 zero byte where a response record should be: what a file cut short while it was written holds where its last writes were (run the runner again with -o FILE to finish it)`}, 0},
		{"nul_record.jsonl", 2, []string{`fbeval: $F:2:1: 5 zero bytes before a response record on this line (a file a crash left zeros in, written on after them): the record is not read: remove the zero bytes (tr -d '\000' < FILE > FIXED) and give the mended file`}, 0},
		// an integer of more digits than Python's int() reads (4,300, since
		// Python 3.11): the reference's json.loads stops on it
		{"bignum.jsonl", 2, []string{"fbeval: $F:2:1: an integer of 10001 digits, more than the 4300 Python's json reads (the reference scorer stops on it with a ValueError): write it as a string"}, 0},
		{"dupkeys.jsonl", 1, nil, 1},
		{"version_wrong.jsonl", 2, []string{`fbeval: $F:2:1: unsupported schema_version "coglang-generation-eval-response/v9": want "coglang-generation-eval-response/v0.1" (or none, or "fbeval-response/v1"): another version of the format than this fbeval reads (coglang-generation-eval-response/v0.1): read it with the tool of its version, or make it again with this fbeval and its runners`}, 0},
		{"version_number.jsonl", 2, []string{`fbeval: $F:1:1: unsupported schema_version 1: want "coglang-generation-eval-response/v0.1" (or none, or "fbeval-response/v1")`}, 0},
		{"version_missing.jsonl", 1, nil, 1},
		{"batch_version.json", 1, []string{`fbeval: $F:1:19: the batch schema_version is "coglang-generation-eval-response-batch/v9", not "coglang-generation-eval-response-batch/v0.1": read as the reference reads it, its records as they are (--strict refuses it)`}, 1}, // read as the reference reads it, said (refused under --strict)
		{"id_number.jsonl", 2, []string{"fbeval: $F:1:1: none of its 2 records answers a case of the fixture (63 cases; unknown ids include 7): score them with the fixture (--fixture) or study they were exported for"}, 0},
		// other kinds are Python's str() of them, as the reference reads them: unknown ids
		{"id_true.jsonl", 1, []string{"fbeval: 1 case id the fixture does not have (True), not scored"}, 2},
		{"id_null.jsonl", 2, []string{"fbeval: $F:1:1: none of its 1 record answers a case of the fixture (63 cases; unknown ids include None): score them with the fixture (--fixture) or study they were exported for"}, 0},
		{"id_list.jsonl", 2, []string{"fbeval: $F:1:1: none of its 1 record answers a case of the fixture (63 cases; unknown ids include ['FB-L1-001']): score them with the fixture (--fixture) or study they were exported for"}, 0},
		{"id_object.jsonl", 2, []string{"fbeval: $F:1:1: none of its 1 record answers a case of the fixture (63 cases; unknown ids include {'id': 'FB-L1-001'}): score them with the fixture (--fixture) or study they were exported for"}, 0},
		{"id_missing.jsonl", 2, []string{`fbeval: $F:1:1: a JSON object must be one record or hold the records in "responses" or "answers"`}, 0},
		{"empty.jsonl", 1, []string{"fbeval: $F: holds no records (a runner that stopped before it wrote a record leaves its file so)"}, 0},
		{"blank.jsonl", 1, []string{"fbeval: $F: holds no records (a runner that stopped before it wrote a record leaves its file so)"}, 0},
		{"scalar.json", 2, []string{"fbeval: $F:1:1: a response record must be a JSON object"}, 0},
		{"string.json", 2, []string{"fbeval: $F:1:1: a response record must be a JSON object"}, 0},
		{"list_of_scalars.json", 2, []string{"fbeval: $F:1:2: a response record must be a JSON object"}, 0},
		{"two_documents.json", 2, []string{"fbeval: $F:1:50: unexpected data after the JSON document"}, 0},
		{"garbage.jsonl", 2, []string{"fbeval: $F:1:1: invalid JSON: text, not a JSON object: a response record is one JSON object on a line of its own"}, 0},
		// an expression has commas too: a line of one is text, not CSV
		{"expression.jsonl", 2, []string{"fbeval: $F:1:1: invalid JSON: text, not a JSON object: a response record is one JSON object on a line of its own"}, 0},
		{"csv.csv", 2, []string{`fbeval: $F:1:1: invalid JSON: text, not a JSON object: a response record is one JSON object on a line of its own; this looks like CSV (a spreadsheet's, or a dataframe's to_csv): write JSON lines (pandas: df.to_json(FILE, orient="records", lines=True))`}, 0},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		seen[tt.file] = true
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("testdata", "bad", "coglang", tt.file)
			code, stdout, stderr := runMain(t, nil, "score", "coglang", "--responses", path)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tt.code, stderr)
			}
			var want []string
			for _, l := range tt.stderr {
				want = append(want, strings.ReplaceAll(l, "$F", path))
			}
			if got := stderrLines(t, stderr); !slices.Equal(got, want) {
				t.Errorf("stderr:\n got %q\nwant %q", got, want)
			}
			if code == 2 {
				if stdout != "" {
					t.Errorf("a run that fails on its input wrote a report")
				}
				return
			}
			var res struct {
				OK           bool `json:"ok"`
				ResponseFile struct {
					Read     int `json:"records_read"`
					Accepted int `json:"records_accepted"`
				} `json:"response_file"`
			}
			if err := json.Unmarshal([]byte(stdout), &res); err != nil {
				t.Fatalf("result is not JSON: %v", err)
			}
			if res.ResponseFile.Read != tt.read || res.ResponseFile.Accepted != tt.read {
				t.Errorf("records read %d, accepted %d, want %d", res.ResponseFile.Read, res.ResponseFile.Accepted, tt.read)
			}
		})
	}
	checkCorpusCovered(t, "coglang", seen)
}

// TestBadInputToolcall: the committed corpus of bad toolcall response files. A bad
// line is rejected, named on stderr and in the report, and the other lines are
// scored: the seven good lines of each file still make a complete report.
func TestBadInputToolcall(t *testing.T) {
	tests := []struct {
		file     string
		code     int
		stderr   []string
		rejected []int
	}{
		{"torn_last.jsonl", 0, []string{
			"fbeval: $F:8:51: invalid JSON: the record ends inside a JSON value, on a last line with no line end: the file was cut short while it was written (a runner still writing it, or stopped mid-line, leaves it so: run the runner again with -o FILE to finish it) (line rejected)",
			"fbeval: $F: 1 line was rejected"}, []int{8}},
		{"badutf8.jsonl", 0, []string{
			"fbeval: $F:4:29: invalid JSON: invalid UTF-8 (line rejected)",
			"fbeval: $F: 1 line was rejected"}, []int{4}},
		{"nul.jsonl", 0, []string{
			"fbeval: $F:4:1: 1 zero byte where a response record should be: what a file cut short while it was written holds where its last writes were (run the runner again with -o FILE to finish it) (line rejected)",
			`fbeval: $F:5:19: invalid JSON: invalid character '\x00' at start of value (line rejected)`,
			"fbeval: $F: 2 lines were rejected"}, []int{4, 5}},
		{"nul_record.jsonl", 0, []string{
			"fbeval: $F:4:1: 3 zero bytes before a response record on this line (a file a crash left zeros in, written on after them): the record is not read: remove the zero bytes (tr -d '\\000' < FILE > FIXED) and give the mended file (line rejected)",
			"fbeval: $F: 1 line was rejected"}, []int{4}},
		{"bom.jsonl", 0, []string{"fbeval: $F: a UTF-8 byte order mark was skipped"}, nil},
		{"bom_middle.jsonl", 0, []string{
			`fbeval: $F:4:1: the line begins with a UTF-8 byte order mark, which only a file's start may have (files joined with cat keep each one's): give the files on their own, or strip the marks (sed 's/^\xEF\xBB\xBF//') (line rejected)`,
			"fbeval: $F: 1 line was rejected"}, []int{4}},
		{"joined.jsonl", 0, []string{
			"fbeval: $F:4:233: invalid JSON: another record follows the first on this line (files joined with cat where one's last line had no line end): give each record a line of its own (line rejected)",
			"fbeval: $F: 1 line was rejected"}, []int{4}},
		{"crlf.jsonl", 0, nil, nil},
		{"dupkeys.jsonl", 0, []string{
			"fbeval: $F:4:60: invalid JSON: duplicate object member name (line rejected)",
			"fbeval: $F: 1 line was rejected"}, []int{4}},
		{"bignum.jsonl", 0, []string{
			"fbeval: $F:4:73: number out of range for a number at /latency_ms (line rejected)",
			"fbeval: $F:5:80: input_token_count must be a whole number from 0 to 9223372036854775807, got 19999999999999999999999999999999999999999999999999999999999999999999999999999999... (line rejected)",
			"fbeval: $F: 2 lines were rejected"}, []int{4, 5}},
		{"versions.jsonl", 0, []string{
			`fbeval: $F:4:1: schema_version must be "fbeval-response/v1" or absent, got "fbeval-response/v2": another version of the format than this fbeval reads (fbeval-response/v1): read it with the tool of its version, or make it again with this fbeval and its runners (line rejected)`,
			`fbeval: $F:5:1: schema_version must be "fbeval-response/v1" or absent, got 1 (line rejected)`,
			`fbeval: $F:6:1: schema_version must be "fbeval-response/v1" or absent, got "coglang-generation-eval-response/v0.1" (line rejected)`,
			"fbeval: $F: 3 lines were rejected"}, []int{4, 5, 6}},
		{"ids.jsonl", 0, []string{
			"fbeval: $F:4:1: request_id must be a non-empty string, got 7 (line rejected)",
			"fbeval: $F:5:1: request_id must be a non-empty string, got 7.5 (line rejected)",
			"fbeval: $F:6:1: request_id must be a non-empty string, got true (line rejected)",
			"fbeval: $F:7:1: request_id must be a non-empty string, got false (line rejected)",
			"fbeval: $F:8:1: a response record needs request_id (or case_id) (line rejected)",
			`fbeval: $F:9:1: request_id must be a non-empty string, got ["a"] (a list of one: R jsonlite's toJSON writes each value so without auto_unbox = TRUE) (line rejected)`,
			"fbeval: $F:10:1: request_id must be a non-empty string, got {} (line rejected)",
			`fbeval: $F:11:1: request_id must be a non-empty string, got "" (line rejected)`,
			"fbeval: $F:12:1: a response record needs request_id (or case_id) (line rejected)",
			"fbeval: $F: 9 lines were rejected"}, []int{4, 5, 6, 7, 8, 9, 10, 11, 12}},
		{"scalars.jsonl", 0, []string{
			"fbeval: $F:4:1: a response record must be a JSON object, got a JSON number (line rejected)",
			"fbeval: $F:5:1: a response record must be a JSON object, got a JSON string (line rejected)",
			"fbeval: $F:6:1: a response record must be a JSON object, got JSON null (line rejected)",
			"fbeval: $F:7:1: a response record must be a JSON object, got JSON true (line rejected)",
			"fbeval: $F:8:1: a response record must be a JSON object, got a JSON list (line rejected)",
			"fbeval: $F: 5 lines were rejected"}, []int{4, 5, 6, 7, 8}},
		{"garbage.jsonl", 0, []string{
			"fbeval: $F:4:1: invalid JSON: text, not a JSON object: a response record is one JSON object on a line of its own (line rejected)",
			`fbeval: $F:5:1: invalid JSON: invalid character '}' at start of value (line rejected)`,
			`fbeval: $F:6:19: invalid JSON: invalid character '"' after object value (expecting ',' or '}') (line rejected)`,
			"fbeval: $F: 3 lines were rejected"}, []int{4, 5, 6}},
		{"unknown_ids.jsonl", 0, []string{"fbeval: $F: 2 records answer no request of this study: the first, hotels-999.input_schema.r1.a1, is for case hotels-999, which this study's dataset and filter leave out: score with the study, --domain, --category, --limit and --dataset the requests were exported with"}, nil},
		{"empty.jsonl", 1, []string{
			"fbeval: 7 rows have no first-attempt response and score as failures",
			"fbeval: $F: holds no records (a runner that stopped before it wrote a record leaves its file so)",
			"fbeval: the report is incomplete: some rows have no response"}, nil},
		{"scalar.json", 2, []string{
			"fbeval: $F:1:1: a response record must be a JSON object, got a JSON number; no record of the file could be read (1 record rejected): give a JSONL file, a JSON list or a batch object of response records"}, nil},
		// a broken whole-file document cannot be read record by record: exit 2
		{"truncated.json", 2, []string{"fbeval: $F:4:15: invalid JSON: the file ends inside a JSON value (truncated?)"}, nil},
		{"trailing_comma.json", 2, []string{"fbeval: $F:8:211: invalid JSON: a comma before the closing ']', which JSON does not allow: remove it"}, nil},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		seen[tt.file] = true
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("testdata", "bad", "toolcall", tt.file)
			code, stdout, stderr := runMain(t, nil, append(smallToolcall, "--responses", path)...)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tt.code, stderr)
			}
			var want []string
			for _, l := range tt.stderr {
				want = append(want, strings.ReplaceAll(l, "$F", path))
			}
			if got := stderrLines(t, stderr); !slices.Equal(got, want) {
				t.Errorf("stderr:\n got %q\nwant %q", got, want)
			}
			if code == 2 {
				return
			}
			checkNothingLost(t, stdout, stderr, tt.rejected)
		})
	}
	checkCorpusCovered(t, "toolcall", seen)
}

// checkCorpusCovered fails when a file of the corpus has no table entry.
func checkCorpusCovered(t *testing.T, suite string, seen map[string]bool) {
	entries, err := os.ReadDir(filepath.Join("testdata", "bad", suite))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !seen[e.Name()] {
			t.Errorf("testdata/bad/%s/%s has no table entry", suite, e.Name())
		}
	}
}

// goodToolcallLines are the seven reference answers of the small study.
func goodToolcallLines(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "bad", "toolcall", "crlf.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(strings.ReplaceAll(string(data), "\r\n", "\n")), "\n")
	if len(lines) != 7 {
		t.Fatalf("want 7 good lines, got %d", len(lines))
	}
	return lines
}

// repeatReader yields n copies of b without holding them in memory.
type repeatReader struct {
	b byte
	n int64
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.EOF
	}
	k := min(int64(len(p)), r.n)
	for i := range p[:k] {
		p[i] = r.b
	}
	r.n -= k
	return int(k), nil
}

// longLine is a response line of about size bytes: an object whose output string
// is size bytes of 'x'.
func longLine(prefix string, size int64) io.Reader {
	return io.MultiReader(strings.NewReader(prefix), &repeatReader{'x', size}, strings.NewReader("\"}\n"))
}

// TestGeneratedHostileInputs: inputs too large to commit, and file system faults.
func TestGeneratedHostileInputs(t *testing.T) {
	good := goodToolcallLines(t)
	const hundredMB = 100 << 20
	deep := 100000
	dir := t.TempDir()
	deepList := filepath.Join(dir, "deep.json")
	if err := os.WriteFile(deepList, []byte(strings.Repeat("[", deep)+strings.Repeat("]", deep)), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.jsonl")
	cg := `{"case_id":"FB-L1-001","output":"Equal[2, 2]"}` + "\n"

	tests := []struct {
		name     string
		args     []string
		stdin    func() io.Reader
		code     int
		stderr   []string
		rejected []int // toolcall: the rejected lines, checked against the report
	}{
		{"coglang 100 MB line", []string{"score", "coglang", "--responses", "-"},
			func() io.Reader {
				return io.MultiReader(strings.NewReader(cg), longLine(`{"case_id":"FB-L1-002","output":"`, hundredMB), strings.NewReader(cg))
			}, 2,
			[]string{"fbeval: -:2:1: line is longer than 67108864 bytes (raise the limit with --max-line-bytes)"}, nil},
		{"coglang line over --max-line-bytes", []string{"score", "coglang", "--responses", "-", "--max-line-bytes", "1000"},
			func() io.Reader {
				return io.MultiReader(strings.NewReader(cg), longLine(`{"case_id":"FB-L1-002","output":"`, 2000))
			}, 2,
			[]string{"fbeval: -:2:1: line is longer than 1000 bytes (raise the limit with --max-line-bytes)"}, nil},
		{"coglang raised --max-line-bytes", []string{"score", "coglang", "--responses", "-", "--max-line-bytes", "5000", "--summary-only"},
			func() io.Reader {
				return io.MultiReader(strings.NewReader(cg), longLine(`{"case_id":"FB-L1-002","output":"`, 2000))
			}, 1, nil, nil},
		{"toolcall 100 MB line", append(slices.Clone(smallToolcall), "--responses", "-"),
			func() io.Reader {
				return io.MultiReader(strings.NewReader(strings.Join(good[:3], "\n")+"\n"),
					longLine(`{"request_id":"hotels-000.input_schema.r1.a1","output":"`, hundredMB),
					strings.NewReader(strings.Join(good[3:], "\n")+"\n"))
			}, 0,
			[]string{"fbeval: -:4:1: line is longer than 67108864 bytes (raise the limit with --max-line-bytes) (line rejected)",
				"fbeval: -: 1 line was rejected"}, []int{4}},
		{"coglang 100000 deep line", []string{"score", "coglang", "--responses", "-"},
			func() io.Reader {
				return strings.NewReader(`{"case_id":"FB-L1-001","output":` + strings.Repeat("[", deep) + strings.Repeat("]", deep) + "}\n")
			}, 2,
			[]string{"fbeval: -:1:10032: invalid JSON: exceeded max depth"}, nil},
		{"coglang 100000 deep list file", []string{"score", "coglang", "--responses", deepList}, nil, 2,
			[]string{"fbeval: " + deepList + ":1:10001: invalid JSON: exceeded max depth"}, nil},
		{"toolcall 100000 deep list file", append(slices.Clone(smallToolcall), "--responses", deepList), nil, 2,
			[]string{"fbeval: " + deepList + ":1:10001: invalid JSON: exceeded max depth"}, nil},
		{"toolcall 100000 deep line", append(slices.Clone(smallToolcall), "--responses", "-"),
			func() io.Reader {
				return strings.NewReader(strings.Join(good, "\n") + "\n" +
					`{"request_id":"hotels-000.input_schema.r1.a1","output":` + strings.Repeat("[", deep) + strings.Repeat("]", deep) + "}\n")
			}, 0,
			[]string{"fbeval: -:8:10055: invalid JSON: exceeded max depth (line rejected)", "fbeval: -: 1 line was rejected"}, []int{8}},
		{"coglang directory", []string{"score", "coglang", "--responses", dir}, nil, 2,
			[]string{"fbeval: " + dir + ": is a directory, not a file: give its files as a pattern, quoted for fbeval to expand ('" + filepath.Join(dir, "*.json") + "')"}, nil},
		{"toolcall directory", append(slices.Clone(smallToolcall), "--responses", dir), nil, 2,
			[]string{"fbeval: " + dir + ": is a directory, not a file: give its files as a pattern, quoted for fbeval to expand ('" + filepath.Join(dir, "*.json") + "')"}, nil},
		{"coglang missing file", []string{"score", "coglang", "--responses", missing}, nil, 2,
			[]string{"fbeval: " + missing + ": no such file or directory"}, nil},
		{"toolcall missing file", append(slices.Clone(smallToolcall), "--responses", missing), nil, 2,
			[]string{"fbeval: " + missing + ": no such file or directory"}, nil},
		// A read error stands for every file that opens but cannot be read (a file
		// on a failing disk, /proc/self/mem); a root user reads chmod 000 files.
		{"coglang read error", []string{"score", "coglang", "--responses", "-"},
			func() io.Reader {
				return io.MultiReader(strings.NewReader(cg), iotest.ErrReader(errors.New("input/output error")))
			}, 2,
			[]string{"fbeval: -:2: cannot read: input/output error"}, nil},
		{"toolcall read error", append(slices.Clone(smallToolcall), "--responses", "-"),
			func() io.Reader {
				return io.MultiReader(strings.NewReader(good[0]+"\n"), iotest.ErrReader(errors.New("input/output error")))
			}, 2,
			[]string{"fbeval: -:2: cannot read: input/output error"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if testing.Short() && strings.Contains(tt.name, "100 MB") {
				t.Skip("100 MB of input: skipped in -short mode")
			}
			var stdin io.Reader
			if tt.stdin != nil {
				stdin = tt.stdin()
			}
			code, stdout, stderr := runMain(t, stdin, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr:\n%.2000s", code, tt.code, stderr)
			}
			if got := stderrLines(t, stderr); !slices.Equal(got, tt.stderr) {
				t.Errorf("stderr:\n got %.2000q\nwant %q", got, tt.stderr)
			}
			if tt.code != 2 && slices.Contains(tt.args, "toolcall") {
				checkNothingLost(t, stdout, stderr, tt.rejected)
			}
		})
	}
}

// TestUnreadableFile: a file the user may not read is exit 2 with one line. Root
// reads any file, so the test needs another user.
func TestUnreadableFile(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root, which reads chmod 000 files; TestGeneratedHostileInputs covers read errors")
	}
	path := filepath.Join(t.TempDir(), "secret.jsonl")
	if err := os.WriteFile(path, []byte("{}\n"), 0o000); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"score", "coglang"}, smallToolcall} {
		code, _, stderr := runMain(t, nil, append(slices.Clone(args), "--responses", path)...)
		if code != 2 || stderr != "fbeval: "+path+": permission denied\n" {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
}
