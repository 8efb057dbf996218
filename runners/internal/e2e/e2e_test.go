package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// binDir holds the binaries TestMain builds, once for every test of the package.
var binDir string

// The binaries the pipelines run.
var packages = []string{
	"./cmd/fbeval",
	"./runners/fbeval-openai",
	"./runners/fbeval-anthropic",
	"./runners/fbeval-batch",
	"./runners/internal/fakeserver/fbeval-fakeserver",
}

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		os.Exit(m.Run()) // every test skips itself
	}
	dir, err := os.MkdirTemp("", "fbeval-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
	root, _ := filepath.Abs(filepath.Join("..", "..", ".."))
	// One build for all five: the compiled packages are shared, and without symbol
	// tables the links are quicker.
	args := append([]string{"build", "-ldflags=-s -w", "-o", dir + string(filepath.Separator)}, packages...)
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: go build: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func needBinaries(t *testing.T) {
	t.Helper()
	if binDir == "" {
		t.Skip("-short: the end-to-end tests build the binaries")
	}
}

// noKey names an environment variable that is never set, so no key is sent to the
// local servers whatever the developer's environment holds.
const noKey = "FBEVAL_E2E_NO_KEY"

// fast are the runner flags of every networked run: retries wait milliseconds.
var fast = []string{"--api-key-env", noKey, "--backoff", "1ms", "--max-backoff", "20ms"}

// result is what a pipeline did: the last command's stdout, every exit code and
// every stderr, in order.
type result struct {
	out    []byte
	codes  []int
	stderr string
}

// pipeline runs commands in dir, each one's stdout feeding the next one's stdin, as
// a shell pipeline does. Each command is a binary name followed by its arguments.
func pipeline(t *testing.T, dir string, cmds ...[]string) result {
	t.Helper()
	procs := make([]*exec.Cmd, len(cmds))
	errs := make([]bytes.Buffer, len(cmds))
	var out bytes.Buffer
	var closeAfterStart []*os.File
	for i, c := range cmds {
		procs[i] = exec.Command(filepath.Join(binDir, c[0]), c[1:]...)
		procs[i].Dir = dir
		procs[i].Stderr = &errs[i]
		if i > 0 {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			procs[i-1].Stdout, procs[i].Stdin = w, r
			closeAfterStart = append(closeAfterStart, r, w)
		}
	}
	procs[len(procs)-1].Stdout = &out
	for _, p := range procs {
		if err := p.Start(); err != nil {
			t.Fatal(err)
		}
	}
	// The children hold the pipe ends now; ours must go, or the readers never see EOF.
	for _, f := range closeAfterStart {
		f.Close()
	}
	// out is written by the goroutines exec starts until Wait returns: read it after.
	var res result
	var stderr strings.Builder
	for i, p := range procs {
		err := p.Wait()
		var ee *exec.ExitError
		switch {
		case err == nil:
			res.codes = append(res.codes, 0)
		case errors.As(err, &ee):
			res.codes = append(res.codes, ee.ExitCode())
		default:
			t.Fatalf("%s: %v", cmds[i][0], err)
		}
		stderr.Write(errs[i].Bytes())
	}
	res.out = out.Bytes()
	res.stderr = stderr.String()
	return res
}

// run runs one command in dir and fails the test unless it exits with want.
func run(t *testing.T, dir string, want int, cmd ...string) result {
	t.Helper()
	r := pipeline(t, dir, cmd)
	if r.codes[0] != want {
		t.Fatalf("%s: exit %d, want %d\n%s", strings.Join(cmd, " "), r.codes[0], want, r.stderr)
	}
	return r
}

// runTo runs one command and writes its stdout to dir/file.
func runTo(t *testing.T, dir, file string, cmd ...string) {
	t.Helper()
	r := run(t, dir, 0, cmd...)
	if err := os.WriteFile(filepath.Join(dir, file), r.out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// startFakeServer starts fbeval-fakeserver on a free port, as a user would (in the
// background), and returns the base URL it prints once it listens. It is stopped
// when the test ends.
func startFakeServer(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "fbeval-fakeserver"), append([]string{"--addr", "127.0.0.1:0"}, args...)...)
	cmd.Dir = dir
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	select {
	case url, ok := <-lines:
		if !ok {
			cmd.Wait()
			t.Fatalf("the fake server stopped: %s", errb.String())
		}
		if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/v1") {
			t.Fatalf("the fake server printed %q, want its base URL", url)
		}
		return url
	case <-time.After(15 * time.Second):
		t.Fatal("the fake server printed no URL")
	}
	return ""
}

// exportAnswers writes the toolcall-quick requests (requests.jsonl) and the same
// requests with their reference outputs (answers.jsonl) into dir.
func exportAnswers(t *testing.T, dir string) {
	t.Helper()
	runTo(t, dir, "requests.jsonl", "fbeval", "export", "toolcall-quick")
	runTo(t, dir, "answers.jsonl", "fbeval", "export", "toolcall-quick", "--include-reference")
}

// The toolcall-quick study: 84 runs in each of three arms.
const (
	quickRequests = 252
	quickRuns     = 84
)

var arms = []string{"no_schema", "minimal_schema", "input_schema"}

// report is the part of a toolcall report the tests read.
type report struct {
	Complete     bool `json:"complete"`
	ExpectedRows int  `json:"expected_rows"`
	Inputs       []struct {
		Role       string            `json:"role"`
		Records    int               `json:"records"`
		Accepted   int               `json:"accepted"`
		Duplicates int               `json:"duplicates"`
		Unknown    int               `json:"unknown"`
		Rejected   []json.RawMessage `json:"rejected"`
	} `json:"inputs"`
	Arms map[string]struct {
		Runs             int      `json:"runs"`
		ProviderErrors   int      `json:"provider_errors"`
		MissingResponses int      `json:"missing_responses"`
		FinalSuccess     float64  `json:"final_success_percent"`
		LatencyP50       *float64 `json:"latency_p50_ms"`
	} `json:"arms"`
}

func decodeReport(t *testing.T, data []byte) report {
	t.Helper()
	var r report
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("the report is not JSON: %v\n%.300s", err, data)
	}
	return r
}

// checkPerfect fails unless the report is complete and every arm scores 100% with
// no provider error or missing response; it returns the responses input.
func checkPerfect(t *testing.T, r report) (records, accepted, duplicates int) {
	t.Helper()
	if !r.Complete || r.ExpectedRows != quickRequests {
		t.Errorf("complete %v, expected rows %d", r.Complete, r.ExpectedRows)
	}
	for _, arm := range arms {
		a, ok := r.Arms[arm]
		if !ok || a.Runs != quickRuns || a.ProviderErrors != 0 || a.MissingResponses != 0 || a.FinalSuccess != 100 {
			t.Errorf("arm %s: %+v (present %v), want %d runs, all successful", arm, a, ok, quickRuns)
		}
	}
	for _, in := range r.Inputs {
		if in.Role == "responses" {
			if in.Unknown != 0 || len(in.Rejected) != 0 {
				t.Errorf("responses: %d unknown, %d rejected", in.Unknown, len(in.Rejected))
			}
			records, accepted, duplicates = records+in.Records, accepted+in.Accepted, duplicates+in.Duplicates
		}
	}
	return records, accepted, duplicates
}

// TestLivePipeline runs the README's pipeline: the fake server answering with the
// reference outputs, export piped into fbeval-openai, and the scorer.
func TestLivePipeline(t *testing.T) {
	needBinaries(t)
	dir := t.TempDir()
	exportAnswers(t, dir)
	url := startFakeServer(t, dir, "--answers", "answers.jsonl")

	gate := "--gate=input_schema.final_success_percent>=100"
	r := pipeline(t, dir,
		[]string{"fbeval", "export", "toolcall-quick"},
		append([]string{"fbeval-openai", "--base-url", url, "--model", "m", "-o", "responses.jsonl"}, fast...))
	if !reflect.DeepEqual(r.codes, []int{0, 0}) || len(r.out) != 0 {
		t.Fatalf("export | fbeval-openai: exit %v, stdout %.200q\n%s", r.codes, r.out, r.stderr)
	}
	if want := fmt.Sprintf("%d requests: %d answered, 0 errors", quickRequests, quickRequests); !strings.Contains(r.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
	}
	r = run(t, dir, 0, "fbeval", "score", "toolcall-quick", "--responses", "responses.jsonl", "--format", "json", gate)
	rep := decodeReport(t, r.out)
	if records, accepted, dups := checkPerfect(t, rep); records != quickRequests || accepted != quickRequests || dups != 0 {
		t.Errorf("responses: %d records, %d accepted, %d duplicates", records, accepted, dups)
	}
	if rep.Arms["input_schema"].LatencyP50 == nil {
		t.Error("a live run reports no latency")
	}

	// The same with every stage on a pipe, the Anthropic runner this time, given
	// its base URL as the Anthropic SDK takes it, without /v1.
	r = pipeline(t, dir,
		[]string{"fbeval", "export", "toolcall-quick"},
		append([]string{"fbeval-anthropic", "--base-url", strings.TrimSuffix(url, "/v1"), "--model", "m"}, fast...),
		[]string{"fbeval", "score", "toolcall-quick", "--responses", "-", "--format", "json", gate})
	if !reflect.DeepEqual(r.codes, []int{0, 0, 0}) {
		t.Fatalf("export | fbeval-anthropic | score: exit %v\n%s", r.codes, r.stderr)
	}
	checkPerfect(t, decodeReport(t, r.out))

	// An OpenAI-compatible base URL without its /v1 (Ollama's address as it is,
	// http://localhost:11434): every call is a 404, and the run stops on them with
	// the URL it called and the one to give.
	r = pipeline(t, dir,
		[]string{"fbeval", "export", "toolcall-quick"},
		append([]string{"fbeval-openai", "--base-url", strings.TrimSuffix(url, "/v1"), "--model", "m", "--concurrency", "1"}, fast...))
	if want := "(POST " + strings.TrimSuffix(url, "/v1") + "/chat/completions; OpenAI-compatible servers, Ollama and vLLM among them, serve their API under /v1: --base-url " + url + ")); check --base-url"; !reflect.DeepEqual(r.codes, []int{0, 1}) || !strings.Contains(r.stderr, want) {
		t.Errorf("without /v1: exit %v, stderr lacks %q:\n%s", r.codes, want, r.stderr)
	}

	// A server that refuses everything fails the gate: the exit code carries it.
	refuser := startFakeServer(t, dir)
	r = pipeline(t, dir,
		[]string{"fbeval", "export", "toolcall-quick"},
		append([]string{"fbeval-openai", "--base-url", refuser, "--model", "m"}, fast...),
		[]string{"fbeval", "score", "toolcall-quick", "--responses", "-", "--format", "json", gate})
	if !reflect.DeepEqual(r.codes, []int{0, 0, 1}) {
		t.Fatalf("against a refusing server: exit %v, want [0 0 1]\n%s", r.codes, r.stderr)
	}
	if got := decodeReport(t, r.out).Arms["input_schema"].FinalSuccess; got >= 100 {
		t.Errorf("refusals scored %v%%", got)
	}
}

// TestFakeServerUsage: the helper fails clearly on a bad answers file.
func TestFakeServerUsage(t *testing.T) {
	needBinaries(t)
	dir := t.TempDir()
	runTo(t, dir, "requests.jsonl", "fbeval", "export", "toolcall-quick")
	r := run(t, dir, 2, "fbeval-fakeserver", "--answers", "requests.jsonl")
	if !strings.Contains(r.stderr, "requests.jsonl:1: request flights-000.no_schema.r1.a1 has no reference output; export with --include-reference") {
		t.Errorf("stderr: %s", r.stderr)
	}
	run(t, dir, 2, "fbeval-fakeserver", "--openai-batch", "a", "--anthropic-batch", "b")
}
