package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// reportFormats are the formats both fbeval score and fbeval report write.
var reportFormats = []string{"json", "text", "table", "markdown", "html", "junit"}

// fbeval score --format X and fbeval report SAVED.json --format X print the same
// bytes, for both suites and every format: both render the one typed report model,
// and the saved report reads back into it whole.
func TestScoreAndReportSameBytes(t *testing.T) {
	t.Setenv("COLUMNS", "")
	dir := t.TempDir()
	toolcall := toolcallResponses(t, dir)
	coglang := coglangResponses(t, dir)
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"toolcall", []string{"score", "toolcall-quick", "--domain", "flights", "--limit", "1", "--responses", toolcall,
			"--input-price", "0.15", "--output-price", "0.6", "--gate", "input_schema.first_pass_success_percent>=50"}},
		{"coglang", []string{"score", "coglang", "--responses", coglang}},
		{"coglang-summary-only", []string{"score", "coglang", "--responses", coglang, "--summary-only"}},
		{"coglang-failures-only", []string{"score", "coglang", "--responses", coglang, "--failures-only"}},
		{"coglang-reference", []string{"score", "coglang", "--reference-answers"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			saved := filepath.Join(dir, tt.name+".json")
			if code, _, stderr := runMain(t, nil, append(tt.args, "-o", saved)...); code > 1 {
				t.Fatalf("score exited %d: %s", code, stderr)
			}
			for _, format := range reportFormats {
				code, scored, stderr := runMain(t, nil, append(tt.args, "--format", format)...)
				if code > 1 {
					t.Fatalf("score --format %s exited %d: %s", format, code, stderr)
				}
				code, rendered, stderr := runMain(t, nil, "report", saved, "--format", format)
				if code != 0 {
					t.Fatalf("report --format %s exited %d: %s", format, code, stderr)
				}
				if scored != rendered {
					i := 0
					for i < min(len(scored), len(rendered)) && scored[i] == rendered[i] {
						i++
					}
					t.Errorf("--format %s: score and report differ at byte %d:\nscore:  %q\nreport: %q", format, i,
						scored[i:min(len(scored), i+80)], rendered[i:min(len(rendered), i+80)])
				}
			}
		})
	}
}

// toolcallResponses answers a small toolcall study with its reference answers,
// some of them broken, one a provider error and some rows left without any.
func toolcallResponses(t *testing.T, dir string) string {
	code, requests, stderr := runMain(t, nil, "export", "toolcall-quick", "--domain", "flights", "--limit", "1", "--include-reference")
	if code != 0 {
		t.Fatalf("export: %s", stderr)
	}
	var out strings.Builder
	sc := bufio.NewScanner(strings.NewReader(requests))
	sc.Buffer(nil, 1<<20)
	for i := 0; sc.Scan(); i++ {
		var req struct {
			RequestID       string `json:"request_id"`
			ReferenceOutput string `json:"reference_output"`
		}
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			t.Fatal(err)
		}
		rec := map[string]any{"request_id": req.RequestID, "output": req.ReferenceOutput, "input_token_count": 100 + i, "output_token_count": 20, "latency_ms": 10 * i}
		switch i % 7 {
		case 1:
			rec["output"] = `{"action":"call_tool","tool":"search_flights","arguments":{}}`
		case 2:
			rec["output"] = "```json\n" + req.ReferenceOutput + "\n```"
		case 3:
			delete(rec, "output")
			rec["error"] = map[string]string{"code": "rate_limit", "message": "slow down"}
		case 5:
			continue
		}
		line, _ := json.Marshal(rec)
		out.Write(append(line, '\n'))
	}
	out.WriteString("not json\n")
	path := filepath.Join(dir, "toolcall.jsonl")
	if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// coglangResponses answers the CogLang fixture with its reference answers, some
// of them wrong, unparsable, a provider error or missing.
func coglangResponses(t *testing.T, dir string) string {
	code, requests, stderr := runMain(t, nil, "export", "coglang", "--include-reference")
	if code != 0 {
		t.Fatalf("export: %s", stderr)
	}
	var out strings.Builder
	sc := bufio.NewScanner(strings.NewReader(requests))
	sc.Buffer(nil, 1<<20)
	for i := 0; sc.Scan(); i++ {
		var req struct {
			CaseID    string `json:"case_id"`
			Reference string `json:"reference_expr"`
		}
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			t.Fatal(err)
		}
		rec := map[string]any{"case_id": req.CaseID, "output": req.Reference}
		switch i % 9 {
		case 1:
			rec["output"] = "Equals[1, 2]"
		case 2:
			rec["output"] = "Equal[1, "
		case 3:
			delete(rec, "output")
			rec["error"] = map[string]string{"code": "rate_limited", "message": "slow down"}
		case 5:
			continue
		}
		line, _ := json.Marshal(rec)
		out.Write(append(line, '\n'))
	}
	out.WriteString(`{"case_id": "NOT-A-CASE", "output": "Equal[1, 1]"}` + "\n")
	path := filepath.Join(dir, "coglang.jsonl")
	if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
