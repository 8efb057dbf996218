//go:build unix

package main

import "golang.org/x/sys/unix"

// cannotWrite reports whether this user may not write the existing file at
// path (its mode or owner), which a rename over it would replace all the same.
func cannotWrite(path string) bool { return unix.Access(path, unix.W_OK) != nil }
