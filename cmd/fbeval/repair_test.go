package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/fixtures/fixturetest"
)

// TestRepairFromGolden: two repair rounds of a small study, from handwritten
// answers, give the same request bytes every time (a golden file): the
// conversation of every earlier attempt, its output and its public feedback.
func TestRepairFromGolden(t *testing.T) {
	dir := t.TempDir()
	study := []string{"toolcall-quick", "--domain", "payments", "--category", "complete", "--category", "conflict", "--limit", "1", "--arms", "input_schema", "--repairs", "2"}
	code, reqs, stderr := runMain(t, nil, append([]string{"export"}, study...)...)
	if code != 0 {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	// Every arm answers with fenced JSON (JSON_INVALID), then with an object that
	// fails the schema, then (never asked) with nothing.
	answer := func(requests string, output func(id string) string) string {
		var b strings.Builder
		for _, l := range strings.Split(strings.TrimSpace(requests), "\n") {
			var r struct {
				RequestID string `json:"request_id"`
			}
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatal(err)
			}
			rec, _ := json.Marshal(map[string]string{"request_id": r.RequestID, "output": output(r.RequestID)})
			b.Write(append(rec, '\n'))
		}
		return b.String()
	}
	round1 := filepath.Join(dir, "round1.jsonl")
	write(t, round1, answer(reqs, func(string) string {
		return "```json\n{\"action\":\"call_tool\",\"tool\":\"make_payment\",\"arguments\":{},\"missingFields\":[],\"reason\":\"\"}\n```"
	}))
	code, repairs1, stderr := runMain(t, nil, append(append([]string{"export"}, study...), "--repair-from", round1)...)
	if code != 0 || repairs1 == "" {
		t.Fatalf("first repair round: exit %d: %s", code, stderr)
	}
	round2 := filepath.Join(dir, "round2.jsonl")
	write(t, round2, answer(repairs1, func(string) string {
		return `{"action":"call_tool","tool":"make_payment","arguments":{"amountMinor":"12","currency":"inr","memo/~x":1},"missingFields":[],"reason":"second try"}`
	}))
	code, repairs2, stderr := runMain(t, nil, append(append([]string{"export"}, study...), "--repair-from", round1, "--repair-from", round2)...)
	if code != 0 || repairs2 == "" {
		t.Fatalf("second repair round: exit %d: %s", code, stderr)
	}
	fixturetest.Golden(t, filepath.Join("testdata", "repair-from.golden"), []byte(repairs1+repairs2))
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
