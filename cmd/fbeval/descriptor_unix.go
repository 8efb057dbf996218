//go:build unix

package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// openDescriptor is the file an output named path is written through when
// path names a descriptor the process was started with (descriptorOf), by
// itself or through links, that holds a regular file: the one the shell opened
// (3>>log, 2>err, 3<>file), written from where the shell left it (at the end,
// with >>), as standard output is. Followed as a link to the file and renamed
// over, that file was replaced (3>>log lost the log's lines). It is looked up
// before the command opens a file of its own, which could take a number the
// shell left unused. The file is a duplicate of the descriptor (nil for any
// other path, and for a descriptor that is not a regular file: a pipe is a
// stream). A descriptor that is not open, or open for reading only, is
// refused.
func openDescriptor(flag, path string) (*descriptor, error) {
	fd := descriptorOf(linkedDescriptor(path))
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
	return &descriptor{File: os.NewFile(uintptr(dup), path), appends: mode&unix.O_APPEND != 0}, nil
}

// linkedDescriptor is path, or the descriptor's path a chain of links from
// path leads to (a link to /dev/fd/3); a few links at most are followed.
func linkedDescriptor(path string) string {
	p := path
	for range 8 {
		if descriptorOf(p) >= 0 {
			return p
		}
		li, err := os.Lstat(p)
		if err != nil || li.Mode()&os.ModeSymlink == 0 {
			return path
		}
		to, err := os.Readlink(p)
		if err != nil {
			return path
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(filepath.Dir(p), to)
		}
		p = to
	}
	return path
}

// end ends an output written through d where the shell did not open it to
// append: the file is cut where the output ends, so that what it held past
// there (3<>report.json over a longer report) does not follow it.
func (d *descriptor) end() error {
	if d.appends {
		return nil
	}
	off, err := d.Seek(0, 1)
	if err != nil {
		return nil // no offset: nothing held past it
	}
	return d.Truncate(off)
}
