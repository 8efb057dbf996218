// Command fbeval-openai answers fbeval request files with any OpenAI-compatible API:
// OpenAI, Groq, Mistral, OpenRouter, the Hugging Face router, Ollama, vLLM and
// llama.cpp servers. It speaks Chat Completions (default) or the Responses API
// (--api responses), and writes one response record per request. A request's tools
// (a native_tools study) are sent as the API's tools, and a tool call comes back as
// the call envelope the toolcall scorer reads.
//
//	export OPENAI_API_KEY=...
//	fbeval export toolcall-quick | fbeval-openai --model gpt-4o-mini -o responses.jsonl
//	fbeval score toolcall-quick --responses responses.jsonl
//
// With -o the output file is append-only and resumable: run the same command again
// after an interruption and only the requests without an answer are asked.
// The key is read from the environment variable named by --api-key-env and is never
// written anywhere.
package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"

	"github.com/fbeval/fbeval/runners/internal/openai"
	"github.com/fbeval/fbeval/runners/internal/runner"
)

const name = "fbeval-openai"

type cli struct {
	runner.NetFlags
	API                 string `enum:"chat,responses" default:"chat" help:"Which API: ${enum}."`
	NativeSchema        bool   `hidden:"" help:"Accepted and ignored: a request exported with --decoding native_schema is always sent with its response_format."`
	NoSeed              bool   `help:"Do not send the request's seed (for servers that reject it)."`
	MaxCompletionTokens int    `help:"Longest answer in tokens, sent as max_completion_tokens (for models that refuse max_tokens; the Responses API takes it as max_output_tokens)."`
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
	var opts openai.Options
	setup := runner.Setup{
		Name:           name,
		Provider:       "openai-compatible",
		BaseURL:        "https://api.openai.com/v1",
		BaseURLEnv:     "OPENAI_BASE_URL",
		MaxTemperature: 2,
		APIKeyEnv:      "OPENAI_API_KEY",
		Auth:           func(key string) http.Header { return http.Header{"Authorization": {"Bearer " + key}} },
		New:            func(h *runner.HTTP) runner.Provider { return &openai.Client{HTTP: h, Opts: opts} },
		Settings: func() string {
			out := "api=" + c.API
			if c.MaxCompletionTokens > 0 {
				out += fmt.Sprintf(" max_completion_tokens=%d", c.MaxCompletionTokens)
			}
			if c.NoSeed {
				out += " seed=none"
			}
			return out
		},
	}
	if code, done := runner.ParseArgs(&c, name, "Answer fbeval request files with an OpenAI-compatible API.", args, stdout, stderr, setup.Vars()); done {
		return code
	}
	if c.MaxTokens > 0 && c.MaxCompletionTokens > 0 {
		fmt.Fprintf(stderr, "%s: --max-tokens and --max-completion-tokens are exclusive: give one (see %s --help)\n", name, name)
		return runner.ExitUsage
	}
	opts = openai.Options{
		Model: c.Model, API: c.API, MaxTokens: c.MaxTokens, MaxCompletionTokens: c.MaxCompletionTokens, Temperature: c.Temperature,
		NoSeed: c.NoSeed, Provider: c.Provider,
	}
	return runner.Execute(ctx, &c.NetFlags, setup, stdin, stdout, stderr)
}
