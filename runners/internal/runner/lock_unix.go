//go:build unix

package runner

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// lockOutput takes f for this run alone (an advisory lock, held until f is
// closed) and reports false when another run holds it. A file system that
// takes no locks (some network mounts) leaves the file unlocked.
func lockOutput(f *os.File) bool {
	err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	return !errors.Is(err, unix.EWOULDBLOCK)
}
