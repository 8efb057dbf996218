package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestREADMECommands runs every sh block of README.md, in order, in an empty
// folder with the binaries built from this tree on PATH, so the README cannot
// drift from what the commands do. "go run ./cmd/fbeval" and "go run
// ./runners/NAME" run the built binaries; "go test ./..." is skipped (it is this).
func TestREADMECommands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every binary")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllSubmatch(readme, -1)
	if len(blocks) < 3 {
		t.Fatalf("found %d sh blocks in README.md", len(blocks))
	}
	bin := t.TempDir()
	gotool := goTool()
	if gotool == "" {
		t.Fatal("no go command on PATH")
	}
	build := exec.Command(gotool, "build", "-o", bin+"/", "./cmd/fbeval", "./runners/...")
	build.Dir = "../.."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	checkDistinctOutputs(t, string(readme))
	goRun := regexp.MustCompile(`go run \./(?:cmd|runners)/([a-z-]+)`)
	work := t.TempDir()
	for i, b := range blocks {
		var lines []string
		for _, line := range strings.Split(string(b[1]), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "go test ") || strings.HasPrefix(strings.TrimSpace(line), "go install ") {
				continue
			}
			lines = append(lines, goRun.ReplaceAllString(line, "$1"))
		}
		script := "set -euo pipefail\n" + strings.Join(lines, "\n")
		cmd := exec.Command("bash", "-c", script)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("README sh block %d failed: %v\n--- script\n%s\n--- output\n%s", i+1, err, script, out)
		}
	}
	checkClaims(t, string(readme), work)
}

// outputTarget finds the files a README command writes: > FILE, -o FILE,
// --cases-out FILE.
var outputTarget = regexp.MustCompile(`(?:^|\s)(?:>|-o|--cases-out)\s+([A-Za-z0-9_.,/-]+)`)

// checkDistinctOutputs fails when two README commands write the same file: the
// blocks run in one folder, and a runner resumes into a file it finds, so a
// reused name would mix two runs and make a later number untrue.
func checkDistinctOutputs(t *testing.T, readme string) {
	seen := map[string]string{}
	for _, line := range strings.Split(readme, "\n") {
		for _, m := range outputTarget.FindAllStringSubmatch(line, -1) {
			if m[1] == "/dev/null" {
				continue
			}
			if prev, ok := seen[m[1]]; ok {
				t.Errorf("README writes %s twice:\n  %s\n  %s", m[1], prev, line)
			}
			seen[m[1]] = line
		}
	}
}

// everyArm100 matches a README command that says its JSON report has 100 % in
// every arm.
var everyArm100 = regexp.MustCompile(`>\s*([A-Za-z0-9_.-]+\.json).*#.*100% in every arm`)

// checkClaims checks the numbers the README's comments state against the files
// the blocks wrote.
func checkClaims(t *testing.T, readme, dir string) {
	n := 0
	for _, m := range everyArm100.FindAllStringSubmatch(readme, -1) {
		n++
		data, err := os.ReadFile(filepath.Join(dir, m[1]))
		if err != nil {
			t.Errorf("README claims 100%% in every arm of %s: %v", m[1], err)
			continue
		}
		var rep struct {
			Complete bool `json:"complete"`
			Arms     map[string]struct {
				First *float64 `json:"first_pass_success_percent"`
				Final *float64 `json:"final_success_percent"`
			} `json:"arms"`
		}
		if err := json.Unmarshal(data, &rep); err != nil {
			t.Errorf("%s: %v", m[1], err)
			continue
		}
		if !rep.Complete || len(rep.Arms) == 0 {
			t.Errorf("README claims 100%% in every arm of %s: complete %v, %d arms", m[1], rep.Complete, len(rep.Arms))
		}
		for arm, a := range rep.Arms {
			if a.First == nil || *a.First != 100 || a.Final == nil || *a.Final != 100 {
				t.Errorf("README claims 100%% in every arm of %s; arm %s has first-pass %v, final %v", m[1], arm, fmtPtr(a.First), fmtPtr(a.Final))
			}
		}
	}
	if n < 2 {
		t.Errorf("found %d \"100%% in every arm\" claims in README.md, want the toolcall reference and live reports", n)
	}
}

func fmtPtr(p *float64) string {
	if p == nil {
		return "null"
	}
	return strconv.FormatFloat(*p, 'f', -1, 64)
}

// TestDocsFences: every code fence of the README and docs/ is closed, so that
// no command, figure or table of a run's output renders as prose and no prose
// after it as code.
func TestDocsFences(t *testing.T) {
	docs, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	fence := regexp.MustCompile("(?m)^ *```")
	for _, name := range append(docs, "../../README.md") {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(fence.FindAllIndex(data, -1)); n%2 != 0 {
			t.Errorf("%s: %d code fences, one of them not closed", filepath.Base(name), n)
		}
	}
}
