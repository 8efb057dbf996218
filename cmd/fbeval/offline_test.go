package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoNetworkPackages: the fbeval command links no networking package. Only the
// runners talk to networks.
func TestNoNetworkPackages(t *testing.T) {
	goCmd := goTool()
	if goCmd == "" {
		t.Skip("no go tool to list the command's dependencies")
	}
	out, err := exec.Command(goCmd, "list", "-deps", ".").Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("go list -deps: %v\n%s", err, stderr)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 || !strings.Contains(string(out), "github.com/fbeval/fbeval/contract\n") {
		t.Fatalf("go list gave an implausible dependency list:\n%s", out)
	}
	forbidden := map[string]bool{"net": true, "net/http": true, "net/rpc": true, "net/smtp": true, "crypto/tls": true}
	for _, d := range deps {
		if forbidden[d] || strings.HasPrefix(d, "net/http/") {
			t.Errorf("cmd/fbeval depends on %s; networking belongs in runners/", d)
		}
	}
}

// answerRequests writes the reference answer of every request in a JSONL request
// file, as a runner would (fbeval-mock --mode reference does the same).
func answerRequests(t *testing.T, requests []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(requests))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var req struct {
			RequestID string  `json:"request_id"`
			CaseID    string  `json:"case_id"`
			RefOutput *string `json:"reference_output"`
			RefExpr   *string `json:"reference_expr"`
		}
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			t.Fatal(err)
		}
		var rec map[string]string
		switch {
		case req.RefOutput != nil:
			rec = map[string]string{"request_id": req.RequestID, "output": *req.RefOutput}
		case req.RefExpr != nil:
			rec = map[string]string{"case_id": req.CaseID, "output": *req.RefExpr}
		default:
			t.Fatalf("request without a reference answer: %s", sc.Bytes())
		}
		b, _ := json.Marshal(rec)
		out.Write(append(b, '\n'))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestScoreWithoutNetwork runs the command in a network namespace with no
// interface but a downed loopback (unshare -rn) and checks that it exports and
// scores exactly as it does outside.
func TestScoreWithoutNetwork(t *testing.T) {
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("unshare (util-linux) is not installed")
	}
	if out, err := exec.Command(unshare, "-rn", "cat", "/proc/net/dev").CombinedOutput(); err != nil {
		t.Skipf("unshare -rn is not permitted here: %v %s", err, bytes.TrimSpace(out))
	} else {
		// the namespace must really have no way out: only a loopback interface
		for _, l := range strings.Split(string(out), "\n")[2:] {
			if name, _, ok := strings.Cut(strings.TrimSpace(l), ":"); ok && name != "lo" {
				t.Fatalf("the namespace has interface %q", name)
			}
		}
	}
	// testscript put a copy of this binary named fbeval on PATH; it runs Main
	fbeval, err := exec.LookPath("fbeval")
	if err != nil {
		t.Fatalf("fbeval is not on PATH: %v", err)
	}
	dir := t.TempDir()
	run := func(offline bool, args ...string) (int, []byte, []byte) {
		t.Helper()
		var cmd *exec.Cmd
		if offline {
			cmd = exec.Command(unshare, append([]string{"-rn", fbeval}, args...)...)
		} else {
			cmd = exec.Command(fbeval, args...)
		}
		cmd.Dir = dir
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, stdout.Bytes(), stderr.Bytes()
	}
	for _, study := range []string{"coglang", "toolcall-quick"} {
		t.Run(study, func(t *testing.T) {
			code, reqs, stderr := run(true, "export", study, "--include-reference")
			if code != 0 {
				t.Fatalf("offline export: exit %d: %s", code, stderr)
			}
			if _, online, _ := run(false, "export", study, "--include-reference"); !bytes.Equal(reqs, online) {
				t.Fatal("offline export differs from the online one")
			}
			responses := filepath.Join(dir, study+".responses.jsonl")
			if err := os.WriteFile(responses, answerRequests(t, reqs), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"score", study, "--responses", responses}
			code, offline, stderr := run(true, args...)
			if code != 0 {
				t.Fatalf("offline score: exit %d: %s", code, stderr)
			}
			onCode, online, _ := run(false, args...)
			if onCode != 0 || !bytes.Equal(offline, online) {
				t.Errorf("offline report differs from the online one (exit %d)", onCode)
			}
			if !bytes.Contains(offline, []byte(`"ok": true`)) && !bytes.Contains(offline, []byte(`"complete": true`)) {
				t.Errorf("the offline report does not show a full score:\n%.500s", offline)
			}
		})
	}
}
