package usage

import (
	"reflect"
	"strings"
	"unicode/utf8"
)

// rawBase is the private-use rune a byte of an argument that is not UTF-8
// stands as while the parser reads the arguments: rawBase + the byte, from
// U+10FF80 (Supplementary Private Use Area-B, which no typed argument holds).
const rawBase = 0x10FF00

// ProtectArgs returns args with every byte that is not part of valid UTF-8 (a
// file name of a Latin-1 system) written as a private-use rune, so that a
// parser that reads arguments as UTF-8 text (kong turns such a byte into
// U+FFFD, and the file is then not found) keeps it; changed says whether any
// was. RestoreArgs gives the bytes back in what the parser filled.
func ProtectArgs(args []string) (out []string, changed bool) {
	for i, a := range args {
		if utf8.ValidString(a) {
			continue
		}
		if !changed {
			out, changed = append([]string(nil), args...), true
		}
		var b strings.Builder
		for j := 0; j < len(a); {
			r, n := utf8.DecodeRuneInString(a[j:])
			if r == utf8.RuneError && n == 1 {
				b.WriteRune(rawBase + rune(a[j]))
			} else {
				b.WriteString(a[j : j+n])
			}
			j += n
		}
		out[i] = b.String()
	}
	if !changed {
		return args, false
	}
	return out, true
}

// RestoreArgs gives back, in every string v (a pointer to the parsed
// command line) holds, the bytes ProtectArgs wrote as private-use runes.
func RestoreArgs(v any) {
	restore(reflect.ValueOf(v))
}

func restore(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			restore(v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				restore(v.Field(i))
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			restore(v.Index(i))
		}
	case reflect.String:
		if s := v.String(); v.CanSet() && strings.ContainsFunc(s, isRawRune) {
			v.SetString(restoreString(s))
		}
	}
}

func isRawRune(r rune) bool { return r >= rawBase+0x80 && r <= rawBase+0xff }

// restoreString is s with each private-use rune of ProtectArgs its byte again.
func restoreString(s string) string {
	var b strings.Builder
	for _, r := range s {
		if isRawRune(r) {
			b.WriteByte(byte(r - rawBase))
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}
