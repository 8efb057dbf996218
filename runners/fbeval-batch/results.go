package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/runners/internal/anthropic"
	"github.com/fbeval/fbeval/runners/internal/openai"
	"github.com/fbeval/fbeval/runners/internal/runner"
)

// parser reads one batch result record; a record that is not a result line is an
// error at FILE:LINE:COL.
type parser func(rec *contract.Record) (result, error)

// newResultsReader reads the records of a results file: JSONL (a JSON list and a
// lone object are taken too).
func newResultsReader(name string, r io.Reader) *contract.Reader {
	return contract.NewReader(name, r, contract.ReadOptions{SingleRecord: func([]string) bool { return true },
		CutHint: "a download stopped before it finished leaves it so: fetch the file from the provider again"})
}

// eachLine reads a whole results file with f into memory; a bad line is an error at
// FILE:LINE:COL.
func eachLine(name string, r io.Reader, f parser) ([]result, error) {
	rd := newResultsReader(name, r)
	var out []result
	for rd.Scan() {
		rec := rd.Record()
		if rec.Err != nil {
			return nil, rec.Err
		}
		res, err := f(rec)
		if err != nil {
			return nil, err
		}
		res.where = fmt.Sprintf("%s:%d", rec.File, rec.Line)
		out = append(out, res)
	}
	return out, rd.Err()
}

// apiError reads an error member: {"code", "message"}, {"type", "message"}, Anthropic's
// {"type": "error", "error": {"type", "message"}}, or a bare string (vLLM's run-batch
// writes its error message so). kind is the code, else the type.
func apiError(raw json.RawMessage) (kind, message string) {
	var text string
	if runner.JSON.Unmarshal(raw, &text) == nil {
		return "", text
	}
	var e struct {
		Code    any    `json:"code"`
		Type    string `json:"type"`
		Message string `json:"message"`
		Error   *struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	runner.JSON.Unmarshal(raw, &e)
	if e.Error != nil { // Anthropic wraps the error once more
		e.Type, e.Message = e.Error.Type, e.Error.Message
	}
	if s, ok := e.Code.(string); ok && s != "" {
		return s, e.Message
	}
	return e.Type, e.Message
}

// statusError is the provider error of a batch request the API answered with HTTP
// status code: the same code and message as a live call's (runner.StatusError),
// and the provider's text after it.
func statusError(code int, kind, text string) *contract.ProviderError {
	body, _ := contract.Marshal(contract.Object{runner.Field("error", contract.Object{runner.Field("type", kind)})}, contract.Compact)
	e := runner.StatusError(code, body)
	msg := e.Message
	if text != "" {
		msg += ": " + text
	}
	return &contract.ProviderError{Code: e.Code, Message: msg}
}

// batchError is the provider error of a batch request that failed with no HTTP
// status: expired and canceled requests under those codes, anything else as
// batch_error with the provider's kind and text in the message.
func batchError(kind, text string) *contract.ProviderError {
	switch kind {
	case "batch_expired", "expired", "batch_cancelled", "batch_canceled", "canceled":
		e := notRun(kind)
		if text != "" {
			e.Message += ": " + text
		}
		return e
	}
	msg := "the batch request failed"
	if kind != "" {
		msg += " (" + kind + ")"
	}
	if text != "" {
		msg += ": " + text
	}
	return &contract.ProviderError{Code: "batch_error", Message: msg}
}

// notRun is the provider error of a batch request that was never run: "expired" or
// "canceled", whichever spelling the provider used.
func notRun(kind string) *contract.ProviderError {
	if strings.Contains(kind, "expired") {
		return &contract.ProviderError{Code: "expired", Message: "the batch request was expired"}
	}
	return &contract.ProviderError{Code: "canceled", Message: "the batch request was canceled"}
}

// parseError is the provider error of an answer the parser refused: its CallError
// code (a failed Responses answer is "failed", as live), else bad_response.
func parseError(err error) *contract.ProviderError {
	var ce *runner.CallError
	if errors.As(err, &ce) {
		return &contract.ProviderError{Code: ce.Code, Message: ce.Message}
	}
	return &contract.ProviderError{Code: "bad_response", Message: err.Error()}
}

// readOpenAIResults reads OpenAI Batch output and error files and vLLM run-batch
// output: {"custom_id", "response": {"status_code", "body"}, "error"}, where body is
// a chat completion (or a Responses API answer) or, for a status >= 400, holds
// "error"; a line with a top-level "error" failed as a whole. Older vLLM lines put
// the chat completion itself in "response".
func readOpenAIResults(name string, r io.Reader) ([]result, error) {
	return eachLine(name, r, parseOpenAIResult)
}

// parseOpenAIResult reads one OpenAI Batch or vLLM run-batch line (readOpenAIResults).
func parseOpenAIResult(rec *contract.Record) (result, error) {
	var w struct {
		CustomID *string         `json:"custom_id"`
		Response json.RawMessage `json:"response"`
		Error    json.RawMessage `json:"error"`
	}
	if err := runner.JSON.Unmarshal(rec.Raw, &w); err != nil {
		return result{}, rec.Errorf(0, "not a batch result line: %v", err)
	}
	if w.CustomID == nil || *w.CustomID == "" {
		if what := wrongLine(rec.Raw, "openai"); what != "" {
			return result{}, rec.Errorf(0, "%s", what)
		}
		return result{}, rec.Errorf(0, "a batch result line needs custom_id")
	}
	out := result{customID: *w.CustomID}
	hasResponse := len(w.Response) > 0 && string(w.Response) != "null"
	var resp struct {
		StatusCode *int            `json:"status_code"`
		Body       json.RawMessage `json:"body"`
		Choices    json.RawMessage `json:"choices"`
	}
	if hasResponse {
		if err := runner.JSON.Unmarshal(w.Response, &resp); err != nil {
			return result{}, rec.Errorf(0, "response is not an object: %v", err)
		}
	}
	if len(w.Error) > 0 && string(w.Error) != "null" {
		// vLLM gives a failed request a response with its status and no body.
		kind, text := apiError(w.Error)
		if resp.StatusCode != nil && *resp.StatusCode >= 400 {
			out.res.Error = statusError(*resp.StatusCode, kind, text)
		} else {
			out.res.Error = batchError(kind, text)
		}
		return out, nil
	}
	if !hasResponse {
		if what := wrongLine(rec.Raw, "openai"); what != "" {
			return result{}, rec.Errorf(0, "%s", what)
		}
		return result{}, rec.Errorf(0, "a batch result line needs response or error")
	}
	body := resp.Body
	if resp.StatusCode == nil && len(resp.Choices) > 0 {
		body = w.Response // the older vLLM shape
	}
	if resp.StatusCode != nil && *resp.StatusCode >= 400 {
		var b struct {
			Error json.RawMessage `json:"error"`
		}
		runner.JSON.Unmarshal(body, &b)
		kind, text := apiError(b.Error)
		out.res.Error = statusError(*resp.StatusCode, kind, text)
		return out, nil
	}
	var probe struct {
		Object string `json:"object"`
	}
	runner.JSON.Unmarshal(body, &probe)
	var res runner.Result
	var err error
	if probe.Object == "response" {
		res, err = openai.ParseResponses(body)
	} else {
		res, err = openai.ParseChat(body)
	}
	if err != nil {
		res = runner.Result{Error: parseError(err)}
	}
	if res.Provider == "" {
		res.Provider = "openai-compatible"
	}
	out.res = res
	return out, nil
}

// wrongLine says what a line given to from-PROVIDER is when it is no result
// line of that provider but a line fbeval knows (a record of fbeval's contract,
// the batch input file, the other provider's results), and what to do with its
// file; "" otherwise. It is asked only of a line that is not a result line.
func wrongLine(raw []byte, provider string) string {
	if v := contract.VersionOf(raw); v != "" {
		switch kind := contract.FileKind(v); kind {
		case "":
		case "a request file":
			return fmt.Sprintf("this is a request file (%s), not batch results: fbeval-batch to-%s turns it into the file to send to the batch API, and from-%s reads the results the batch API returns", v, provider, provider)
		case "a response file":
			return fmt.Sprintf("this is a response file (%s), not batch results: fbeval-batch from-%s writes such files; score it with fbeval score", v, provider)
		default:
			return fmt.Sprintf("this is %s (%s), not batch results", kind, v)
		}
	}
	keys, _ := contract.TopLevel(raw)
	switch {
	case keys["requests"] && len(keys) == 1:
		return "this is an Anthropic Message Batches request body ({\"requests\": [...]}), the batch to send: from-anthropic reads the results the batch API returns"
	case !keys["custom_id"]:
	case keys["body"] && keys["url"]:
		return "this is a line of an OpenAI Batch input file (custom_id, method, url, body), the file to send: from-openai reads the output file the batch API returns"
	case keys["params"]:
		return "this is an Anthropic Message Batches request (custom_id, params), the batch to send: from-anthropic reads the results the batch API returns"
	case keys["response"] && provider != "openai":
		return "this is an OpenAI Batch output line (custom_id, response): convert the file with fbeval-batch from-openai"
	case keys["result"] && provider != "anthropic":
		return "this is an Anthropic Message Batches result line (custom_id, result): convert the file with fbeval-batch from-anthropic"
	}
	return ""
}

// readAnthropicResults reads Message Batches results: {"custom_id", "result":
// {"type": "succeeded", "message"} | {"type": "errored", "error"} | {"type":
// "expired"} | {"type": "canceled"}}.
func readAnthropicResults(name string, r io.Reader) ([]result, error) {
	return eachLine(name, r, parseAnthropicResult)
}

// parseAnthropicResult reads one Message Batches results line (readAnthropicResults).
func parseAnthropicResult(rec *contract.Record) (result, error) {
	var w struct {
		CustomID *string `json:"custom_id"`
		Result   *struct {
			Type    string          `json:"type"`
			Message json.RawMessage `json:"message"`
			Error   json.RawMessage `json:"error"`
		} `json:"result"`
	}
	if err := runner.JSON.Unmarshal(rec.Raw, &w); err != nil {
		return result{}, rec.Errorf(0, "not a batch result line: %v", err)
	}
	if w.CustomID == nil || *w.CustomID == "" || w.Result == nil {
		if what := wrongLine(rec.Raw, "anthropic"); what != "" {
			return result{}, rec.Errorf(0, "%s", what)
		}
		return result{}, rec.Errorf(0, "a batch result line needs custom_id and result")
	}
	out := result{customID: *w.CustomID}
	switch w.Result.Type {
	case "succeeded":
		res, err := anthropic.ParseMessage(w.Result.Message)
		if err != nil {
			res = runner.Result{Error: parseError(err)}
		}
		res.Provider = "anthropic"
		out.res = res
	case "errored":
		// The error is the one the Messages API would have answered a live call
		// with, so its type gives the HTTP status of the live call's code.
		kind, text := apiError(w.Result.Error)
		if code := anthropic.ErrorStatus(kind); code != 0 {
			out.res.Error = statusError(code, kind, text)
		} else {
			out.res.Error = batchError(kind, text)
		}
	case "expired", "canceled":
		out.res.Error = notRun(w.Result.Type)
	default:
		return result{}, rec.Errorf(0, "unknown result type %q", w.Result.Type)
	}
	return out, nil
}
