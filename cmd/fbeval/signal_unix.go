//go:build unix

package main

import (
	"os"
	"syscall"
	"time"
)

// raise sends sig to the process again, so that it ends as the signal would
// end it once the handler is reset, and waits for it to: the signal is
// delivered a moment later, and the caller's exit that follows won the race
// (exit 2 for a SIGTERM, most times). A signal the process ignores (SIGINT
// in a shell's background job) leaves the caller's exit to end it.
func raise(sig os.Signal) {
	if s, ok := sig.(syscall.Signal); ok {
		syscall.Kill(os.Getpid(), s)
		time.Sleep(time.Second)
	}
}
