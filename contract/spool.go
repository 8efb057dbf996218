package contract

import (
	"bufio"
	"io"
	"math"
	"os"
	"sync"
)

// Spool makes an input readable more than once, for readers that take two passes
// over a file (a first pass that checks or indexes it, a second that reads the
// records it needs again). A regular file is read again from where it began. Any
// other input (standard input, a pipe) is copied, as the first pass reads it, into a
// TempFile, so nothing is left behind even when the process is killed.
//
// Read is the first pass. After it, Rewind hands out a reader from the start and
// ReadAt reads at offsets counted from the start of the input; both flush the copy
// first. Close releases the copy (a regular file is the caller's to close).
type Spool struct {
	file   *os.File // the regular input, or the copy
	start  int64    // where the input begins in file
	src    io.Reader
	w      *bufio.Writer // writes the copy; nil for a regular file
	mu     sync.Mutex    // flush
	err    error         // the first error writing the copy
	closer func() error
}

// NewSpool returns a Spool of r, which is named name in messages.
func NewSpool(name string, r io.Reader) (*Spool, error) {
	if err := NotTerminal(name, r); err != nil {
		return nil, err
	}
	s := &Spool{src: r, closer: func() error { return nil }}
	if f, ok := r.(*os.File); ok && isRegular(f) {
		if start, err := f.Seek(0, io.SeekCurrent); err == nil {
			s.file, s.start = f, start
			return s, nil
		}
	}
	of := name
	if of == "-" {
		of = "standard input"
	}
	tmp, err := CreateTemp("fbeval-spool-*", "a copy of "+of+" (read twice)")
	if err != nil {
		return nil, err
	}
	s.file, s.closer = tmp.File, tmp.Close
	s.w = bufio.NewWriterSize(tmp, 1<<20)
	return s, nil
}

// Spooled reports whether the input is kept as a copy (it was not a regular file).
func (s *Spool) Spooled() bool { return s.w != nil }

// Read reads the input for the first time, keeping a copy where one is needed.
func (s *Spool) Read(p []byte) (int, error) {
	n, err := s.src.Read(p)
	if n > 0 && s.w != nil && s.err == nil {
		_, s.err = s.w.Write(p[:n])
	}
	return n, err
}

// Flush writes out the copy and returns the first error writing it: called
// once the first pass is read, it says before anything else is done that the
// copy could not be kept (a full TMPDIR), which Rewind and ReadAt would say
// only later.
func (s *Spool) Flush() error {
	s.mu.Lock() // ReadAt on several goroutines: the first flushes
	defer s.mu.Unlock()
	if s.w != nil && s.err == nil {
		s.err = s.w.Flush()
	}
	return s.err // a TempFile's: it says what the copy was for and what to do
}

// Rewind returns a reader of the input from its start: what the first pass read
// (of a copy), or the regular file as it is now.
func (s *Spool) Rewind() (io.Reader, error) {
	if err := s.Flush(); err != nil {
		return nil, err
	}
	return io.NewSectionReader(s.file, s.start, math.MaxInt64-s.start), nil
}

// ReadAt reads len(p) bytes at offset off from the start of the input. Once
// the input was read to its end, it is safe on several goroutines at once.
func (s *Spool) ReadAt(p []byte, off int64) (int, error) {
	if err := s.Flush(); err != nil {
		return 0, err
	}
	return s.file.ReadAt(p, s.start+off)
}

// Close releases the copy, if there is one.
func (s *Spool) Close() error { return s.closer() }

// isRegular reports whether f is a regular file, which can be read twice.
func isRegular(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode().IsRegular()
}
