package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/alecthomas/kong"

	"github.com/fbeval/fbeval/contract"
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
	OutDir     string `help:"Write the batch files into DIR (split under the limits) instead of stdout."`
	MaxPerFile int    `help:"Most requests per batch file (0: the provider's limit)."`
	MaxBytes   int64  `help:"Most bytes per batch file (0: the provider's limit)."`
}

type toOpenAI struct {
	Input               string   `arg:"" optional:"" default:"-" help:"Request file; - reads stdin."`
	Model               string   `required:"" help:"Model name."`
	API                 string   `enum:"chat,responses" default:"chat" help:"Endpoint of every line: ${enum}."`
	MaxTokens           int      `help:"max_tokens of every request (0: left out)."`
	MaxCompletionTokens int      `help:"max_completion_tokens of every request, for models that refuse max_tokens (0: left out)."`
	Temperature         *float64 `help:"Sampling temperature (unset: left out)."`
	NativeSchema        bool     `help:"Pass a request's response_format on."`
	NoSeed              bool     `help:"Leave the request's seed out."`
	splitFlags
}

type toAnthropic struct {
	Input        string   `arg:"" optional:"" default:"-" help:"Request file; - reads stdin."`
	Model        string   `required:"" help:"Model name."`
	MaxTokens    int      `default:"1024" help:"max_tokens of every request."`
	Temperature  *float64 `help:"Sampling temperature (unset: left out)."`
	NativeSchema bool     `help:"Pass a request's response_format on as structured output (output_config.format)."`
	splitFlags
}

type fromFlags struct {
	Results  []string `arg:"" help:"Batch output and error files (JSONL); - reads stdin."`
	Requests string   `help:"The request file the batch was made from: restores case ids and the response family, orders the records, reports unknown and missing ids."`
	Output   string   `short:"o" default:"-" placeholder:"FILE" help:"Write responses to FILE, resuming it as the live runners do: requests it answers are skipped, the rest appended; a file of another study or provider is refused. - writes stdout."`
	Fresh    bool     `help:"Start the -o file over instead of resuming it."`
	Provider string   `help:"Provider name written to each record."`
}

type cli struct {
	ToOpenAI      toOpenAI    `cmd:"" name:"to-openai" help:"Requests to OpenAI Batch API input (also vLLM run-batch)."`
	FromOpenAI    fromFlags   `cmd:"" name:"from-openai" help:"OpenAI Batch / vLLM run-batch output and error files to responses."`
	ToAnthropic   toAnthropic `cmd:"" name:"to-anthropic" help:"Requests to an Anthropic Message Batches create body."`
	FromAnthropic fromFlags   `cmd:"" name:"from-anthropic" help:"Anthropic Message Batches results to responses."`
}

// errUsage is an error that exits 2.
type errUsage struct{ msg string }

func (e *errUsage) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &errUsage{fmt.Sprintf(format, args...)} }

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
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
		code, err = c.FromOpenAI.run(stdin, stdout, stderr, readOpenAIResults, false)
	case "from-anthropic <results>":
		code, err = c.FromAnthropic.run(stdin, stdout, stderr, readAnthropicResults, true)
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
		return 1
	}
	return code
}

func readItems(path string, stdin io.Reader) ([]runner.Item, error) {
	if path == "-" {
		return runner.ReadRequests("<stdin>", stdin)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, usagef("cannot read requests: %v", err)
	}
	defer f.Close()
	return runner.ReadRequests(path, f)
}

func (c *toOpenAI) run(stdin io.Reader, stdout, stderr io.Writer) error {
	items, err := readItems(c.Input, stdin)
	if err != nil {
		return err
	}
	if c.MaxTokens > 0 && c.MaxCompletionTokens > 0 {
		return usagef("--max-tokens and --max-completion-tokens are exclusive: give one")
	}
	opts := openai.Options{Model: c.Model, API: c.API, MaxTokens: c.MaxTokens, MaxCompletionTokens: c.MaxCompletionTokens, Temperature: c.Temperature, NativeSchema: c.NativeSchema, NoSeed: c.NoSeed}
	url := "/v1" + opts.Path()
	lines := make([][]byte, len(items))
	for i := range items {
		req := &items[i].Req
		var body contract.Object
		if c.API == "responses" {
			body = openai.ResponsesBody(req, opts)
		} else {
			body = openai.ChatBody(req, opts)
		}
		line, err := contract.Marshal(contract.Object{
			runner.Field("custom_id", req.RequestID),
			runner.Field("method", "POST"),
			runner.Field("url", url),
			runner.Field("body", body),
		}, contract.Compact)
		if err != nil {
			return err
		}
		lines[i] = append(line, '\n')
	}
	files, err := split(lines, pick(c.MaxPerFile, openaiMaxRequests), pick64(c.MaxBytes, openaiMaxBytes), 0)
	if err != nil {
		return err
	}
	return writeFiles(files, c.OutDir, ".jsonl", stdout, stderr, func(part [][]byte) []byte { return concat(part) })
}

func (c *toAnthropic) run(stdin io.Reader, stdout, stderr io.Writer) error {
	items, err := readItems(c.Input, stdin)
	if err != nil {
		return err
	}
	opts := anthropic.Options{Model: c.Model, MaxTokens: c.MaxTokens, Temperature: c.Temperature, NativeSchema: c.NativeSchema}
	seen := map[string]string{}
	entries := make([][]byte, len(items))
	for i := range items {
		req := &items[i].Req
		cid := anthropicCustomID(req.RequestID)
		if other, dup := seen[cid]; dup {
			return fmt.Errorf("%s: request ids %q and %q map to the same custom id %q", items[i].Where(), other, req.RequestID, cid)
		}
		seen[cid] = req.RequestID
		entry, err := contract.Marshal(contract.Object{
			runner.Field("custom_id", cid),
			runner.Field("params", anthropic.Body(req, opts)),
		}, contract.Compact)
		if err != nil {
			return err
		}
		entries[i] = entry
	}
	// The body around the entries: {"requests":[ ... ]} and a comma between entries.
	files, err := split(entries, pick(c.MaxPerFile, anthropicMaxRequests), pick64(c.MaxBytes, anthropicMaxBytes), 1)
	if err != nil {
		return err
	}
	return writeFiles(files, c.OutDir, ".json", stdout, stderr, func(part [][]byte) []byte {
		b := []byte(`{"requests":[`)
		for i, e := range part {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, e...)
		}
		return append(b, "]}\n"...)
	})
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

// split cuts items into files of at most maxN items and maxBytes bytes, counting sep
// bytes between items and a little room for a wrapper.
func split(items [][]byte, maxN int, maxBytes int64, sep int64) ([][][]byte, error) {
	const wrapper = 32
	var files [][][]byte
	var cur [][]byte
	var size int64
	for i, it := range items {
		n := int64(len(it)) + sep
		if n+wrapper > maxBytes {
			return nil, fmt.Errorf("request %d alone is %d bytes, over the %d-byte file limit", i+1, n, maxBytes)
		}
		if len(cur) > 0 && (len(cur) >= maxN || size+n+wrapper > maxBytes) {
			files = append(files, cur)
			cur, size = nil, 0
		}
		cur = append(cur, it)
		size += n
	}
	if len(cur) > 0 {
		files = append(files, cur)
	}
	return files, nil
}

func concat(part [][]byte) []byte {
	var b []byte
	for _, p := range part {
		b = append(b, p...)
	}
	return b
}

// writeFiles writes one batch file to stdout, or every file into dir as
// batch-0001<ext>, batch-0002<ext>, ...
func writeFiles(files [][][]byte, dir, ext string, stdout, stderr io.Writer, render func([][]byte) []byte) error {
	if dir == "" {
		if len(files) > 1 {
			return usagef("the requests need %d batch files under the provider limits; give --out-dir", len(files))
		}
		if len(files) == 1 {
			_, err := stdout.Write(render(files[0]))
			return err
		}
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i, part := range files {
		path := filepath.Join(dir, fmt.Sprintf("batch-%04d%s", i+1, ext))
		if err := os.WriteFile(path, render(part), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "%s: wrote %s (%d requests)\n", name, path, len(part))
	}
	return nil
}

// result is one batch result line, read into a runner.Result keyed by custom id.
type result struct {
	customID string
	res      runner.Result
	where    string
}

type resultReader func(name string, r io.Reader) ([]result, error)

func (c *fromFlags) run(stdin io.Reader, stdout, stderr io.Writer, read resultReader, anth bool) (int, error) {
	var all []result
	for _, path := range c.Results {
		var rs []result
		var err error
		if path == "-" {
			rs, err = read("<stdin>", stdin)
		} else {
			f, oerr := os.Open(path)
			if oerr != nil {
				return 0, usagef("cannot read results: %v", oerr)
			}
			rs, err = read(path, f)
			f.Close()
		}
		if err != nil {
			return 0, err
		}
		all = append(all, rs...)
	}
	j, err := join(all, c.Requests, anth, stdin)
	if err != nil {
		return 0, err
	}
	if c.Fresh && c.Output == "-" {
		return 0, usagef("--fresh starts an -o file over; give -o FILE")
	}
	run := runner.RunInfo{Runner: name, Provider: c.Provider}
	w := runner.NewOutput(stdout)
	if c.Output != "-" {
		if w, err = runner.OpenOutput(c.Output, runner.Resume{Fresh: c.Fresh, Run: run, Studies: j.studies}); err != nil {
			return 0, usagef("%v", err)
		}
		defer w.Close()
	}
	var out []byte
	skipped := 0
	for i := range j.records {
		r := &j.records[i]
		if w.Answered(r.req.RequestID) {
			skipped++
			continue
		}
		if c.Provider != "" {
			r.res.Provider = c.Provider
		}
		ri := run
		ri.Study = r.study
		r.res.Run = &ri
		if out, err = runner.AppendRecord(out, &r.req, &r.res); err != nil {
			return 0, err
		}
	}
	if err := w.Write(out); err != nil {
		return 0, err
	}
	if skipped > 0 {
		fmt.Fprintf(stderr, "%s: %s: %d requests already answered, skipped\n", name, c.Output, skipped)
	}
	for _, msg := range j.notes {
		fmt.Fprintf(stderr, "%s: %s\n", name, msg)
	}
	fmt.Fprintf(stderr, "%s: %d results: %d answered, %d errors, %d duplicates, %d unknown, %d missing\n",
		name, len(all), j.answered, j.errors, j.duplicates, j.unknown, j.missing)
	if j.errors+j.unknown+j.missing > 0 {
		return 1, nil
	}
	return 0, nil
}

type joined struct {
	records                                        []joinedRecord
	studies                                        map[string]bool // of the request file; nil without one
	notes                                          []string
	answered, errors, duplicates, unknown, missing int
}

type joinedRecord struct {
	req   contract.Request
	res   runner.Result
	study string // the request's study identity; "" without --requests
}

// join matches results to requests by id. The last result for an id wins.
func join(all []result, requestsPath string, anth bool, stdin io.Reader) (joined, error) {
	var j joined
	byID := map[string]result{}
	var order []string
	for _, r := range all {
		if _, dup := byID[r.customID]; dup {
			j.duplicates++
			j.notes = append(j.notes, fmt.Sprintf("%s: custom id %q repeats; the last result wins", r.where, r.customID))
		} else {
			order = append(order, r.customID)
		}
		byID[r.customID] = r
	}
	count := func(res *runner.Result) {
		if res.Error != nil {
			j.errors++
		} else {
			j.answered++
		}
	}
	if requestsPath == "" {
		var recs []joinedRecord
		for _, cid := range order {
			id := cid
			if anth {
				var ok bool
				if id, ok = decodeAnthropicID(cid); !ok {
					return j, usagef("%s: custom id %q cannot be mapped back without the request file; give --requests", byID[cid].where, cid)
				}
			}
			r := byID[cid]
			recs = append(recs, joinedRecord{req: contract.Request{SchemaVersion: contract.RequestV1, RequestID: id}, res: r.res})
			count(&recs[len(recs)-1].res)
		}
		sortRecords(recs)
		j.records = recs
		return j, nil
	}
	items, err := readItems(requestsPath, stdin)
	if err != nil {
		return j, err
	}
	j.studies = runner.Studies(items)
	known := map[string]bool{}
	for i := range items {
		req := items[i].Req
		cid := req.RequestID
		if anth {
			cid = anthropicCustomID(cid)
		}
		known[cid] = true
		r, ok := byID[cid]
		if !ok {
			j.missing++
			j.notes = append(j.notes, fmt.Sprintf("%s: request %s has no result", items[i].Where(), req.RequestID))
			continue
		}
		j.records = append(j.records, joinedRecord{req: req, res: r.res, study: items[i].Study})
		count(&r.res)
	}
	for _, cid := range order {
		if !known[cid] {
			j.unknown++
			j.notes = append(j.notes, fmt.Sprintf("%s: custom id %q is not in %s", byID[cid].where, cid, requestsPath))
		}
	}
	return j, nil
}

func sortRecords(recs []joinedRecord) {
	sort.Slice(recs, func(a, b int) bool { return recs[a].req.RequestID < recs[b].req.RequestID })
}
