// Command fbeval-mock answers fbeval request files offline, without a model, so that
// a whole pipeline can be tried and tested: export, answer, score.
//
// Modes:
//
//	--mode reference   answer with the request's reference output (export with
//	                   --include-reference); every case should pass
//	--mode refuse      answer with a fixed non-answer: a refusal envelope for toolcall
//	                   requests, a sentence for CogLang requests
//	--mode garble      a seeded, deterministic mix of right answers and realistic
//	                   wrong ones; repair attempts are more often right
//
// Example:
//
//	fbeval export toolcall-quick --include-reference | fbeval-mock --mode garble --seed 7 > responses.jsonl
//
// The choice for a request depends only on the seed, its request id and its attempt,
// so the output is the same bytes for the same input, whatever the order of requests.
package main

import (
	"os"

	"github.com/fbeval/fbeval/runners/internal/runner"
)

func main() {
	runner.LimitMemory()
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
