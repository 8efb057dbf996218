// Command fbeval-anthropic answers fbeval request files with the Anthropic Messages
// API and writes one response record per request.
//
//	export ANTHROPIC_API_KEY=...
//	fbeval export toolcall-quick | fbeval-anthropic --model claude-sonnet-4-5 -o responses.jsonl
//	fbeval score toolcall-quick --responses responses.jsonl
//
// The request's system messages become the system text; max_tokens defaults to
// 1024 (the API requires one). A request's tools (a native_tools study) are sent as
// the API's tools, and a tool_use block comes back as the call envelope; a
// request's response_format (a native_schema study) goes as output_config.format. With -o the output file is append-only and
// resumable. The key is read from the environment variable named by --api-key-env
// and is never written anywhere.
package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"

	"github.com/fbeval/fbeval/runners/internal/anthropic"
	"github.com/fbeval/fbeval/runners/internal/runner"
)

const name = "fbeval-anthropic"

type cli struct {
	runner.NetFlags
	NativeSchema bool `hidden:"" help:"Accepted and ignored: a request exported with --decoding native_schema is always sent with its response_format."`
}

func main() {
	runner.LimitMemory()
	ctx, stop := runner.NotifySignals()
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the whole command; ctx ends the run early: gently on a first SIGINT, at
// once on a second one or on SIGTERM (see runner.NotifySignals).
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var c cli
	var opts anthropic.Options
	setup := runner.Setup{
		Name:           name,
		Provider:       "anthropic",
		BaseURL:        "https://api.anthropic.com/v1",
		BaseURLEnv:     "ANTHROPIC_BASE_URL",
		MaxTemperature: 1,
		APIKeyEnv:      "ANTHROPIC_API_KEY",
		// the Messages API requires a limit
		MaxTokensDefault: fmt.Sprintf("%d, as the Messages API requires one", anthropic.DefaultMaxTokens),
		Auth: func(key string) http.Header {
			return http.Header{"X-Api-Key": {key}}
		},
		New: func(h *runner.HTTP) runner.Provider {
			h.Header.Set("Anthropic-Version", anthropic.Version)
			return &anthropic.Client{HTTP: h, Opts: opts}
		},
	}
	if code, done := runner.ParseArgs(&c, name, "Answer fbeval request files with the Anthropic Messages API.", args, stdout, stderr, setup.Vars()); done {
		return code
	}
	opts = anthropic.Options{Model: c.Model, MaxTokens: c.MaxTokens, Temperature: c.Temperature, Provider: c.Provider}
	return runner.Execute(ctx, &c.NetFlags, setup, stdin, stdout, stderr)
}
