// Command fbeval exports request files for LLM evaluation studies, and scores the
// response files that any runner writes, offline and deterministically.
//
// The main job, on the embedded default:
//
//	$ fbeval export coglang --include-reference | fbeval-mock --mode reference | fbeval score coglang --responses -
//
// Run `fbeval --help` for the commands and README.md for a tour.
package main

import "os"

func main() {
	os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
