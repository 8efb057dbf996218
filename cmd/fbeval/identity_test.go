package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/fbeval/fbeval/export"
	"github.com/fbeval/fbeval/fixtures"
	"github.com/fbeval/fbeval/fixtures/synth"
)

// TestScoreIdentity: the same study scored from one response file, from the same
// records shuffled, and from the shuffled records split over three files (three
// --responses), at 1, 2 and 4 workers, gives the same bytes in every output: the
// JSON report, --format jsonl and --cases-out (toolcall), the JSON result
// (CogLang). Only what names and describes the response files read (toolcall
// "inputs"; CogLang "answer_source" and "response_file"."files": names, hashes,
// line counts) may differ, as it describes different files.
func TestScoreIdentity(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// variants writes the study-order file, the shuffled file, and the shuffled
	// records dealt over three files; it returns the --responses arguments of each.
	variants := func(prefix string, study []byte) map[string][]string {
		t.Helper()
		var shuffled bytes.Buffer
		if err := synth.Shuffle(&shuffled, study, 5); err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(shuffled.Bytes(), study) {
			t.Fatal("the shuffle left the records in study order")
		}
		parts := make([]bytes.Buffer, 3)
		for i, line := range strings.SplitAfter(strings.TrimSuffix(shuffled.String(), "\n"), "\n") {
			parts[i%3].WriteString(line)
		}
		v := map[string][]string{
			"one file": {"--responses", write(prefix+"-study.jsonl", study)},
			"shuffled": {"--responses", write(prefix+"-shuffled.jsonl", shuffled.Bytes())},
		}
		for i := range parts {
			v["three files"] = append(v["three files"], "--responses", write(fmt.Sprintf("%s-part%d.jsonl", prefix, i+1), parts[i].Bytes()))
		}
		return v
	}

	t.Run("toolcall", func(t *testing.T) {
		repeats := 5 // 1,260 rows: the outputs are built over several ranges of rows
		requests, study := quickResponses(t, repeats)
		base := []string{"score", "toolcall-quick", "--repeats", strconv.Itoa(repeats)}
		var want map[string]string
		for name, files := range variants("tc", study) {
			for _, w := range []string{"1", "2", "4"} {
				got := map[string]string{}
				casesOut := filepath.Join(dir, "cases.jsonl")
				code, stdout, stderr := runMain(t, nil, append(append(base, files...), "--workers", w, "--format", "json", "--cases-out", casesOut)...)
				if code > 1 {
					t.Fatalf("%s, %s workers: exit %d: %s", name, w, code, stderr)
				}
				got["report"] = string(cut(t, []byte(stdout), "inputs"))
				cases, err := os.ReadFile(casesOut)
				if err != nil {
					t.Fatal(err)
				}
				got["--cases-out"] = string(cases)
				_, stdout, _ = runMain(t, nil, append(append(base, files...), "--workers", w, "--format", "jsonl")...)
				got["jsonl"] = stdout
				// --cases-out is written beside the JSON report's rows, jsonl on its own
				if got["jsonl"] != got["--cases-out"] {
					t.Fatalf("%s, %s workers: --cases-out beside the JSON report differs from --format jsonl", name, w)
				}
				if want == nil {
					want = got
					if strings.Count(want["--cases-out"], "\n") != requests || !strings.Contains(want["--cases-out"], `"first_pass_success":false`) {
						t.Fatalf("the study does not mix passing and failing rows, one per request:\n%.300s", want["--cases-out"])
					}
					continue
				}
				for out := range want {
					if got[out] != want[out] {
						t.Errorf("%s, %s workers: %s differs (%d bytes, want %d)", name, w, out, len(got[out]), len(want[out]))
					}
				}
			}
		}
	})

	t.Run("coglang", func(t *testing.T) {
		fx := synth.CogLangFixture(fixtures.DefaultCogLangFixture(), 300)
		var fxFile bytes.Buffer
		if err := synth.WriteCogLangFixture(&fxFile, fx); err != nil {
			t.Fatal(err)
		}
		fxPath := write("fx.json", fxFile.Bytes())
		var study bytes.Buffer
		if err := synth.CogLangResponses(&study, fx, len(fx.Cases), 3); err != nil {
			t.Fatal(err)
		}
		var want string
		for name, files := range variants("cg", study.Bytes()) {
			for _, w := range []string{"1", "2", "4"} {
				code, stdout, stderr := runMain(t, nil, append(append([]string{"score", "coglang", "--fixture", fxPath}, files...), "--workers", w, "--format", "json")...)
				if code > 1 {
					t.Fatalf("%s, %s workers: exit %d: %s", name, w, code, stderr)
				}
				got := string(cut(t, cut(t, []byte(stdout), "answer_source"), "response_file", "files"))
				if want == "" {
					want = got
					if !strings.Contains(want, `"case_count": 300`) || !strings.Contains(want, `"ok": false`) {
						t.Fatalf("the result does not score 300 cases with failures:\n%.300s", want)
					}
					continue
				}
				if got != want {
					t.Errorf("%s, %s workers: the JSON result differs (%d bytes, want %d)", name, w, len(got), len(want))
				}
			}
		}
	})
}

// cut returns doc with the value at the member path (object members from the top)
// replaced by "…", or fails the test when the path is missing.
func cut(t *testing.T, doc []byte, path ...string) []byte {
	t.Helper()
	d := jsontext.NewDecoder(bytes.NewReader(doc))
	for depth := range path {
		if tok, err := d.ReadToken(); err != nil || tok.Kind() != '{' {
			t.Fatalf("no object where %s should be: %v", strings.Join(path[:depth], "."), err)
		}
		for {
			if d.PeekKind() != '"' {
				t.Fatalf("no member %s", strings.Join(path[:depth+1], "."))
			}
			name, err := d.ReadToken()
			if err != nil {
				t.Fatal(err)
			}
			if name.String() == path[depth] {
				break
			}
			if err := d.SkipValue(); err != nil {
				t.Fatal(err)
			}
		}
	}
	start := d.InputOffset()
	if err := d.SkipValue(); err != nil {
		t.Fatal(err)
	}
	end := d.InputOffset()
	return append(append(append([]byte{}, doc[:start]...), ": \"…\""...), doc[end:]...)
}

// quickResponses answers the toolcall-quick study at repeats (0: the study's
// own) with one fbeval-synth record per request, about half failing: the
// number of requests and the JSONL.
func quickResponses(t *testing.T, repeats int) (int, []byte) {
	t.Helper()
	s, err := export.LoadStudy("toolcall-quick")
	if err != nil {
		t.Fatal(err)
	}
	if repeats > 0 {
		if s, err = export.Resolve(s, export.Overrides{Repeats: &repeats}); err != nil {
			t.Fatal(err)
		}
	}
	p, err := export.PlanToolcall(s)
	if err != nil {
		t.Fatal(err)
	}
	reqs, err := p.Requests(true)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := synth.ToolcallResponses(&b, reqs, len(reqs), 3); err != nil {
		t.Fatal(err)
	}
	return len(reqs), b.Bytes()
}
