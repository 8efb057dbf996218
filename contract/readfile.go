package contract

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"
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

// ReadFile reads a whole file of JSON or text, up to MaxFileBytes. A file that
// starts with a NUL byte (a binary file, /dev/zero) or is larger than the bound is
// an *InputError, found without reading past the bound; errors from the system
// (a missing file, a directory) are returned as they are.
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, &os.PathError{Op: "read", Path: path, Err: errors.New("is a directory")}
	}
	return ReadAll(path, f)
}

// ReadAll reads r whole, as ReadFile does; name is used in messages.
func ReadAll(name string, r io.Reader) ([]byte, error) {
	limit := MaxFileBytes()
	var buf bytes.Buffer
	first := true
	chunk := make([]byte, 64<<10)
	for {
		n, err := r.Read(chunk)
		if n > 0 {
			if first && chunk[0] == 0 {
				return nil, &InputError{Kind: ErrSyntax, File: name, Msg: "starts with a NUL byte: this is not a text file"}
			}
			first = false
			if int64(buf.Len()+n) > limit {
				return nil, &InputError{Kind: ErrLimit, File: name, Msg: fmt.Sprintf("larger than %d bytes (raise the limit with --max-file-bytes)", limit)}
			}
			buf.Write(chunk[:n])
		}
		if err == io.EOF {
			return buf.Bytes(), nil
		}
		if err != nil {
			return nil, err
		}
	}
}
