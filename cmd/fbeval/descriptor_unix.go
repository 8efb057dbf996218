//go:build unix

package main

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// openDescriptor is the file an output named path is written through when
// path names a descriptor the process was started with (descriptorOf) that
// holds a regular file: the one the shell opened (3>>log, 2>err), written from
// where the shell left it (at the end, with >>), as standard output is.
// Followed as a link to the file and renamed over, that file was replaced
// (3>>log lost the log's lines). It is looked up before the command opens a
// file of its own, which could take a number the shell left unused. The file
// is a duplicate of the descriptor (nil for any other path, and for a
// descriptor that is not a regular file: a pipe is a stream). A descriptor
// that is not open, or open for reading only, is refused.
func openDescriptor(flag, path string) (*os.File, error) {
	fd := descriptorOf(path)
	if fd < 0 {
		return nil, nil
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		if errors.Is(err, unix.EBADF) {
			return nil, usageError("%s %s: descriptor %d is not open: open it for writing in the shell (%d>FILE, %d>>FILE to append), or name a file", flag, path, fd, fd, fd)
		}
		return nil, nil // the path's own checks say why
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, nil
	}
	mode, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err == nil && mode&unix.O_ACCMODE == unix.O_RDONLY {
		if fd == 0 {
			return nil, usageError("%s %s: is standard input, open for reading only: name a file", flag, path)
		}
		return nil, usageError("%s %s: descriptor %d is open for reading only: open it for writing in the shell (%d>FILE, %d>>FILE to append), or name a file", flag, path, fd, fd, fd)
	}
	dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, &exitError{code: 2, err: fmt.Errorf("%s %s: %v", flag, path, err)}
	}
	return os.NewFile(uintptr(dup), path), nil
}
