package runner

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/fbeval/fbeval/contract"
	"github.com/go-json-experiment/json/jsontext"
)

// Output is an append-only response file. Records are written one per line, each
// with a single write as soon as it is ready, so a killed run loses at most the line
// being written; OpenOutput repairs that torn line on resume.
type Output struct {
	w        io.Writer
	f        *os.File
	resumes  bool           // f is a regular file, which a run again goes on with
	answered contract.IDSet // the ids of the answers the file holds, sealed
	errored  contract.IDSet // the ids of its provider-error records, sealed
	recipes  map[string]bool
	tags     map[string]bool // the recipe tags its records' run names (RunInfo.RecipeTag)
	// forms holds an id of its records of each form: a toolcall request's
	// (contract.ToolcallRequestID), and another (a CogLang case's)
	forms    [2]string
	resume   Resume
	readOnly bool  // read for the ids it answers, not to be written (ReadAnswered)
	Repaired int64 // bytes of a torn last line cut off when the file was opened
	endLast  bool  // the file's last record had no line end, given it when opened
}

// NewOutput writes records to w (stdout, say); nothing is resumed.
func NewOutput(w io.Writer) *Output { return &Output{w: w} }

// Resume says what OpenOutput does with the records a file already holds.
type Resume struct {
	// Fresh starts the file over: its records are dropped.
	Fresh bool
	// Run is this run. A record whose "run" names another provider, model or
	// settings (when both have them), or a study not in Studies (when Studies is set) and a
	// recipe not in Recipes, refuses the file: resuming would mix two runs in
	// one file.
	Run     RunInfo
	Studies map[string]bool
	// Recipes, when set, lets a record of another study resume when its run
	// names one of them: its requests were made from the same recipe (the
	// same prompts, export.Recipe), and only selected otherwise (more
	// repeats, arms or cases), so its answers stand and only the new requests
	// are asked.
	Recipes map[string]bool
	// Inputs are the files the run reads ("-": standard input): the output
	// file may be none of them, by any name, or resuming (or --fresh) would
	// write into what is being read.
	Inputs []string
}

// openOutputError words a failed open of the output file path with what to do:
// make the folder, name a folder that exists, or one the user can write.
func openOutputError(path string, err error) error {
	dir := filepath.Dir(path)
	switch st, serr := os.Stat(dir); {
	case errors.Is(err, fs.ErrNotExist) && serr != nil:
		return fmt.Errorf("-o %s: the folder %s does not exist: make it, or name an output in a folder that does", path, dir)
	case serr == nil && !st.IsDir(), errors.Is(err, syscall.ENOTDIR):
		return fmt.Errorf("-o %s: %s is not a folder: name an output in a folder", path, dir)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("-o %s: cannot open it for writing (permission denied): name an output this user can write", path)
	case errors.Is(err, syscall.EROFS):
		return fmt.Errorf("-o %s: cannot open it for writing (read-only file system): name an output on a file system this user can write", path)
	}
	return fmt.Errorf("cannot open the output file: %v", err)
}

// FreshFlag is the runners' flag that starts an output file over.
const FreshFlag = "--fresh"

// OpenOutput opens (or creates) the response file path for appending. The ids it
// already answers (records with an output and no error) are remembered, so a resumed
// run skips them; provider-error records are asked again. A last line without its
// newline, left by a killed run, is cut off. A file written by another run (another
// study, provider or model) is refused, unless r.Fresh starts it over; so is a
// file another run has open (contract.LockOutput), --fresh or not.
func OpenOutput(path string, r Resume) (*Output, error) {
	if err := notAnInput(path, r.Inputs); err != nil {
		return nil, err
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, fmt.Errorf("-o %s: is a folder: name a file in it (-o %s)", path, filepath.Join(path, "responses.jsonl"))
	} else if err != nil && strings.HasSuffix(path, "/") {
		// a name with a slash at its end, which no file has ("is a
		// directory", the system said of one not there)
		return nil, fmt.Errorf("-o %s: names a folder (the / at its end), and none is there: name a file (-o %s)", path, strings.TrimRight(path, "/"))
	} else if err == nil && !st.Mode().IsRegular() {
		// a pipe, a terminal, /dev/null (-o /dev/stdout, say): nothing to
		// resume, and reading it would wait for what the run itself writes
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return nil, fmt.Errorf("cannot open the output file: %v", err)
		}
		return &Output{w: f, f: f, resume: r}, nil
	}
	if what := notResponses(path); what != "" {
		return nil, fmt.Errorf("-o %s: holds %s, not response records, so it is neither resumed nor started over (%s): write the responses to another file", path, what, FreshFlag)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, openOutputError(path, err)
	}
	// A second run into the file would ask every request again, and cut the
	// first run's half-written line as torn (--fresh: empty the file) under it.
	if !contract.LockOutput(f) {
		f.Close()
		return nil, fmt.Errorf("-o %s: another run is writing it (a runner started twice?): let that run end, or write to another file", path)
	}
	if r.Fresh {
		if err := f.Truncate(0); err != nil {
			f.Close()
			return nil, fmt.Errorf("cannot start the output file over: %v", err)
		}
	}
	o := &Output{w: f, f: f, resumes: true, resume: r}
	keep, err := o.scan(path, f)
	o.answered.Seal() // an id answered twice is no error here
	o.errored.Seal()
	if err == nil {
		var size int64
		if size, err = f.Seek(0, io.SeekEnd); err == nil && size > keep {
			o.Repaired = size - keep
			err = f.Truncate(keep)
		}
	}
	if err == nil {
		_, err = f.Seek(0, io.SeekEnd)
	}
	if err == nil && o.endLast {
		_, err = f.Write([]byte("\n"))
	}
	if err == nil {
		// from here on the file is only appended to: a record another
		// writer adds (>> FILE) is kept, not written over
		err = contract.AppendOnly(f)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return o, nil
}

// scan reads the existing records and returns the length of the complete lines. A
// record the scorer would reject (not UTF-8, or longer than MaxRecordBytes) answers
// nothing: its request is asked again.
func (o *Output) scan(path string, r io.Reader) (int64, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	var off int64
	var buf []byte
	for line := 1; ; line++ {
		buf = buf[:0]
		long := false
		var err error
		for {
			var chunk []byte
			chunk, err = br.ReadSlice('\n')
			off += int64(len(chunk))
			if !long && len(buf)+len(chunk) <= MaxRecordBytes+1 {
				buf = append(buf, chunk...)
			} else {
				long, buf = true, buf[:0]
			}
			if err != bufio.ErrBufferFull {
				break
			}
		}
		if err == io.EOF {
			if text := bytes.TrimSpace(buf); len(text) == 0 || !jsontext.Value(text).IsValid() {
				// what was read, if anything, is the torn last line
				return off - int64(len(buf)), nil
			}
			// a whole record without its line end (a file cut by hand, or
			// written by another tool): read as the others, and the line
			// ended before the next is written, not asked again
			o.endLast = true
		} else if err != nil {
			return 0, fmt.Errorf("cannot read the output file: %v", err)
		}
		text := bytes.TrimSpace(buf)
		if line == 1 {
			text = bytes.TrimPrefix(text, []byte("\ufeff")) // as the scorer reads it
		}
		if long || !utf8.Valid(text) || len(text) == 0 {
			continue
		}
		id, ok, run, perr := answeredID(text)
		if perr != nil {
			if string(text) == "{" {
				// a runner appends a record a line
				return 0, fmt.Errorf("%s:%d: holds records pretty-printed over several lines (as jq writes them without -c), and -o resumes a file of one record a line: write them compact (jq -c . FILE) to resume it, or write to another file", path, line)
			}
			return 0, fmt.Errorf("%s:%d: not a response record (%v); fix the file or write to another one", path, line, perr)
		}
		if msg := o.resume.mismatch(run); msg != "" {
			if o.readOnly {
				return 0, fmt.Errorf("%s:%d: answers the requests of another run (%s): give the responses of these requests", path, line, msg)
			}
			// another file first: --fresh drops what may have been paid
			// for (a CogLang fixture's shards are studies of their own)
			return 0, fmt.Errorf("%s:%d: written by another run (%s); write these responses to another file, or start this one over with %s, which drops the answers it holds", path, line, msg, FreshFlag)
		}
		if run != nil && run.Recipe != "" {
			if o.recipes == nil {
				o.recipes = map[string]bool{}
			}
			o.recipes[run.Recipe] = true
		}
		if f := IDForm(id); o.forms[f] == "" {
			o.forms[f] = id
		}
		if run != nil && run.RecipeTag != "" {
			if o.tags == nil {
				o.tags = map[string]bool{}
			}
			o.tags[run.RecipeTag] = true
		}
		if ok {
			o.answered.Add(IDOf(id), line)
		} else {
			o.errored.Add(IDOf(id), line)
		}
	}
}

// mismatch says how a record's run differs from this one, or "".
func (r *Resume) mismatch(run *RunInfo) string {
	if run == nil {
		return "" // written by a tool that does not say: nothing to check
	}
	switch {
	case r.Studies != nil && run.Study != "" && !r.Studies[run.Study] && (run.Recipe == "" || !r.Recipes[run.Recipe]):
		return fmt.Sprintf("study %s; this run's requests are of %s", run.Study, wordsOf(r.Studies))
	case r.Run.Provider != "" && run.Provider != "" && run.Provider != r.Run.Provider:
		return fmt.Sprintf("provider %q; this run's is %q", run.Provider, r.Run.Provider)
	case r.Run.Model != "" && run.Model == "" && run.Runner != "":
		// a converter's records name no model run (each result names its own)
		return fmt.Sprintf("%s, whose records' run names no model; this run's is %q", run.Runner, r.Run.Model)
	case r.Run.Model != "" && run.Model != r.Run.Model:
		return fmt.Sprintf("model %q; this run's is %q", run.Model, r.Run.Model)
	case r.Run.Settings != "" && run.Settings != "" && run.Settings != r.Run.Settings:
		// another temperature, token limit, API or seed: answers not alike
		return fmt.Sprintf("settings %q; this run's are %q", run.Settings, r.Run.Settings)
	}
	return ""
}

// wordsOf lists a set's members, sorted, joined by commas.
func wordsOf(set map[string]bool) string {
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return strings.Join(keys, ", ")
}

// answeredID returns the id a response record answers, whether it is an answer (an
// output and no error), and the run that wrote it (nil when it does not say).
func answeredID(text []byte) (string, bool, *RunInfo, error) {
	var w struct {
		Version    *string          `json:"schema_version"`
		RequestID  *string          `json:"request_id"`
		CaseID     *string          `json:"case_id"`
		Output     json.RawMessage  `json:"output"`
		Text       json.RawMessage  `json:"text"`
		Completion json.RawMessage  `json:"completion"`
		Error      *json.RawMessage `json:"error"`
		Run        *RunInfo         `json:"run"`
	}
	if err := json.Unmarshal(text, &w); err != nil {
		return "", false, nil, err
	}
	if w.Version != nil {
		// a record of another version is no answer the scorer takes
		if other := contract.OtherVersion(*w.Version, contract.ResponseV1, contract.CogLangResponse); other != "" {
			return "", false, nil, fmt.Errorf("schema_version %q%s", *w.Version, other)
		}
	}
	id := ""
	switch {
	case w.RequestID != nil && *w.RequestID != "":
		id = *w.RequestID
	case w.CaseID != nil:
		id = *w.CaseID
	}
	if id == "" {
		return "", false, nil, fmt.Errorf("no request_id or case_id")
	}
	has := func(v json.RawMessage) bool { return len(v) > 0 && string(v) != "null" }
	// an error that says nothing ({}) beside an answer is none, as the scorer reads it
	ok := (has(w.Output) || has(w.Text) || has(w.Completion)) && (w.Error == nil || string(*w.Error) == "null" || contract.EmptyError(*w.Error))
	return id, ok, w.Run, nil
}

// ReadAnswered reads the ids a response file answers (records with an output
// and no error), without opening it to write: for a batch of the requests a
// first batch left unanswered (fbeval-batch to-* --answered). A record of
// another study and recipe than r's refuses the file, as OpenOutput's does.
func ReadAnswered(path string, r Resume) (*Output, error) {
	if path == "-" {
		return nil, errors.New("-: the responses are read from a file, as standard input may hold the requests: name the file")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the responses: %v", err)
	}
	defer f.Close()
	// opened once and read once: a pipe (<(...), /dev/stdin) or a FIFO
	// gives its bytes to one reader (a second open lost the head, and the
	// records it held were asked again; of a FIFO it waited for ever)
	br := bufio.NewReaderSize(f, contract.KeptHeadBytes)
	head, _ := br.Peek(contract.KeptHeadBytes)
	if what := notResponsesHead(head); what != "" {
		return nil, fmt.Errorf("%s: holds %s, not response records: give the responses of the run (the -o file of fbeval-batch from-*)", path, what)
	}
	o := &Output{resume: r, readOnly: true}
	if _, err := o.scan(path, br); err != nil {
		return nil, err
	}
	o.answered.Seal()
	o.errored.Seal()
	return o, nil
}

// Answered reports whether the file already answers the request id.
func (o *Output) Answered(id string) bool {
	return o.answered.Has(IDOf(id))
}

// Recipes are the recipes the file's records name (their run's), nil when
// none names one.
func (o *Output) Recipes() map[string]bool { return o.recipes }

// IDForms returns an id of the file's records of each form (IDForm), ""
// for a form it has none of.
func (o *Output) IDForms() [2]string { return o.forms }

// IDForm is the form of a request id: 0 for a toolcall request's
// (CASE.ARM.rREPEAT.aATTEMPT), 1 for another (a CogLang case's).
func IDForm(id string) int {
	if _, _, _, _, ok := contract.ToolcallRequestID(id); ok {
		return 0
	}
	return 1
}

// RecipeTags are the recipe tags the file's records name (their run's
// recipe_tag: results converted without the request file), nil when none
// does.
func (o *Output) RecipeTags() map[string]bool { return o.tags }

// Errored reports whether the file holds a provider-error record for the
// request id: a live run asks it again, and a converter of batch results,
// whose results are the same however often it runs, need not write another.
func (o *Output) Errored(id string) bool {
	return o.errored.Has(IDOf(id))
}

// Write appends one record (a whole line) with one write.
func (o *Output) Write(line []byte) error {
	if _, err := o.w.Write(line); err != nil {
		if o.resumes && contract.DiskFull(err) {
			// the file holds whole records and at most a torn last line,
			// which the next run cuts off (OpenOutput)
			return fmt.Errorf("cannot write a response: %v: make room there and run the same command again: it goes on from the responses written", err)
		}
		if contract.TooLarge(err) {
			again := ""
			if o.resumes {
				again = " and run the same command again: it goes on from the responses written"
			}
			return fmt.Errorf("cannot write a response: %v: %s%s", err, contract.SizeLimitAdvice, again)
		}
		if contract.DiskFull(err) {
			// standard output on a full disk (> FILE), or a stream
			return fmt.Errorf("cannot write a response: %v: make room there, or write the responses to another disk", err)
		}
		return fmt.Errorf("cannot write a response: %v", err)
	}
	return nil
}

// Close closes the file opened by OpenOutput; closed again, it does nothing.
// Its error is the last word on whether the records reached the file: a network
// file system may report a failed write only when the file is closed, so a run
// checks it before it says it is done.
func (o *Output) Close() error {
	f := o.f
	if f == nil {
		return nil
	}
	o.f = nil
	if err := f.Close(); err != nil {
		if o.resumes {
			return fmt.Errorf("cannot write the responses: %v: run the same command again: it goes on from the responses the file holds", err)
		}
		return fmt.Errorf("cannot write the responses: %v", err)
	}
	return nil
}

// notAnInput refuses an output path that names one of the files the run reads
// (the same file by another name or a link included, or the file on standard
// input).
func notAnInput(path string, inputs []string) error {
	out, err := os.Stat(path)
	if err != nil {
		return nil // a new file
	}
	if in, ok := contract.InputIs(out, inputs, os.Stdin); ok {
		return fmt.Errorf("-o %s: the run reads that file (%s); write the responses to another file", path, contract.InputName(in))
	}
	return nil
}

// notResponses names what an existing output file holds when it cannot be a
// runner's response file, so that a mistyped -o neither appends responses to
// it nor, with --fresh, empties it: a file of fbeval's other than responses
// (a study, requests, a report, a CogLang fixture or result, case results),
// named by its schema_version, or text that is not JSON lines (fbeval's
// JUnit, HTML, Markdown or table output, say). "" for a new or empty file, and
// for one whose first record may be a response.
func notResponses(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, contract.KeptHeadBytes)
	n, _ := io.ReadFull(f, head)
	return notResponsesHead(head[:n])
}

// notResponsesHead is notResponses of a file that starts with head.
func notResponsesHead(head []byte) string {
	head = bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\ufeff")), " \t\r\n")
	switch {
	case len(head) == 0:
		return ""
	case head[0] != '{':
		if head[0] == '[' {
			return "a JSON list (a runner appends JSON lines)"
		}
		first, _, _ := bytes.Cut(head, []byte("\n"))
		return fmt.Sprintf("text that is not JSON lines (it starts %q)", contract.PrintableLine(string(first[:min(len(first), 40)])))
	}
	if m := requestsBody.FindSubmatch(head); m != nil {
		// one line of any length: what Foreign would read is cut off
		if len(m[1]) > 0 {
			return "an Anthropic Message Batches create body ({\"requests\": [{\"custom_id\", \"params\"}, ...]}, as fbeval-batch to-anthropic writes it)"
		}
		return "a batch object of requests ({\"requests\": [...]})"
	}
	first, _, _ := bytes.Cut(head, []byte("\n"))
	if what, _ := contract.Foreign(first); what != "" {
		return what // a provider's reply or batch line, which scoring names the same way
	}
	if what, _ := contract.Foreign(head); what != "" {
		return what // one printed over lines: a schema, HESchema's config or report
	}
	switch v := contract.VersionOf(head); v {
	case "", contract.ResponseV1, contract.CogLangResponse:
		return ""
	default:
		if kind := contract.FileKind(v); kind != "" {
			return kind + " (" + v + ")"
		}
	}
	return ""
}

// requestsBody matches the start of an object whose first member is a list of
// requests; the group is not empty when the first request has a custom id (an
// Anthropic Message Batches create body).
var requestsBody = regexp.MustCompile(`^\{\s*"requests"\s*:\s*\[\s*(\{\s*"custom_id")?`)

// StdoutNotAnInput refuses a standard output that is a file the run reads
// (inputs as Resume's): `fbeval-mock req.jsonl >> req.jsonl` would append the
// responses to the requests being read, and `>` empties them before the runner
// starts.
func StdoutNotAnInput(stdout io.Writer, inputs []string, what string) error {
	f, ok := stdout.(*os.File)
	if !ok {
		return nil
	}
	out, err := f.Stat()
	if err != nil {
		return nil
	}
	if in, ok := contract.InputIs(out, inputs, os.Stdin); ok {
		return fmt.Errorf("standard output is %s, which the run reads (a shell's > empties it before the run starts, >> appends to it): write %s to another file", contract.InputName(in), what)
	}
	return nil
}
