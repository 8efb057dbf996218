// Command fbeval-fakeserver serves a fake OpenAI-compatible and Anthropic API on a
// local port, so the runners can be tried end to end without a provider or a key.
// Once it listens it prints the base URL to give the runners (--base-url), on one
// line of stdout. With --answers it answers every request as a request file exported
// with --include-reference says (each conversation gets its reference output), so
// the scores are those of the reference; without it, every request gets the same
// text (--reply, a toolcall refusal envelope by default).
//
//	fbeval export toolcall-quick --include-reference > answers.jsonl
//	fbeval-fakeserver --addr 127.0.0.1:8089 --answers answers.jsonl &
//	fbeval export toolcall-quick | fbeval-openai --base-url http://127.0.0.1:8089/v1 --model fake -o responses.jsonl
//	fbeval score toolcall-quick --responses responses.jsonl
//	kill %1
//
// It also plays a batch service, offline: --openai-batch FILE answers an OpenAI Batch
// input file (from fbeval-batch to-openai) and writes the Batch API output file;
// --anthropic-batch FILE answers a Message Batches create body (from fbeval-batch
// to-anthropic) and writes the results file. Both go to stdout, lines in reverse
// order (the providers promise none), and the server does not start.
//
//	fbeval-fakeserver --answers answers.jsonl --openai-batch batch.jsonl > output.jsonl
//
// Two faults show what a runner does with its key: --redirect-to URL answers every
// call with 307 to URL (another origin: the runners refuse it), and --echo-headers
// answers 200 with a body that is not JSON and holds the request's headers.
package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"syscall"

	"github.com/alecthomas/kong"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/runners/internal/fakeserver"
	"github.com/fbeval/fbeval/runners/internal/runner"
)

const name = "fbeval-fakeserver"

type cli struct {
	Addr           string `default:"127.0.0.1:8089" placeholder:"HOST:PORT" help:"Local address to listen on (port 0: any free port)."`
	Reply          string `default:"${reply}" placeholder:"TEXT" help:"The answer to every request, without --answers."`
	Answers        string `placeholder:"FILE" help:"Request file exported with --include-reference: answer each conversation with its reference output (- reads stdin)."`
	OpenAIBatch    string `name:"openai-batch" xor:"batch" placeholder:"FILE" help:"Answer this OpenAI Batch input file (- reads stdin), write the output file to stdout, and exit."`
	AnthropicBatch string `xor:"batch" placeholder:"FILE" help:"Answer this Message Batches create body (- reads stdin), write the results file to stdout, and exit."`
	RedirectTo     string `placeholder:"URL" help:"Answer every call with 307 Temporary Redirect to URL plus the call's path."`
	EchoHeaders    bool   `help:"Answer every call with 200 and a body that is not JSON and echoes the request's headers."`
}

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

// run is the whole command; it returns only in batch mode or on an error.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var c cli
	vars := kong.Vars{"reply": fakeserver.DefaultReply}
	if code, done := runner.ParseArgs(&c, name, "Serve a fake OpenAI-compatible and Anthropic API on a local port, or play their batch services on files.", args, stdout, stderr, vars); done {
		return code
	}
	fail := func(code int, err error) int {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return code
	}
	if contract.Stdin(c.Answers) && contract.Stdin(c.OpenAIBatch+c.AnthropicBatch) {
		return fail(2, fmt.Errorf("--answers - and the batch file - both read standard input, which can be read once: name one of them as a file"))
	}
	text := c.Reply
	opts := fakeserver.Options{Reply: func(string) string { return text }}
	if c.Answers != "" {
		f, fname, done, err := contract.OpenInput(c.Answers, "the answers", stdin)
		if err != nil {
			return fail(2, err)
		}
		opts.Answers, err = fakeserver.LoadAnswers(fname, f)
		done()
		if err != nil {
			return fail(2, err)
		}
	}
	if c.RedirectTo != "" || c.EchoHeaders {
		fault := fakeserver.Fault{Redirect: c.RedirectTo, EchoHeaders: c.EchoHeaders}
		opts.Fault = func(string, int) fakeserver.Fault { return fault }
	}
	srv := fakeserver.New(opts)
	if path := c.OpenAIBatch + c.AnthropicBatch; path != "" {
		f, fname, done, err := contract.OpenInput(path, "the batch", stdin)
		if err != nil {
			return fail(2, err)
		}
		defer done()
		if c.OpenAIBatch != "" {
			err = srv.RunOpenAIBatch(fname, f, stdout)
		} else {
			err = srv.RunAnthropicBatch(fname, f, stdout)
		}
		if err != nil {
			return fail(2, err)
		}
		return 0
	}
	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		return fail(2, addrError(c.Addr, err))
	}
	fmt.Fprintf(stdout, "http://%s/v1\n", ln.Addr())
	return fail(1, http.Serve(ln, srv))
}

// addrError says what to give --addr when addr cannot be listened on: a port
// alone or a host alone gets the whole address, a port in use another one.
func addrError(addr string, err error) error {
	if _, _, splitErr := net.SplitHostPort(addr); splitErr != nil {
		example := addr + ":8089"
		if _, numErr := strconv.Atoi(addr); numErr == nil {
			example = "127.0.0.1:" + addr
		}
		return fmt.Errorf("--addr %s: give a host and a port, as %s", addr, example)
	}
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("--addr %s: the port is in use (a fake server still running?): give another port, or port 0 for any free one", addr)
	}
	return err
}
