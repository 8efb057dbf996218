//go:build unix

package main

import (
	"os"
	"sync"
	"syscall"
)

// newFileMode is the mode of an output fbeval creates: 0666 less the
// process's umask, as the shell's > and every program that creates a file
// give it. An output is written to a temporary file (0600) and renamed, so
// the mode is set by hand, and a fixed 0644 made a file readable to all
// under umask 077. It is read once: reading the umask sets it, for an
// instant, to the value read back at once.
var newFileMode = sync.OnceValue(func() os.FileMode {
	mask := syscall.Umask(0o022)
	syscall.Umask(mask)
	return 0o666 &^ os.FileMode(mask)
})
