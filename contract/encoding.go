package contract

import (
	"bytes"
	"fmt"
	"strings"
)

// compressed names the compressed or archive format whose magic number data
// starts with, and the command that writes out what it holds; "" when it starts
// with none. JSON text cannot start with any of them, so a file that does is
// one a user forgot to decompress, and is said so (WrongEncoding).
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

// wide names the UTF-16 or UTF-32 encoding data is in, as iconv names it: by
// its byte order mark ("UTF-16", which iconv reads), or without one by the
// zero bytes around its first two characters, the first of which starts JSON
// text ("UTF-16LE"); "" when it is neither. PowerShell's `>` writes UTF-16
// with a mark.
func wide(d []byte) string {
	jsonStart := func(c byte) bool { return bytes.IndexByte([]byte("{[\" \t\r\n"), c) >= 0 }
	switch {
	case bytes.HasPrefix(d, []byte{0xff, 0xfe, 0, 0}), bytes.HasPrefix(d, []byte{0, 0, 0xfe, 0xff}):
		return "UTF-32"
	case len(d) >= 8 && jsonStart(d[0]) && d[1] == 0 && d[2] == 0 && d[3] == 0 && d[4] != 0 && d[5] == 0 && d[6] == 0 && d[7] == 0:
		return "UTF-32LE"
	case len(d) >= 8 && d[0] == 0 && d[1] == 0 && d[2] == 0 && jsonStart(d[3]) && d[4] == 0 && d[5] == 0 && d[6] == 0 && d[7] != 0:
		return "UTF-32BE"
	case bytes.HasPrefix(d, []byte{0xff, 0xfe}), bytes.HasPrefix(d, []byte{0xfe, 0xff}):
		return "UTF-16"
	case len(d) >= 4 && jsonStart(d[0]) && d[1] == 0 && d[2] != 0 && d[3] == 0:
		return "UTF-16LE"
	case len(d) >= 4 && d[0] == 0 && jsonStart(d[1]) && d[2] == 0 && d[3] != 0:
		return "UTF-16BE"
	}
	return ""
}

// EncodingMagic is the most bytes WrongEncoding reads.
const EncodingMagic = 10

// WrongEncoding returns the error of a file named name that starts with head
// when head is the start of compressed data (gzip, zstd, bzip2, xz, zip) or of
// UTF-16 or UTF-32 text, which JSON text in UTF-8 cannot be, saying how to turn
// it into a file fbeval reads; nil otherwise. A reader that changes its input
// before the contract reader sees it (CogLang's Python text rules) asks it of
// the file's first EncodingMagic bytes.
func WrongEncoding(name string, head []byte) error {
	if msg := wrongEncodingMsg(name, head); msg != "" {
		return &InputError{Kind: ErrSyntax, File: name, Line: 1, Col: 1, Msg: msg, Advised: true}
	}
	return nil
}

// wrongEncodingMsg is WrongEncoding's message, or "".
func wrongEncodingMsg(name string, head []byte) string {
	if format, cmd := compressed(head); format != "" {
		if Stdin(name) || name == StdinName {
			return fmt.Sprintf("%s-compressed data, not JSON text: decompress it on the way in (%s FILE | ...)", format, cmd)
		}
		return fmt.Sprintf("%s-compressed, not JSON text: decompress it first (%s %s > %s) and give that file", format, cmd, name, plainName(name, true))
	}
	if enc := wide(head); enc != "" {
		if Stdin(name) || name == StdinName {
			return fmt.Sprintf("%s text, not UTF-8: convert it on the way in (iconv -f %s -t UTF-8 FILE | ...)", enc, enc)
		}
		msg := fmt.Sprintf("%s text, not UTF-8: convert it first (iconv -f %s -t UTF-8 %s > %s) and give that file", enc, enc, name, plainName(name, false))
		if enc == "UTF-16" {
			// Windows PowerShell's > writes UTF-16 with a byte order mark,
			// from text it read in the console's code page: iconv gives
			// back what it wrote, not what fbeval wrote
			msg += "; if Windows PowerShell's > wrote it, text outside ASCII may be changed already: make the file again with the command's -o FILE instead"
		}
		return msg
	}
	return ""
}

// plainName is the name to write a file's decompressed or converted text to:
// without the compressed file's extension, else with ".utf8" (or ".json")
// added before its own.
func plainName(name string, packed bool) string {
	if packed {
		for _, ext := range []string{".gz", ".zst", ".bz2", ".xz", ".zip"} {
			if base, ok := strings.CutSuffix(name, ext); ok && base != "" {
				return base
			}
		}
		return name + ".json"
	}
	dot := strings.LastIndexByte(name, '.')
	if dot <= strings.LastIndexByte(name, '/')+1 {
		return name + ".utf8"
	}
	return name[:dot] + ".utf8" + name[dot:]
}
