//go:build !unix

package main

import "os"

// raise does nothing where a process cannot send itself a signal: the caller
// exits 2 instead.
func raise(os.Signal) {}
