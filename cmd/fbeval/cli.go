package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/alecthomas/kong"
	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/contract/usage"
)

// Env holds the command's streams; every command writes data to Stdout and messages
// to Stderr, and reads "-" from Stdin.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer

	inputs contract.InputSet // files the command reads, which no output may replace

	mu         sync.Mutex
	stdinBy    string      // the flag and path that read standard input, which can be read once
	stdoutInfo os.FileInfo // standard output's file, once looked up (stdoutFile)
	stdoutDone bool

	descriptors map[string]*descriptor // outputs named by a descriptor that holds a file (openDescriptor)

	// rewrites, when set, says whether an existing file that fbeval cannot
	// write again (keptFile) is one this command wrote and may write again
	// (fbeval schema -o over a schema it printed before)
	rewrites func(path string) bool
}

// claimStdin notes that flag reads standard input when path is "-" or names
// the pipe standard input is (/dev/stdin, /proc/self/fd/0); a second flag that
// does is refused, as standard input can be read once.
func (e *Env) claimStdin(flag, path string) error {
	if !e.readsStdin(path) {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stdinBy != "" {
		return usageError("%s and %s %s both read standard input, which can be read once: give one of them as a file", e.stdinBy, flag, path)
	}
	e.stdinBy = flag + " " + path
	return nil
}

// readsStdin reports whether reading path reads standard input. A regular
// file on standard input (< fx.json) can be opened again by its name, so only
// "-" reads it then.
func (e *Env) readsStdin(path string) bool {
	if contract.Stdin(path) {
		return true
	}
	if path == "" {
		return false
	}
	in, err := e.inputs.Stat("-", e.Stdin)
	if err != nil || in.Mode().IsRegular() {
		return false
	}
	st, err := e.inputs.Stat(path, e.Stdin)
	return err == nil && os.SameFile(st, in)
}

// CLI is the whole command line: one field per command.
type CLI struct {
	Export   ExportCmd   `cmd:"" help:"Write the request file of a study (JSONL or a JSON batch object), or a summary of it (--format text)."`
	Score    ScoreCmd    `cmd:"" help:"Score response files against a study."`
	Report   ReportCmd   `cmd:"" help:"Re-render a saved report in any format of fbeval score (table, text, json, markdown, html, junit)."`
	Compare  CompareCmd  `cmd:"" help:"Compare two models' reports on the same study: gap, stability, sensitivity, per-case flips."`
	Validate ValidateCmd `cmd:"" help:"Check contract files against their published JSON Schemas, and read a study, dataset, CogLang fixture or contract as the command that takes it reads it."`
	Schema   SchemaCmd   `cmd:"" help:"Print the published JSON Schemas."`
	Study    StudyCmd    `cmd:"" help:"Show a resolved study, or print a study file to edit."`
	Fixtures FixturesCmd `cmd:"" help:"Built-in datasets: list, rebuild, audit, probe schemas."`
	Check    CheckCmd    `cmd:"" help:"Check one output against a tool contract or an fbeval contract: PASS or FAIL with every reason."`
	Contract ContractCmd `cmd:"" help:"Static checks of fbeval contracts."`
	Version  VersionCmd  `cmd:"" help:"Print the version and the contract versions."`

	MaxFileBytes int64 `help:"Largest file read whole, in bytes (1 or more): study, dataset, fixture, schema, prompt template, report, contract, output to check." default:"268435456" placeholder:"N"`
}

// exitError carries an exit code; a nil err means the message was already written.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) ExitCode() int { return e.code }

// usageError is bad usage (exit 2) found after flag parsing.
func usageError(format string, args ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, args...)}
}

type kongExit struct{ code int }

// Main runs fbeval with args and returns the exit code: 0 done (and every gate met),
// 1 scored but not ok, 2 bad usage or unreadable input.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	newFileMode() // the umask read before any goroutine creates a file
	var cli CLI
	env := &Env{Stdin: stdin, Stdout: stdout, Stderr: stderr}
	helpOut, helpCode := stdout, 0
	switch {
	case len(args) == 0:
		// no command: the usage, on stderr, as bad usage
		args, helpOut, helpCode = []string{"--help"}, stderr, 2
	case args[0] == "help":
		args = append(slices.Clone(args[1:]), "--help")
	case args[0] == "--version" || args[0] == "-version":
		args = []string{"version"}
	}
	parser, err := kong.New(&cli,
		kong.Name("fbeval"),
		kong.Description("Offline, deterministic evaluation of LLM outputs: export requests, score responses.\n\n"+
			"Example:\n  fbeval export coglang --include-reference | fbeval-mock --mode reference | fbeval score coglang --responses -"),
		kong.Writers(helpOut, stderr),
		kong.Exit(func(c int) { panic(kongExit{c}) }),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true, NoExpandSubcommands: false}),
		kong.Bind(env),
	)
	if err != nil {
		fmt.Fprintf(stderr, "fbeval: internal error: %v\n", err)
		return 2
	}
	defer func() {
		if r := recover(); r != nil {
			ke, ok := r.(kongExit)
			if !ok {
				panic(r)
			}
			code = ke.code
			if code != 0 {
				code = 2
			}
			if code == 0 {
				code = helpCode
			}
		}
	}()
	parsed, raw := usage.ProtectArgs(joinRepeated(args))
	ctx, err := parser.Parse(parsed)
	if err == nil && raw {
		usage.RestoreArgs(&cli) // a file name that is not UTF-8, byte for byte
	}
	if err != nil {
		msg := oneLine(err.Error())
		var pe *kong.ParseError
		if errors.As(err, &pe) && pe.Context != nil {
			raw := msg
			msg = usage.Explain("fbeval", msg, pe.Context)
			msg = responsesWithoutFlag(msg, pe.Context, args)
			msg = studyWithoutCommand(msg, pe.Context)
			msg = reportJSONL(msg, pe.Context)
			msg = referenceWords(msg, pe.Context)
			if msg == raw {
				// the parser's own words, which say no way on: where the
				// flags are told, on the same line (every usage error is one)
				msg += " (see " + usage.Command("fbeval", pe.Context) + " --help)"
			}
		}
		fmt.Fprintf(stderr, "fbeval: %s\n", msg)
		return 2
	}
	if cli.MaxFileBytes < 1 {
		// 0 and below were the default, silently: a limit meant is a size
		fmt.Fprintf(stderr, "fbeval: --max-file-bytes wants a size in bytes, 1 or more, got %d (the default is %d)\n", cli.MaxFileBytes, contract.DefaultMaxFileBytes)
		return 2
	}
	contract.SetMaxFileBytes(cli.MaxFileBytes)
	contract.SetStdin(stdin) // "-" in any flag reads the stdin Main was given
	defer contract.SetStdin(nil)
	err = emptyValues(ctx)
	stdoutAliases(ctx)
	if err == nil {
		err = env.openDescriptors(ctx)
	}
	defer env.closeDescriptors()
	if err == nil {
		err = formatFromOutput(ctx, &cli)
	}
	if err == nil {
		err = ctx.Run(env)
	}
	if err != nil {
		if f, ok := stdout.(*os.File); ok {
			var pe *os.PathError
			if errors.As(err, &pe) && pe.Op == "write" && pe.Path == f.Name() {
				err = outputWriteError("standard output", err)
			}
		}
		var ee interface{ ExitCode() int }
		code := 2
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		var xe *exitError
		if !(errors.As(err, &xe) && xe.err == nil) {
			fmt.Fprintf(stderr, "fbeval: %s\n", oneLine(namesEscaped(err.Error(), args)))
		}
		return code
	}
	return 0
}

// namesEscaped writes each argument with a line break in it (a file's name)
// that msg quotes as its escape, so that oneLine does not take the break for
// the message's own and name a file that does not exist ("bad; name.json").
func namesEscaped(msg string, args []string) string {
	for _, a := range args {
		if strings.ContainsAny(a, "\n\r") && strings.Contains(msg, a) {
			msg = strings.ReplaceAll(msg, a, contract.PrintableLine(a))
		}
	}
	return msg
}

// oneLine makes a message one printable line: line breaks become "; ", other
// control characters (from a file name, say) are escaped.
func oneLine(s string) string {
	return contract.PrintableLine(strings.ReplaceAll(strings.TrimSpace(s), "\n", "; "))
}

// openInput opens path for reading; "-" is stdin. many says whether the
// input is one of several files, which may be given as a pattern: a directory
// named for it gets the pattern of its files, else a file in it is asked for.
func openInput(env *Env, path string, many bool) (io.Reader, func(), error) {
	env.noteInput(path)
	if contract.Stdin(path) {
		if err := env.stdoutNotInput(path); err != nil {
			return nil, nil, err // before a byte is read: after > it is empty
		}
		if err := contract.NotTerminal(path, env.Stdin); err != nil {
			return nil, nil, err
		}
		return env.Stdin, func() {}, nil
	}
	f, err := contract.Open(path)
	if err != nil {
		return nil, nil, &exitError{code: 2, err: cleanPathError(err)}
	}
	if st, err := f.Stat(); err == nil {
		env.inputs.Opened(path, st) // no check looks the file up again
		if st.IsDir() {
			f.Close()
			return nil, nil, &exitError{code: 2, err: fmt.Errorf("%s: is a directory, not a file: %s", path, dirHint(path, many))}
		}
	}
	if err := env.stdoutNotInput(path); err != nil {
		f.Close()
		return nil, nil, err // before a byte is read: after > it is empty
	}
	if contract.BeingWritten(f) {
		// scored while the runner still answers: rows missing, and why
		env.warnf("%s: a runner is still writing it (it holds the file's lock): what is read is what it has written so far", path)
	}
	return f, func() { f.Close() }, nil
}

// dirHint says what to give in place of the directory path: with many, its
// files as a pattern fbeval expands, quoted so that the shell leaves it (by
// their one extension, when they share one), else a file in it.
func dirHint(path string, many bool) string {
	if !many {
		return "name a file in it"
	}
	entries, _ := os.ReadDir(path)
	ext, files := "", 0
	for _, e := range entries {
		if !e.Type().IsRegular() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if files == 0 {
			ext = filepath.Ext(e.Name())
		} else if filepath.Ext(e.Name()) != ext {
			ext = ""
		}
		files++
	}
	if files == 0 {
		return "it holds no files"
	}
	return "give its files as a pattern, quoted for fbeval to expand ('" + filepath.Join(path, "*"+ext) + "')"
}

func cleanPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}

// warnf writes one message line to stderr.
func (e *Env) warnf(format string, args ...any) {
	fmt.Fprintf(e.Stderr, "fbeval: %s\n", contract.PrintableLine(fmt.Sprintf(format, args...)))
}

func sortStrings(s []string) { slices.Sort(s) }
