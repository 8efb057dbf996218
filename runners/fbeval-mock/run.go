package main

import (
	"fmt"
	"io"
	"os"

	"github.com/alecthomas/kong"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/runners/internal/runner"
)

const name = "fbeval-mock"

type cli struct {
	Input  string `arg:"" optional:"" default:"-" help:"Request file (JSONL, JSON list or batch object); - reads stdin."`
	Output string `short:"o" default:"-" placeholder:"FILE" help:"Write responses to FILE, resuming it as the networked runners do: requests it answers are skipped, the rest appended; a file of another study or mode, or one another run is writing, is refused. - writes stdout."`
	Fresh  bool   `help:"Start the -o file over instead of resuming it."`
	Mode   string `enum:"reference,refuse,garble" default:"reference" help:"How to answer: ${enum}."`
	Seed   int64  `default:"0" help:"Seed of the garble mode."`
}

// run is the whole command with its streams, so that tests run it in-process.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var c cli
	if code, done := runner.ParseArgs(&c, name, "Answer fbeval request files offline (reference, refuse or garble).", args, stdout, stderr, kong.Vars{}); done {
		return code
	}
	in, inName, done, err := contract.OpenInput(c.Input, "requests", stdin)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return runner.ExitUsage
	}
	defer done()
	if c.Seed != 0 && c.Mode != "garble" && !resuming(c) {
		// recorded in the run's settings, a seed that changes nothing refused
		// every resume without it (a file written so before is resumed with
		// its seed)
		fmt.Fprintf(stderr, "%s: --seed %d is for --mode garble: --mode %s answers the same whatever the seed; leave it out\n", name, c.Seed, c.Mode)
		return runner.ExitUsage
	}
	if c.Fresh && c.Output == "-" {
		fmt.Fprintf(stderr, "%s: --fresh starts an -o file over; give -o FILE (see %s --help)\n", name, name)
		return runner.ExitUsage
	}
	// The first pass checks every request, so a bad input writes nothing; the
	// second answers them one at a time.
	var check runner.Check
	if c.Mode != "refuse" {
		check = func(it *runner.Item) error {
			if it.Req.ReferenceOutput == nil {
				return fmt.Errorf("%s: request %s has no reference output; export with --include-reference", it.Where(), it.Req.RequestID)
			}
			return nil
		}
	}
	if c.Output == "-" {
		// before the requests are read: after `> req.jsonl` they are gone
		if err := runner.StdoutNotAnInput(stdout, []string{c.Input}, "the responses"); err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", name, err)
			return runner.ExitUsage
		}
	}
	reqs, err := runner.OpenRequests(inName, in, check)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return runner.ExitUsage
	}
	defer reqs.Close()
	run := runner.RunInfo{Runner: name, Provider: name, Model: "mock-" + c.Mode, Settings: fmt.Sprintf("seed=%d", c.Seed)}
	out := runner.NewOutput(stdout)
	if c.Output != "-" {
		if out, err = runner.OpenOutput(c.Output, runner.Resume{Fresh: c.Fresh, Run: run, Studies: reqs.Studies(), Recipes: reqs.Recipes(), Inputs: []string{c.Input}}); err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", name, err)
			return runner.ExitUsage
		}
		defer out.Close()
		if out.Repaired > 0 {
			fmt.Fprintf(stderr, "%s: %s: cut off a torn last line (%d bytes) left by an interrupted run\n", name, c.Output, out.Repaired)
		}
	}
	skipped := 0
	var buf []byte
	// each record is made on the goroutines that decode the requests, and
	// written in request order
	type made struct {
		answered bool // the -o file answers the request already: no record
		record   []byte
		err      error
	}
	err = runner.EachPrepared(reqs, func() func(*runner.Item) made {
		return func(it *runner.Item) made {
			req := &it.Req
			if out.Answered(req.RequestID) {
				return made{answered: true}
			}
			res := answer(c.Mode, c.Seed, req)
			r := run
			r.Study, r.Recipe = it.Study, it.Recipe
			res.Run = &r
			record, err := runner.AppendRecord(nil, req, &res)
			return made{record: record, err: err}
		}
	}, func(it *runner.Item, m *made) error {
		if m.answered {
			skipped++
			return nil
		}
		if m.err != nil {
			return m.err
		}
		buf = append(buf, m.record...)
		// whole records, written in blocks
		if len(buf) >= 64<<10 {
			err := out.Write(buf)
			buf = buf[:0]
			return err
		}
		return nil
	})
	if err == nil {
		err = out.Write(buf)
	}
	if err == nil {
		err = out.Close()
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 1
	}
	if skipped > 0 {
		fmt.Fprintf(stderr, "%s: %s: %d of %d requests already answered, skipped\n", name, c.Output, skipped, reqs.Len())
	}
	return 0
}

// answer returns the mock's answer to req in mode.
func answer(mode string, seed int64, req *contract.Request) runner.Result {
	res := runner.Result{Provider: name, Model: "mock-" + mode}
	var out, kind string
	switch mode {
	case "reference":
		out = *req.ReferenceOutput
	case "refuse":
		out = refusal(req)
	default:
		out, kind = garble(seed, req)
	}
	res.Output = &out
	// CogLang response records keep to the fields of their contract.
	if kind != "" && !runner.IsCogLang(req) {
		res.Metadata = contract.Object{runner.Field("garble", kind)}
	}
	return res
}

// Fixed non-answers of the refuse mode.
const (
	toolcallRefusal = `{"action":"refuse","tool":null,"arguments":{},"missingFields":[],"reason":"I cannot help with this request."}`
	coglangRefusal  = "I cannot answer that."
)

func refusal(req *contract.Request) string {
	if req.Suite == contract.SuiteCogLang {
		return coglangRefusal
	}
	return toolcallRefusal
}

// resuming reports whether the run goes on with an -o file that exists.
func resuming(c cli) bool {
	if c.Output == "-" || c.Fresh {
		return false
	}
	st, err := os.Stat(c.Output)
	return err == nil && st.Size() > 0
}
