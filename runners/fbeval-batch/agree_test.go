package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/runners/internal/anthropic"
	"github.com/fbeval/fbeval/runners/internal/openai"
	"github.com/fbeval/fbeval/runners/internal/runner"
)

func recorded(t *testing.T, pkg, file string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "internal", pkg, "testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	// One line: a batch result embeds the body.
	for _, line := range strings.Split(string(b), "\n") {
		out.WriteString(strings.TrimSpace(line))
	}
	return out.String()
}

// live is what a live runner makes of the same answer: a result, or the provider
// error it writes.
func live(parse func([]byte) (runner.Result, error), body string, status int) runner.Result {
	if status >= 400 {
		e := runner.StatusError(status, []byte(body))
		return runner.Result{Error: &contract.ProviderError{Code: e.Code, Message: e.Message}}
	}
	res, err := parse([]byte(body))
	if err != nil {
		return runner.Result{Error: parseError(err)}
	}
	return res
}

// TestLiveAndBatchAgree: a recorded provider answer gives the same output, or the
// same error code (and the same message before the provider's text), whether a live
// runner reads it or fbeval-batch reads it from a batch result.
func TestLiveAndBatchAgree(t *testing.T) {
	for _, tt := range []struct {
		pkg, file string
		status    int
		anthropic bool
	}{
		{"openai", "chat_tool_call_empty_content.json", 200, false},
		{"openai", "chat_text_and_tool_call.json", 200, false},
		{"openai", "chat_text.json", 200, false},
		{"openai", "responses_function_call.json", 200, false},
		{"openai", "responses_failed.json", 200, false},
		{"openai", "error_400.json", 400, false},
		{"openai", "error_500.json", 500, false},
		{"openai", "error_400_azure_content_filter.json", 400, false},
		{"openai", "error_400_vllm_flat.json", 400, false},
		{"anthropic", "message_text_tool_use.json", 200, true},
		{"anthropic", "error_529.json", 529, true},
		{"anthropic", "error_400.json", 400, true},
	} {
		body := recorded(t, tt.pkg, tt.file)
		var want runner.Result
		var line string
		switch {
		case tt.anthropic:
			want = live(anthropic.ParseMessage, body, tt.status)
			if tt.status == 200 {
				line = `{"custom_id":"r1","result":{"type":"succeeded","message":` + body + `}}`
			} else {
				line = `{"custom_id":"r1","result":{"type":"errored","error":` + body + `}}`
			}
		default:
			parse := openai.ParseChat
			if strings.HasPrefix(tt.file, "responses") {
				parse = openai.ParseResponses
			}
			want = live(parse, body, tt.status)
			line = `{"id":"batch_req_1","custom_id":"r1","response":{"status_code":` + strconv.Itoa(tt.status) + `,"request_id":"req_1","body":` + body + `},"error":null}`
		}
		read := readOpenAIResults
		if tt.anthropic {
			read = readAnthropicResults
		}
		rs, err := read("results.jsonl", strings.NewReader(line+"\n"))
		if err != nil || len(rs) != 1 {
			t.Fatalf("%s: %v", tt.file, err)
		}
		got := rs[0].res
		switch {
		case want.Error != nil:
			if got.Error == nil || got.Error.Code != want.Error.Code || !strings.HasPrefix(got.Error.Message, want.Error.Message) {
				t.Errorf("%s: batch error %+v, live %+v", tt.file, got.Error, want.Error)
			}
		case got.Error != nil || got.Output == nil || *got.Output != *want.Output:
			t.Errorf("%s: batch %+v, live output %q", tt.file, got, *want.Output)
		default:
			a, _ := contract.Marshal(got.Metadata, contract.Compact)
			b, _ := contract.Marshal(want.Metadata, contract.Compact)
			if !bytes.Equal(a, b) {
				t.Errorf("%s: metadata batch %s, live %s", tt.file, a, b)
			}
		}
	}
}
