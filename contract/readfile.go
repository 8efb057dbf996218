package contract

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"golang.org/x/term"
)

// DefaultMaxFileBytes bounds a file read whole: a study, a dataset, a fixture, a
// schema, a prompt template, a report, a contract, an output to check.
const DefaultMaxFileBytes = 256 << 20

var maxFileBytes atomic.Int64

func init() { maxFileBytes.Store(DefaultMaxFileBytes) }

// SetMaxFileBytes sets the bound of ReadFile and ReadAll for the whole process (the
// command's --max-file-bytes); n <= 0 restores the default.
func SetMaxFileBytes(n int64) {
	if n <= 0 {
		n = DefaultMaxFileBytes
	}
	maxFileBytes.Store(n)
}

// MaxFileBytes is the bound of ReadFile and ReadAll.
func MaxFileBytes() int64 { return maxFileBytes.Load() }

// stdin is what "-" reads (SetStdin); os.Stdin until it is set.
var stdin atomic.Pointer[io.Reader]

// SetStdin sets what the path "-" reads for the whole process: the command's
// standard input as its caller gave it (fbeval's Main, and so its in-process
// tests). nil restores os.Stdin.
func SetStdin(r io.Reader) {
	if r == nil {
		stdin.Store(nil)
		return
	}
	stdin.Store(&r)
}

func stdinReader() io.Reader {
	if r := stdin.Load(); r != nil {
		return *r
	}
	return os.Stdin
}

// ReadFile reads a whole file of JSON or text, up to MaxFileBytes. A file that
// starts with a NUL byte (a binary file, /dev/zero) or is larger than the bound is
// an *InputError, found without reading past the bound; errors from the system
// (a missing file, a directory) are returned as they are.
func ReadFile(path string) ([]byte, error) {
	f, r, err := OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var buf bytes.Buffer
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() < MaxFileBytes() {
		buf.Grow(int(st.Size()) + bytes.MinRead)
	}
	if _, err := buf.ReadFrom(r); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// OpenFile opens a file to be read in a stream as ReadFile reads it whole: the
// reader returns ReadFile's *InputError when it meets a NUL first byte or passes
// the bound. The path "-" is standard input, which can be read once (see
// Stdin, and SetStdin); f is nil when that is not a file. The caller closes f.
func OpenFile(path string) (f *os.File, r io.Reader, err error) {
	if Stdin(path) {
		in := stdinReader()
		if err := NotTerminal(path, in); err != nil {
			return nil, nil, err
		}
		f, _ := in.(*os.File) // nil for a reader that is not a file
		return f, &boundedReader{name: path, r: in, limit: MaxFileBytes()}, nil
	}
	f, err = Open(path)
	if err != nil {
		return nil, nil, err
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, nil, &os.PathError{Op: "read", Path: path, Err: errors.New("is a directory")}
	}
	return f, &boundedReader{name: path, r: f, limit: MaxFileBytes()}, nil
}

// Open opens a file to read, as os.Open does. A name that is no file and reads
// as JSON text (a record or an object typed where its file goes) is said to be
// so, in an *os.PathError whose Path is the start of the text. A terminal
// (/dev/stdin, /dev/tty, with nothing piped in) is refused at once, as "-" is
// (NotTerminal), not read in a silent wait.
func Open(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err == nil && term.IsTerminal(int(f.Fd())) {
		f.Close()
		return nil, &InputError{Kind: ErrUsage, File: path, Msg: "is a terminal, not a file (standard input left to the terminal?): name the file, or pipe it in"}
	}
	if err != nil && errors.Is(err, fs.ErrNotExist) {
		if t := strings.TrimSpace(path); t != "" && strings.ContainsRune("{[\"", rune(t[0])) {
			if len(t) > 40 {
				cut := 37
				for cut > 0 && !utf8.RuneStart(t[cut]) {
					cut--
				}
				t = t[:cut] + "..."
			}
			return nil, &os.PathError{Op: "open", Path: t, Err: errors.New("this is JSON text, not a file name: save it to a file and give its name, or pipe it in and give - in its place")}
		}
	}
	return f, err
}

// ReadAll reads r whole, as ReadFile does; name is used in messages.
func ReadAll(name string, r io.Reader) ([]byte, error) {
	return io.ReadAll(&boundedReader{name: name, r: r, limit: MaxFileBytes()})
}

// boundedReader reads r, refusing a NUL first byte, a compressed file, UTF-16
// or UTF-32 text and more than limit bytes.
type boundedReader struct {
	name  string
	r     io.Reader
	limit int64
	n     int64
	err   *InputError // once refused, every read is (a bufio.Reader passes an error on once)
}

func (b *boundedReader) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if room := b.limit + 1 - b.n; int64(len(p)) > room {
		p = p[:room] // one byte past the bound is enough to know
	}
	n, err := b.r.Read(p)
	if n > 0 && b.n == 0 {
		// a short first read (a pipe) may cut a magic number: then the
		// parser's error stands
		if msg := wrongEncodingMsg(b.name, p[:n]); msg != "" {
			return 0, b.refuse(ErrSyntax, msg)
		}
		if p[0] == 0 {
			return 0, b.refuse(ErrSyntax, "starts with a NUL byte: this is not a text file")
		}
	}
	b.n += int64(n)
	if b.n > b.limit {
		return 0, b.refuse(ErrLimit, fmt.Sprintf("larger than %d bytes (raise the limit with --max-file-bytes)", b.limit))
	}
	return n, err
}

func (b *boundedReader) refuse(kind error, msg string) error {
	b.err = &InputError{Kind: kind, File: b.name, Msg: msg}
	return b.err
}

// Stdin reports whether path names standard input: "-", as on every command
// line. A reader of such a path reads it once, as it comes; one that must
// read its input again keeps a copy (Spool).
func Stdin(path string) bool { return path == "-" }

// StdinName is standard input's name in messages, where a file's is its path.
const StdinName = "<stdin>"

// OpenInput opens the input a flag or argument names, for a reader that takes
// any reader: "-" is stdin (refused when it is a terminal: nothing piped in),
// named StdinName; anything else is opened as Open opens it, and an error
// opening it says "cannot read" what it holds (what: "requests"). done closes
// what was opened (nothing for stdin); it is not nil when err is nil.
func OpenInput(path, what string, stdin io.Reader) (r io.Reader, name string, done func(), err error) {
	if Stdin(path) {
		if err := NotTerminal(StdinName, stdin); err != nil {
			return nil, "", nil, err
		}
		return stdin, StdinName, func() {}, nil
	}
	f, err := Open(path)
	if err != nil {
		return nil, "", nil, fmt.Errorf("cannot read %s: %w", what, err)
	}
	return f, path, func() { f.Close() }, nil
}

// NotTerminal refuses an input r, named name, that is a terminal: standard
// input left to the keyboard where a file was meant (fbeval-mock with no
// request file and nothing piped in, --responses - without the pipe), which
// would wait for typing, silent, instead of reading a file.
func NotTerminal(name string, r io.Reader) error {
	if f, ok := r.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return &InputError{Kind: ErrUsage, File: name, Msg: "standard input is a terminal, not a file: name the file, or pipe it in"}
	}
	return nil
}
