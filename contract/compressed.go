package contract

import (
	"bytes"
	"fmt"
	"strings"
)

// compressed names the compressed or archive format whose magic number data
// starts with, and the command that writes out what it holds; "" when it starts
// with none. JSON text cannot start with any of them, so a file that does is
// one a user forgot to decompress, and is said so (compressedMsg).
func compressed(data []byte) (format, decompress string) {
	switch {
	case bytes.HasPrefix(data, []byte{0x1f, 0x8b}):
		return "gzip", "gzip -dc"
	case bytes.HasPrefix(data, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		return "zstd", "zstd -dc"
	case len(data) >= 10 && bytes.HasPrefix(data, []byte("BZh")) && data[3] >= '1' && data[3] <= '9' && string(data[4:10]) == "1AY&SY":
		return "bzip2", "bzip2 -dc"
	case bytes.HasPrefix(data, []byte{0xfd, '7', 'z', 'X', 'Z', 0}):
		return "xz", "xz -dc"
	case bytes.HasPrefix(data, []byte("PK\x03\x04")):
		return "zip", "unzip -p"
	}
	return "", ""
}

// CompressedMagic is the most bytes Compressed reads.
const CompressedMagic = 10

// Compressed returns the error of a file named name that starts with head when
// head is the start of compressed data (gzip, zstd, bzip2, xz, zip), which JSON
// text cannot be, saying how to decompress it; nil otherwise. A reader that
// changes its input before the contract reader sees it (CogLang's Python
// text rules) asks it of the file's first CompressedMagic bytes.
func Compressed(name string, head []byte) error {
	if format, cmd := compressed(head); format != "" {
		return &InputError{Kind: ErrSyntax, File: name, Line: 1, Col: 1, Msg: compressedMsg(name, format, cmd)}
	}
	return nil
}

// compressedMsg says that the file name is compressed as format and how to
// give what it holds.
func compressedMsg(name, format, decompress string) string {
	if Stdin(name) {
		return fmt.Sprintf("%s-compressed data, not JSON text: decompress it on the way in (%s FILE | ...)", format, decompress)
	}
	out := name
	for _, ext := range []string{".gz", ".zst", ".bz2", ".xz", ".zip"} {
		if base, ok := strings.CutSuffix(name, ext); ok && base != "" {
			out = base
			break
		}
	}
	if out == name {
		out = name + ".json"
	}
	return fmt.Sprintf("%s-compressed, not JSON text: decompress it first (%s %s > %s) and give that file", format, decompress, name, out)
}
