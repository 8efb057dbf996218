package contract

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"slices"
)

// A field is how fbeval's temporary files (TempFile) and in-memory keys hold a
// string: its length as a uvarint, then its bytes. A key made of fields cannot
// be made by two different lists of strings.

// AppendField appends s to b as a field.
func AppendField[S ~string | ~[]byte](b []byte, s S) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// WriteField writes s to w as a field and returns the bytes it took; an error
// is the writer's.
func WriteField(w *bufio.Writer, s string) (int, error) {
	// the length goes straight into the writer's buffer: a local array handed
	// to Write would be made on the heap, once a field
	if w.Available() < binary.MaxVarintLen64 {
		if err := w.Flush(); err != nil {
			return 0, err
		}
	}
	n, _ := w.Write(binary.AppendUvarint(w.AvailableBuffer(), uint64(len(s))))
	k, err := w.WriteString(s)
	return n + k, err
}

// ReadField reads the next field of r into dst's storage and returns it; a
// field cut short is io.ErrUnexpectedEOF, and io.EOF only when r ends before
// the field starts.
func ReadField(r *bufio.Reader, dst []byte) ([]byte, error) {
	n, err := readLen(r)
	if err != nil {
		return dst[:0], err
	}
	dst = slices.Grow(dst[:0], n)[:n]
	_, err = io.ReadFull(r, dst)
	return dst, err
}

// SkipField reads past the next field of r, with ReadField's errors.
func SkipField(r *bufio.Reader) error {
	n, err := readLen(r)
	if err != nil {
		return err
	}
	if k, err := r.Discard(n); k < n {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	return nil
}

func readLen(r *bufio.Reader) (int, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return 0, err
	}
	if n > maxFieldLen {
		return 0, errFieldLen
	}
	return int(n), nil
}

// maxFieldLen is more than any field fbeval writes (a response line is at most
// a few hundred MB): a larger length is damage, not a reason to allocate.
const maxFieldLen = 1 << 40

var errFieldLen = errors.New("a field's length is larger than any fbeval writes")

// CutField returns the field at the start of b and the rest of b after it; ok
// is false (and the others empty) when b does not start with a whole field.
func CutField[S ~string | ~[]byte](b S) (field, rest S, ok bool) {
	n, rest, ok := CutUvarint(b)
	if !ok || n > uint64(len(rest)) {
		return field, b[:0], false
	}
	return rest[:n], rest[n:], true
}

// CutUvarint returns the uvarint at the start of b (a count written before
// fields) and the rest of b after it; ok is false (and the others zero) when b
// does not start with one that fits in 64 bits.
func CutUvarint[S ~string | ~[]byte](b S) (n uint64, rest S, ok bool) {
	for i := 0; i < len(b) && i < binary.MaxVarintLen64; i++ {
		c := b[i]
		if c < 0x80 {
			if i == binary.MaxVarintLen64-1 && c > 1 {
				break // overflows 64 bits
			}
			return n | uint64(c)<<(7*i), b[i+1:], true
		}
		n |= uint64(c&0x7f) << (7 * i)
	}
	return 0, b[:0], false
}
