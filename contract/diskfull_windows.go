package contract

import (
	"errors"
	"syscall"
)

// The Windows errors of a full disk (winerror.h), which package syscall does
// not name.
const (
	errorHandleDiskFull syscall.Errno = 39
	errorDiskFull       syscall.Errno = 112
)

// DiskFull reports whether err, from a write, says the disk has no room for
// what was written.
func DiskFull(err error) bool {
	return errors.Is(err, errorDiskFull) || errors.Is(err, errorHandleDiskFull) || errors.Is(err, syscall.ENOSPC)
}

// TooLarge: Windows sets no limit on the size of a file a process writes.
func TooLarge(error) bool { return false }
