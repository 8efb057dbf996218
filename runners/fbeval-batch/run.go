package main

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/contract/usage"
	"github.com/fbeval/fbeval/runners/internal/anthropic"
	"github.com/fbeval/fbeval/runners/internal/openai"
	"github.com/fbeval/fbeval/runners/internal/runner"
)

const name = "fbeval-batch"

// Provider limits per batch file.
const (
	openaiMaxRequests    = 50000
	openaiMaxBytes       = 200 << 20
	anthropicMaxRequests = 100000
	anthropicMaxBytes    = 256 << 20
)

type splitFlags struct {
	OutDir     string `help:"Write the batch files into DIR (split under the limits) instead of stdout (- is stdout)."`
	MaxPerFile int    `help:"Most requests per batch file (0: the provider's limit)."`
	MaxBytes   int64  `help:"Most bytes per batch file (0: the provider's limit)."`
	Answered   string `help:"Leave out the requests RESPONSES answers already (the -o file of from-*): the batch of those a first batch left with an error or without a result." placeholder:"RESPONSES"`
}

// unanswered returns which requests the batch leaves out: those the
// --answered file answers (nil: none). Its records must answer these
// requests' study or recipe: another export's answers answer none of them.
func (f *splitFlags) unanswered(input string, reqs *runner.Requests) (func(*runner.Item) bool, error) {
	if f.Answered == "" {
		return nil, nil
	}
	if f.Answered == input {
		return nil, usagef("--answered %s: that is the request file: give the responses its first batch's results were converted into", f.Answered)
	}
	o, err := runner.ReadAnswered(f.Answered, runner.Resume{Studies: reqs.Studies(), Recipes: reqs.Recipes()})
	if err != nil {
		return nil, usagef("--answered %v", err)
	}
	return func(it *runner.Item) bool { return o.Answered(it.Req.RequestID) }, nil
}

// notOverAnswered refuses a batch written over the --answered file (by > or
// into --out-dir as a batch-NNNN file): its answers would be lost.
func (f *splitFlags) notOverAnswered(stdout io.Writer, ext string) error {
	if f.Answered == "" {
		return nil
	}
	if f.OutDir == "" || f.OutDir == "-" {
		if err := runner.StdoutNotAnInput(stdout, []string{f.Answered}, "the batch"); err != nil {
			return usagef("%v", err)
		}
		return nil
	}
	dir, errDir := filepath.Abs(f.OutDir)
	answered, errAns := filepath.Abs(f.Answered)
	if errDir == nil && errAns == nil && filepath.Dir(answered) == dir && batchFileName.MatchString(filepath.Base(answered)) && strings.HasSuffix(answered, ext) {
		return usagef("--answered %s is a batch file name in --out-dir %s, which this run writes over: keep the responses elsewhere, or give another --out-dir", f.Answered, f.OutDir)
	}
	return nil
}

// batchFileName is the name of a batch file writeBatches writes.
var batchFileName = regexp.MustCompile(`^batch-[0-9]{4}\.`)

type toOpenAI struct {
	Input               string   `arg:"" optional:"" default:"-" help:"Request file; - reads stdin."`
	Model               string   `required:"" help:"Model name."`
	API                 string   `enum:"chat,responses" default:"chat" help:"Endpoint of every line: ${enum}."`
	MaxTokens           int      `help:"max_tokens of every request (0: the request's, its study's, else left out)."`
	MaxCompletionTokens int      `help:"max_completion_tokens of every request, for models that refuse max_tokens (0: left out)."`
	Temperature         *float64 `help:"Sampling temperature (unset: the request's, its study's, else left out)."`
	NativeSchema        bool     `hidden:"" help:"Accepted and ignored: a request exported with --decoding native_schema is always sent with its response_format."`
	NoSeed              bool     `help:"Leave the request's seed out."`
	splitFlags
}

type toAnthropic struct {
	Input        string   `arg:"" optional:"" default:"-" help:"Request file; - reads stdin."`
	Model        string   `required:"" help:"Model name."`
	MaxTokens    int      `help:"max_tokens of every request (0: the request's, its study's, else 1024; the API requires one)."`
	Temperature  *float64 `help:"Sampling temperature (unset: the request's, its study's, else left out)."`
	NativeSchema bool     `hidden:"" help:"Accepted and ignored: a request exported with --decoding native_schema is always sent with its response_format."`
	splitFlags
}

type fromFlags struct {
	Results  []string `arg:"" help:"Batch results files (JSONL): OpenAI's output and error files, or Anthropic's results file; a quoted pattern ('out/*.jsonl') reads the files it matches; - reads stdin."`
	Requests string   `help:"The request file the batch was made from: restores case ids and the response family, orders the records, reports unknown and missing ids."`
	Output   string   `short:"o" default:"-" placeholder:"FILE" help:"Write responses to FILE, resuming it as the live runners do: requests it answers are skipped, the rest appended; a file of another study or provider, or one another run is writing, is refused. - writes stdout."`
	Fresh    bool     `help:"Start the -o file over instead of resuming it."`
	Provider string   `help:"Provider name written to each record."`
}

type cli struct {
	ToOpenAI      toOpenAI     `cmd:"" name:"to-openai" help:"Requests to OpenAI Batch API input (also vLLM run-batch)."`
	FromOpenAI    fromFlags    `cmd:"" name:"from-openai" help:"OpenAI Batch / vLLM run-batch output and error files to responses."`
	ToAnthropic   toAnthropic  `cmd:"" name:"to-anthropic" help:"Requests to an Anthropic Message Batches create body."`
	FromAnthropic fromFlags    `cmd:"" name:"from-anthropic" help:"Anthropic Message Batches results to responses."`
	FromHESchema  fromHESchema `cmd:"" name:"from-heschema" help:"HESchema's run log (runs.jsonl) to responses, to score a HESchema run with fbeval."`
}

// errUsage is an error that exits 2.
type errUsage struct{ msg string }

func (e *errUsage) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &errUsage{fmt.Sprintf(format, args...)} }

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if msg := noOutputFlag(args); msg != "" {
		fmt.Fprintf(stderr, "%s: %s\n", name, msg)
		return runner.ExitUsage
	}
	var c cli
	ctx, code, done := runner.ParseCommand(&c, name, "Convert fbeval requests to provider batch files and batch results to responses, offline.", args, stdout, stderr, kong.Vars{})
	if done {
		return code
	}
	var err error
	switch ctx.Command() {
	case "to-openai", "to-openai <input>":
		err = c.ToOpenAI.run(stdin, stdout, stderr)
	case "to-anthropic", "to-anthropic <input>":
		err = c.ToAnthropic.run(stdin, stdout, stderr)
	case "from-openai <results>":
		code, err = c.FromOpenAI.run(stdin, stdout, stderr, parseOpenAIResult, false)
	case "from-anthropic <results>":
		code, err = c.FromAnthropic.run(stdin, stdout, stderr, parseAnthropicResult, true)
	case "from-heschema <runs>":
		code, err = c.FromHESchema.run(stdin, stdout, stderr)
	default:
		err = usagef("unknown command %q", ctx.Command())
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		if _, ok := err.(*errUsage); ok {
			return runner.ExitUsage
		}
		if _, ok := err.(*contract.InputError); ok {
			return runner.ExitUsage
		}
		if tw := (*contract.TempWriteError)(nil); errors.As(err, &tw) {
			return runner.ExitUsage // TMPDIR is full: nothing was converted
		}
		return 1
	}
	return code
}

// openRequests opens a request file for reading twice (see runner.OpenRequests),
// calling check, when not nil, with every request of the first reading.
func openRequests(path string, stdin io.Reader, check runner.Check) (*runner.Requests, func(), error) {
	in, name, done, err := contract.OpenInput(path, "requests", stdin)
	if err != nil {
		return nil, nil, usagef("%v", err)
	}
	q, err := runner.OpenRequests(name, in, check)
	if err != nil {
		done()
		return nil, nil, err
	}
	return q, func() { q.Close(); done() }, nil
}

// noOutputFlag says where to-* writes when it is given -o, which the from-*
// commands and the runners take (kong would suggest -h for it).
func noOutputFlag(args []string) string {
	if len(args) == 0 || args[0] != "to-openai" && args[0] != "to-anthropic" {
		return ""
	}
	ext := ".jsonl"
	if args[0] == "to-anthropic" {
		ext = ".json"
	}
	for _, a := range args[1:] {
		if a == "--" {
			break
		}
		if flag, _, _ := strings.Cut(a, "="); flag == "-o" || flag == "--output" {
			return fmt.Sprintf("%s takes no %s: it writes the batch to standard output (fbeval-batch %s ... > batch%s), or split under the provider's limits into --out-dir DIR", args[0], flag, args[0], ext)
		}
	}
	return ""
}

// givenOnce refuses standard input given twice (the results and --requests
// as -, or two results), which can be read once, and a results file given
// twice by any name, whose every result would be read again as a duplicate.
func givenOnce(results []string, requests string, stdin io.Reader) error {
	all := append(slices.Clone(results), requests)
	if n := slices.Index(all, "-"); n >= 0 && slices.Contains(all[n+1:], "-") {
		return usagef("standard input is given twice (-): it can be read once: give one of the results and --requests as a file")
	}
	var set contract.InputSet
	set.Add(results...) // each looked up once
	for i, p := range results {
		if p == "-" || i == 0 {
			continue
		}
		st, err := set.Stat(p, stdin)
		if err != nil {
			continue // said when it is opened
		}
		if first, ok := set.Is(st, stdin, results[:i]...); ok {
			if first == p {
				return usagef("%s is given twice: give each results file once", p)
			}
			return usagef("%s and %s are one file: give each results file once", first, p)
		}
	}
	return nil
}

// batchesNotInput refuses, before a request is read, a standard output that
// is the request file the batch lines are made from: `>> requests.jsonl`
// appended batch lines to the requests, and `> requests.jsonl` emptied them.
func batchesNotInput(dir, input string, stdout io.Writer) error {
	if dir != "" && dir != "-" {
		return nil
	}
	if err := runner.StdoutNotAnInput(stdout, []string{input}, "the batch"); err != nil {
		return usagef("%v", err)
	}
	return nil
}

// batchWriteError is the one line of a batch file, or standard output, that
// could not be written (exit 2): what stopped it, and what to do; the file's
// own temporary name is none of the user's.
func batchWriteError(path string, err error) error {
	return usagef("%s", batchFailure.Line(path, err))
}

// batchFailure words a batch file's failed write: it is renamed into place
// only whole (contract.CreateBeside).
var batchFailure = contract.WriteFailure{
	Output:  "the batch",
	Kept:    "no batch file is left cut short under its name",
	Instead: "give another --out-dir",
}

// batchTemps are the batch files being written (contract.CreateBeside): a signal
// that ends the run removes them, and none is renamed into place after it.
var batchTemps = contract.NewPending()

// notOverOther refuses a batch file path that would be written over a file
// that is no batch file of this kind: the request file the run reads (the
// folder given as --out-dir is the one it is in), a response file, any other
// file a user keeps there. An earlier run's batch file is written over.
func notOverOther(path, input string, shape batchShape) error {
	st, err := os.Stat(path)
	if err != nil {
		return nil
	}
	if input != "" && input != "-" {
		if in, err := os.Stat(input); err == nil && os.SameFile(st, in) {
			return usagef("--out-dir: %s is the request file this run reads, which its batch file of that name would replace: give another --out-dir", path)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil // a file that cannot be read is the write's to refuse
	}
	head := make([]byte, 64<<10)
	n, _ := io.ReadFull(f, head)
	f.Close()
	head = head[:n]
	if len(bytes.TrimSpace(head)) == 0 {
		return nil
	}
	batch := false
	if shape.ext == ".json" {
		batch = bytes.HasPrefix(head, []byte(shape.head))
	} else {
		// a line as to-openai writes one starts so, however long (the
		// first 64 KiB of a long prompt's line is no whole JSON value)
		line, _, _ := bytes.Cut(head, []byte("\n"))
		keys, _ := contract.TopLevel(line)
		at := bytes.Index(line, []byte(`","method":"POST","url":"`))
		batch = bytes.HasPrefix(line, []byte(`{"custom_id":"`)) && at > 0 && at < 1024 || keys["custom_id"] && keys["url"] && keys["body"]
	}
	if batch {
		return nil
	}
	what := "a file that is no batch file of this kind"
	if v := contract.VersionOf(head); contract.FileKind(v) != "" {
		what = contract.FileKind(v) + " (" + v + ")"
	}
	return usagef("--out-dir: %s holds %s, which the batch file of that name would replace: move it, or give another --out-dir", path, what)
}

// batchShape is how a provider's batch file holds its entries.
type batchShape struct {
	head, sep, tail string
	ext             string
	maxN            int
	maxBytes        int64
}

// batchName matches the names of the batch files writeBatches writes.
var batchName = regexp.MustCompile(`^batch-([0-9]{4,})(\.jsonl|\.json)$`)

// staleBatches lists, sorted, the batch files in dir that a run writing n of
// them, named batch-NNNN with ext, does not write again: an earlier run's
// with more files or for the other provider.
func staleBatches(dir string, n int, ext string) []string {
	entries, _ := os.ReadDir(dir)
	var stale []string
	for _, e := range entries {
		m := batchName.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		if k, err := strconv.Atoi(m[1]); err != nil || k < 1 || k > n || m[2] != ext {
			stale = append(stale, e.Name())
		}
	}
	return stale
}

// nBatchFiles is "1 batch file" or "3 batch files".
func nBatchFiles(n int) string {
	if n == 1 {
		return "1 batch file"
	}
	return fmt.Sprintf("%d batch files", n)
}

// planned is the length of a request's batch entry, or the error building it.
type planned struct {
	n   int
	err error
}

// writeBatches builds one entry per request with entry (which appends it to
// dst) and writes them as batch files under the shape's limits: to stdout when
// they fit one, else into dir as batch-0001<ext>, batch-0002<ext>, ... The
// entries are built twice, once to plan the files (and refuse what cannot be
// written before writing anything: check, if not nil, is called with each
// request in file order), on the goroutines that decode the requests, and once
// to write them, one at a time, so only one is held at a time.
func writeBatches(reqs *runner.Requests, entry func(dst []byte, it *runner.Item) ([]byte, error), check func(*runner.Item) error, skip func(*runner.Item) bool, shape batchShape, dir, input string, stdout, stderr io.Writer) error {
	if dir == "-" {
		dir = "" // standard output, as "-" is in every flag, not a folder named "-"
	}
	measure := func() func(*runner.Item) planned {
		var scratch []byte
		return func(it *runner.Item) planned {
			var err error
			scratch, err = entry(scratch[:0], it)
			return planned{len(scratch), err}
		}
	}
	const wrapper = 32
	sep := int64(len(shape.sep))
	var counts []int // entries per file
	var size int64
	i := 0
	skipped := 0
	err := runner.EachPrepared(reqs, measure, func(it *runner.Item, p *planned) error {
		if skip != nil && skip(it) {
			skipped++
			return nil
		}
		if check != nil {
			if err := check(it); err != nil {
				return err
			}
		}
		if p.err != nil {
			return p.err
		}
		i++
		n := int64(p.n) + sep
		if n+wrapper > shape.maxBytes {
			return usagef("%s: the request alone is %d bytes, over the %d-byte file limit (--max-bytes, else the provider's)", it.Where(), n, shape.maxBytes)
		}
		if len(counts) == 0 || counts[len(counts)-1] >= shape.maxN || size+n+wrapper > shape.maxBytes {
			counts = append(counts, 0)
			size = 0
		}
		counts[len(counts)-1]++
		size += n
		return nil
	})
	if err != nil {
		return err
	}
	if skipped > 0 {
		fmt.Fprintf(stderr, "%s: %s answered already, left out\n", name, contract.Plural(skipped, "request", "requests"))
	} else if skip != nil {
		// an --answered file that answers none of them: the whole study
		// is asked again, which is worth a word
		fmt.Fprintf(stderr, "%s: --answered answers none of these requests: the batch holds them all\n", name)
	}
	if len(counts) == 0 {
		if skipped > 0 {
			fmt.Fprintf(stderr, "%s: every request is answered: no batch to make\n", name)
		}
		return nil
	}
	if dir == "" && len(counts) > 1 {
		return usagef("the requests need %d batch files under the provider limits; give --out-dir", len(counts))
	}
	if dir != "" {
		if st, err := os.Stat(dir); err == nil && !st.IsDir() {
			return usagef("--out-dir %s is not a directory: name a directory (a missing one is made)", dir)
		}
		if stale := staleBatches(dir, len(counts), shape.ext); len(stale) > 0 {
			return usagef("--out-dir %s holds %s, which this run (%s) does not write again: an earlier run's batches would be sent with these; remove them, or give an empty --out-dir",
				dir, usage.List(stale, 3), nBatchFiles(len(counts)))
		}
		for k := range counts {
			if err := notOverOther(filepath.Join(dir, fmt.Sprintf("batch-%04d%s", k+1, shape.ext)), input, shape); err != nil {
				return err
			}
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	var w *bufio.Writer
	var f *os.File
	var path string
	file, inFile := 0, 0
	finish := func() error {
		if _, err := w.WriteString(shape.tail); err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
		if f != nil {
			if err := f.Close(); err != nil {
				return err
			}
			if err := batchTemps.Rename(f.Name(), path); err != nil {
				return err
			}
			f = nil
			fmt.Fprintf(stderr, "%s: wrote %s (%s)\n", name, path, contract.Plural(counts[file], "request", "requests"))
		}
		return nil
	}
	var e []byte
	err = reqs.Each(func(it *runner.Item) error {
		if skip != nil && skip(it) {
			return nil
		}
		var err error
		if e, err = entry(e[:0], it); err != nil {
			return err
		}
		if inFile == 0 {
			if dir == "" {
				w = bufio.NewWriterSize(stdout, 1<<20)
			} else {
				// written beside its name and renamed into place once
				// whole: a run stopped or a full disk leaves no batch file
				// cut short under a name that is sent
				path = filepath.Join(dir, fmt.Sprintf("batch-%04d%s", file+1, shape.ext))
				if f, err = contract.CreateBeside(path, 0o666, batchTemps); err != nil {
					return batchWriteError(path, err)
				}
				w = bufio.NewWriterSize(f, 1<<20)
			}
			_, err = w.WriteString(shape.head)
		} else {
			_, err = w.WriteString(shape.sep)
		}
		if err == nil {
			_, err = w.Write(e)
		}
		if inFile++; err == nil && inFile == counts[file] {
			err = finish()
		}
		if err != nil {
			where := path
			if dir == "" {
				where = "standard output"
			}
			return batchWriteError(where, err)
		}
		if inFile == counts[file] {
			file, inFile = file+1, 0
		}
		return nil
	})
	if f != nil {
		f.Close()
		batchTemps.Discard(f.Name())
	}
	return err
}

func (c *toOpenAI) run(stdin io.Reader, stdout, stderr io.Writer) error {
	if c.MaxTokens > 0 && c.MaxCompletionTokens > 0 {
		return usagef("--max-tokens and --max-completion-tokens are exclusive: give one")
	}
	if msg := runner.CheckModel(c.Model); msg != "" {
		return usagef("%s", msg)
	}
	if msg := runner.CheckTemperature(c.Temperature, 2); msg != "" {
		return usagef("%s", msg)
	}
	if err := batchesNotInput(c.OutDir, c.Input, stdout); err != nil {
		return err
	}
	if err := c.notOverAnswered(stdout, ".jsonl"); err != nil {
		return err
	}
	reqs, done, err := openRequests(c.Input, stdin, nil)
	if err != nil {
		return err
	}
	defer done()
	skip, err := c.unanswered(c.Input, reqs)
	if err != nil {
		return err
	}
	opts := openai.Options{Model: c.Model, API: c.API, MaxTokens: c.MaxTokens, MaxCompletionTokens: c.MaxCompletionTokens, Temperature: c.Temperature, NoSeed: c.NoSeed}
	url := "/v1" + opts.Path()
	entry := func(dst []byte, it *runner.Item) ([]byte, error) {
		req := &it.Req
		var body contract.Object
		if c.API == "responses" {
			body = openai.ResponsesBody(req, opts)
		} else {
			body = openai.ChatBody(req, opts)
		}
		line, err := contract.AppendJSON(dst, contract.Object{
			runner.Field("custom_id", batchCustomID(false, req.RequestID, runner.RecipeOf(req))),
			runner.Field("method", "POST"),
			runner.Field("url", url),
			runner.Field("body", body),
		}, contract.Compact, 0)
		return append(line, '\n'), err
	}
	shape := batchShape{ext: ".jsonl", maxN: pick(c.MaxPerFile, openaiMaxRequests), maxBytes: pick64(c.MaxBytes, openaiMaxBytes)}
	return writeBatches(reqs, entry, nil, skip, shape, c.OutDir, c.Input, stdout, stderr)
}

func (c *toAnthropic) run(stdin io.Reader, stdout, stderr io.Writer) error {
	if msg := runner.CheckModel(c.Model); msg != "" {
		return usagef("%s", msg)
	}
	if msg := runner.CheckTemperature(c.Temperature, 1); msg != "" {
		return usagef("%s", msg)
	}
	if err := batchesNotInput(c.OutDir, c.Input, stdout); err != nil {
		return err
	}
	if err := c.notOverAnswered(stdout, ".json"); err != nil {
		return err
	}
	reqs, done, err := openRequests(c.Input, stdin, nil)
	if err != nil {
		return err
	}
	defer done()
	skip, err := c.unanswered(c.Input, reqs)
	if err != nil {
		return err
	}
	opts := anthropic.Options{Model: c.Model, MaxTokens: c.MaxTokens, Temperature: c.Temperature}
	// custom ids are checked for clashes while the files are planned
	seen := map[runner.ID]int{} // the line of the request of each custom id
	var temperature *float64    // the first a request is sent with
	check := func(it *runner.Item) error {
		if temperature == nil {
			_, temperature = runner.Sampling(&it.Req, 0, opts.Temperature)
		}
		cid := batchCustomID(true, it.Req.RequestID, runner.RecipeOf(&it.Req))
		key := idOf(cid)
		if first, dup := seen[key]; dup {
			return fmt.Errorf("%s: request id %q maps to the custom id %q of the request at line %d", it.Where(), it.Req.RequestID, cid, first)
		}
		seen[key] = it.Line
		return nil
	}
	entry := func(dst []byte, it *runner.Item) ([]byte, error) {
		req := &it.Req
		return contract.AppendJSON(dst, contract.Object{
			runner.Field("custom_id", batchCustomID(true, req.RequestID, runner.RecipeOf(req))),
			runner.Field("params", anthropic.Body(req, opts)),
		}, contract.Compact, 0)
	}
	shape := batchShape{head: `{"requests":[`, sep: ",", tail: "]}\n", ext: ".json", maxN: pick(c.MaxPerFile, anthropicMaxRequests), maxBytes: pick64(c.MaxBytes, anthropicMaxBytes)}
	if err := writeBatches(reqs, entry, check, skip, shape, c.OutDir, c.Input, stdout, stderr); err != nil {
		return err
	}
	if temperature != nil {
		// a batch is created at the API version its creator sends, and a
		// refused temperature is found out only when its results come back
		fmt.Fprintf(stderr, "%s: the requests carry temperature %v: create the batch with the header anthropic-version: 2023-06-01, as fbeval-anthropic sends (at 2026-10-21 the API refuses any temperature), for a model that takes it (Claude models released after Claude Opus 4.6 take only 1, or none)\n", name, *temperature)
	}
	return nil
}

func pick(v, def int) int {
	if v > 0 && v < def {
		return v
	}
	return def
}

func pick64(v, def int64) int64 {
	if v > 0 && v < def {
		return v
	}
	return def
}

// result is one batch result line, read into a runner.Result keyed by custom id.
type result struct {
	customID string
	res      runner.Result
	where    string
}

// run converts the results files to response records. The results are read once to
// check and index them (results), the request file once to check it and count its
// requests with results; the records are then written one at a time, each result
// read again from its file, whole, and counted: in request order, or without a
// request file in id order.
func (c *fromFlags) run(stdin io.Reader, stdout, stderr io.Writer, parse parser, anth bool) (int, error) {
	// a quoted pattern of shards, as fbeval score takes them; files joined
	// by commas are given apart
	results, err := contract.ExpandPatterns("", c.Results)
	if err != nil {
		return 0, err
	}
	for _, p := range results {
		if err := contract.CommaList("", p); err != nil {
			return 0, err
		}
	}
	c.Results = results
	if err := givenOnce(c.Results, c.Requests, stdin); err != nil {
		return 0, err
	}
	var names *idNames
	var unmapped string // the first custom id that cannot be mapped back without the request file
	var seen func(cid string)
	tags := map[string]string{} // without a request file: the recipe tags of the toolcall custom ids, and a custom id of each
	var forms [2]string         // without a request file: a tagged custom id of each form of request id (runner.IDForm)
	if c.Requests == "" {
		names = &idNames{}
		seen = func(cid string) {
			id, ok := requestOf(anth, cid)
			if !ok && unmapped == "" {
				unmapped = cid
			}
			names.add(id)
			if !ok {
				return
			}
			_, tag := untagged(anth, cid)
			if tag == "" {
				return // made by hand, or before tags: no export to tell
			}
			form := runner.IDForm(id)
			if forms[form] == "" {
				forms[form] = cid
			}
			// a toolcall export's requests share its recipe, and so its tag;
			// a CogLang request's recipe is its own text's
			if tags[tag] == "" && form == 0 {
				tags[tag] = cid
			}
		}
	}
	if c.Output == "-" {
		// before anything is read: after `> results.jsonl` the results are gone
		if err := runner.StdoutNotAnInput(stdout, append(slices.Clone(c.Results), c.Requests), "the responses"); err != nil {
			return 0, usagef("%v", err)
		}
	}
	rs, err := indexResults(c.Results, stdin, parse, seen)
	if err != nil {
		return 0, err
	}
	defer rs.close()
	if err := oneExport(tags, forms); err != nil {
		return 0, err
	}
	if rs.entries.len() == 0 {
		// an empty download, or the output file of a batch whose every
		// request failed: nothing to convert is no success
		where := contract.FileList(rs.names)
		if anth {
			return 0, usagef("%s: holds no results: download the batch's results (each line a custom_id and its result) and give that file", where)
		}
		return 0, usagef("%s: holds no results: give the batch's output file and its error file (a batch whose every request failed has only the error file)", where)
	}
	// a request's result has its custom id, or the id alone (a batch made
	// before custom ids carried the recipe's tag)
	legacy := 0 // requests joined by an untagged custom id (counted while the request file is checked)
	find := func(it *runner.Item) (first, last int, ok bool) {
		recipe := runner.RecipeOf(&it.Req)
		first, last, ok = rs.find(batchCustomID(anth, it.Req.RequestID, recipe))
		if !ok && tagOf(recipe) != "" {
			first, last, ok = rs.find(batchCustomID(anth, it.Req.RequestID, ""))
		}
		return first, last, ok
	}
	var t tally
	var reqs *runner.Requests
	var studies, recipes map[string]bool
	var order []uint32 // without a request file: the entry of each id's result, by id
	if c.Requests == "" {
		if unmapped != "" {
			_, last, _ := rs.find(unmapped)
			return 0, usagef("%s: custom id %q cannot be mapped back without the request file; give --requests", rs.where(rs.entryAt(last)), unmapped)
		}
		if order, err = lastOfEach(rs); err != nil {
			return 0, err
		}
		slices.SortFunc(order, func(a, b uint32) int {
			if c := bytes.Compare(names.at(a), names.at(b)); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
	} else {
		// the requests with results are counted while the request file is
		// checked; what each result is, when it is read to be written
		withResult := 0
		// the first result's custom id, and the request (of another recipe)
		// whose id it has, if any
		var firstCID, otherRecipe string
		var other *contract.Request
		if rs.entries.len() > 0 {
			r, err := rs.read(rs.entries.at(0))
			if err != nil {
				return 0, err
			}
			firstCID = r.customID
		}
		count := func(it *runner.Item) error {
			first, _, ok := find(it)
			if !ok {
				t.missing++
				if _, tag := untagged(anth, firstCID); other == nil && tag != "" && batchCustomID(anth, it.Req.RequestID, "sha256:"+tag) == firstCID {
					other, otherRecipe = &contract.Request{RequestID: it.Req.RequestID}, runner.RecipeOf(&it.Req)
				}
				return nil
			}
			rs.entryAt(first).flags |= matched
			withResult++
			if _, _, tagged := rs.find(batchCustomID(anth, it.Req.RequestID, runner.RecipeOf(&it.Req))); !tagged {
				legacy++
			}
			return nil
		}
		if err := notBatchFile(c.Requests); err != nil {
			return 0, err
		}
		var done func()
		if reqs, done, err = openRequests(c.Requests, stdin, count); err != nil {
			return 0, err
		}
		defer done()
		studies, recipes = reqs.Studies(), reqs.Recipes()
		for i := range uint32(rs.entries.len()) {
			if rs.entries.at(i).flags&(repeat|matched) == 0 {
				t.unknown++
			}
		}
		if n := rs.entries.len(); n > 0 && withResult == 0 {
			// not one result answers a request: the results of another
			// batch, or another export's requests
			r, err := rs.read(rs.entries.at(0)) // the first line read
			if err != nil {
				return 0, err
			}
			if other != nil {
				_, tag := untagged(anth, r.customID)
				return 0, usagef("%s: custom id %q was made from request %s of another export (its recipe tag %s, where %s's recipe is %s), and not one of the %s answers a request of %s: they answer the requests of another dataset, schema, prompt template, decoding, seed, max_tokens or temperature: give --requests the request file this batch was made from",
					r.where, r.customID, other.RequestID, tag, c.Requests, otherRecipe, contract.Plural(n, "result", "results"), c.Requests)
			}
			return 0, usagef("%s: custom id %q is not in %s, nor is any other of the %s: give --requests the request file this batch was made from (%s holds %s)",
				r.where, r.customID, c.Requests, contract.Plural(n, "result", "results"), c.Requests, contract.Plural(reqs.Len(), "request", "requests"))
		}
	}
	for i := range uint32(rs.entries.len()) {
		if rs.entries.at(i).flags&repeat != 0 {
			t.duplicates++
		}
	}
	if c.Fresh && c.Output == "-" {
		return 0, usagef("--fresh starts an -o file over; give -o FILE")
	}
	run := runner.RunInfo{Runner: name, Provider: c.Provider}
	if run.Provider == "" {
		// as the records say, so that -o refuses a file of the other
		// provider's results (or of another runner)
		run.Provider = "openai-compatible"
		if anth {
			run.Provider = "anthropic"
		}
	}
	w := runner.NewOutput(stdout)
	if c.Output != "-" {
		if w, err = runner.OpenOutput(c.Output, runner.Resume{Fresh: c.Fresh, Run: run, Studies: studies, Recipes: recipes, Inputs: append(slices.Clone(c.Results), c.Requests)}); err != nil {
			return 0, usagef("%v", err)
		}
		defer w.Close()
		if err := otherExport(c.Output, w.Recipes(), w.RecipeTags(), tags); err != nil {
			return 0, err
		}
		if err := otherSuite(c.Output, w.IDForms(), forms); err != nil {
			return 0, err
		}
	}
	var out []byte
	skipped, again := 0, 0
	// prepare reads the result at e again for req and makes its record; buf
	// is the caller's (prepare runs on the goroutines that decode the requests)
	prepare := func(req *contract.Request, study, recipe string, e *entry, buf *[]byte) made {
		r, err := rs.readInto(e, buf)
		if err != nil {
			return made{err: err}
		}
		if want := batchCustomID(anth, req.RequestID, recipe); reqs != nil && r.customID != want && r.customID != batchCustomID(anth, req.RequestID, "") {
			// a request's results are found by the hash of its custom id
			// (runner.ID): the one found must have that custom id
			return made{err: fmt.Errorf("%s: custom id %q is joined to request %q, whose custom id %q shares its hash: convert the two in separate runs", r.where, r.customID, req.RequestID, want)}
		}
		m := made{found: true, failed: r.res.Error != nil, answered: w.Answered(req.RequestID)}
		// results are the same however often they are converted: an error
		// the file holds already is not written again (the next batch's
		// answer to that request is)
		m.recorded = m.failed && !m.answered && w.Errored(req.RequestID)
		if m.answered || m.recorded {
			return m
		}
		if e := r.res.Error; e != nil {
			// the result does not say what temperature its line sent:
			// the request's, unless to-* --temperature stood in
			e.Message += runner.BatchTemperatureAdvice(e.Code, e.Message, toCommand(anth), req.Temperature)
		}
		if c.Provider != "" {
			r.res.Provider = c.Provider
		}
		ri := run
		ri.Study, ri.Recipe = study, recipe
		if reqs == nil && runner.IDForm(req.RequestID) == 0 {
			// no recipe to name: the tag its custom id carries (its
			// export's), which a later conversion into the file checks
			// its results' against
			_, ri.RecipeTag = untagged(anth, r.customID)
		}
		r.res.Run = &ri
		m.record, m.err = runner.AppendRecord(nil, req, &r.res)
		return m
	}
	// write counts a result made for req and writes its record, in order
	write := func(req *contract.Request, m *made) error {
		if m.err != nil || !m.found {
			return m.err
		}
		if m.answered {
			// the file answers it: an error result here is one the
			// answer there supersedes, no failure
			t.count(false)
			skipped++
			return nil
		}
		t.count(m.failed)
		if m.recorded {
			again++
			return nil
		}
		out = append(out, m.record...)
		// whole records, written in blocks
		if len(out) >= 64<<10 {
			err := w.Write(out)
			out = out[:0]
			return err
		}
		return nil
	}
	if reqs == nil {
		var buf []byte
		for _, i := range order {
			req := contract.Request{SchemaVersion: contract.RequestV1, RequestID: string(names.at(i))}
			m := prepare(&req, "", "", rs.entries.at(i), &buf)
			if err = write(&req, &m); err != nil {
				break
			}
		}
	} else {
		// the results are read again and their records made on the
		// goroutines that decode the requests, and written in request order
		err = runner.EachPrepared(reqs, func() func(*runner.Item) made {
			var buf []byte
			return func(it *runner.Item) made {
				first, last, ok := find(it)
				if !ok {
					return made{}
				}
				k, err := rs.winner(first, last, &buf)
				if err != nil {
					return made{err: err}
				}
				return prepare(&it.Req, it.Study, it.Recipe, rs.entryAt(k), &buf)
			}
		}, func(it *runner.Item, m *made) error { return write(&it.Req, m) })
	}
	if err == nil {
		err = w.Write(out)
	}
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		return 0, err
	}
	if skipped > 0 {
		fmt.Fprintf(stderr, "%s: %s: %s already answered, skipped\n", name, c.Output, contract.Plural(skipped, "request", "requests"))
	}
	if again > 0 {
		fmt.Fprintf(stderr, "%s: %s: %s already recorded as errors, not written again\n", name, c.Output, contract.Plural(again, "result", "results"))
	}
	// The notes are found again now rather than held: a results file of another
	// batch has one for every line. Each kind names its first maxNotes and counts
	// the rest in one line, so that a wrong file is a screenful, not a line per
	// result.
	note := func(msg string) { fmt.Fprintf(stderr, "%s: %s\n", name, msg) }
	more := func(n int, what string) {
		if n > 0 {
			note(fmt.Sprintf("and %d more %s", n, what))
		}
	}
	if t.duplicates > 0 {
		n, err := rs.duplicateNotes(note, maxNotes)
		if err != nil {
			return 0, err
		}
		more(n, "lines whose custom id an earlier line has")
	}
	erroredBefore := 0 // requests with no result here and an error in the -o file
	if t.missing > 0 {
		// a request with no result here that the -o file answers already
		// (a retry batch converted into the file of the first) is no
		// missing one; one left with an error there is still a failure
		left, n := maxNotes, 0
		answeredBefore := 0
		t.missing = 0
		err := reqs.Each(func(it *runner.Item) error {
			if _, _, ok := find(it); ok {
				return nil
			}
			switch id := it.Req.RequestID; {
			case w.Answered(id):
				answeredBefore++
			case w.Errored(id):
				erroredBefore++
			default:
				t.missing++
				if left == 0 {
					n++
					return nil
				}
				note(fmt.Sprintf("%s: request %s has no result", it.Where(), it.Req.RequestID))
				left--
			}
			return nil
		})
		if err != nil {
			return 0, err
		}
		more(n, "requests without a result")
		if answeredBefore > 0 {
			note(fmt.Sprintf("%s: %s no result here and an answer there already", c.Output, contract.Plural(answeredBefore, "request has", "requests have")))
		}
		if erroredBefore > 0 {
			note(fmt.Sprintf("%s: %s no result here and an error there", c.Output, contract.Plural(erroredBefore, "request has", "requests have")))
		}
	}
	if t.unknown > 0 {
		n, err := rs.unknownNotes(c.Requests, note, maxNotes)
		if err != nil {
			return 0, err
		}
		more(n, "custom ids not in "+c.Requests)
	}
	if c.Requests == "" {
		note("without --requests the records carry no case id, study or recipe, so fbeval score cannot tell them from answers to another export's prompts: give --requests the request file the batch was made from")
	}
	if legacy > 0 {
		note(fmt.Sprintf("%s custom ids without the recipe tag (a batch made by an older fbeval-batch, by hand, or with its tags cut): they are joined by request id alone, so nothing tells them from answers to another export's prompts; check that %s is the request file the batch was made from", contract.Plural(legacy, "result has", "results have"), c.Requests))
	}
	switch {
	case (t.errors > 0 || erroredBefore > 0) && c.Output != "-" && c.Requests != "":
		// the way on: a batch of what is left, converted into the same file
		note(fmt.Sprintf("the requests left with an error make the next batch: %s %s --model MODEL --answered %s (the model this batch asked), and its results convert into %s as these did", toCommand(anth), c.Requests, c.Output, c.Output))
	case t.errors > 0 && c.Requests != "":
		// written to standard output: the file it went to is the one
		note(fmt.Sprintf("the requests left with an error make the next batch: %s %s --model MODEL --answered FILE, FILE the file these records went to (the model this batch asked), and its results convert into it with -o FILE", toCommand(anth), c.Requests))
	}
	left := ""
	if erroredBefore > 0 {
		left = fmt.Sprintf(", %d left with an error in %s", erroredBefore, c.Output)
	}
	fmt.Fprintf(stderr, "%s: %s: %d answered, %s, %s, %d unknown, %d missing%s\n",
		name, contract.Plural(rs.entries.len(), "result", "results"), t.answered, contract.Plural(t.errors, "error", "errors"), contract.Plural(t.duplicates, "duplicate", "duplicates"), t.unknown, t.missing, left)
	if t.errors+t.unknown+t.missing+erroredBefore > 0 {
		return 1, nil
	}
	return 0, nil
}

// otherExport refuses, without a request file, results whose custom ids were
// made from another recipe than every record of the -o file names, by its
// recipe or, converted without the request file, its recipe tag (the results
// of another export's batch, joined to this one's answers): tags are the
// results' recipe tags, each with a custom id that has it.
func otherExport(output string, fileRecipes, fileTags map[string]bool, tags map[string]string) error {
	if len(fileRecipes) == 0 && len(fileTags) == 0 {
		return nil
	}
	known := map[string]bool{}
	var of []string // what the file's records answer
	for r := range fileRecipes {
		known[tagOf(r)] = true
		of = append(of, r)
	}
	for t := range fileTags {
		known[t] = true
		of = append(of, "the recipe tagged "+t)
	}
	slices.Sort(of)
	for _, tag := range slices.Sorted(maps.Keys(tags)) {
		if !known[tag] {
			return usagef("-o %s: its records answer the requests of %s, and custom id %q was made from another (its recipe tag %s): the results of another export's batch; give --requests the request file the batch was made from, or write to another file", output, strings.Join(of, ", "), tags[tag], tag)
		}
	}
	return nil
}

// suiteOf names the suite of a form of request id (runner.IDForm).
var suiteOf = [2]string{"toolcall", "CogLang"}

// otherSuite refuses, without a request file, results of one suite's batch
// into an -o file of the other's records (fileForms: an id of the file's
// records of each form; forms: a custom id of the results' of each).
func otherSuite(output string, fileForms, forms [2]string) error {
	for f := range 2 {
		if fileForms[f] != "" && fileForms[1-f] == "" && forms[1-f] != "" {
			return usagef("-o %s: its records answer %s requests (%s), and custom id %q is a %s request's: the results of another export's batch; give --requests the request file the batch was made from, or write to another file", output, suiteOf[f], fileForms[f], forms[1-f], suiteOf[1-f])
		}
	}
	return nil
}

// oneExport refuses, without a request file, results whose custom ids carry
// the recipe tags of several exports (tags: each with a custom id that has
// it), or are of the requests of both suites (forms): one conversion would
// join the answers to two exports' prompts by request id, and the last would
// win at scoring.
func oneExport(tags map[string]string, forms [2]string) error {
	if forms[0] != "" && forms[1] != "" {
		return usagef("the results answer the batches of two exports, a toolcall one (custom id %q) and a CogLang one (custom id %q): convert each export's results apart, with --requests the request file its batch was made from", forms[0], forms[1])
	}
	if len(tags) < 2 {
		return nil
	}
	keys := slices.Sorted(maps.Keys(tags))
	more := ""
	if len(keys) > 2 {
		more = fmt.Sprintf(", and %d more", len(keys)-2)
	}
	return usagef("the results answer the batches of %d exports (custom id %q, recipe tag %s; custom id %q, recipe tag %s%s): convert each export's results apart, with --requests the request file its batch was made from",
		len(keys), tags[keys[0]], keys[0], tags[keys[1]], keys[1], more)
}

// notBatchFile refuses a batch's own file (its results, or the batch sent)
// given as --requests, where the request file goes: the advice the request
// reader gives for it (convert it with from-*) is the command being run.
func notBatchFile(path string) error {
	if path == "-" {
		return nil
	}
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		// a pipe (<(...), /dev/stdin) or a FIFO gives its bytes once:
		// the request reader's, which looking here first would take
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil // the request reader says why
	}
	defer f.Close()
	head := make([]byte, 64<<10)
	n, _ := io.ReadFull(f, head)
	line, _, _ := bytes.Cut(head[:n], []byte("\n"))
	keys, _ := contract.TopLevel(line)
	what, _ := contract.Foreign(line)
	switch {
	case keys["custom_id"] && (keys["response"] || keys["result"]):
		return usagef("--requests %s: this is %s, not the request file: give it before --requests with the other results files, and give --requests the request file the batch was made from (fbeval export's)", path, what)
	case keys["custom_id"] && (keys["body"] || keys["params"]):
		return usagef("--requests %s: this is %s, the batch sent, not the request file: give --requests the request file the batch was made from (fbeval export's)", path, what)
	}
	return nil
}

// maxNotes is how many duplicates, requests without a result and unknown custom
// ids from-* names one by one, each kind; the rest are counted.
const maxNotes = 10

// lastOfEach is the entry of the result that stands for every custom id
// (results.winner), in id hash order.
func lastOfEach(rs *results) ([]uint32, error) {
	var out []uint32
	var buf []byte
	first := 0
	for k := range rs.byID {
		if k+1 == len(rs.byID) || rs.entryAt(k+1).id != rs.entryAt(k).id {
			w, err := rs.winner(first, k, &buf)
			if err != nil {
				return nil, err
			}
			out = append(out, rs.byID[w])
			first = k + 1
		}
	}
	return out, nil
}

// toCommand is the command that wrote the batch files whose results a from-*
// reads.
func toCommand(anth bool) string {
	if anth {
		return "fbeval-batch to-anthropic"
	}
	return "fbeval-batch to-openai"
}
