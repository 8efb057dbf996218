package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fbeval/fbeval/runners/internal/fakeserver"
)

func writeRequests(t *testing.T, dir string, n int) string {
	t.Helper()
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"schema_version":"fbeval-request/v1","request_id":"r%03d","case_id":"c%03d","suite":"toolcall","attempt":1,"seed":%d,"messages":[{"role":"system","content":"s"},{"role":"user","content":"prompt %d"}]}`+"\n", i, i, i+1, i)
	}
	path := filepath.Join(dir, "requests.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

type rec struct {
	SchemaVersion string  `json:"schema_version"`
	RequestID     string  `json:"request_id"`
	Output        *string `json:"output"`
	Provider      string  `json:"provider"`
	Model         string  `json:"model"`
}

func readRecords(t *testing.T, path string) []rec {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var recs []rec
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		var r rec
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("bad line %q: %v", line, err)
		}
		recs = append(recs, r)
	}
	return recs
}

func TestRunInProcess(t *testing.T) {
	ts := httptest.NewServer(fakeserver.New(fakeserver.Options{Reply: func(u string) string { return "re: " + u }}))
	defer ts.Close()
	dir := t.TempDir()
	in := writeRequests(t, dir, 5)
	for _, api := range []string{"chat", "responses"} {
		var out, errb bytes.Buffer
		code := run(context.Background(), []string{"--model", "m", "--api", api, "--base-url", ts.URL + "/v1", "--api-key-env", "FBEVAL_UNSET_KEY", "--provider", "local", in}, nil, &out, &errb)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", api, code, errb.String())
		}
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if len(lines) != 5 || !strings.HasPrefix(lines[2], `{"schema_version":"fbeval-response/v1","request_id":"r002","case_id":"c002","output":"re: prompt 2","provider":"local","model":"m","latency_ms":`) {
			t.Errorf("%s: output %s", api, out.String())
		}
		if !strings.Contains(errb.String(), "FBEVAL_UNSET_KEY is not set") || !strings.Contains(errb.String(), "5 requests: 5 answered") {
			t.Errorf("%s: stderr %s", api, errb.String())
		}
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{{}, {"--model", "m", "--api", "other"}, {"--model", "m", "--header", "novalue", "x.jsonl"}, {"--model", "m", "missing.jsonl"}} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), args, strings.NewReader(""), &out, &errb); code != 2 || errb.Len() == 0 {
			t.Errorf("%q: exit %d, stderr %q", args, code, errb.String())
		}
	}
}

// TestKillAndResume kills a runner process mid-run with SIGKILL, leaves a torn last
// line as a kill during a write would, and resumes: every request is answered
// exactly once.
func TestKillAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "fbeval-openai")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ts := httptest.NewServer(fakeserver.New(fakeserver.Options{
		Reply: func(u string) string { return "re: " + u },
		Fault: func(string, int) fakeserver.Fault { return fakeserver.Fault{Delay: 20 * time.Millisecond} },
	}))
	defer ts.Close()
	const n = 60
	in := writeRequests(t, dir, n)
	outPath := filepath.Join(dir, "out.jsonl")
	args := []string{"--model", "m", "--base-url", ts.URL + "/v1", "--concurrency", "3", "-o", outPath, in}

	cmd := exec.Command(bin, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		data, _ := os.ReadFile(outPath)
		if bytes.Count(data, []byte("\n")) >= 10 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the runner wrote nothing")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	before := readRecords(t, outPath)
	if len(before) >= n {
		t.Fatalf("the runner finished before it was killed (%d records)", len(before))
	}
	f, _ := os.OpenFile(outPath, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"schema_version":"fbeval-response/v1","request_id":"r0`)
	f.Close()

	var out, errb bytes.Buffer
	if code := run(context.Background(), args, nil, &out, &errb); code != 0 {
		t.Fatalf("resume: exit %d: %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "cut off a torn last line") || !strings.Contains(errb.String(), fmt.Sprintf("%d skipped", len(before))) {
		t.Errorf("resume stderr: %s", errb.String())
	}
	seen := map[string]int{}
	for _, r := range readRecords(t, outPath) {
		var i int
		fmt.Sscanf(r.RequestID, "r%d", &i)
		if r.Output == nil || *r.Output != fmt.Sprintf("re: prompt %d", i) {
			t.Errorf("wrong record %+v", r)
		}
		seen[r.RequestID]++
	}
	for i := range n {
		if id := fmt.Sprintf("r%03d", i); seen[id] != 1 {
			t.Errorf("%s answered %d times", id, seen[id])
		}
	}
}
