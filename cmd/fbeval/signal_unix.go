//go:build unix

package main

import (
	"os"
	"syscall"
)

// raise sends sig to the process again, so that it ends as the signal would
// end it once the handler is reset.
func raise(sig os.Signal) {
	if s, ok := sig.(syscall.Signal); ok {
		syscall.Kill(os.Getpid(), s)
	}
}
