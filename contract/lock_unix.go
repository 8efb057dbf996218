//go:build unix

package contract

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// LockOutput takes f, a response file a runner writes, for this process alone:
// an advisory lock (flock), held until f is closed. It reports false when
// another process holds it. A file system that takes no locks (some network
// mounts) leaves the file unlocked.
func LockOutput(f *os.File) bool {
	err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	return !errors.Is(err, unix.EWOULDBLOCK)
}

// BeingWritten reports whether another process holds f's LockOutput lock: a
// runner that has not ended is still writing the file.
func BeingWritten(f *os.File) bool {
	err := unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB)
	if err == nil {
		unix.Flock(int(f.Fd()), unix.LOCK_UN)
	}
	return errors.Is(err, unix.EWOULDBLOCK)
}
