package main

import (
	"bytes"
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
	Output string `short:"o" default:"-" placeholder:"FILE" help:"Write responses to FILE, resuming it as the networked runners do: requests it answers are skipped, the rest appended; a file of another study or mode is refused. - writes stdout."`
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
	in, inName := stdin, "<stdin>"
	if c.Input != "-" {
		f, err := os.Open(c.Input)
		if err != nil {
			fmt.Fprintf(stderr, "%s: cannot read requests: %v\n", name, err)
			return runner.ExitUsage
		}
		defer f.Close()
		in, inName = f, c.Input
	}
	items, err := runner.ReadRequests(inName, in)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return runner.ExitUsage
	}
	if c.Mode != "refuse" {
		for i := range items {
			if items[i].Req.ReferenceOutput == nil {
				fmt.Fprintf(stderr, "%s: %s: request %s has no reference output; export with --include-reference\n", name, items[i].Where(), items[i].Req.RequestID)
				return runner.ExitUsage
			}
		}
	}
	if c.Fresh && c.Output == "-" {
		fmt.Fprintf(stderr, "%s: --fresh starts an -o file over; give -o FILE (see %s --help)\n", name, name)
		return runner.ExitUsage
	}
	run := runner.RunInfo{Runner: name, Provider: name, Model: "mock-" + c.Mode}
	out := runner.NewOutput(stdout)
	if c.Output != "-" {
		if out, err = runner.OpenOutput(c.Output, runner.Resume{Fresh: c.Fresh, Run: run, Studies: runner.Studies(items)}); err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", name, err)
			return runner.ExitUsage
		}
		defer out.Close()
		if out.Repaired > 0 {
			fmt.Fprintf(stderr, "%s: %s: cut off a torn last line (%d bytes) left by an interrupted run\n", name, c.Output, out.Repaired)
		}
	}
	// Everything is answered before anything is written, so a bad input writes nothing.
	var buf bytes.Buffer
	skipped := 0
	for i := range items {
		req := &items[i].Req
		if out.Answered(req.RequestID) {
			skipped++
			continue
		}
		res := answer(c.Mode, c.Seed, req)
		r := run
		r.Study = items[i].Study
		res.Run = &r
		b, err := runner.AppendRecord(nil, req, &res)
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", name, err)
			return 1
		}
		buf.Write(b)
	}
	if skipped > 0 {
		fmt.Fprintf(stderr, "%s: %s: %d of %d requests already answered, skipped\n", name, c.Output, skipped, len(items))
	}
	if err := out.Write(buf.Bytes()); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 1
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
