package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// testingM runs the tests, then removes what the tests built.
type testingM struct{ m *testing.M }

func (t testingM) Run() int {
	defer func() {
		if mockDir != "" {
			os.RemoveAll(mockDir)
		}
	}()
	return t.m.Run()
}

// TestMain lets testscript run this test binary as the fbeval command.
func TestMain(m *testing.M) {
	testscript.Main(testingM{m}, map[string]func(){
		"fbeval": func() {
			removeTempFilesOnSignal()
			os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		},
	})
}

// goTool returns the go command, or "" when there is none. go test puts the
// toolchain's bin directory first on PATH, so this is the go that runs the test.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return ""
}

var (
	mockOnce sync.Once
	mockDir  string // holds the fbeval-mock binary, once built
	mockErr  string
)

// buildMock builds runners/fbeval-mock once (a main package: it cannot be linked
// into this test) and returns its directory, or "" and why not.
func buildMock() (string, string) {
	mockOnce.Do(func() {
		goCmd := goTool()
		if goCmd == "" {
			mockErr = "no go tool to build fbeval-mock"
			return
		}
		dir, err := os.MkdirTemp("", "fbeval-mock-")
		if err != nil {
			mockErr = err.Error()
			return
		}
		cmd := exec.Command(goCmd, "build", "-o", filepath.Join(dir, "fbeval-mock"), "github.com/fbeval/fbeval/runners/fbeval-mock")
		if out, err := cmd.CombinedOutput(); err != nil {
			os.RemoveAll(dir)
			mockErr = "building fbeval-mock: " + strings.TrimSpace(string(out))
			return
		}
		mockDir = dir
	})
	return mockDir, mockErr
}

// TestScripts runs the CLI scripts in testdata/script: exit codes, stdout and
// stderr of whole command lines. Scripts that pipe through fbeval-mock need the go
// tool to build it; they are guarded by [exec:fbeval-mock].
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			if dir, _ := buildMock(); dir != "" {
				env.Setenv("PATH", dir+string(os.PathListSeparator)+env.Getenv("PATH"))
			}
			env.Setenv("NO_COLOR", "1")
			return nil
		},
	})
}
