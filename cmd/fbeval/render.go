package main

import (
	"io"

	"github.com/fbeval/fbeval/contract"
)

// renderReport renders a report object in a format for people or CI.
func renderReport(w io.Writer, report contract.Object, format string) error {
	return usageError("--format %s is not available for toolcall reports yet", format)
}
