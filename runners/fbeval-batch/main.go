// Command fbeval-batch converts fbeval request files to provider batch files and the
// batch results back to response records, offline: the upload and download are left
// to the provider's own tools.
//
//	fbeval export toolcall > requests.jsonl
//	fbeval-batch to-openai --model gpt-4o-mini requests.jsonl > batch.jsonl   # also vLLM run-batch
//	# ... run the batch, download its output (and error) file ...
//	fbeval-batch from-openai --requests requests.jsonl output.jsonl errors.jsonl > responses.jsonl
//
//	fbeval-batch to-anthropic --model claude-sonnet-4-5 requests.jsonl > batch.json   # Message Batches create body
//	fbeval-batch from-anthropic --requests requests.jsonl results.jsonl > responses.jsonl
//
// Results come back in any order and are joined by id. With --requests the response
// records follow the request order, keep each request's case id and family, and
// unknown and missing ids are reported; without it they are sorted by id. Large
// request sets are split under the provider limits with --out-dir.
package main

import (
	"os"
	"syscall"

	"github.com/fbeval/fbeval/runners/internal/runner"
)

func main() {
	runner.LimitMemory()
	batchTemps.RemoveOnSignal(os.Interrupt, syscall.SIGTERM)
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
