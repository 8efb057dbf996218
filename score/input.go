package score

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/score/report"
	"github.com/go-json-experiment/json/jsontext"
)

// Options tune scoring without changing results.
type Options struct {
	MaxLineBytes int // longest response line read (0: the contract default)
	// Workers is how many goroutines decode and judge records (0: one per
	// core, up to MaxDefaultWorkers; see Workers). Results are the same for
	// any number.
	Workers int
	// StrictBatch (CogLang --strict): a batch object's own schema_version, when
	// present and not null, must be the response-batch version. The reference
	// ignores it, and so does the default.
	StrictBatch bool
}

// MaxDefaultWorkers bounds the goroutines a score uses when none are asked
// for: each holds a few batches of records in flight and its own scratch, so
// memory grows with them (a 1,000,000-case CogLang fixture scored at 8 workers
// peaks at 94 MB, at 64 at 243 MB), and past a few the one goroutine that reads
// the file, in order, is what the score waits for.
const MaxDefaultWorkers = 8

// MaxWorkers bounds the goroutines a score may be asked for: more than there
// are cores on any machine fbeval runs on, and fewer than the 100,000 a
// mistyped --workers 100000 asks for (4 s and 415 MB where the default takes
// 0.3 s and 64 MB).
const MaxWorkers = 1024

// Workers is the goroutines a score uses when n are asked for: n, or with
// none asked for (0), one per core up to MaxDefaultWorkers.
func Workers(n int) int {
	if n > 0 {
		return n
	}
	return min(runtime.GOMAXPROCS(0), MaxDefaultWorkers)
}

// NoRecords is the warning of a response file that holds no records, path
// its name: among shards, what a runner that stopped before it wrote leaves,
// its requests then counted as missing with no word of why.
func NoRecords(path string) string {
	return path + ": holds no records (a runner that stopped before it wrote a record leaves its file so)"
}

// MaxFilesWarned is how many response files have their warnings given one by
// one; past it, one line counts the files left (a thousand shards each cut
// short by a runner stopped mid-line are not a thousand lines).
const MaxFilesWarned = 10

// FileWarnings gathers the warnings of response files, file by file, up to
// MaxFilesWarned files.
type FileWarnings struct {
	lines []string
	files int // files whose warnings are in lines
	more  int // files with warnings past MaxFilesWarned
}

// Add adds one file's warnings (none: nothing).
func (w *FileWarnings) Add(warnings ...string) {
	switch {
	case len(warnings) == 0:
	case w.files < MaxFilesWarned:
		w.lines = append(w.lines, warnings...)
		w.files++
	default:
		w.more++
	}
}

// Lines is the warnings added, then a line that counts the files left out;
// where says where the whole accounting of each file is.
func (w *FileWarnings) Lines(where string) []string {
	if w.more == 0 {
		return w.lines
	}
	return append(w.lines, fmt.Sprintf("%s with warnings like these, not named here (each file's lines are accounted for in %s)", contract.Plural(w.more, "more response file", "more response files"), where))
}

// Source is one response file to read.
type Source struct {
	Name string // as given by the user ("-" is standard input)
	R    io.Reader
	// Open, when R is nil, opens the file when its turn to be read comes and
	// gives the func that closes it, so that of a thousand shards one is open
	// at a time.
	Open func() (io.Reader, func(), error)
}

// Reader gives the source's reader, opening it if it is opened when read,
// and the func that closes what was opened (nothing for R).
func (s Source) Reader() (io.Reader, func(), error) {
	if s.R != nil || s.Open == nil {
		return s.R, func() {}, nil
	}
	return s.Open()
}

// InputStats accounts for every line of one response file: read = accepted +
// rejected, and how many accepted records repeated an earlier id or named none.
type InputStats struct {
	Path       string
	SHA256     string
	Shape      string
	Lines      int
	Records    int
	Accepted   int
	Duplicates int
	Unknown    int
	// FirstUnknown is the id of the first record that answers no request, and
	// UnknownAt its line and column.
	FirstUnknown string
	UnknownAt    [2]int
	Rejected     []Rejection // the first MaxListed rejections
	// RejectedCount counts every rejected record, listed or not.
	RejectedCount int
	Warnings      []string
	// WrittenFor is the study identity the file's first record names in
	// run.study (fbeval's runners write it; contract.RunStudy), or "".
	WrittenFor string
	// OtherRecipe counts the records that answer a request of the study but
	// name another recipe in run.recipe: toolcall, the requests they answer
	// were made with another dataset, schema, template, decoding or seed
	// (export.Recipe); CogLang, with another prompt than the fixture's for
	// their case (contract.CogLangRecipe).
	// OtherRecipeName is the first one's recipe, OtherRecipeCase its case id,
	// OtherRecipeAt its line and column.
	OtherRecipe     int
	OtherRecipeName string
	OtherRecipeCase string
	OtherRecipeAt   [2]int
	// OtherCase counts toolcall records whose case_id is not the case of the
	// request their request_id names (scored as the request's); OtherCaseNote
	// says where the first is and what it names.
	OtherCase     int
	OtherCaseNote string
	// OtherModel counts the duplicates that replace a record of another model
	// (both naming one, by name): another model's responses given with these,
	// or a later run's retry answered by another snapshot. OtherModelNote says
	// where the first is and which models.
	OtherModel     int
	OtherModelNote string
	// ErrorsAfterAnswer counts the duplicates that are a provider error
	// after an answer of the same request, which the answer outlives
	// (toolcall)
	ErrorsAfterAnswer int
}

// CutHint is the advice with a response file's last line cut short: what a
// runner still writing the file, or stopped mid-line, leaves.
const CutHint = "a runner still writing it, or stopped mid-line, leaves it so: run the runner again with -o FILE to finish it"

// MaxListed bounds the rejected lines a report lists for one file (and names on
// stderr): counts stay exact, the list says how many it leaves out, and a file of
// millions of bad lines does not make a report of gigabytes.
const MaxListed = 1000

// Reject counts a rejected record and lists it while the list has room.
func (s *InputStats) Reject(r Rejection) {
	s.RejectedCount++
	if len(s.Rejected) < MaxListed {
		s.Rejected = append(s.Rejected, r)
	}
}

// Rejection is one line that could not be used, and why.
type Rejection struct {
	Line   int
	Reason string // the whole one-line error, with file:line:col
	// Member is the JSON Pointer of the record's member at fault, where the
	// error names one (contract.InputError.Member).
	Member string
	// Advised: Reason says what to do (contract.InputError.Advised).
	Advised bool
}

// RejectionOf is the rejection of the record at line for err.
func RejectionOf(line int, err error) Rejection {
	r := Rejection{Line: line, Reason: err.Error()}
	if ie, ok := errors.AsType[*contract.InputError](err); ok {
		r.Member, r.Advised = ie.Member, ie.Advised
	}
	return r
}

// Input returns the stats as the report's entry for the file.
func (s *InputStats) Input() report.Input {
	rej := make([]report.Rejected, len(s.Rejected))
	for i, r := range s.Rejected {
		rej[i] = report.Rejected{Line: r.Line, Reason: r.Reason}
	}
	return report.Input{
		Role:              "responses",
		Path:              s.Path,
		SHA256:            s.SHA256,
		Shape:             s.Shape,
		Lines:             &s.Lines,
		Records:           &s.Records,
		Accepted:          &s.Accepted,
		Duplicates:        &s.Duplicates,
		Unknown:           &s.Unknown,
		Rejected:          rej,
		RejectedNotListed: s.RejectedCount - len(s.Rejected),
	}
}

// HashingReader hashes everything read through it, for the sha256 a report
// gives of each input. Its first chunk is read and hashed when first asked
// for; an input longer than that is read ahead on a goroutine of its own,
// which also hashes, so the goroutine that parses records does neither: a few
// chunks of readAhead bytes are held at once. An input of one chunk (a batch
// engine's small shard) starts no goroutine. Close stops it early.
type HashingReader struct {
	r       io.Reader
	h       hash.Hash
	chunks  chan hashChunk // read and hashed, in order
	free    chan []byte    // chunks given back
	stop    chan struct{}
	done    chan struct{} // closed when nothing more is read
	started bool          // the first chunk was read
	cur     []byte        // what is left of the chunk being read
	buf     []byte        // the whole chunk cur is part of
	err     error         // the error after cur
}

type hashChunk struct {
	b   []byte
	err error
}

// readAhead is the size of a chunk, and chunksAhead how many are in flight.
const readAhead, chunksAhead = 256 << 10, 4

// NewHashingReader returns a reader of r that hashes what it reads.
func NewHashingReader(r io.Reader) *HashingReader {
	h := &HashingReader{r: r, h: sha256.New(), chunks: make(chan hashChunk, chunksAhead), free: make(chan []byte, chunksAhead+1),
		stop: make(chan struct{}), done: make(chan struct{})}
	for range chunksAhead + 1 {
		h.free <- nil // made when first needed: a small input needs one
	}
	return h
}

// readChunk reads and hashes the next chunk into a free buffer.
func (h *HashingReader) readChunk(buf []byte) hashChunk {
	if buf == nil {
		buf = *chunkPool.Get().(*[]byte)
	}
	n, err := io.ReadAtLeast(h.r, buf, len(buf))
	if err == io.ErrUnexpectedEOF {
		err = io.EOF
	}
	h.h.Write(buf[:n])
	return hashChunk{buf[:n], err}
}

// readAll reads the rest of r to its end or first error, a chunk at a time,
// hashing each.
func (h *HashingReader) readAll() {
	defer close(h.done)
	for {
		var buf []byte
		select {
		case buf = <-h.free:
		case <-h.stop:
			return
		}
		c := h.readChunk(buf)
		select {
		case h.chunks <- c:
		case <-h.stop:
			return
		}
		if c.err != nil {
			return
		}
	}
}

func (h *HashingReader) Read(p []byte) (int, error) {
	for len(h.cur) == 0 {
		if h.err != nil {
			return 0, h.err
		}
		if h.buf != nil {
			h.free <- h.buf[:cap(h.buf)]
			h.buf = nil
		}
		var c hashChunk
		if !h.started {
			// the first chunk here; the rest, if any, ahead
			h.started = true
			c = h.readChunk(<-h.free)
			if c.err == nil {
				go h.readAll()
			} else {
				close(h.done)
			}
		} else {
			c = <-h.chunks
		}
		h.buf, h.cur, h.err = c.b, c.b, c.err
	}
	n := copy(p, h.cur)
	h.cur = h.cur[n:]
	return n, nil
}

// Finish reads whatever the record reader left (trailing blank space) so the
// hash covers the whole file, and returns the hex digest.
func (h *HashingReader) Finish() string {
	io.Copy(io.Discard, h)
	<-h.done
	return hex.EncodeToString(h.h.Sum(nil))
}

// Close stops reading ahead; the reader is not read after it. Its chunks go
// back to the pool, for the next file's reader.
func (h *HashingReader) Close() {
	select {
	case <-h.stop:
	default:
		close(h.stop)
		if !h.started {
			h.started = true // nothing was read: nothing will be
			close(h.done)
		}
	}
	<-h.done
	give := func(b []byte) {
		if b != nil {
			b = b[:cap(b)]
			chunkPool.Put(&b)
		}
	}
	give(h.buf)
	h.buf, h.cur = nil, nil
	for {
		select {
		case b := <-h.free:
			give(b)
		case c := <-h.chunks:
			give(c.b)
		default:
			return
		}
	}
}

// chunkPool holds the chunks of readers closed, so that a study read from
// many files (a batch engine's shards) reads each with the chunks of the one
// before, rather than new memory every file.
var chunkPool = sync.Pool{New: func() any {
	b := make([]byte, readAhead)
	return &b
}}

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// CheckBatchVersion refuses a batch object whose schema_version is present, not
// null, and not want, at the value's position.
func CheckBatchVersion(rd *contract.Reader, name, want string) error {
	v, ok := rd.Header()["schema_version"]
	if !ok || v.Kind() == 'n' {
		return nil
	}
	if s, isStr := stringOf(v); isStr && s == want {
		return nil
	}
	line, col := rd.HeaderPosition("schema_version")
	return &contract.InputError{Kind: contract.ErrVersion, File: name, Line: line, Col: col, Msg: fmt.Sprintf("the batch schema_version must be %q (or absent), got %s", want, contract.ShowValue(v))}
}

func stringOf(v jsontext.Value) (string, bool) {
	if v.Kind() != '"' {
		return "", false
	}
	tok, err := jsontext.NewDecoder(bytesReader(v)).ReadToken()
	if err != nil {
		return "", false
	}
	return tok.String(), true
}

// OtherModels says of records that repeat an id that they replaced an earlier
// answer of another model (two models' responses given to one score), first
// saying which was the first.
func OtherModels(first string) string {
	return "another model's answer (the first, " + first + "): score each model's responses on their own"
}

// MixedModels is the warning of a score whose answers are of more than one
// model, by the answers of each.
func MixedModels(answers map[string]int) string {
	return "the responses mix " + strconv.Itoa(len(answers)) + " models: " + mostAnswers(answers, false, "model", "models") + "; the figures mix runs: score each model's responses apart"
}

// mixListed is the most models, or runs, a mix's warning names: a file of a
// model name a record (a runner that writes the date in it) names the ten of
// the most answers and counts the rest, where the warning listed them all
// (a report of 74 MB).
const mixListed = 10

// mostAnswers lists the names of answers with their counts, the most answers
// first (by name among equals), the first mixListed of them and a count of
// the rest; quoted names when quote is set.
func mostAnswers(answers map[string]int, quote bool, one, many string) string {
	names := slices.SortedFunc(maps.Keys(answers), func(a, b string) int {
		if n := cmp.Compare(answers[b], answers[a]); n != 0 {
			return n
		}
		return strings.Compare(a, b)
	})
	var parts []string
	for _, m := range names[:min(len(names), mixListed)] {
		name := m
		if quote {
			name = strconv.Quote(m)
		}
		parts = append(parts, name+" ("+contract.Plural(answers[m], "answer", "answers")+")")
	}
	if rest := len(names) - mixListed; rest > 0 {
		parts = append(parts, "and "+contract.Plural(rest, "other "+one, "other "+many))
	}
	return strings.Join(parts, ", ")
}

// MixedRuns is the warning of a score whose answers of model are of more than
// one run, told apart by the runner and the settings (the flags that change its
// answers) their records' run member names, by the answers of each: two
// folders of shards, at two temperatures or seeds, given to one score.
func MixedRuns(model string, answers map[string]int) string {
	return "the answers of " + model + " mix " + strconv.Itoa(len(answers)) + " runs of other settings (run.runner and run.settings): " + mostAnswers(answers, true, "run", "runs") + "; the figures mix runs: score each run's responses apart"
}
