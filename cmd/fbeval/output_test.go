package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/contract"
)

// TestOutputTargets: -o and --cases-out replace regular files and write streams
// (TestOutputToStreams): a device that is no terminal, a directory or an input
// of the run is refused with one line and left alone; the null device throws
// the output away; a symbolic link is written through to its target; an
// existing file keeps its mode.
func TestOutputTargets(t *testing.T) {
	dir := t.TempDir()
	responses := filepath.Join(dir, "r.jsonl")
	if err := os.WriteFile(responses, []byte(strings.Join(goodToolcallLines(t), "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	score := append(append([]string(nil), smallToolcall...), "--responses", responses)
	for _, tt := range []struct {
		name, out, want string
	}{
		{"device", "/dev/zero", "fbeval: /dev/zero: not a regular file (a character device): write to a regular file, or leave out the output flag for standard output\n"},
		{"directory", dir, "fbeval: " + dir + ": not a regular file (a directory): write to a regular file, or leave out the output flag for standard output\n"},
		{"the input", responses, "fbeval: " + responses + ": is the input " + responses + ": write the output to another file\n"},
	} {
		for _, flag := range []string{"-o", "--cases-out"} {
			t.Run(tt.name+" "+flag, func(t *testing.T) {
				code, _, stderr := runMain(t, nil, append(score, flag, tt.out)...)
				if code != 2 || stderr != tt.want {
					t.Errorf("exit %d, stderr %q, want 2 and %q", code, stderr, tt.want)
				}
			})
		}
	}
	if data, _ := os.ReadFile(responses); !strings.HasPrefix(string(data), `{"schema_version":"fbeval-response/v1"`) {
		t.Errorf("the responses were overwritten: %.100s", data)
	}
	// the input reached through a symbolic link is the input too
	link := filepath.Join(dir, "link-to-input")
	os.Symlink(responses, link)
	if code, _, stderr := runMain(t, nil, append(score, "-o", link)...); code != 2 || !strings.Contains(stderr, "is the input") {
		t.Errorf("a link to the input: exit %d, %q", code, stderr)
	}

	// The null device, by its name or a link, throws either output away:
	// the run is the same, its exit code too (1 here: a gate fails).
	nullLink := filepath.Join(dir, "null-link")
	os.Symlink(os.DevNull, nullLink)
	for _, names := range [][2]string{{os.DevNull, os.DevNull}, {os.DevNull, nullLink}} {
		args := append(score, "-o", names[0], "--cases-out", names[1], "--format", "json", "--gate", "input_schema.final_success_percent<50")
		code, stdout, stderr := runMain(t, nil, args...)
		if code != 1 || stdout != "" || !strings.Contains(stderr, "gate failed: input_schema.final_success_percent<50") {
			t.Errorf("-o %s --cases-out %s: exit %d, stdout %q, stderr %q; want exit 1 and the gate named", names[0], names[1], code, stdout, stderr)
		}
	}
	if st, err := os.Lstat(os.DevNull); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Errorf("%s was replaced: %v %v", os.DevNull, st.Mode(), err)
	}

	// -o and --cases-out naming one file, by one name, two names or a link
	both := filepath.Join(dir, "both.json")
	bothLink := filepath.Join(dir, "both-link.json")
	os.Symlink("both.json", bothLink)
	for _, names := range [][2]string{{both, both}, {both, filepath.Join(dir, ".", "both.json")}, {bothLink, both}} {
		code, _, stderr := runMain(t, nil, append(score, "-o", names[0], "--cases-out", names[1], "--format", "json")...)
		want := "fbeval: -o " + names[0] + " and --cases-out " + names[1] + " name one file, and the second written would replace the first: give each its own file\n"
		if code != 2 || stderr != want {
			t.Errorf("-o %s --cases-out %s: exit %d, %q", names[0], names[1], code, stderr)
		}
		if code, _, stderr := runMain(t, nil, append(score, "-o", both)...); code != 0 { // the file exists from here on
			t.Fatalf("exit %d: %s", code, stderr)
		}
	}

	t.Run("symlink and mode", func(t *testing.T) {
		target := filepath.Join(dir, "report.json")
		if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
		link := filepath.Join(dir, "report-link.json")
		if err := os.Symlink("report.json", link); err != nil {
			t.Fatal(err)
		}
		if code, _, stderr := runMain(t, nil, append(score, "-o", link)...); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Errorf("the link was replaced")
		}
		st, err := os.Stat(target)
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("target mode %v (%v), want 0600", st.Mode(), err)
		}
		if data, _ := os.ReadFile(target); !strings.Contains(string(data), `"schema_version": "fbeval-report/v1"`) {
			t.Errorf("the report was not written through the link: %.100s", data)
		}
		leftovers, _ := filepath.Glob(filepath.Join(dir, ".fbeval-*.tmp"))
		if len(leftovers) > 0 {
			t.Errorf("temporary files left: %v", leftovers)
		}
	})
}

// TestOutputKeepsWhatFbevalCannotWrite: -o and --cases-out never replace a
// file that no fbeval command writes again (responses of either family, a
// provider's batch results, a study, a CogLang fixture): one line, exit 2,
// the file as it was. A report, requests or an unknown file are replaced.
func TestOutputKeepsWhatFbevalCannotWrite(t *testing.T) {
	dir := t.TempDir()
	responses := filepath.Join(dir, "r.jsonl")
	if err := os.WriteFile(responses, []byte(strings.Join(goodToolcallLines(t), "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	score := append(append([]string(nil), smallToolcall...), "--responses", responses)
	for _, tt := range []struct{ name, content, what string }{
		{"responses", `{"schema_version": "fbeval-response/v1", "request_id": "x.no_schema.r1.a1", "output": "{}"}` + "\n", "a response file (fbeval-response/v1)"},
		{"coglang responses", `[{"case_id": "L1-001", "output": "Equal[1, 1]"}]`, "response records (request_id or case_id, with output, text, completion or error)"},
		{"batch results", `{"custom_id": "r1", "result": {"type": "succeeded"}}` + "\n", "Anthropic Message Batches results (custom_id, result)"},
		{"study", `{"schema_version": "fbeval-study/v1", "suite": "toolcall"}`, "a study file (fbeval-study/v1)"},
		{"fixture", `{"schema_version": "coglang-generation-eval-fixture/v0.1", "cases": []}`, "a CogLang fixture (coglang-generation-eval-fixture/v0.1)"},
	} {
		for _, flag := range []string{"-o", "--cases-out"} {
			t.Run(tt.name+" "+flag, func(t *testing.T) {
				kept := filepath.Join(dir, "kept.json")
				if err := os.WriteFile(kept, []byte(tt.content), 0o644); err != nil {
					t.Fatal(err)
				}
				code, stdout, stderr := runMain(t, nil, append(score, flag, kept)...)
				want := "fbeval: " + kept + ": holds " + tt.what + ", which this output would replace and fbeval cannot write again: name another output (or remove the file first, if you mean to replace it)\n"
				if code != 2 || stdout != "" || stderr != want {
					t.Errorf("exit %d, stdout %.80q, stderr %q; want 2 and %q", code, stdout, stderr, want)
				}
				if data, _ := os.ReadFile(kept); string(data) != tt.content {
					t.Errorf("the file was replaced: %.100s", data)
				}
			})
		}
	}
	// export -o too: one owner decides for every output
	kept := filepath.Join(dir, "kept.jsonl")
	os.WriteFile(kept, []byte(`{"request_id": "a", "output": "{}"}`+"\n"), 0o644)
	if code, _, stderr := runMain(t, nil, "export", "toolcall-quick", "-o", kept); code != 2 || !strings.Contains(stderr, ": holds response records") {
		t.Errorf("export -o over responses: exit %d, %q", code, stderr)
	}
	// a report over a report, an empty file and any other file are replaced (a
	// file of fbeval's of another kind is not: output_other_kind.txtar)
	for _, content := range []string{
		`{"schema_version": "fbeval-report/v1", "rows": []}`,
		"",
		"notes\n",
	} {
		out := filepath.Join(dir, "out.json")
		os.WriteFile(out, []byte(content), 0o644)
		if code, _, stderr := runMain(t, nil, append(score, "-o", out, "--format", "json")...); code != 0 {
			t.Errorf("over %.40q: exit %d, %s", content, code, stderr)
		}
		if data, _ := os.ReadFile(out); !strings.Contains(string(data), `"schema_version": "fbeval-report/v1"`) {
			t.Errorf("over %.40q: the report was not written: %.100s", content, data)
		}
	}
}

// TestTempFileRemovedOnSignal: while an output is written its temporary file is
// registered, and what the signal handler runs removes it.
func TestTempFileRemovedOnSignal(t *testing.T) {
	dir := t.TempDir()
	env := &Env{}
	// the process goes on: later writes are renamed again
	defer func(p *contract.Pending) { tempFiles = p }(tempFiles)
	tempFiles = contract.NewPending()
	var tmp []string
	err := writeFileAtomic(env, filepath.Join(dir, "out.json"), func(w *bufio.Writer) error {
		tmp, _ = filepath.Glob(filepath.Join(dir, ".fbeval-*.tmp"))
		if len(tmp) != 1 {
			t.Fatalf("temporary files %v", tmp)
		}
		tempFiles.RemoveAll() // what SIGINT, SIGTERM and SIGHUP run
		if _, err := os.Stat(tmp[0]); !os.IsNotExist(err) {
			t.Errorf("the temporary file is still there: %v", err)
		}
		return &exitError{code: 2}
	})
	if err == nil {
		t.Fatal("want the write's error")
	}
	if _, err := os.Stat(filepath.Join(dir, "out.json")); !os.IsNotExist(err) {
		t.Errorf("a failed write left the output: %v", err)
	}
}

// TestControlCharactersEscaped: a file name with a newline and an ESC, and model
// output with NUL and ESC, reach no human format raw: stderr lines stay whole and
// text, tables and Markdown carry escapes.
func TestControlCharactersEscaped(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "evil\x1b[2J\nname.jsonl")
	lines := goodToolcallLines(t)
	lines[0] = strings.Replace(lines[0], `"output":"`, `"output":"\u0000\u001b[31mred `, 1)
	lines = append(lines, "junk")
	if err := os.WriteFile(name, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"text", "table", "markdown"} {
		code, stdout, stderr := runMain(t, nil, append(smallToolcall, "--responses", name, "--format", format)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", format, code, stderr)
		}
		for _, out := range []string{stdout, stderr} {
			if strings.ContainsAny(out, "\x00\x1b") {
				t.Errorf("%s: raw NUL or ESC in the output:\n%q", format, out)
			}
		}
		for _, l := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
			if !strings.HasPrefix(l, "fbeval: ") {
				t.Errorf("%s: a stderr line was split: %q", format, l)
			}
		}
		if !strings.Contains(stderr, `evil\x1b[2J\nname.jsonl:8:1:`) {
			t.Errorf("%s: the file name is not escaped in stderr:\n%s", format, stderr)
		}
		if format == "markdown" && !strings.Contains(stdout, `\x00\x1b`) {
			t.Errorf("the model output is not shown escaped:\n%.2000s", stdout)
		}
	}
}

// TestProfileTarget: --profile is an output too: a device is refused.
func TestProfileTarget(t *testing.T) {
	code, _, stderr := runMain(t, nil, "score", "coglang", "--reference-answers", "--profile", "/dev/null")
	if code != 2 || !strings.HasPrefix(stderr, "fbeval: --profile /dev/null: not a regular file (a character device): name a regular file") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// TestStdoutIsAnInput: a standard output that is a file the command reads, as
// `>>` and `>` onto an input make it (also through the file on standard input,
// or onto a fixture), is exit 2 and one line before anything is written, and
// the file is left as it was; `-o` naming the file on standard input is too.
func TestStdoutIsAnInput(t *testing.T) {
	dir := t.TempDir()
	responses := filepath.Join(dir, "r.jsonl")
	data := []byte(strings.Join(goodToolcallLines(t), "\n") + "\n")
	if err := os.WriteFile(responses, data, 0o644); err != nil {
		t.Fatal(err)
	}
	fixture := filepath.Join(dir, "fx.json")
	fx := []byte(`{"schema_version": "coglang-generation-eval-fixture/v0.1", "cases": [{"case_id": "c1", "level": "L1", "prompt": "p", "reference_expr": "Equal[1, 1]", "expected_top_level_heads": ["Equal"]}]}`)
	if err := os.WriteFile(fixture, fx, 0o644); err != nil {
		t.Fatal(err)
	}
	// the same records as three shards, a link to the second beside them
	lines := goodToolcallLines(t)
	var shards []string
	for i, part := range [][]string{lines[:1], lines[1:2], lines[2:]} {
		p := filepath.Join(dir, "shards", fmt.Sprintf("s%d.jsonl", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.Join(part, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		shards = append(shards, p)
	}
	shardData, _ := os.ReadFile(shards[2])
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(shards[1], link); err != nil {
		t.Fatal(err)
	}
	pattern := filepath.Join(dir, "shards", "*.jsonl")
	open := func(p string, flag int) *os.File {
		f, err := os.OpenFile(p, flag, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	score := append(append([]string(nil), smallToolcall...), "--format", "json")
	for _, tc := range []struct {
		name   string
		args   []string
		stdin  string // a file given as standard input
		stdout string // the file standard output appends to
		want   string
	}{
		{"responses >>", slices.Concat(score, []string{"--responses", responses}), "", responses, "standard output is " + responses + ", which this command reads"},
		{"responses - < >>", slices.Concat(score, []string{"--responses", "-"}), responses, responses, "standard output is the file on standard input, which this command reads"},
		{"-o onto the file on standard input", slices.Concat(score, []string{"--responses", "-", "-o", responses}), responses, "", responses + ": is the file on standard input, which this command reads"},
		{"fixture >>", []string{"score", "coglang", "--fixture", fixture, "--reference-answers"}, "", fixture, "standard output is " + fixture + ", which this command reads"},
		{"export >>", []string{"export", "coglang", "--fixture", fixture}, "", fixture, "standard output is " + fixture + ", which this command reads"},
		{"report >>", []string{"report", responses}, "", responses, "standard output is " + responses + ", which this command reads"},
		// study show and init read their study file: the misleading "the study
		// file is empty" came after `> study.json`
		{"study show >>", []string{"study", "show", fixture}, "", fixture, "standard output is " + fixture + ", which this command reads"},
		{"study init >>", []string{"study", "init", fixture}, "", fixture, "standard output is " + fixture + ", which this command reads"},
		// contract lint and check read files of their flags too: the file
		// appended to (>>) or emptied (>), exit 0
		{"contract lint >>", []string{"contract", "lint", fixture}, "", fixture, "standard output is " + fixture + ", which this command reads"},
		{"check --state >>", []string{"check", "--domain", "hotels", "--state", fixture, responses}, "", fixture, "standard output is " + fixture + ", which this command reads"},
		{"check --context >>", []string{"check", "--contract", responses, "--context", fixture, responses}, "", fixture, "standard output is " + fixture + ", which this command reads"},
		{"the last of the shards >>", slices.Concat(score, []string{"--responses", pattern}), "", shards[2], "standard output is " + shards[2] + ", which this command reads"},
		{"--cases-out a link to a shard", slices.Concat(score, []string{"--responses", pattern, "--cases-out", link}), "", "", link + ": is the input " + shards[1] + ": write the output to another file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdin io.Reader = strings.NewReader("")
			if tc.stdin != "" {
				stdin = open(tc.stdin, os.O_RDONLY)
			}
			var stdout io.Writer = new(bytes.Buffer)
			if tc.stdout != "" {
				stdout = open(tc.stdout, os.O_WRONLY|os.O_APPEND)
			}
			var stderr bytes.Buffer
			code := Main(tc.args, stdin, stdout, &stderr)
			if code != 2 || !strings.Contains(stderr.String(), tc.want) || strings.Count(stderr.String(), "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want 2 and %q on one line", code, stderr.String(), tc.want)
			}
		})
		if got, _ := os.ReadFile(responses); !bytes.Equal(got, data) {
			t.Fatalf("%s: the responses changed", tc.name)
		}
		if got, _ := os.ReadFile(fixture); !bytes.Equal(got, fx) {
			t.Fatalf("%s: the fixture changed", tc.name)
		}
		if got, _ := os.ReadFile(shards[2]); !bytes.Equal(got, shardData) {
			t.Fatalf("%s: the last shard changed", tc.name)
		}
	}
}

// TestOneFileGivenTwice: a response file named twice, by its name or once as
// standard input, is said to be one file read twice; two files are not.
func TestOneFileGivenTwice(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	line := `{"request_id":"flights-000.input_schema.r1.a1","output":"{}"}` + "\n"
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		args  []string
		stdin string
		want  string
	}{
		{[]string{"--responses", a, "--responses", a}, "", a + " and " + a + " are one file, given twice"},
		{[]string{"--responses", "-", "--responses", a}, a, "the file on standard input and " + a + " are one file, given twice"},
		// the name first, then standard input: said as well (it was not)
		{[]string{"--responses", a, "--responses", "-"}, a, a + " and the file on standard input are one file, given twice"},
		{[]string{"--responses", a, "--responses", b}, "", ""},
	} {
		var stdin io.Reader = strings.NewReader("")
		if tt.stdin != "" {
			f, err := os.Open(tt.stdin)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			stdin = f
		}
		var stdout, stderr bytes.Buffer
		Main(append([]string{"score", "toolcall-quick", "--format", "table"}, tt.args...), stdin, &stdout, &stderr)
		if got := strings.Contains(stderr.String(), "given twice"); got != (tt.want != "") || tt.want != "" && !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("%v: stderr %q, want %q", tt.args, stderr.String(), tt.want)
		}
	}
}
