//go:build !unix

package main

import "os"

// newFileMode is the mode of an output fbeval creates where there is no
// umask.
func newFileMode() os.FileMode { return 0o644 }
