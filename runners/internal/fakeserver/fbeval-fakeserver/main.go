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
package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"

	"github.com/fbeval/fbeval/runners/internal/fakeserver"
)

const name = "fbeval-fakeserver"

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run is the whole command; it returns only in batch mode or on an error.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8089", "local address to listen on (port 0: any free port)")
	reply := fs.String("reply", fakeserver.DefaultReply, "the answer to every request, without --answers")
	answers := fs.String("answers", "", "request file exported with --include-reference: answer each conversation with its reference output")
	openaiBatch := fs.String("openai-batch", "", "answer this OpenAI Batch input file, write the output file to stdout, and exit")
	anthropicBatch := fs.String("anthropic-batch", "", "answer this Message Batches create body, write the results file to stdout, and exit")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	fail := func(code int, err error) int {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return code
	}
	if fs.NArg() > 0 || (*openaiBatch != "" && *anthropicBatch != "") {
		fmt.Fprintf(stderr, "%s: takes flags only, and at most one of --openai-batch and --anthropic-batch\n", name)
		return 2
	}
	text := *reply
	opts := fakeserver.Options{Reply: func(string) string { return text }}
	if *answers != "" {
		f, err := os.Open(*answers)
		if err != nil {
			return fail(2, err)
		}
		opts.Answers, err = fakeserver.LoadAnswers(*answers, f)
		f.Close()
		if err != nil {
			return fail(2, err)
		}
	}
	srv := fakeserver.New(opts)
	if path := *openaiBatch + *anthropicBatch; path != "" {
		f, err := os.Open(path)
		if err != nil {
			return fail(2, err)
		}
		defer f.Close()
		if *openaiBatch != "" {
			err = srv.RunOpenAIBatch(path, f, stdout)
		} else {
			err = srv.RunAnthropicBatch(path, f, stdout)
		}
		if err != nil {
			return fail(2, err)
		}
		return 0
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fail(2, err)
	}
	fmt.Fprintf(stdout, "http://%s/v1\n", ln.Addr())
	return fail(1, http.Serve(ln, srv))
}
