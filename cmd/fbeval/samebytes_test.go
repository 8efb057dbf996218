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
	return answerFile(t, filepath.Join(dir, "toolcall.jsonl"), "request_id", "reference_output",
		func(i int, rec map[string]any, ref string) bool {
			rec["input_token_count"], rec["output_token_count"], rec["latency_ms"] = 100+i, 20, 10*i
			switch i % 7 {
			case 1:
				rec["output"] = `{"action":"call_tool","tool":"search_flights","arguments":{}}`
			case 2:
				rec["output"] = "```json\n" + ref + "\n```"
			}
			return i%7 != 5
		}, "not json\n", "export", "toolcall-quick", "--domain", "flights", "--limit", "1", "--include-reference")
}

// coglangResponses answers the CogLang fixture with its reference answers, some
// of them wrong, unparsable, a provider error or missing.
func coglangResponses(t *testing.T, dir string) string {
	return answerFile(t, filepath.Join(dir, "coglang.jsonl"), "case_id", "reference_expr",
		func(i int, rec map[string]any, _ string) bool {
			switch i % 9 {
			case 1:
				rec["output"] = "Equals[1, 2]"
			case 2:
				rec["output"] = "Equal[1, "
			}
			return i%9 != 5
		}, `{"case_id": "NOT-A-CASE", "output": "Equal[1, 1]"}`+"\n", "export", "coglang", "--include-reference")
}

// answerFile writes a response file to path: one record per request fbeval
// export writes for args, under the request's id (idKey) with its reference
// answer (refKey) as output, changed by answer (false leaves the request
// unanswered); every third a provider error instead; then tail.
func answerFile(t *testing.T, path, idKey, refKey string, answer func(i int, rec map[string]any, ref string) bool, tail string, args ...string) string {
	code, requests, stderr := runMain(t, nil, args...)
	if code != 0 {
		t.Fatalf("export: %s", stderr)
	}
	var out strings.Builder
	sc := bufio.NewScanner(strings.NewReader(requests))
	sc.Buffer(nil, 1<<20)
	for i := 0; sc.Scan(); i++ {
		var req map[string]any
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			t.Fatal(err)
		}
		ref, _ := req[refKey].(string)
		rec := map[string]any{idKey: req[idKey], "output": ref}
		if !answer(i, rec, ref) {
			continue
		}
		if i%3 == 0 {
			delete(rec, "output")
			rec["error"] = map[string]string{"code": "rate_limited", "message": "slow down"}
		}
		line, _ := json.Marshal(rec)
		out.Write(append(line, '\n'))
	}
	out.WriteString(tail)
	if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
