package coglang

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// pyRepr returns Python's repr() of s: single quotes unless s holds a single quote
// and no double quote; backslash, the quote, \t \n \r escaped; characters Python
// does not print as \xhh, \uhhhh or \Uhhhhhhhh.
func pyRepr(s string) string {
	return string(appendPyRepr(nil, s))
}

func appendPyRepr(dst []byte, s string) []byte {
	q := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		q = '"'
	}
	dst = append(dst, q)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			if i+2 < len(s) && s[i] == 0xED && s[i+1] >= 0xA0 && s[i+1] <= 0xBF && s[i+2]&0xC0 == 0x80 {
				// a lone surrogate as the JSON reader keeps it (WTF-8): Python
				// prints it as its escape
				r = rune(s[i]&0x0F)<<12 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F)
				dst = appendHex(dst, `\u`, uint32(r), 4)
				i += 3
				continue
			}
			// Not reachable from decoded JSON.
			dst = appendHex(dst, `\x`, uint32(s[i]), 2)
			i++
			continue
		}
		i += size
		switch {
		case r == rune(q) || r == '\\':
			dst = append(dst, '\\', byte(r))
		case r == '\t':
			dst = append(dst, `\t`...)
		case r == '\n':
			dst = append(dst, `\n`...)
		case r == '\r':
			dst = append(dst, `\r`...)
		case r < 0x20 || r == 0x7f:
			dst = appendHex(dst, `\x`, uint32(r), 2)
		case r < utf8.RuneSelf:
			dst = append(dst, byte(r))
		case pyPrintable(r):
			dst = utf8.AppendRune(dst, r)
		case r < 0x100:
			dst = appendHex(dst, `\x`, uint32(r), 2)
		case r < 0x10000:
			dst = appendHex(dst, `\u`, uint32(r), 4)
		default:
			dst = appendHex(dst, `\U`, uint32(r), 8)
		}
	}
	return append(dst, q)
}

// pyPrintable approximates Python's str.isprintable for one non-ASCII character:
// letters, marks, numbers, punctuation and symbols print; separators (other than
// the ASCII space), control, format, surrogate, private-use and unassigned
// characters do not.
func pyPrintable(r rune) bool {
	return unicode.IsPrint(r)
}

func appendHex(dst []byte, prefix string, v uint32, width int) []byte {
	const hexdigits = "0123456789abcdef"
	dst = append(dst, prefix...)
	for i := width - 1; i >= 0; i-- {
		dst = append(dst, hexdigits[(v>>(4*uint(i)))&0xf])
	}
	return dst
}
