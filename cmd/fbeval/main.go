// Command fbeval exports request files for LLM evaluation studies, and scores the
// response files that any runner writes, offline and deterministically.
//
// The main job, on the embedded default:
//
//	$ fbeval export coglang --include-reference | fbeval-mock --mode reference | fbeval score coglang --responses -
//
// Run `fbeval --help` for the commands and README.md for a tour.
package main

import (
	"os"
	"syscall"

	"github.com/fbeval/fbeval/cmd/fbeval/internal/startgc"
)

// The packages this one imports were initialised with the collector off
// (internal/startgc); it is on again from here, in tests too. The heap is then
// past the collector's first goal: on Linux the heap's growth, first in main,
// turns the collector off before anything allocates, and its one collection is
// the process's first; elsewhere the first allocation starts that collection.
func init() { startgc.Restore() }

func main() {
	growHeapHuge(hugeHeapBytes)
	removeTempFilesOnSignal()
	os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// removeTempFilesOnSignal makes SIGINT, SIGTERM and SIGHUP remove the temporary
// output files being written before the process ends as the signal would end it
// (contract.Pending).
func removeTempFilesOnSignal() {
	tempFiles.RemoveOnSignal(os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
}
