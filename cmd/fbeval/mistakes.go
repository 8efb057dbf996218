package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/contract/usage"
	"github.com/fbeval/fbeval/fixtures"
)

// The command line's common mistakes, read for what was meant: response
// files given without --responses, and an output whose name asks for a
// format --format did not give.

// responsesWithoutFlag words a response file given to score as a second
// argument (fbeval score toolcall-quick responses.jsonl, --responses
// forgotten) with the command line that scores it; any other msg is returned
// as it is.
func responsesWithoutFlag(msg string, ctx *kong.Context, given []string) string {
	file, ok := strings.CutPrefix(msg, "unexpected argument ")
	if !ok || usage.Command("fbeval", ctx) != "fbeval score" {
		return msg
	}
	if _, err := os.Stat(file); err != nil && !contract.Stdin(file) {
		return msg
	}
	// every file after the study that is no flag's value gets its flag
	args := []string{"fbeval"}
	positional := 0
	for i, a := range given {
		isFile := func() bool {
			_, err := os.Stat(a)
			return err == nil || contract.Stdin(a)
		}
		switch {
		case i > 0 && takesValue(ctx, given[i-1]):
		case strings.HasPrefix(a, "-") && a != "-":
		case positional < 2: // the command, then the study
			positional++
		case isFile():
			args = append(args, "--responses")
		}
		args = append(args, a)
	}
	// a shell's expansion of a pattern: the pattern, quoted, in the place of
	// its files
	var files []string
	first := -1
	for i := 1; i < len(args); i++ {
		if args[i-1] == "--responses" {
			files = append(files, args[i])
			if first < 0 {
				first = i - 1
			}
		}
	}
	if pattern := patternOf(files); pattern != "" {
		var rest []string
		for i := 0; i < len(args); i++ {
			switch {
			case i == first:
				rest = append(rest, "--responses", pattern)
				i++
			case args[i] == "--responses" && i+1 < len(args):
				i++
			default:
				rest = append(rest, args[i])
			}
		}
		return fmt.Sprintf("unexpected argument %s: response files are given with --responses, one a file, or as one pattern in quotes, which fbeval expands: %s", file, strings.Join(rest, " "))
	}
	return fmt.Sprintf("unexpected argument %s: response files are given with --responses: %s", file, strings.Join(args, " "))
}

// reportJSONL words fbeval report --format jsonl (which kong refuses as a
// value the flag does not take, with json as the value meant) with where case
// results come from; any other msg is returned as it is.
func reportJSONL(msg string, ctx *kong.Context) string {
	if usage.Command("fbeval", ctx) != "fbeval report" || !strings.HasPrefix(msg, "--format jsonl: ") {
		return msg
	}
	return noCaseResults("--format jsonl")
}

// studyWithoutCommand words a study named to fbeval study without show or
// init (fbeval study toolcall-quick) with the two command lines it may have
// meant; any other msg is returned as it is.
func studyWithoutCommand(msg string, ctx *kong.Context) string {
	name, ok := strings.CutPrefix(msg, "unexpected argument ")
	if !ok || usage.Command("fbeval", ctx) != "fbeval study" || strings.Contains(name, ",") {
		return msg
	}
	if _, builtin := fixtures.BuiltinStudy(name); !builtin {
		if _, err := os.Stat(name); err != nil {
			// a word, not a study (fbeval study create)
			return fmt.Sprintf("unknown command fbeval study %s: fbeval study show STUDY prints a study resolved, fbeval study init [STUDY] a study file to edit%s", name, usage.Suggest(name, []string{"show", "init"}))
		}
	}
	return fmt.Sprintf("unexpected argument %s: fbeval study show %s prints the study resolved, fbeval study init %[1]s a study file to edit", name, name)
}

// referenceWords words the commands and flags of the tools fbeval stands in
// for, typed by a user who moves from them (python -m coglang generation-eval
// --responses-file r.jsonl, heschema benchmark), with fbeval's for the same;
// any other msg is returned as it is. Their commands are words where fbeval
// takes its own.
func referenceWords(msg string, ctx *kong.Context) string {
	const ref = "the CogLang reference scorer's"
	if arg, ok := strings.CutPrefix(msg, "unexpected argument "); ok && usage.Command("fbeval", ctx) == "fbeval" {
		switch arg {
		case "generation-eval":
			return "generation-eval is " + ref + " command: fbeval score coglang --responses FILE scores, fbeval export coglang writes the requests"
		case "benchmark":
			return "benchmark is HESchema's command: fbeval export toolcall writes the requests, a runner answers them (fbeval-openai, fbeval-anthropic, fbeval-mock), fbeval score toolcall --responses FILE scores them; a HESchema run's log is converted with fbeval-batch from-heschema DIR"
		case "compare-models":
			return "compare-models is HESchema's command: fbeval compare A.json B.json compares two models' reports"
		case "dataset":
			return "dataset is HESchema's command: fbeval fixtures audit --dataset FILE counts a dataset and checks its gold answers, fbeval fixtures build --out DIR writes fbeval's"
		}
	}
	flag, ok := strings.CutPrefix(msg, "unknown flag ")
	if !ok {
		return msg
	}
	flag, _, _ = strings.Cut(flag, ",") // kong's ", did you mean ..."
	switch flag {
	case "-o", "--output", "--out":
		// kong's nearest flag is -h; the command writes standard output
		cmd := usage.Command("fbeval", ctx)
		if cmd == "fbeval fixtures build" {
			return flag + ": " + cmd + " writes a folder: give it with --out DIR"
		}
		return flag + ": " + cmd + " writes standard output: redirect it to a file (" + cmd + " ... > FILE)"
	case "--responses-file":
		return flag + " is " + ref + " flag: fbeval score coglang takes --responses FILE (repeat it, or quote a pattern, for several files)"
	case "--export-requests":
		return flag + " is " + ref + " flag: fbeval export coglang writes the requests (--format jsonl, json or text)"
	case "--request-format":
		return flag + " is " + ref + " flag: fbeval export coglang takes --format jsonl or json"
	}
	return msg
}

// formatByName is the format an output's name asks for, in order of
// preference (a .txt name: score and report write text, compare a table).
var formatByName = map[string][]string{
	".json": {"json"}, ".jsonl": {"jsonl"}, ".ndjson": {"jsonl"},
	".html": {"html"}, ".htm": {"html"}, ".xml": {"junit"},
	".md": {"markdown"}, ".markdown": {"markdown"}, ".txt": {"text", "table"},
}

// formatFromOutput gives export, score, report and compare the format their -o
// file's name asks for when --format is not given: -o report.html writes the
// HTML page and -o junit.xml JUnit, where they wrote JSON (or a table) under
// that name. A name the command has no format for is refused; a name it does
// not know (or none) keeps the command's default; --format always wins.
func formatFromOutput(ctx *kong.Context, cli *CLI) error {
	var format *string
	var output string
	node := ctx.Selected()
	switch {
	case node == nil:
		return nil
	case node.Name == "score":
		format, output = &cli.Score.Format, cli.Score.Output
	case node.Name == "report":
		format, output = &cli.Report.Format, cli.Report.Output
	case node.Name == "compare":
		format, output = &cli.Compare.Format, cli.Compare.Output
	case node.Name == "export":
		// -o requests.json the batch object, -o summary.txt the summary,
		// where both were JSONL under that name
		format, output = &cli.Export.Format, cli.Export.Output
	default:
		return nil
	}
	for _, p := range ctx.Path {
		if p.Flag != nil && p.Flag.Name == "format" {
			return nil // given
		}
	}
	var enum []string
	for _, f := range ctx.Flags() {
		if f.Name == "format" {
			enum = strings.Split(f.Enum, ",")
		}
	}
	ext := strings.ToLower(filepath.Ext(output))
	want, ok := formatByName[ext]
	if !ok || output == os.DevNull {
		return nil
	}
	for _, w := range want {
		if node.Name == "report" && w == "jsonl" {
			return usageError("%s", noCaseResults("-o "+output))
		}
		if slices.Contains(enum, w) {
			*format = w
			cli.Score.formatByName = node.Name == "score"
			return nil
		}
	}
	return usageError("-o %s: fbeval %s writes no %s file (it writes %s): name the output for one of those, or give --format", output, node.Name, strings.TrimPrefix(ext, "."), strings.Join(enum, ", "))
}

// takesValue reports whether arg is a flag that takes the next argument as
// its value (--cases-out FILE; not --summary-only, nor --format=json).
func takesValue(ctx *kong.Context, arg string) bool {
	name, ok := strings.CutPrefix(arg, "--")
	if !ok || strings.Contains(name, "=") {
		if len(arg) != 2 || arg[0] != '-' || arg[1] == '-' {
			return false
		}
		name = arg[1:] // -o FILE
	}
	for _, f := range ctx.Flags() {
		if f.Name == name || len(name) == 1 && f.Short == rune(name[0]) {
			return !f.IsBool()
		}
	}
	return false
}

// emptyValues refuses a flag or argument given as an empty string
// (usage.EmptyValue), and a flag of one value given twice (usage.Repeated);
// compare's labels may be empty, and fixtures build's --out says what it
// takes itself.
func emptyValues(ctx *kong.Context) error {
	if msg := usage.EmptyValue(ctx, "label-a", "label-b", "out"); msg != "" {
		return usageError("%s", msg)
	}
	if msg := usage.Repeated(ctx); msg != "" {
		return usageError("%s", msg)
	}
	return nil
}

// stdoutAliases makes an output flag that names standard output by a path
// (-o /dev/stdout, /dev/fd/1, /proc/self/fd/1) standard output, "-": written
// as it goes, as without the flag. Followed as a link, the path was refused
// as leading nowhere (a pipe) or not a regular file (a terminal), or had the
// file the shell opened replaced (`>> log` lost what the log held).
func stdoutAliases(ctx *kong.Context) {
	for _, f := range outputFlags(ctx) {
		switch filepath.Clean(f.Target.String()) {
		case "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1":
			f.Target.SetString("-")
		}
	}
}

// outputFlags are the flags of the command that name a file it writes.
func outputFlags(ctx *kong.Context) []*kong.Flag {
	var out []*kong.Flag
	for _, f := range ctx.Flags() {
		switch f.Name {
		case "output", "cases-out", "profile":
			if f.Target.Kind() == reflect.String {
				out = append(out, f)
			}
		}
	}
	return out
}

// openDescriptors looks up the outputs that name a descriptor the process was
// started with (openDescriptor), before the command opens a file of its own.
func (e *Env) openDescriptors(ctx *kong.Context) error {
	for _, f := range outputFlags(ctx) {
		path := f.Target.String()
		if _, done := e.descriptors[path]; done {
			continue
		}
		flag := "--" + f.Name
		if f.Short != 0 {
			flag = "-" + string(f.Short) // as the other messages of outputs name it
		}
		file, err := openDescriptor(flag, path)
		if err != nil {
			return err
		}
		if file != nil {
			if e.descriptors == nil {
				e.descriptors = map[string]*descriptor{}
			}
			e.descriptors[path] = file
		}
	}
	return nil
}

// closeDescriptors closes the descriptors no output was written through.
func (e *Env) closeDescriptors() {
	for _, f := range e.descriptors {
		f.Close()
	}
}
