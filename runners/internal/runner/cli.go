package runner

import (
	"errors"
	"fmt"
	"io"

	"github.com/alecthomas/kong"
)

// ExitUsage is the exit code of a usage error or unreadable input.
const ExitUsage = 2

// ParseArgs parses args into cli (a kong grammar) for the command name. It returns
// done true with the exit code when the run ends here: after --help (0) or on a usage
// error (2, the message on stderr).
func ParseArgs(cli any, name, desc string, args []string, stdout, stderr io.Writer, vars kong.Vars) (code int, done bool) {
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
		return ExitUsage, true
	}
	_, err = parser.Parse(args)
	if exited {
		if exitCode != 0 {
			exitCode = ExitUsage
		}
		return exitCode, true
	}
	if err != nil {
		var pe *kong.ParseError
		msg := err.Error()
		if errors.As(err, &pe) {
			msg = pe.Unwrap().Error()
		}
		fmt.Fprintf(stderr, "%s: %s (see %s --help)\n", name, msg, name)
		return ExitUsage, true
	}
	return 0, false
}
