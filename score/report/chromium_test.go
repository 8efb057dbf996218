package report

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const chromium = "/usr/bin/chromium"

// TestHTMLInChromium renders each example page in headless Chromium and fails
// when no screenshot is written or the console reports an error. Screenshots go
// to $FBEVAL_ARTIFACTS when set, else to testdata/out/ (not tracked).
func TestHTMLInChromium(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("%s not found; install chromium to run the browser check", chromium)
	}
	outDir := os.Getenv("FBEVAL_ARTIFACTS")
	if outDir == "" {
		outDir = filepath.Join("testdata", "out")
	}
	outDir, err := filepath.Abs(outDir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, ex := range examples {
		t.Run(ex, func(t *testing.T) {
			doc := load(t, filepath.Join("testdata", ex+".json"))
			tmp := t.TempDir()
			page := filepath.Join(tmp, ex+".html")
			var b bytes.Buffer
			if err := WriteHTML(&b, doc); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			shot := filepath.Join(outDir, ex+".png")
			os.Remove(shot)
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
				"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
				"--user-data-dir="+filepath.Join(tmp, "profile"), "--screenshot="+shot, "--window-size=1280,2000",
				"--enable-logging=stderr", "--v=0", "file://"+page)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("chromium: %v\n%s", err, stderr.String())
			}
			for _, line := range strings.Split(stderr.String(), "\n") {
				if strings.Contains(line, "Uncaught") || strings.Contains(line, "CONSOLE") {
					t.Errorf("browser console: %s", line)
				}
			}
			data, err := os.ReadFile(shot)
			if err != nil {
				t.Fatalf("no screenshot written: %v\n%s", err, stderr.String())
			}
			if !bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")) {
				t.Fatalf("%s is not a PNG", shot)
			}
			t.Logf("screenshot: %s", shot)
		})
	}
}
