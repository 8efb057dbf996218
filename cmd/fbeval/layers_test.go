package main

import (
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/score/report"
)

const module = "github.com/fbeval/fbeval"

// layer places a package of the module on the line data flows along, fixtures ->
// export -> score -> cmd: a package may import its own layer and those before it,
// never one after. contract (the wire format) and schemas (JSON Schema) lie below
// every layer; the runners stand apart, on contract alone. score/report, the report
// model every suite fills and every renderer reads, knows nothing of how rows were
// judged: it sits below score, beside contract.
func layer(pkg string) (rank int, name string) {
	rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
	under := func(dir string) bool { return rel == dir || strings.HasPrefix(rel, dir+"/") }
	switch {
	case under("contract"):
		return 0, "contract"
	case under("schemas"):
		return 1, "schemas"
	case under("score/report"):
		return 2, "score/report"
	case under("fixtures"):
		return 3, "fixtures"
	case under("export"):
		return 4, "export"
	case under("score"):
		return 5, "score"
	case under("runners"):
		return 6, "runners"
	case under("cmd"):
		return 7, "cmd"
	}
	return -1, rel
}

// mayImport says whether a package in layer from may import one in layer to.
func mayImport(from, to string) bool {
	switch from {
	case "contract":
		return to == "contract"
	case "schemas":
		return to == "contract" || to == "schemas"
	case "score/report":
		return to == "contract" || to == "schemas" || to == "score/report"
	case "runners":
		return to == "contract" || to == "runners"
	}
	fr, _ := layer(module + "/" + from)
	tr, _ := layer(module + "/" + to)
	return to != "runners" && tr <= fr
}

// TestImportLayers: no package imports one further down the line than itself, and
// export needs nothing under score/ (go list -deps, the way the toolchain sees it).
func TestImportLayers(t *testing.T) {
	goCmd := goTool()
	if goCmd == "" {
		t.Skip("no go tool to list the packages' imports")
	}
	out, err := exec.Command(goCmd, "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 20 {
		t.Fatalf("go list gave an implausible package list:\n%s", out)
	}
	for _, l := range lines {
		f := strings.Fields(l)
		rank, from := layer(f[0])
		if rank < 0 {
			t.Errorf("%s is in no layer: add its folder to layer()", f[0])
			continue
		}
		for _, imp := range f[1:] {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			if _, to := layer(imp); !mayImport(from, to) {
				t.Errorf("%s (%s) imports %s (%s): imports point down the line fixtures -> export -> score -> cmd only", f[0], from, imp, to)
			}
		}
	}

	deps, err := exec.Command(goCmd, "list", "-deps", module+"/export").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	if !strings.Contains(string(deps), module+"/export\n") {
		t.Fatalf("go list -deps gave an implausible list:\n%s", deps)
	}
	for _, d := range strings.Fields(string(deps)) {
		if strings.HasPrefix(d, module+"/score") {
			t.Errorf("export depends on %s: export never imports score", d)
		}
	}
}

// The layer rules themselves: the breaches the test is there to catch are caught.
func TestMayImport(t *testing.T) {
	tests := []struct {
		from, to string
		want     bool
	}{
		{"export", "score", false},
		{"fixtures", "export", false},
		{"score", "cmd", false},
		{"score/report", "score", false},
		{"contract", "schemas", false},
		{"schemas", "score", false},
		{"runners", "score", false},
		{"score", "runners", false},
		{"score", "export", true},
		{"score", "score/report", true},
		{"export", "fixtures", true},
		{"export", "schemas", true},
		{"cmd", "score", true},
		{"schemas", "contract", true},
	}
	for _, tt := range tests {
		if got := mayImport(tt.from, tt.to); got != tt.want {
			t.Errorf("mayImport(%s, %s) = %v, want %v", tt.from, tt.to, got, tt.want)
		}
	}
}

// TestRowLimitDefaults: fbeval report's, compare's and validate's --max-line-bytes
// default is the report reader's own, which takes the row a response line
// at score's limit makes (it quotes the answer more than once).
func TestRowLimitDefaults(t *testing.T) {
	for _, v := range []any{ReportCmd{}, CompareCmd{}, ValidateCmd{}} {
		f, _ := reflect.TypeOf(v).FieldByName("MaxLineBytes")
		if got, want := f.Tag.Get("default"), strconv.FormatInt(report.DefaultMaxRowBytes, 10); got != want {
			t.Errorf("%T: default %s, want %s", v, got, want)
		}
	}
}
