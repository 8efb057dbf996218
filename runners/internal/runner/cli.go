package runner

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/fbeval/fbeval/contract/usage"
)

// ExitUsage is the exit code of a usage error or unreadable input.
const ExitUsage = 2

// ParseArgs parses args into cli (a kong grammar) for the command name. It returns
// done true with the exit code when the run ends here: after --help (0) or on a usage
// error (2, the message on stderr).
func ParseArgs(cli any, name, desc string, args []string, stdout, stderr io.Writer, vars kong.Vars) (code int, done bool) {
	_, code, done = ParseCommand(cli, name, desc, args, stdout, stderr, vars)
	return code, done
}

// ParseCommand is ParseArgs for a grammar with subcommands: it also returns the
// kong context, whose Command() names the subcommand chosen.
func ParseCommand(cli any, name, desc string, args []string, stdout, stderr io.Writer, vars kong.Vars) (ctx *kong.Context, code int, done bool) {
	exited, exitCode := false, 0
	parser, err := kong.New(cli,
		kong.Name(name),
		kong.Description(desc),
		kong.Writers(stdout, stderr),
		// Help is printed to stdout by kong; usage errors go to stderr below. The exit
		// hook records instead of exiting so that tests run in-process.
		kong.Exit(func(c int) { exited, exitCode = true, c }),
		vars,
	)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return nil, ExitUsage, true
	}
	parsed, raw := usage.ProtectArgs(args)
	ctx, err = parser.Parse(parsed)
	if err == nil && raw {
		usage.RestoreArgs(cli) // a file name that is not UTF-8, byte for byte
	}
	if exited {
		if exitCode != 0 {
			exitCode = ExitUsage
		}
		return nil, exitCode, true
	}
	if err != nil {
		var pe *kong.ParseError
		msg := err.Error()
		help := name
		if errors.As(err, &pe) {
			if m := secondInput(name, pe.Unwrap().Error(), pe.Context); m != "" {
				fmt.Fprintf(stderr, "%s: %s\n", name, m)
				return nil, ExitUsage, true
			}
			msg = usage.Explain(name, pe.Unwrap().Error(), pe.Context)
			if pe.Context != nil {
				help = usage.Command(name, pe.Context)
			}
		}
		fmt.Fprintf(stderr, "%s: %s (see %s --help)\n", name, msg, help)
		return nil, ExitUsage, true
	}
	// --model, --api-key-env and --header say what they take themselves
	msg := usage.EmptyValue(ctx, "model", "api-key-env", "header")
	if msg == "" {
		msg = usage.Repeated(ctx)
	}
	if msg != "" {
		fmt.Fprintf(stderr, "%s: %s\n", name, msg)
		return nil, ExitUsage, true
	}
	return ctx, 0, false
}

// MemoryLimit is the soft memory limit every runner binary sets (LimitMemory): a
// run holds about 20 bytes per request id (more for CogLang files, whose study
// identity is derived from every record), so the limit makes the collector keep
// the heap near that instead of twice it. A run that holds more only collects
// more often; GOMEMLIMIT overrides it.
const MemoryLimit = 96 << 20

// LimitMemory sets MemoryLimit unless GOMEMLIMIT is set. Runner mains call it
// first.
func LimitMemory() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(MemoryLimit)
	}
}

// secondInput words kong's msg for a runner that reads one request file
// (its argument INPUT) given a second one, a file that exists (`ls | xargs
// fbeval-mock`, a shell pattern): "" for any other msg.
func secondInput(prog, msg string, ctx *kong.Context) string {
	file, ok := strings.CutPrefix(msg, "unexpected argument ")
	if !ok || ctx == nil {
		return ""
	}
	if st, err := os.Stat(file); err != nil || st.IsDir() {
		return ""
	}
	for _, p := range ctx.Path {
		if p.Positional != nil && p.Positional.Name == "input" {
			return fmt.Sprintf("%s: a second request file, where one is read: run %s once a file (each resuming one -o FILE appends its answers), or join them first (cat a.jsonl b.jsonl | %[2]s -o FILE)", file, prog)
		}
	}
	return ""
}
