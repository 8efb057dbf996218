package runner

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/fbeval/fbeval/contract"
)

// Provider asks a model once for one request. A failure is a *CallError (any other
// error is treated as a network error). ctx carries the per-call timeout.
type Provider interface {
	Do(ctx context.Context, req *contract.Request) (Result, error)
}

// Options are the limits of a run. Zero values mean: Concurrency 1, no rate limit,
// no timeout, no budget, no stop on consecutive errors.
type Options struct {
	Concurrency          int
	RPS                  float64       // calls per second, retries included
	Retries              int           // further calls after the first, per request
	Timeout              time.Duration // per call
	MaxRequests          int           // calls in all, retries included
	MaxConsecutiveErrors int           // stop after this many provider-error records in a row
	BackoffBase          time.Duration // first retry wait (doubles each retry); 0: 1s
	BackoffMax           time.Duration // longest wait, Retry-After included; 0: 2m
	Seed                 uint64        // of the backoff jitter
	Secrets              []string      // stripped from every message (keys and header values)
	// Keys are the credentials among Secrets: stripped from answers too. Header
	// values are not, as one may be ordinary text (a site URL) an answer rightly holds.
	Keys []string
	// MaxRecordBytes bounds a record written (0: MaxRecordBytes, the scorer's limit).
	MaxRecordBytes int
	// Progress, when set, is told of every request finished, and whether it was
	// answered (false: an error record).
	Progress func(answered bool)
	// Run is written into every record ("run"), with each request's study.
	Run RunInfo
	// Warn, when set, is told at once of answers that measure nothing: the
	// first that holds the model's thinking, and the first answers when they
	// are all empty (each said once a run).
	Warn func(msg string)
}

// emptyRun is how many answers, all empty, make a run warn (Options.Warn).
const emptyRun = 10

// Summary counts what a run did.
type Summary struct {
	Requests int    // in the request file
	Skipped  int    // already answered in the output file
	Answered int    // answered in this run
	Errors   int    // provider-error records written
	Left     int    // requests with no record from this run (stopped early)
	Retries  int    // calls after the first for a request
	Calls    int    // provider calls made
	Stopped  string // why the run stopped early: "budget", "N consecutive errors (the last: ...)...", "signal"; "" if it did not
	// Thinking and Empty count the answers of this run that hold the model's
	// thinking (contract.HoldsThinking) and those with no text; CallsInText, the
	// answers to requests that offer tools which are a tool call left in the
	// text, the model's markup or a bare {"name", "arguments"} object
	// (contract.ToolCallForm).
	Thinking, Empty, CallsInText int
	// EmptyReasoning counts the empty answers beside which the server
	// returned the model's reasoning (ReasoningKey).
	EmptyReasoning int
	// ManyCalls counts the answers that called more than one tool, of which
	// the first is scored (Result.Calls).
	ManyCalls int
	// LastError is the last error record written, nil when none was.
	LastError *contract.ProviderError
}

// String is the summary line printed at the end of a run.
func (s Summary) String() string {
	line := fmt.Sprintf("%s: %d answered, %s, %d skipped (already answered), %d left; %s, %s",
		contract.Plural(s.Requests, "request", "requests"), s.Answered, contract.Plural(s.Errors, "error", "errors"), s.Skipped, s.Left,
		contract.Plural(s.Calls, "call", "calls"), contract.Plural(s.Retries, "retry", "retries"))
	if s.Thinking > 0 {
		line += "; " + contract.Plural(s.Thinking, "answer holds", "answers hold") + " the model's thinking"
	}
	if s.Empty > 0 {
		line += "; " + contract.Plural(s.Empty, "answer", "answers") + " empty"
	}
	if s.CallsInText > 0 {
		line += "; " + contract.Plural(s.CallsInText, "answer is a tool call", "answers are tool calls") + " left in the text"
	}
	if s.ManyCalls > 0 {
		line += "; " + contract.Plural(s.ManyCalls, "answer calls", "answers call") + " more than one tool (the first is scored)"
	}
	if s.Errors > 0 && s.Stopped == "" && s.LastError != nil {
		// the run went through with errors: what they were, and the way on
		// (a stop says so itself)
		line += fmt.Sprintf("; the last error: %s: %s; %s, then run again with -o FILE to ask them again", s.LastError.Code, s.LastError.Message, seeTo(s.LastError.Code, s.LastError.Message))
	}
	if s.Stopped != "" {
		line += "; stopped: " + s.Stopped
		switch s.Stopped {
		case "signal":
			line += ": run again with -o FILE to go on"
		case "budget":
			line += " (--max-requests): run again with -o FILE to go on"
		}
	}
	return line
}

// ExitCode is 0 when every request has an answer, 1 otherwise.
func (s Summary) ExitCode() int {
	if s.Errors > 0 || s.Left > 0 {
		return 1
	}
	return 0
}

// ReasoningKey is the metadata member of a record whose answer is empty
// where the server returned the model's reasoning apart: that reasoning.
const ReasoningKey = "reasoning"

// finishOrNone is a finish reason as a message names it.
func finishOrNone(fr string) string {
	if fr == "" {
		return "none"
	}
	return fr
}

// countAnswer counts an answer of this run that measures nothing, or that
// calls more than one tool, and warns of the first such of each kind: one
// that calls several tools (the first is scored), one that holds the model's
// thinking, one to a request that offers tools that is a tool call left in the
// text (a server that did not parse the model's calls), one empty beside the
// reasoning the server returned apart, and the first emptyRun answers when
// every one is empty.
func (s *Summary) countAnswer(res *Result, warn func(string), id string, tools bool) {
	if res.Calls > 1 {
		s.ManyCalls++
		if s.ManyCalls == 1 && warn != nil {
			warn(fmt.Sprintf("the answer to %s calls %d tools, and only the first is scored (the answer's envelope holds one; the others are in its metadata.provider_output): a model that calls tools in parallel, which a study of one call a case scores by its first", id, res.Calls))
		}
	}
	out := ""
	if res.Output != nil {
		out = *res.Output
	}
	if strings.TrimSpace(out) == "" {
		s.Empty++
		finish := contract.FinishReason([]byte(res.FinishReason))
		if r, ok := res.Metadata.Get(ReasoningKey); ok {
			s.EmptyReasoning++
			if s.EmptyReasoning == 1 && warn != nil {
				text, _ := r.(string)
				why := "a server's reasoning parser that took the answer for the model's reasoning (vLLM: check --reasoning-parser against the model and its chat template)"
				if finish == contract.FinishCut {
					why = "the model spent its tokens thinking: raise --max-tokens"
				}
				warn(fmt.Sprintf("the answer to %s is empty, and the reasoning the server returned apart holds %s of text (kept in the record's metadata.%s; finish_reason %s): %s; stop the run (Ctrl-C) if that was not meant",
					id, contract.Plural(len(text), "byte", "bytes"), ReasoningKey, finishOrNone(res.FinishReason), why))
			}
		}
		if s.Empty == emptyRun && s.Answered == emptyRun && s.EmptyReasoning == 0 && warn != nil {
			// the last's finish reason says why, as those of the others
			why := "the model ends its answers with no text: check the model and its chat template"
			switch finish {
			case contract.FinishCut:
				why = "a reasoning model may spend its tokens before it answers: raise --max-tokens"
			case contract.FinishFiltered:
				why = "the model refuses them, or a safety filter withholds them: the records keep what the provider said of it, where it says (metadata.stop_details, metadata.refusal, metadata.content_filter_results); check the prompts and the provider's filter settings"
			}
			warn(fmt.Sprintf("the first %d answers are all empty (the last's finish_reason %s): %s; stop the run (Ctrl-C) if that was not meant", emptyRun, finishOrNone(res.FinishReason), why))
		}
	} else if contract.HoldsThinking([]byte(out)) {
		s.Thinking++
		if s.Thinking == 1 && warn != nil {
			warn(fmt.Sprintf("the answer to %s holds the model's thinking (<think>...</think>, [THINK] or <|channel|> markup) before its answer, which strict scoring fails: the server returns the model's reasoning as part of the answer; have it return the reasoning apart (vLLM: --reasoning-parser), or stop the run (Ctrl-C) if that was not meant", id))
		}
	} else if form := contract.ToolCallForm([]byte(out)); tools && form != "" {
		s.CallsInText++
		if s.CallsInText == 1 && warn != nil {
			warn(fmt.Sprintf("the answer to %s is %s, a tool call the server left unparsed in the text, which scoring fails: start the server with the tool-call parser of the model (vLLM: --enable-auto-tool-choice --tool-call-parser NAME; llama.cpp: --jinja), or stop the run (Ctrl-C) if that was not meant", id, form))
		}
	}
}

// Run asks p for every request of reqs that out does not already answer, and
// appends their records to out in request order. Requests are read one at a time and
// started in request order by up to Concurrency workers; a finished record waits
// until every earlier request has its record (or is abandoned), so the output order
// is the request order. At most window requests are between being started and being
// written, so memory does not grow with the file, even behind one slow request.
// When ctx is done (a signal), the budget runs out or too many errors come in a row,
// no new call starts, calls in flight finish and are written, and requests waiting to
// be retried are left for a later run. The error is a failure to write or to read
// the requests again.
func Run(ctx context.Context, reqs *Requests, p Provider, out *Output, opts Options) (Summary, error) {
	sum := Summary{Requests: reqs.Len(), Skipped: reqs.CountAnswered(out)}
	e := newEngine(ctx, p, opts)
	defer e.cancel()

	type job struct {
		pos int // among the requests asked in this run
		it  *Item
	}
	type done struct {
		pos   int
		id    string // the request's
		tools bool   // the request offers tools
		line  []byte
		res   Result
		ok    bool // false: abandoned, no record
	}
	jobs := make(chan job)
	results := make(chan done)
	workers := max(opts.Concurrency, 1)
	// slots bounds the requests started and not yet written.
	slots := make(chan struct{}, max(window, 2*workers))
	maxRecord := opts.MaxRecordBytes
	if maxRecord <= 0 {
		maxRecord = MaxRecordBytes
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				it := j.it
				res, ok := e.ask(&it.Req)
				d := done{pos: j.pos, id: it.Req.RequestID, tools: len(it.Req.Tools) > 0, res: res, ok: ok}
				if ok {
					run := opts.Run
					run.Study, run.Recipe = it.Study, it.Recipe
					res.Run = &run
					line, err := AppendRecord(nil, &it.Req, &res)
					if err == nil && len(line) > maxRecord {
						err = fmt.Errorf("the answer's record would be %d bytes, more than the %d a scorer reads in one line", len(line), maxRecord)
					}
					if err != nil {
						// A record the scorer could not read is written as a provider error.
						res = Result{Provider: res.Provider, Model: res.Model, LatencyMS: res.LatencyMS, Run: res.Run,
							Error: &contract.ProviderError{Code: "bad_response", Message: ProviderText(err.Error(), e.opts.Secrets)}}
						line, _ = AppendRecord(nil, &it.Req, &res)
						d.res = res
					}
					d.line = line
				}
				results <- d
			}
		}()
	}
	var rerr error // reading the requests again
	go func() {
		defer close(jobs)
		pos := 0
		stopped := errors.New("stopped")
		err := reqs.Each(func(it *Item) error {
			if out.Answered(it.Req.RequestID) {
				return nil
			}
			select {
			case <-e.stop.Done():
				return stopped
			case slots <- struct{}{}:
			}
			select {
			case <-e.stop.Done():
				<-slots
				return stopped
			case jobs <- job{pos: pos, it: it}:
				pos++
				return nil
			}
		})
		if err != nil && err != stopped {
			rerr = err
			e.halt("read error")
		}
	}()
	go func() { wg.Wait(); close(results) }()

	// Write in request order. Dispatch is in order, so when the run stops, every
	// started request precedes every unstarted one and the buffer drains fully.
	pending := make(map[int]done)
	next := 0
	var werr error
	for d := range results {
		pending[d.pos] = d
		for {
			d, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			<-slots
			if !d.ok {
				continue
			}
			if werr == nil {
				if werr = out.Write(d.line); werr != nil {
					e.halt("write error")
				}
			}
			switch {
			case werr != nil:
				// not in the file (a full disk): left, asked again on resume
			case d.res.Error != nil:
				sum.Errors++
				sum.LastError = d.res.Error
			default:
				sum.Answered++
				sum.countAnswer(&d.res, opts.Warn, d.id, d.tools)
			}
			if opts.Progress != nil {
				opts.Progress(d.res.Error == nil)
			}
		}
	}
	sum.Left = sum.Requests - sum.Skipped - sum.Answered - sum.Errors
	sum.Calls, sum.Retries = e.calls, e.retries
	sum.Stopped = e.reason
	if sum.Stopped == "" && ctx.Err() != nil && sum.Left > 0 {
		sum.Stopped = "signal"
	}
	if werr == nil {
		werr = rerr
	}
	return sum, werr
}

// window is the most requests a run holds between starting and writing them (or
// twice the concurrency, when that is more).
const window = 256

type engine struct {
	p     Provider
	opts  Options
	stop  context.Context
	abort context.Context // canceled: calls in flight are canceled too
	halt  func(reason string)
	// cancel releases the stop context.
	cancel context.CancelFunc

	mu          sync.Mutex
	reason      string
	calls       int
	retries     int
	consecutive int
	nextSlot    time.Time
	rng         *rand.Rand
}

func newEngine(ctx context.Context, p Provider, opts Options) *engine {
	if opts.BackoffBase <= 0 {
		opts.BackoffBase = time.Second
	}
	if opts.BackoffMax <= 0 {
		opts.BackoffMax = 2 * time.Minute
	}
	stop, cancel := context.WithCancel(ctx)
	e := &engine{p: p, opts: opts, stop: stop, abort: abortOf(ctx), cancel: cancel, rng: rand.New(rand.NewPCG(opts.Seed, 0x9e3779b97f4a7c15))}
	e.halt = func(reason string) {
		e.mu.Lock()
		if e.reason == "" {
			e.reason = reason
		}
		e.mu.Unlock()
		cancel()
	}
	return e
}

// ask calls the provider until it answers, gives a final error, or the run stops.
// ok is false when the request was abandoned and gets no record.
func (e *engine) ask(req *contract.Request) (Result, bool) {
	for attempt := 0; ; attempt++ {
		if !e.take(attempt) {
			return Result{}, false
		}
		res, err := e.call(req)
		if err != nil && e.abort.Err() != nil {
			return Result{}, false // aborted: left for a later run
		}
		if err == nil && res.Output != nil && !utf8.ValidString(*res.Output) {
			// The scorer rejects a record that is not UTF-8: ask again.
			err = BadResponse("the answer is not valid UTF-8 (byte %d)", invalidAt(*res.Output))
		}
		if err == nil {
			e.mu.Lock()
			e.consecutive = 0
			e.mu.Unlock()
			e.scrub(&res)
			return res, true
		}
		var ce *CallError
		if !errors.As(err, &ce) {
			ce = &CallError{Code: "network", Message: Redact(oneLine(err.Error()), e.opts.Secrets), Retry: true}
		}
		if ce.Retry && ce.RetryAfter > e.opts.BackoffMax {
			// a wait longer than the run keeps (a daily quota's hours): asked
			// again sooner, the call gets the same, each after a silent
			// wait; said at once
			ce.Retry = false
			ce.Message += fmt.Sprintf(" (the provider asks to wait %s, longer than --max-backoff %s: not asked again; run again with -o FILE once it has passed)", ce.RetryAfter.Round(time.Second), e.opts.BackoffMax)
		}
		if ce.Retry && attempt < e.opts.Retries {
			if !e.sleep(e.backoff(attempt, ce.RetryAfter)) {
				return Result{}, false
			}
			continue
		}
		e.mu.Lock()
		e.consecutive++
		n := e.consecutive
		tooMany := e.opts.MaxConsecutiveErrors > 0 && n >= e.opts.MaxConsecutiveErrors
		e.mu.Unlock()
		res.Output = nil
		res.Error = &contract.ProviderError{Code: ce.Code, Message: ProviderText(ce.Message, e.opts.Secrets)}
		if tooMany {
			// the error itself, so that a server that is down or a bad key
			// is named where the run ends
			// the limit, not n: two calls that reach it at once say the same
			e.halt(fmt.Sprintf("%s (the last: %s: %s); %s, then run again with -o FILE to go on", contract.Plural(e.opts.MaxConsecutiveErrors, "consecutive error", "consecutive errors"), res.Error.Code, res.Error.Message, seeTo(res.Error.Code, res.Error.Message)))
		}
		return res, true
	}
}

// seeTo says what to look at when a run stops on errors with code and message:
// the key, the URL, the server.
func seeTo(code, message string) string {
	if code == "http_400" && badKey(message) {
		code = "http_401" // Gemini's OpenAI-compatible API: 400 API_KEY_INVALID
	}
	switch code {
	case "http_401", "http_403":
		return "check the API key (--api-key-env names its variable)"
	case "http_404":
		return "check --base-url (the API's root, with its /v1 where it has one) and --model"
	case "network":
		return "check --base-url and that the server is up"
	case "timeout":
		return "check --base-url and that the server is up; a server that answers slowly (a long generation, a busy queue) needs a longer --timeout"
	case contract.ContentFilterCode:
		return "the provider's safety filter blocks these prompts, and asking again gets the same: check its settings (Azure OpenAI: the deployment's content filter)"
	case "http_429":
		return "a rate limit, or the account's quota when the message says so: lower --concurrency or set --rps, or check the account's plan and billing"
	case "http_402":
		return "check the account's billing"
	case "http_500", "http_502", "http_503", "http_504", "http_529":
		return "the provider is down or overloaded: wait a while"
	case "http_413":
		return "the requests are larger than the provider takes: shorten them (the study's prompt template or schemas) or ask a model that takes more"
	case "http_400", "http_422", "bad_request":
		return "the provider refuses the requests as sent: the message says what it wants (a model's own parameters: --max-tokens, --temperature)"
	}
	return "the last error's message says what went wrong"
}

// badKey reports whether an error's message says the API key is not valid, as
// Gemini's OpenAI-compatible API does with HTTP 400 ("API key not valid. Please
// pass a valid API key.", or "API Key not found. ...": reason API_KEY_INVALID).
func badKey(message string) bool {
	m := strings.ToLower(message)
	return strings.Contains(m, "api key not valid") || strings.Contains(m, "pass a valid api key") || strings.Contains(m, "invalid api key") || strings.Contains(m, "api_key_invalid")
}

// take claims one call of the budget and waits for the rate limit. False: the run
// is stopping.
func (e *engine) take(attempt int) bool {
	e.mu.Lock()
	if e.stop.Err() != nil {
		e.mu.Unlock()
		return false
	}
	if e.opts.MaxRequests > 0 && e.calls >= e.opts.MaxRequests {
		e.mu.Unlock()
		e.halt("budget")
		return false
	}
	e.calls++
	if attempt > 0 {
		e.retries++
	}
	var wait time.Duration
	if e.opts.RPS > 0 {
		now := time.Now()
		if e.nextSlot.Before(now) {
			e.nextSlot = now
		}
		wait = e.nextSlot.Sub(now)
		e.nextSlot = e.nextSlot.Add(time.Duration(float64(time.Second) / e.opts.RPS))
	}
	e.mu.Unlock()
	if wait == 0 || e.waitTurn(wait) {
		return true
	}
	// stopped while it waited its turn: no call was made, and the summary
	// counts the calls made
	e.mu.Lock()
	e.calls--
	if attempt > 0 {
		e.retries--
	}
	e.mu.Unlock()
	return false
}

// waitTurn waits d for a call's turn of the rate limit. A call claimed
// before the budget ran out is the budget's: when the budget stops the run
// it still waits its turn and is made (an abort, a second SIGINT or a
// SIGTERM, ends the wait). False when the run stops otherwise.
func (e *engine) waitTurn(d time.Duration) bool {
	deadline := time.Now().Add(d)
	if e.sleep(d) {
		return true
	}
	e.mu.Lock()
	budget := e.reason == "budget"
	e.mu.Unlock()
	return budget && sleepOn(e.abort, time.Until(deadline))
}

func (e *engine) call(req *contract.Request) (res Result, err error) {
	// Calls in flight are not canceled by a stop: they finish and are written. An
	// abort (a second signal) cancels them.
	ctx := e.abort
	if e.opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, e.opts.Timeout)
		defer cancel()
	}
	start := time.Now()
	res, err = e.p.Do(ctx, req)
	if ce := (*CallError)(nil); errors.As(err, &ce) && ce.Code == "timeout" && e.opts.Timeout > 0 && e.abort.Err() == nil {
		// the limit the call ran into, which the user set or can
		ce.Message = fmt.Sprintf("no answer within --timeout %s", e.opts.Timeout)
	}
	if err == nil && res.LatencyMS == nil {
		ms := float64(time.Since(start).Microseconds()) / 1000
		res.LatencyMS = &ms
	}
	return res, err
}

// backoff is the wait before retry attempt+1: the provider's Retry-After when it
// gave one, else exponential with full jitter in [d/2, d]; at most BackoffMax.
func (e *engine) backoff(attempt int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return min(retryAfter, e.opts.BackoffMax)
	}
	d := e.opts.BackoffBase << min(attempt, 30)
	if d <= 0 || d > e.opts.BackoffMax {
		d = e.opts.BackoffMax
	}
	e.mu.Lock()
	j := e.rng.Int64N(int64(d/2) + 1)
	e.mu.Unlock()
	return d/2 + time.Duration(j)
}

// sleep waits d; false when the run stops first.
func (e *engine) sleep(d time.Duration) bool { return sleepOn(e.stop, d) }

// sleepOn waits d; false when ctx is done first.
func sleepOn(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// scrub removes secrets from what the provider wrote into a result: its metadata
// strings (as any message) and its answer (of keys only).
func (e *engine) scrub(res *Result) {
	for _, f := range []*string{&res.Model, &res.RawResponseID, &res.FinishReason} {
		if *f != "" {
			*f = ProviderText(*f, e.opts.Secrets)
		}
	}
	if len(e.opts.Keys) == 0 {
		return
	}
	if res.Output != nil {
		// an envelope is JSON text: a key in its escapes goes too
		if out := RedactEscaped(*res.Output, e.opts.Keys); out != *res.Output {
			res.Output = &out
		}
	}
	// The provider's own output kept beside the answer (a tool call's message): JSON
	// text, whose strings lose the runs as the answer does, written plain or in
	// escapes ("[redacted]" needs no escaping, so the text stays JSON).
	for i, m := range res.Metadata {
		switch v := m.Value.(type) {
		case contract.Raw:
			if r := RedactEscaped(string(v), e.opts.Keys); r != string(v) {
				res.Metadata[i].Value = contract.Raw(r)
			}
		case string:
			res.Metadata[i].Value = Redact(v, e.opts.Keys)
		}
	}
}

// MaxRecordBytes is the longest record a runner writes: the line limit of the
// scorer's reader. A longer answer is written as a bad_response error instead.
const MaxRecordBytes = contract.DefaultMaxLineBytes

// invalidAt is the offset of the first byte of s that is not valid UTF-8.
func invalidAt(s string) int {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return len(s)
}
