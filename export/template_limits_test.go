package export

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTemplateBounds: a prompt template cannot run for hours or fill memory: the
// loops and widths that would are refused when it is read, with their line and
// column; what remains is bounded in output size and in time. text/template's
// own errors are said at their line and column too.
func TestTemplateBounds(t *testing.T) {
	old := templateTimeout
	defer func() { templateTimeout = old }()
	user := `{{define "user"}}{{.Prompt}}{{end}}`
	tests := []struct {
		name, tmpl, plan, exec string
	}{
		{"huge range", `{{define "system"}}{{range $i := 1000000000}}x{{end}}{{end}}` + user, `t.tmpl:1:27: prompt template: range over 1000000000: a prompt template may loop at most 100000 times`, ""},
		{"range in a range", `{{define "system"}}{{range 3}}{{range 2000000}}{{end}}{{end}}{{end}}` + user, `range over 2000000`, ""},
		{"printf width", `{{define "system"}}{{printf "%0999999999d" 1}}{{end}}` + user, `printf width or precision 999999999: at most 100000`, ""},
		{"printf star", `{{define "system"}}{{printf "%*d" 999999999 1}}{{end}}` + user, `printf width or precision from an argument (*) is not allowed`, ""},
		{"too much output", `{{define "system"}}{{range 100000}}{{printf "%050000d" 1}}{{end}}{{end}}` + user, "", `prompt template: the text passes 1048576 bytes`},
		{"too long a run", `{{define "system"}}{{range 100000}}{{range 100}}{{end}}{{end}}{{end}}` + user, "", `prompt template: the "system" template ran for more than 50ms`},
		{"fine", `{{define "system"}}{{range 3}}-{{end}}{{printf "%5d" 1}}{{end}}` + user, "", ""},
		// text/template's own errors, at their line and column in the file
		{"parse error", `{{define "system"}}{{.Tool}{{end}}` + user, `t.tmpl:1: prompt template: bad character U+007D '}'`, ""},
		{"a field it is not given", `{{define "system"}}You are {{.Tool.Nam}}{{end}}` + user, "", `t.tmpl:1:34: prompt template: executing "system" at <.Tool.Nam>: can't evaluate field Nam in type string; a template is given .Tool, .Description, .Arguments, .Policies, .Arm, .Schema, .Prompt and .Context (docs/studies.md)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			templateTimeout = 5 * time.Second
			if tt.name == "too long a run" {
				templateTimeout = 50 * time.Millisecond
			}
			path := filepath.Join(t.TempDir(), "t.tmpl")
			os.WriteFile(path, []byte(tt.tmpl), 0o644)
			s, err := LoadStudy("toolcall-quick")
			if err != nil {
				t.Fatal(err)
			}
			if s, err = Resolve(s, Overrides{PromptTemplate: path, Domains: []string{"hotels"}}); err != nil {
				t.Fatal(err)
			}
			p, err := PlanToolcall(s)
			if tt.plan != "" {
				if err == nil || !strings.Contains(err.Error(), tt.plan) {
					t.Fatalf("plan error %v, want %q", err, tt.plan)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, err = p.Requests(false)
			if tt.exec == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.exec) {
				t.Fatalf("requests error %v, want %q", err, tt.exec)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

// TestStudyRangesLocated: a value out of range in a study file is named at its
// line and column.
func TestStudyRangesLocated(t *testing.T) {
	base := "{\n  \"schema_version\": \"fbeval-study/v1\",\n  \"suite\": \"toolcall\",\n"
	for _, tt := range []struct{ body, want string }{
		{`  "repeats": 100000001` + "\n}", "s.json:4:14: study: repeats must be from 1 to 100000000, got 100000001"},
		{`  "repairs": -1` + "\n}", "s.json:4:14: study: repairs must be from 0 to 5, got -1"},
		{`  "filter": {"limit": -3}` + "\n}", "s.json:4:23: study: filter limit must not be negative, got -3"},
		{`  "arms": ["no_schema", "no_schema"]` + "\n}", `s.json:4:25: study: arm "no_schema" is listed twice`},
		{`  "prices": {"input_per_million_usd": 1, "output_per_million_usd": -2}` + "\n}", "s.json:4:68: study: price must not be negative, got -2"},
		{`  "decoding": "magic"` + "\n}", `s.json:4:15: study: decoding must be`},
		{`  "seed": -1` + "\n}", "s.json:4:11: study: seed must not be negative, got -1"},
		{`  "filter": {"domains": ["flights", "hotel"]}` + "\n}", `s.json:4:37: study: unknown domain "hotel"; domains of builtin:toolcall: flights, hotels, calendar, payments, inventory, search; did you mean hotels`},
		{`  "schemas": {"input_schema": "refrence"}` + "\n}", `s.json:4:31: study: unknown schema variant "refrence" (want one of reference, minimal, rich, weak, contradictory and complex-equivalent, or a JSON Schema file: a path, or a name ending .json); did you mean reference`},
	} {
		_, err := ParseStudy("s.json", []byte(base+tt.body))
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.body, err, tt.want)
		}
	}
	// a dataset of one's own may have domains of its own: checked once it is read
	own := base + `  "dataset": "cases.jsonl", "filter": {"domains": ["hotel"]}` + "\n}"
	if _, err := ParseStudy("s.json", []byte(own)); err != nil {
		t.Errorf("a domain of a dataset file: %v", err)
	}
}
