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
	Output string `short:"o" default:"-" help:"Write responses to FILE instead of stdout."`
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
	// Everything is answered before anything is written, so a bad input writes nothing.
	var buf bytes.Buffer
	for i := range items {
		req := &items[i].Req
		res := answer(c.Mode, c.Seed, req)
		b, err := runner.AppendRecord(nil, req, &res)
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", name, err)
			return 1
		}
		buf.Write(b)
	}
	out := stdout
	if c.Output != "-" {
		f, err := os.Create(c.Output)
		if err != nil {
			fmt.Fprintf(stderr, "%s: cannot write responses: %v\n", name, err)
			return runner.ExitUsage
		}
		defer f.Close()
		out = f
	}
	if _, err := out.Write(buf.Bytes()); err != nil {
		fmt.Fprintf(stderr, "%s: cannot write responses: %v\n", name, err)
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
