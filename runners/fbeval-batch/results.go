package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/runners/internal/anthropic"
	"github.com/fbeval/fbeval/runners/internal/openai"
	"github.com/fbeval/fbeval/runners/internal/runner"
)

// eachLine reads a JSONL results file and calls f with each record; a bad line is an
// error at FILE:LINE:COL.
func eachLine(name string, r io.Reader, f func(rec *contract.Record) (result, error)) ([]result, error) {
	rd := contract.NewReader(name, r, contract.ReadOptions{SingleRecord: func([]string) bool { return true }})
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

// apiError reads {"code", "message"} or {"type", "message"} into a provider error;
// a bare string (vLLM's run-batch writes its error message so) is the message.
func apiError(raw json.RawMessage, fallback string) *contract.ProviderError {
	var text string
	if runner.JSON.Unmarshal(raw, &text) == nil {
		return &contract.ProviderError{Code: fallback, Message: text}
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
	code := fallback
	if s, ok := e.Code.(string); ok && s != "" {
		code = s
	} else if e.Type != "" {
		code = e.Type
	}
	return &contract.ProviderError{Code: code, Message: e.Message}
}

// readOpenAIResults reads OpenAI Batch output and error files and vLLM run-batch
// output: {"custom_id", "response": {"status_code", "body"}, "error"}, where body is
// a chat completion (or a Responses API answer) or, for a status >= 400, holds
// "error"; a line with a top-level "error" failed as a whole. Older vLLM lines put
// the chat completion itself in "response".
func readOpenAIResults(name string, r io.Reader) ([]result, error) {
	return eachLine(name, r, func(rec *contract.Record) (result, error) {
		var w struct {
			CustomID *string         `json:"custom_id"`
			Response json.RawMessage `json:"response"`
			Error    json.RawMessage `json:"error"`
		}
		if err := runner.JSON.Unmarshal(rec.Raw, &w); err != nil {
			return result{}, rec.Errorf(0, "not a batch result line: %v", err)
		}
		if w.CustomID == nil || *w.CustomID == "" {
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
			fallback := "batch_error"
			if resp.StatusCode != nil && *resp.StatusCode >= 400 {
				fallback = fmt.Sprintf("http_%d", *resp.StatusCode)
			}
			out.res.Error = apiError(w.Error, fallback)
			return out, nil
		}
		if !hasResponse {
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
			out.res.Error = apiError(b.Error, fmt.Sprintf("http_%d", *resp.StatusCode))
			if out.res.Error.Message == "" {
				out.res.Error.Message = fmt.Sprintf("HTTP %d", *resp.StatusCode)
			}
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
			res = runner.Result{Error: &contract.ProviderError{Code: "bad_response", Message: callMessage(err)}}
		}
		if res.Provider == "" {
			res.Provider = "openai-compatible"
		}
		out.res = res
		return out, nil
	})
}

// readAnthropicResults reads Message Batches results: {"custom_id", "result":
// {"type": "succeeded", "message"} | {"type": "errored", "error"} | {"type":
// "expired"} | {"type": "canceled"}}.
func readAnthropicResults(name string, r io.Reader) ([]result, error) {
	return eachLine(name, r, func(rec *contract.Record) (result, error) {
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
			return result{}, rec.Errorf(0, "a batch result line needs custom_id and result")
		}
		out := result{customID: *w.CustomID}
		switch w.Result.Type {
		case "succeeded":
			res, err := anthropic.ParseMessage(w.Result.Message)
			if err != nil {
				res = runner.Result{Error: &contract.ProviderError{Code: "bad_response", Message: callMessage(err)}}
			}
			res.Provider = "anthropic"
			out.res = res
		case "errored":
			out.res.Error = apiError(w.Result.Error, "errored")
		case "expired", "canceled":
			out.res.Error = &contract.ProviderError{Code: w.Result.Type, Message: "the batch request was " + w.Result.Type}
		default:
			return result{}, rec.Errorf(0, "unknown result type %q", w.Result.Type)
		}
		return out, nil
	})
}

func callMessage(err error) string {
	var ce *runner.CallError
	if errors.As(err, &ce) {
		return ce.Message
	}
	return err.Error()
}
