// Package e2e holds the end-to-end tests of the runner binaries: it builds fbeval,
// the runners and the fake server once, and runs the documented pipelines through
// real processes and pipes.
//
//	go test ./runners/internal/e2e            # about ten seconds, most of it linking
//	go test -short ./runners/internal/e2e     # skips them
//
// What they prove: export | fbeval-openai | score against the fake server scores as
// the reference does; a batch round trip (fbeval-batch to-openai / to-anthropic, the
// batch service, from-openai / from-anthropic) gives the same response records and the
// same report as a live run, latency aside; and a run under injected faults that
// stops on its budget or on consecutive errors, then resumes, loses and duplicates no
// answer. The package has no code of its own.
package e2e
