package contract

import (
	"io"
	"os"
)

// InputIs reports which of inputs (paths; "-" is standard input, stdin, when
// that is a file) is the regular file out, by any name or link: the output a
// command or a runner is about to write (its -o file, or its standard output)
// must be none of them. A device (/dev/null) or a pipe is no input's file.
func InputIs(out os.FileInfo, inputs []string, stdin io.Reader) (in string, ok bool) {
	if out == nil || !out.Mode().IsRegular() {
		return "", false
	}
	for _, in := range inputs {
		var st os.FileInfo
		var err error
		if Stdin(in) {
			f, isFile := stdin.(*os.File)
			if !isFile {
				continue
			}
			st, err = f.Stat()
		} else {
			st, err = os.Stat(in)
		}
		if err == nil && os.SameFile(out, st) {
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
