package contract

import (
	"io"
	"os"
	"sync"
)

// InputIs reports which of inputs (paths; "-" is standard input, stdin, when
// that is a file) is the regular file out, by any name or link: the output a
// command or a runner is about to write (its -o file, or its standard output)
// must be none of them. A device (/dev/null) or a pipe is no input's file.
func InputIs(out os.FileInfo, inputs []string, stdin io.Reader) (in string, ok bool) {
	var s InputSet
	s.Add(inputs...)
	return s.Is(out, stdin)
}

// InputSet is the files a command reads, which no output it writes may be
// (InputIs): each path once, in the order first added, and each file looked
// up once, however often outputs are checked against it: a score of ten
// thousand shards with a report and a case-results file stats each shard once,
// not at every check. A path is looked up when first needed; a lookup that
// fails is tried again at the next. Its methods may be called from several
// goroutines at once.
type InputSet struct {
	mu    sync.Mutex
	paths []string
	infos map[string]os.FileInfo // nil for a path not looked up yet or not found
}

// Add notes paths ("" is none).
func (s *InputSet) Add(paths ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.infos == nil {
		s.infos = map[string]os.FileInfo{}
	}
	for _, p := range paths {
		if _, ok := s.infos[p]; ok || p == "" {
			continue
		}
		s.infos[p] = nil
		s.paths = append(s.paths, p)
	}
}

// Opened notes path with fi, what the file it names said of itself once it was
// opened (its Stat), so that no check looks it up again.
func (s *InputSet) Opened(path string, fi os.FileInfo) {
	s.Add(path)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.infos[path] = fi
}

// Paths returns the paths noted so far.
func (s *InputSet) Paths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.paths...)
}

// Stat returns what os.Stat says of path, looked up once; "-" is stdin, when
// that is a file.
func (s *InputSet) Stat(path string, stdin io.Reader) (os.FileInfo, error) {
	s.mu.Lock()
	fi := s.infos[path]
	s.mu.Unlock()
	if fi != nil {
		return fi, nil
	}
	var err error
	if Stdin(path) {
		f, isFile := stdin.(*os.File)
		if !isFile {
			return nil, os.ErrInvalid
		}
		fi, err = f.Stat()
	} else {
		fi, err = os.Stat(path)
	}
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.infos == nil {
		s.infos = map[string]os.FileInfo{}
	}
	if _, noted := s.infos[path]; noted {
		s.infos[path] = fi // a path asked of and not noted is not kept
	}
	return fi, nil
}

// Is reports which input is the regular file out, as InputIs does: of only,
// when given, else of every path noted.
func (s *InputSet) Is(out os.FileInfo, stdin io.Reader, only ...string) (in string, ok bool) {
	if out == nil || !out.Mode().IsRegular() {
		return "", false
	}
	if len(only) == 0 {
		only = s.Paths()
	}
	for _, in := range only {
		if in == "" {
			continue
		}
		if st, err := s.Stat(in, stdin); err == nil && os.SameFile(out, st) {
			return in, true
		}
	}
	return "", false
}

// InputName is how messages name the input in: the path, or "the file on
// standard input" for "-".
func InputName(in string) string {
	if Stdin(in) {
		return "the file on standard input"
	}
	return in
}
