//go:build !windows

package contract

import (
	"errors"
	"syscall"
)

// DiskFull reports whether err, from a write, says the disk (or the user's
// quota) has no room for what was written.
func DiskFull(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// TooLarge reports whether err says the file would pass the largest size the
// process may write (RLIMIT_FSIZE, ulimit -f).
func TooLarge(err error) bool { return errors.Is(err, syscall.EFBIG) }
