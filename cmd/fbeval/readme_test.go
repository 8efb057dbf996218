package main

import (
	"os"
	"os/exec"
	"regexp"
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
}
