package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/fbeval/fbeval/contract"
	"golang.org/x/term"
)

// noteInput records files the command reads, so that no output replaces one.
// Goroutines that open inputs at once may call it together.
func (e *Env) noteInput(paths ...string) {
	e.inputs.Add(paths...)
}

// stdoutNotInput refuses a standard output that is one of the files the
// command reads (paths, or every input noted when none are given):
// `fbeval score ... --responses r.jsonl >> r.jsonl` would append the report to
// the responses, and `>` empties them before fbeval starts.
func (e *Env) stdoutNotInput(paths ...string) error {
	out := e.stdoutFile()
	if out == nil {
		return nil
	}
	if in, ok := e.inputs.Is(out, e.Stdin, paths...); ok {
		return &exitError{code: 2, err: fmt.Errorf("standard output is %s, which this command reads (a shell's > empties it before fbeval starts, >> appends to it): write the output to another file", contract.InputName(in))}
	}
	return nil
}

// stdoutFile is what standard output's file says of itself, looked up once
// (it is checked against each of ten thousand shards as it is opened); nil
// when standard output is no file.
func (e *Env) stdoutFile() os.FileInfo {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.stdoutDone {
		e.stdoutDone = true
		if f, ok := e.Stdout.(*os.File); ok {
			e.stdoutInfo, _ = f.Stat()
		}
	}
	return e.stdoutInfo
}

// resolveOutput decides where an output named path is written. An existing file
// must be a regular file that the command does not read; a symbolic link is
// followed, and its target is written (the link stays). It returns the path to
// replace and the mode to give the new file: the existing file's, or
// newFileMode's.
func resolveOutput(env *Env, path string) (string, os.FileMode, error) {
	target := path
	if li, err := os.Lstat(path); err == nil && li.Mode()&os.ModeSymlink != 0 {
		t, err := filepath.EvalSymlinks(path)
		if err != nil {
			return "", 0, &exitError{code: 2, err: fmt.Errorf("%s: a symbolic link that leads nowhere (%v): remove it or name another output", path, err)}
		}
		target = t
	}
	st, err := os.Stat(target)
	if os.IsNotExist(err) {
		return target, newFileMode(), nil
	}
	if errors.Is(err, syscall.ENOTDIR) {
		return "", 0, &exitError{code: 2, err: fmt.Errorf("%s: %s is not a folder: name an output in a folder", path, filepath.Dir(target))}
	}
	if err != nil {
		return "", 0, &exitError{code: 2, err: cleanPathError(err)}
	}
	if !st.Mode().IsRegular() {
		return "", 0, &exitError{code: 2, err: fmt.Errorf("%s: not a regular file (%s): write to a regular file, or leave out the output flag for standard output", path, kindOf(st.Mode()))}
	}
	if err := outputNotInput(env, path, st); err != nil {
		return "", 0, err
	}
	if what := keptFile(target, st); what != "" && (env.rewrites == nil || !env.rewrites(target)) {
		return "", 0, &exitError{code: 2, err: fmt.Errorf("%s: holds %s, which this output would replace and fbeval cannot write again: name another output (or remove the file first, if you mean to replace it)", path, what)}
	}
	if cannotWrite(target) {
		// replaced by a rename, it would be written all the same (a file
		// made read-only to keep it, or another user's): as the shell's >
		// would not
		return "", 0, &exitError{code: 2, err: fmt.Errorf("%s: this user cannot write it (its mode or owner keeps it from being written): name another output, or, if you mean to replace it, make it writable first (chmod u+w, when it is yours)", path)}
	}
	return target, st.Mode().Perm(), nil
}

// keptFile names what the existing file at path holds when it is a file that
// no fbeval command writes (responses, a provider's batch results, a study, a
// CogLang fixture, a contract: contract.Kept), so that a mistyped -o or
// --cases-out does not replace it; "" otherwise, and when it cannot be read.
func keptFile(path string, st os.FileInfo) string {
	if st.Size() == 0 {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, min(st.Size(), contract.KeptHeadBytes))
	n, _ := io.ReadFull(f, head)
	return contract.Kept(head[:n])
}

// notOtherKind refuses an output named path over a file of fbeval's of another
// kind than the output writes: `--cases-out report.json` (meant as -o) would
// replace a report with case results, and -o over case results or a request
// file would replace them with a report. resolveOutput keeps the files fbeval
// cannot write again; these it can, but not by this output, so the name is
// more likely a slip than a choice. writes are the kinds (contract.FileKind) the
// output is, none for a format that is no file of fbeval's (a page, a table);
// what says what it writes. Standard output, the null device and streams are
// not checked, nor a file that is no file of fbeval's.
func notOtherKind(flag, path, what string, writes ...string) error {
	if path == "" || path == "-" || descriptorOf(path) >= 0 {
		// a descriptor's file the shell opened (3>>log): emptied or
		// appended to as the user chose there, not replaced
		return nil
	}
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		// none yet, or no file (the null device, a stream: reading
		// one would wait for its writer or take its bytes)
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil // one that cannot be read is checkOutputs'
	}
	defer f.Close()
	head := make([]byte, contract.KeptHeadBytes)
	n, _ := io.ReadFull(f, head)
	version := contract.VersionOf(head[:n])
	kind := contract.FileKind(version)
	if kind == "" || slices.Contains(writes, kind) {
		return nil
	}
	return &exitError{code: 2, err: fmt.Errorf("%s: holds %s (%s), and %s writes %s: name another output (or remove the file first, if you mean to replace it)", path, kind, version, flag, what)}
}

// formatOutput is what an output of format writes, for notOtherKind: the kind
// kinds gives format, or the format's name for one that is no file of fbeval's.
func formatOutput(format string, kinds map[string]string) (what string, writes []string) {
	if k, ok := kinds[format]; ok {
		return k, []string{k}
	}
	return "the " + format + " format", nil
}

// descriptorOf is the number of the descriptor an output path names, when it
// names one of the process's own by its number (/dev/fd/N, /proc/self/fd/N)
// or as /dev/stdin or /dev/stderr; -1 otherwise.
func descriptorOf(path string) int {
	p := filepath.Clean(path)
	switch p {
	case "/dev/stdin":
		return 0
	case "/dev/stderr":
		return 2
	}
	for _, dir := range []string{"/dev/fd/", "/proc/self/fd/"} {
		if n, ok := strings.CutPrefix(p, dir); ok && n != "" && strings.Trim(n, "0123456789") == "" {
			if fd, err := strconv.Atoi(n); err == nil {
				return fd
			}
		}
	}
	return -1
}

// checkOutputs refuses, before the command reads a byte, an output it could
// not write once it is done: one over an input or over a file fbeval cannot
// write again, one that is not a regular file, or one in a folder that does not
// exist or cannot be written (a temporary file is made there and removed). A
// score of a million records finds out in a moment, not at the end. Writing
// checks again: files may change in between. Standard output ("" or "-") and
// the null device are not checked here.
func checkOutputs(env *Env, paths ...string) error {
	for _, p := range paths {
		if p == "" || p == "-" || nullDevice(p) {
			continue
		}
		if f := env.descriptors[p]; f != nil {
			if err := descriptorCheck(env, p, f); err != nil {
				return err
			}
			continue
		}
		if st, ok := streamOutput(p); ok {
			// not opened here: a FIFO's reader would take the close for
			// the end of the output
			if err := streamNotInput(env, p, st); err != nil {
				return err
			}
			continue
		}
		target, _, err := resolveOutput(env, p)
		if err != nil {
			return err
		}
		f, err := tempBeside(p, target)
		if err != nil {
			return err
		}
		f.Close()
		os.Remove(f.Name())
	}
	return nil
}

// tempBeside makes the temporary file that an output named path is written to
// before it is renamed over target: in target's folder, so that the rename
// cannot cross file systems. Its errors name the output, not the temporary file.
func tempBeside(path, target string) (*os.File, error) {
	dir := filepath.Dir(target)
	f, err := os.CreateTemp(dir, ".fbeval-*.tmp")
	if err == nil {
		return f, nil
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	switch st, serr := os.Stat(dir); {
	case serr != nil:
		return nil, &exitError{code: 2, err: fmt.Errorf("%s: the folder %s does not exist: make it, or name an output in a folder that does", path, dir)}
	case !st.IsDir():
		return nil, &exitError{code: 2, err: fmt.Errorf("%s: %s is not a folder: name an output in a folder", path, dir)}
	}
	return nil, &exitError{code: 2, err: fmt.Errorf("%s: cannot write a file in %s (%v): name an output in a folder this user can write", path, dir, err)}
}

// nullDevice reports whether path names the null device (os.DevNull), by any
// name or link: an output there is thrown away.
func nullDevice(path string) bool {
	st, err := os.Stat(path)
	if err != nil || st.Mode().IsRegular() {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err == nil && os.SameFile(st, null)
}

// sameOutput reports whether the output paths a and b name one file: the same
// path once cleaned, the same file, or links to one. The null device is no
// file: any number of outputs can be thrown away there.
func sameOutput(a, b string) bool {
	if nullDevice(a) && nullDevice(b) {
		return false
	}
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	if sa, err := os.Stat(a); err == nil {
		if sb, err := os.Stat(b); err == nil {
			return os.SameFile(sa, sb)
		}
	}
	abs := func(p string) string {
		if dir, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
			p = filepath.Join(dir, filepath.Base(p))
		}
		if q, err := filepath.Abs(p); err == nil {
			return q
		}
		return p
	}
	return abs(a) == abs(b) // two names of a file not made yet
}

func kindOf(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "not a file"
}

// writeFileAtomic writes through write to a temporary file beside the target and
// renames it over the target once complete, so an interrupted run never leaves half
// a file; the temporary file is removed on every exit, a signal included (see
// removeTempFiles).
func writeFileAtomic(env *Env, path string, write func(*bufio.Writer) error) error {
	if nullDevice(path) {
		// written and thrown away, as a shell's > /dev/null does: the
		// command's checks, gates and exit code are the same
		w := bufio.NewWriterSize(io.Discard, 64<<10)
		if err := write(w); err != nil {
			return err
		}
		return w.Flush()
	}
	if d := env.descriptors[path]; d != nil {
		return writeDescriptor(env, path, d, write)
	}
	if st, ok := streamOutput(path); ok {
		return writeStream(env, path, st, write)
	}
	target, mode, err := resolveOutput(env, path)
	if err != nil {
		return err
	}
	f, err := tempBeside(path, target)
	if err != nil {
		return err
	}
	tmp := f.Name()
	tempFiles.Add(tmp)
	defer func() {
		os.Remove(tmp)
		tempFiles.Forget(tmp)
	}()
	// its mode set through the file, not its name: a name another process
	// in the folder swapped for a link would have its target's mode changed
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return &exitError{code: 2, err: err}
	}
	made, err := f.Stat()
	if err != nil {
		f.Close()
		return &exitError{code: 2, err: err}
	}
	if err := writeClose(f, path, write); err != nil {
		return err
	}
	if now, err := os.Lstat(tmp); err != nil || !os.SameFile(made, now) {
		// a signal's handler removed it (the process ends by the signal,
		// not by this message), or another process in the folder moved it:
		// renamed, the name would put another's file (a link to any file
		// this user owns) where the output goes
		tempFiles.WaitIfStopping()
		return &exitError{code: 2, err: fmt.Errorf("%s: the temporary file it was written to (%s) was moved or replaced while it was written, by another process in the folder: nothing written; write the output to a folder only you can write", path, filepath.Base(tmp))}
	}
	if err := tempFiles.Rename(tmp, target); err != nil {
		return &exitError{code: 2, err: cleanPathError(err)}
	}
	return nil
}

// descriptor is the file an output named by a descriptor is written through
// (openDescriptor), and whether the shell opened it to append.
type descriptor struct {
	*os.File
	appends bool
}

// descriptorCheck refuses an output written through a descriptor's file d
// (openDescriptor) that is a file the command reads, or, where it is not
// appended to, one fbeval cannot write again that it would write over
// (3<>responses.jsonl), as an output named by its path is refused.
func descriptorCheck(env *Env, path string, d *descriptor) error {
	st, err := d.Stat()
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	if err := outputNotInput(env, path, st); err != nil {
		return err
	}
	if !d.appends {
		if what := keptFile(path, st); what != "" {
			return &exitError{code: 2, err: fmt.Errorf("%s: holds %s, which this output would write over and fbeval cannot write again: name another output", path, what)}
		}
	}
	return nil
}

// writeDescriptor writes an output named path through the descriptor's file d
// (openDescriptor), as it goes, and ends it there (descriptor.end).
func writeDescriptor(env *Env, path string, d *descriptor, write func(*bufio.Writer) error) error {
	if err := descriptorCheck(env, path, d); err != nil {
		return err
	}
	delete(env.descriptors, path)
	return writeClose(d.File, path, func(w *bufio.Writer) error {
		if err := write(w); err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
		if err := d.end(); err != nil {
			return &exitError{code: 2, err: outputWriteError(path, err)}
		}
		return nil
	})
}

// outputNotInput refuses an output named path whose file, st, is one the
// command reads.
func outputNotInput(env *Env, path string, st os.FileInfo) error {
	if in, ok := env.inputs.Is(st, env.Stdin); ok {
		if contract.Stdin(in) {
			return &exitError{code: 2, err: fmt.Errorf("%s: is %s, which this command reads: write the output to another file", path, contract.InputName(in))}
		}
		return &exitError{code: 2, err: fmt.Errorf("%s: is the input %s: write the output to another file", path, in)}
	}
	return nil
}

// streamOutput reports whether path names a stream, not a file: a pipe (a
// process substitution's /dev/fd/N, a FIFO), a socket or a terminal, with what
// it says of itself. No other device is one (the null device is thrown away;
// the rest are refused as no regular file).
func streamOutput(path string) (os.FileInfo, bool) {
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return nil, false
	case st.Mode()&(os.ModeNamedPipe|os.ModeSocket) != 0:
		return st, true
	case st.Mode()&os.ModeCharDevice == 0 || nullDevice(path):
		return nil, false
	}
	f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	return st, term.IsTerminal(int(f.Fd()))
}

// streamNotInput refuses a stream output that is a pipe the command may read:
// standard input's (-o /dev/stdin, where the responses are piped in), or a
// FIFO it reads. A terminal may be standard input and the output both.
func streamNotInput(env *Env, path string, st os.FileInfo) error {
	if st.Mode()&os.ModeCharDevice != 0 {
		return nil
	}
	if f, ok := env.Stdin.(*os.File); ok {
		if in, err := f.Stat(); err == nil && os.SameFile(st, in) {
			return &exitError{code: 2, err: fmt.Errorf("%s: is standard input's pipe, which this command may read: write the output to another file, or leave out the output flag for standard output", path)}
		}
	}
	for _, in := range env.inputs.Paths() {
		if fi, err := os.Stat(in); err == nil && !contract.Stdin(in) && os.SameFile(st, fi) {
			return &exitError{code: 2, err: fmt.Errorf("%s: is the input %s: write the output to another file", path, in)}
		}
	}
	return nil
}

// writeStream writes an output named path that is a stream (streamOutput)
// through write as it goes, as standard output is written: a stream cannot be
// replaced whole, so a failed command may leave part of its output in it.
func writeStream(env *Env, path string, st os.FileInfo, write func(*bufio.Writer) error) error {
	if err := streamNotInput(env, path, st); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return &exitError{code: 2, err: cleanPathError(err)}
	}
	return writeClose(f, path, write)
}

// writeClose writes through write to f, the file of the output named path
// (a temporary file, or the stream itself), buffered, and closes it. What
// write wrote before an error it returns is flushed.
func writeClose(f *os.File, path string, write func(*bufio.Writer) error) error {
	w := bufio.NewWriterSize(outputFile{f, path}, 64<<10)
	if err := write(w); err != nil {
		w.Flush()
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return &exitError{code: 2, err: err}
	}
	if err := f.Close(); err != nil {
		return &exitError{code: 2, err: err}
	}
	return nil
}

// outputFile is the temporary file an output named path is written to: its
// write errors name the output, to which nothing was written, not the
// temporary file, which is gone once the command ends.
type outputFile struct {
	*os.File
	path string
}

func (o outputFile) Write(p []byte) (int, error) {
	n, err := o.File.Write(p)
	if err != nil {
		err = &exitError{code: 2, err: outputWriteError(o.path, err)}
	}
	return n, err
}

// outputWriteError is the one line of a failed write of an output named path
// ("standard output" for standard output).
func outputWriteError(path string, err error) error {
	return errors.New(outputFailure.Line(path, err))
}

// outputFailure words fbeval's failed writes: an output is renamed into place
// only whole, so nothing was written to it.
var outputFailure = contract.WriteFailure{Output: "it", Kept: "nothing was written to it"}

// tempFiles are the temporary files being written, removed on a signal.
var tempFiles = contract.NewPending()
