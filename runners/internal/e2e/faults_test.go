package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/fbeval/fbeval/runners/internal/fakeserver"
)

// faultServer serves the reference answers of dir/answers.jsonl in process, with
// the faults fault chooses.
func faultServer(t *testing.T, dir string, fault func(user string, n int) fakeserver.Fault) string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "answers.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	answers, err := fakeserver.LoadAnswers("answers.jsonl", f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(fakeserver.New(fakeserver.Options{Answers: answers, Fault: fault}))
	t.Cleanup(ts.Close)
	return ts.URL + "/v1"
}

// tally counts the records of a response file per request id.
type tally struct {
	lines   int
	answers map[string]int
	errors  map[string]int
}

func countRecords(t *testing.T, path string) tally {
	t.Helper()
	c := tally{answers: map[string]int{}, errors: map[string]int{}}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		var r struct {
			RequestID string          `json:"request_id"`
			Output    *string         `json:"output"`
			Error     json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(l, &r); err != nil {
			t.Fatalf("%s:%d: %v", path, i+1, err)
		}
		c.lines++
		switch {
		case r.Output != nil && r.Error == nil:
			c.answers[r.RequestID]++
		case r.Output == nil && r.Error != nil:
			c.errors[r.RequestID]++
		default:
			t.Fatalf("%s:%d: neither an answer nor an error: %s", path, i+1, l)
		}
	}
	return c
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// checkOnceEach fails unless every request has exactly one answer.
func checkOnceEach(t *testing.T, c tally, ids []string) {
	t.Helper()
	for _, id := range ids {
		if c.answers[id] != 1 {
			t.Errorf("%s answered %d times", id, c.answers[id])
		}
	}
	if len(c.answers) != len(ids) {
		t.Errorf("answers for %d ids, want %d", len(c.answers), len(ids))
	}
}

// TestFaultsStopAndResume runs fbeval-openai three times on one output file: under
// passing faults until its call budget runs out, against a server that is down
// until it stops on consecutive errors, and again to finish. The scorer then finds
// the study complete and perfect: nothing lost, and no request answered twice.
func TestFaultsStopAndResume(t *testing.T) {
	needBinaries(t)
	dir := t.TempDir()
	exportAnswers(t, dir)
	ids := requestIDs(t, filepath.Join(dir, "requests.jsonl"))

	passing := []fakeserver.Fault{
		{Status: 429, RetryAfter: "0"}, {Status: 500}, {Truncate: true}, {NonJSON: true}, {Reset: true}, {Status: 503}, {},
	}
	var down atomic.Bool
	url := faultServer(t, dir, func(user string, n int) fakeserver.Fault {
		if down.Load() {
			return fakeserver.Fault{Status: 503}
		}
		if n == 1 { // the first call with a prompt fails, its retry is answered
			h := fnv.New32a()
			h.Write([]byte(user))
			return passing[h.Sum32()%uint32(len(passing))]
		}
		return fakeserver.Fault{}
	})
	runner := func(extra ...string) []string {
		args := []string{"fbeval-openai", "--base-url", url, "--model", "m", "--timeout", "5s", "-o", "responses.jsonl"}
		return append(append(append(args, fast...), extra...), "requests.jsonl")
	}
	out := filepath.Join(dir, "responses.jsonl")

	// 1. Passing faults, a budget of 120 calls.
	r := run(t, dir, 1, runner("--max-requests", "120")...)
	if !strings.Contains(r.stderr, "120 calls") || !strings.HasSuffix(strings.TrimSpace(r.stderr), "stopped: budget (--max-requests): run again with -o FILE to go on") {
		t.Fatalf("run 1 did not stop on its budget:\n%s", r.stderr)
	}
	first := countRecords(t, out)
	if len(first.errors) != 0 || first.lines == 0 || first.lines >= 120 {
		t.Fatalf("run 1: %d records, %d errors; want under 120 answers (retries spend the budget) and no error", first.lines, len(first.errors))
	}

	// 2. The server is down: the run stops after 5 errors in a row.
	down.Store(true)
	r = run(t, dir, 1, runner("--retries", "1", "--max-consecutive-errors", "5")...)
	if !strings.Contains(r.stderr, "stopped: 5 consecutive errors (the last: http_5") || !strings.HasSuffix(strings.TrimSpace(r.stderr), "then run again with -o FILE to go on") || !strings.Contains(r.stderr, fmt.Sprintf("%d skipped", first.lines)) {
		t.Fatalf("run 2 did not stop on consecutive errors:\n%s", r.stderr)
	}
	second := countRecords(t, out)
	errs := sum(second.errors)
	// Calls in flight when it stops finish and are written: at most the concurrency more.
	if errs < 5 || errs > 5+4 || sum(second.answers) != first.lines {
		t.Fatalf("run 2 wrote %d errors and %d answers, want 5 to 9 errors and the %d answers of run 1", errs, sum(second.answers), first.lines)
	}

	// 3. The server is back (with its passing faults): the run finishes.
	down.Store(false)
	r = run(t, dir, 0, runner()...)
	left := len(ids) - first.lines
	if want := fmt.Sprintf("%d answered, 0 errors, %d skipped", left, first.lines); !strings.Contains(r.stderr, want) {
		t.Fatalf("run 3: stderr lacks %q:\n%s", want, r.stderr)
	}
	final := countRecords(t, out)
	checkOnceEach(t, final, ids)
	if final.lines != len(ids)+errs {
		t.Errorf("%d records, want %d answers and %d error records", final.lines, len(ids), errs)
	}

	// The scorer keeps the last record of each id: every error record was answered
	// later, so each counts as a duplicate, and none remains a provider error.
	rep := decodeReport(t, run(t, dir, 0, "fbeval", "score", "toolcall-quick", "--responses", "responses.jsonl", "--format", "json").out)
	records, _, dups := checkPerfect(t, rep)
	if records != final.lines || dups != errs {
		t.Errorf("score read %d records with %d duplicates, want %d and %d", records, dups, final.lines, errs)
	}
}

// TestKillAndResume kills fbeval-openai mid-run with SIGKILL, leaves a torn last
// line as a kill during a write would, and resumes: every request is answered once,
// and the scorer finds the study complete with no duplicate. The server answers the
// first answered requests at once and holds every other call until the runner is
// dead, so the file holds exactly those answers when the kill comes, whatever the
// machine's speed.
func TestKillAndResume(t *testing.T) {
	needBinaries(t)
	dir := t.TempDir()
	exportAnswers(t, dir)
	ids := requestIDs(t, filepath.Join(dir, "requests.jsonl"))
	// The server tells requests by their last user message, which the repeats of a
	// case share: the answered requests are those before the first request whose
	// message is not among the first ten's.
	var users []string
	for _, l := range lines(t, filepath.Join(dir, "requests.jsonl")) {
		var r struct {
			Messages []struct{ Role, Content string } `json:"messages"`
		}
		if err := json.Unmarshal(l, &r); err != nil {
			t.Fatal(err)
		}
		users = append(users, r.Messages[len(r.Messages)-1].Content)
	}
	first := map[string]bool{}
	for _, u := range users[:10] {
		first[u] = true
	}
	answered := 10
	for first[users[answered]] {
		answered++
	}
	release := make(chan struct{})
	held := make(chan struct{}, 1)
	url := faultServer(t, dir, func(user string, _ int) fakeserver.Fault {
		if !first[user] {
			select {
			case held <- struct{}{}:
			default:
			}
			<-release
		}
		return fakeserver.Fault{}
	})
	// Registered after the server, so run first: the held calls return before the
	// server closes.
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(free)
	args := append([]string{"--base-url", url, "--model", "m", "--concurrency", "3", "-o", "responses.jsonl"}, fast...)
	args = append(args, "requests.jsonl")
	out := filepath.Join(dir, "responses.jsonl")

	cmd := exec.Command(filepath.Join(binDir, "fbeval-openai"), args...)
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Once a call is held, the answers before it are written or about to be: the file
	// grows to exactly `answered` records and no further.
	stuck := time.After(time.Minute) // only if something is broken
	select {
	case <-held:
	case <-stuck:
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("the runner made no call past the first requests")
	}
	for {
		data, _ := os.ReadFile(out)
		if n := bytes.Count(data, []byte("\n")); n >= answered {
			break
		}
		select {
		case <-stuck:
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the runner wrote %d records, want %d", bytes.Count(data, []byte("\n")), answered)
		case <-time.After(5 * time.Millisecond):
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	free()
	before := countRecords(t, out)
	if before.lines != answered {
		t.Fatalf("%d records when killed, want the %d answered", before.lines, answered)
	}
	f, err := os.OpenFile(out, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"schema_version":"fbeval-response/v1","request_id":"flights-0`)
	f.Close()

	r := run(t, dir, 0, append([]string{"fbeval-openai"}, args...)...)
	if !strings.Contains(r.stderr, "cut off a torn last line") || !strings.Contains(r.stderr, fmt.Sprintf("%d skipped", before.lines)) {
		t.Errorf("resume stderr: %s", r.stderr)
	}
	final := countRecords(t, out)
	checkOnceEach(t, final, ids)
	rep := decodeReport(t, run(t, dir, 0, "fbeval", "score", "toolcall-quick", "--responses", "responses.jsonl", "--format", "json").out)
	if records, _, dups := checkPerfect(t, rep); records != len(ids) || dups != 0 {
		t.Errorf("score read %d records with %d duplicates, want %d and none", records, dups, len(ids))
	}
}

// TestSecondSignalStopsAtOnce: against a server that never answers, a first SIGINT
// lets the calls in flight run on (up to --timeout, here a minute); a second SIGINT,
// or a single SIGTERM, ends the run at once, with the summary line and exit 1.
func TestSecondSignalStopsAtOnce(t *testing.T) {
	needBinaries(t)
	dir := t.TempDir()
	exportAnswers(t, dir)
	release := make(chan struct{})
	held := make(chan struct{}, 16)
	url := faultServer(t, dir, func(string, int) fakeserver.Fault {
		held <- struct{}{}
		<-release
		return fakeserver.Fault{}
	})
	t.Cleanup(func() { close(release) })
	for _, signals := range [][]os.Signal{{os.Interrupt, os.Interrupt}, {syscall.SIGTERM}} {
		out := filepath.Join(dir, "responses.jsonl")
		os.Remove(out)
		cmd := exec.Command(filepath.Join(binDir, "fbeval-openai"), append(append([]string{"--base-url", url, "--model", "m",
			"--timeout", "1m", "--concurrency", "2", "-o", "responses.jsonl"}, fast...), "requests.jsonl")...)
		cmd.Dir = dir
		errb := startHeld(t, cmd, held)
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		for i, s := range signals {
			cmd.Process.Signal(s)
			if i < len(signals)-1 {
				// The first SIGINT stops gently: the held calls keep the runner waiting.
				select {
				case err := <-exited:
					t.Fatalf("%v: the runner exited on the first SIGINT (%v): %s", signals, err, errb.String())
				case <-time.After(300 * time.Millisecond):
				}
			}
		}
		select {
		case err := <-exited:
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				t.Errorf("%v: %v, want exit 1", signals, err)
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
			t.Fatalf("%v: the runner did not stop: %s", signals, errb.String())
		}
		if !strings.Contains(errb.String(), "0 answered, 0 errors, 0 skipped (already answered), 252 left") || !strings.Contains(errb.String(), "stopped: signal: run again with -o FILE to go on") {
			t.Errorf("%v: stderr %s", signals, errb.String())
		}
		data, _ := os.ReadFile(out)
		if len(data) != 0 {
			t.Errorf("%v: records written for aborted calls: %s", signals, data)
		}
	drain:
		for {
			select {
			case <-held:
			default:
				break drain
			}
		}
	}
}

// TestIgnoredSIGINTStaysIgnored: a runner started with SIGINT ignored (a
// script's background job; the shell's trap ”) is not stopped by one: it
// answers every request and exits 0.
func TestIgnoredSIGINTStaysIgnored(t *testing.T) {
	needBinaries(t)
	dir := t.TempDir()
	exportAnswers(t, dir)
	release := make(chan struct{})
	held := make(chan struct{}, 1)
	var once sync.Once
	url := faultServer(t, dir, func(string, int) fakeserver.Fault {
		once.Do(func() { // the first call waits for the signal
			held <- struct{}{}
			<-release
		})
		return fakeserver.Fault{}
	})
	args := append([]string{"-c", `trap '' INT; exec "$0" "$@"`, filepath.Join(binDir, "fbeval-openai"), "--base-url", url, "--model", "m", "-o", "responses.jsonl"}, fast...)
	cmd := exec.Command("sh", append(args, "requests.jsonl")...)
	cmd.Dir = dir
	errb := startHeld(t, cmd, held)
	cmd.Process.Signal(os.Interrupt)
	time.Sleep(200 * time.Millisecond)
	close(release)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v: %s", err, errb.String())
	}
	if strings.Contains(errb.String(), "stopped") || !strings.Contains(errb.String(), "252 answered") {
		t.Errorf("stderr %s", errb.String())
	}
}

// startHeld starts a runner, its stderr kept in the buffer returned, and
// waits until the fault server holds one of its calls (held).
func startHeld(t *testing.T, cmd *exec.Cmd, held <-chan struct{}) *bytes.Buffer {
	t.Helper()
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-held:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatal("no call came")
	}
	return &errb
}
