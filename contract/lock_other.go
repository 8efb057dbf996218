//go:build !unix

package contract

import "os"

// LockOutput takes no lock where there is no flock.
func LockOutput(*os.File) bool { return true }

// BeingWritten knows nothing where there is no flock.
func BeingWritten(*os.File) bool { return false }

// AppendOnly does nothing where a descriptor's flags cannot be set: writes go
// where the file's offset is.
func AppendOnly(*os.File) error { return nil }
