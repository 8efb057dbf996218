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

// AppendOnly makes every later write to f go to the file's end, wherever
// another process has written (O_APPEND): a response file a runner writes
// (after it has read it and cut a torn line off) keeps what another writer
// appends to it meanwhile (a second run's `>> FILE`), which writes at the
// runner's own offset wrote over.
func AppendOnly(f *os.File) error {
	fd := int(f.Fd())
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		return err
	}
	_, err = unix.FcntlInt(uintptr(fd), unix.F_SETFL, flags|unix.O_APPEND)
	return err
}
