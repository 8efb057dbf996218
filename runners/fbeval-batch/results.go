package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/contract/strictjson"
	"github.com/fbeval/fbeval/runners/internal/anthropic"
	"github.com/fbeval/fbeval/runners/internal/openai"
	"github.com/fbeval/fbeval/runners/internal/runner"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// parser reads one batch result record; a record that is not a result line is an
// error at FILE:LINE:COL. With whole false it reads only what indexing the line
// needs, its custom id and whether the line holds an error as it stands, and
// leaves the answer unread: an answer the provider's parser refuses is found
// when the line is read whole, to be written.
type parser func(rec *contract.Record, whole bool) (result, error)

// newResultsReader reads the records of a results file: JSONL (a JSON list and a
// lone object are taken too).
func newResultsReader(name string, r io.Reader) *contract.Reader {
	return contract.NewReader(name, r, contract.ReadOptions{SingleRecord: func([]string) bool { return true },
		CutHint: "a download stopped before it finished leaves it so: fetch the file from the provider again"})
}

// lineErr is err, about a line of a results file after read whole results,
// with the way on where it is invalid JSON and says none: a provider writes
// each result whole, so a line broken inside the file was changed after it
// was written (an editor, two downloads joined). Before any result, the file
// may be none (a CSV, a page): err as it is.
func lineErr(err error, read int) error {
	ie, ok := errors.AsType[*contract.InputError](err)
	if !ok || ie.Advised || read == 0 || !errors.Is(err, contract.ErrSyntax) {
		return err
	}
	c := *ie
	c.Msg += ": a provider writes each result whole, so the file was changed after it was written: fetch it from the provider again"
	c.Advised = true
	return &c
}

// eachLine reads a whole results file with f into memory; a bad line is an error at
// FILE:LINE:COL.
func eachLine(name string, r io.Reader, f parser) ([]result, error) {
	rd := newResultsReader(name, r)
	var out []result
	for rd.Scan() {
		rec := rd.Record()
		if rec.Err != nil {
			return nil, lineErr(rec.Err, len(out))
		}
		res, err := f(rec, true)
		if err != nil {
			return nil, lineErr(err, len(out))
		}
		res.where = fmt.Sprintf("%s:%d", rec.File, rec.Line)
		out = append(out, res)
	}
	return out, rd.Err()
}

// apiError reads an error member: {"code", "message"}, {"type", "message"}, Anthropic's
// {"type": "error", "error": {"type", "message"}}, or a bare string (vLLM's run-batch
// writes its error message so). kind is the code, else the type.
func apiError(raw []byte) (kind, message string) {
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
func parseOpenAIResult(rec *contract.Record, whole bool) (result, error) {
	l, err := splitLine(rec, quickOpenAILine, decodeOpenAILine)
	if err != nil {
		return result{}, err
	}
	out := result{customID: l.customID}
	if l.errRaw != nil {
		// vLLM gives a failed request a response with its status and no body.
		kind, text := apiError(l.errRaw)
		if l.status != nil && *l.status >= 400 {
			out.res.Error = statusError(*l.status, kind, text)
		} else {
			out.res.Error = batchError(kind, text)
		}
		return out, nil
	}
	if l.response == nil {
		if what := wrongLine(rec.Raw, "openai"); what != "" {
			return result{}, rec.Errorf(0, "%s", what)
		}
		return result{}, rec.Errorf(0, "a batch result line needs response or error")
	}
	body := l.body
	if l.status == nil && l.choices {
		body = l.response // the older vLLM shape
	}
	switch st := l.status; {
	case st == nil && !l.choices:
		return result{}, rec.Errorf(contract.PointerOffset(rec.Raw, "/response"), "the response has no status_code: OpenAI's Batch output and vLLM's run-batch give each {\"status_code\", \"body\"}, 200 for an answer")
	case st == nil:
	case *st < 100 || *st > 599:
		return result{}, rec.Errorf(contract.PointerOffset(rec.Raw, "/response/status_code"), "status_code %d is no HTTP status (200 for an answer, 400 or more for an error)", *st)
	case *st >= 400:
		// the body is the API's error answer: read as a live call reads it
		e := runner.StatusError(*st, body)
		if res, ok := runner.RefusedGeneration(e); ok {
			// the model's answer, which the provider would not return as
			// a tool call: the failure it is
			res.Provider, res.Model, res.Run = out.res.Provider, out.res.Model, out.res.Run
			out.res = res
			return out, nil
		}
		out.res.Error = &contract.ProviderError{Code: e.Code, Message: e.Message}
		return out, nil
	case *st/100 != 2:
		// a redirect or an interim status: what the body holds is no answer
		out.res.Error = &contract.ProviderError{Code: fmt.Sprintf("http_%d", *st), Message: fmt.Sprintf("status %d, which is neither an answer (200) nor an error the API sends (400 or more): no answer to score", *st)}
		return out, nil
	}
	if !whole {
		return out, nil
	}
	var probe struct {
		Object string `json:"object"`
	}
	runner.JSON.Unmarshal(body, &probe)
	var res runner.Result
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

// openAILine is an OpenAI Batch or vLLM run-batch line in its parts, each a
// slice of the line's bytes; nil where a member is absent or null.
type openAILine struct {
	customID string
	response []byte // the response member (the older vLLM shape's answer)
	status   *int   // response.status_code
	body     []byte // response.body
	choices  bool   // response.choices is there (the older vLLM shape)
	errRaw   []byte // the error member
}

// splitLine splits a results line into its parts: by one pass over its bytes
// (quick) for a line shaped as the providers write them, else by decoding it
// (decode), which gives the error of a line that is no result line.
func splitLine[L any](rec *contract.Record, quick func([]byte, *L) bool, decode func(*contract.Record) (L, error)) (L, error) {
	var l L
	if quick(rec.Raw, &l) {
		return l, nil
	}
	return decode(rec)
}

// lineOptions decode a results line that the quick split gave up on as
// leniently as the answers in it are read (a provider's body is the
// provider's parser's to judge): names matched without regard to case (as
// encoding/json matches them, and the quick split gives up at), a member
// twice taken at its last, invalid UTF-8 and a lone surrogate escape let be
// (the text keeps U+FFFD, as a live runner's record does).
var lineOptions = json.JoinOptions(json.MatchCaseInsensitiveNames(true), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))

// decodeOpenAILine splits a results line into its parts by decoding it.
func decodeOpenAILine(rec *contract.Record) (openAILine, error) {
	var l openAILine
	var w struct {
		CustomID *string        `json:"custom_id"`
		Response jsontext.Value `json:"response"`
		Error    jsontext.Value `json:"error"`
	}
	if err := json.Unmarshal(rec.Raw, &w, lineOptions); err != nil {
		return l, contract.DecodeError(rec, err)
	}
	if w.CustomID == nil || *w.CustomID == "" {
		if what := wrongLine(rec.Raw, "openai"); what != "" {
			return l, rec.Errorf(0, "%s", what)
		}
		return l, rec.Errorf(0, "a batch result line needs custom_id")
	}
	l.customID = *w.CustomID
	if len(w.Response) > 0 && string(w.Response) != "null" {
		// decoded again for its parts, so that an error is at its place
		// in the line
		var parts struct {
			Response struct {
				StatusCode *int           `json:"status_code"`
				Body       jsontext.Value `json:"body"`
				Choices    jsontext.Value `json:"choices"`
			} `json:"response"`
		}
		if err := json.Unmarshal(rec.Raw, &parts, lineOptions); err != nil {
			return l, contract.DecodeError(rec, err)
		}
		resp := parts.Response
		l.response, l.status, l.body, l.choices = w.Response, resp.StatusCode, resp.Body, len(resp.Choices) > 0
	}
	if len(w.Error) > 0 && string(w.Error) != "null" {
		l.errRaw = w.Error
	}
	return l, nil
}

// quickOpenAILine splits the line d as decodeOpenAILine does, in one pass
// over its bytes, and reports whether it could: it gives up, leaving
// the line to the decoding, at anything a line of OpenAI's or vLLM's is not
// (a member twice, a name that only matches one without regard to case, as
// the decoding matches names, a custom id that is no string or is empty, a
// response that is no object, a status that is no small integer).
func quickOpenAILine(d []byte, l *openAILine) bool {
	var seen uint8
	return strictjson.Members(d, 0, func(name []byte, i int) (int, bool) {
		k, ok := member(name, &seen, "custom_id", "response", "error")
		switch {
		case !ok:
			return i, false
		case k == 0:
			end, ok := quickString(d, i, &l.customID)
			return end, ok && l.customID != ""
		case k == 1:
			if end, err := strictjson.ScanLiteral(d, i, "null"); err == strictjson.LexOK {
				return end, true
			}
			end := quickResponse(d, i, l)
			if end < 0 {
				return i, false
			}
			l.response = d[i:end]
			return end, true
		case k == 2:
			if end, err := strictjson.ScanLiteral(d, i, "null"); err == strictjson.LexOK {
				return end, true
			}
			end, ok := skip(d, i)
			l.errRaw = d[i:end]
			return end, ok
		}
		return skip(d, i)
	}) == len(d) && l.customID != ""
}

// quickResponse reads the response object at d[i] into l and returns the
// offset past it, or -1 (quickOpenAILine).
func quickResponse(d []byte, i int, l *openAILine) int {
	var seen uint8
	return strictjson.Members(d, i, func(name []byte, i int) (int, bool) {
		k, ok := member(name, &seen, "status_code", "body", "choices")
		switch {
		case !ok:
			return i, false
		case k == 0:
			end, isInt, err := strictjson.ScanNumber(d, i)
			if err != strictjson.LexOK || !isInt {
				return i, false
			}
			n, ok := strictjson.SmallInt(d[i:end])
			if !ok || n != int64(int(n)) {
				return i, false
			}
			status := int(n)
			l.status = &status
			return end, true
		case k == 1:
			end, ok := skip(d, i)
			l.body = d[i:end]
			return end, ok
		case k == 2:
			l.choices = true
		}
		return skip(d, i)
	})
}

// member finds name among the names a quick reader knows: its index, or -1
// for a name it does not know, which it skips. ok is false for a name it
// knows that was seen before, or that matches one only without regard to
// case (the decoding takes such a name as that member).
func member(name []byte, seen *uint8, names ...string) (k int, ok bool) {
	for k, n := range names {
		switch {
		case string(name) == n:
			if *seen&(1<<k) != 0 {
				return k, false
			}
			*seen |= 1 << k
			return k, true
		case bytes.EqualFold(name, []byte(n)):
			return k, false
		}
	}
	return -1, true
}

// quickString reads the JSON string at d[i] into s.
func quickString(d []byte, i int, s *string) (int, bool) {
	if i >= len(d) || d[i] != '"' {
		return i, false
	}
	end, buf, escaped, err := strictjson.ReadString(d, i, nil, strictjson.RejectSurrogates)
	if err != strictjson.LexOK {
		return i, false
	}
	if escaped {
		*s = string(buf)
	} else {
		*s = string(d[i+1 : end-1])
	}
	return end, true
}

// skip returns the offset past the value at d[i], which the quick readers
// keep whole or do not read.
func skip(d []byte, i int) (int, bool) {
	end, err := strictjson.SkipValue(d, i, quickDepth, strictjson.RejectSurrogates)
	return end, err == strictjson.LexOK
}

// quickDepth is the deepest nesting the quick readers skip; deeper lines are
// left to the decoding.
const quickDepth = 512

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
	keys, strs := contract.TopLevel(raw)
	if what, way := contract.ForeignOf(keys, strs); what != "" && !keys["custom_id"] {
		// a batch's status object, an API's reply saved as it came
		return "this is " + what + ", not a batch result line: " + way
	}
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
func parseAnthropicResult(rec *contract.Record, whole bool) (result, error) {
	l, err := splitLine(rec, quickAnthropicLine, decodeAnthropicLine)
	if err != nil {
		return result{}, err
	}
	out := result{customID: l.customID}
	switch l.kind {
	case "succeeded":
		if !whole {
			return out, nil
		}
		res, err := anthropic.ParseMessage(l.message)
		if err != nil {
			res = runner.Result{Error: parseError(err)}
		}
		res.Provider = "anthropic"
		out.res = res
	case "errored":
		// The error is the one the Messages API would have answered a live call
		// with, so its type gives the HTTP status of the live call's code.
		kind, text := apiError(l.errRaw)
		if code := anthropic.ErrorStatus(kind); code != 0 {
			out.res.Error = statusError(code, kind, text)
		} else {
			out.res.Error = batchError(kind, text)
		}
	case "expired", "canceled":
		out.res.Error = notRun(l.kind)
	default:
		return result{}, rec.Errorf(0, "unknown result type %q", l.kind)
	}
	return out, nil
}

// anthropicLine is a Message Batches results line in its parts, each a slice of
// the line's bytes; nil where a member is absent (or null, for message and
// error: the decoding keeps null as the bytes "null", which no parser takes).
type anthropicLine struct {
	customID string
	kind     string // result.type
	message  []byte // result.message
	errRaw   []byte // result.error
}

// decodeAnthropicLine splits a results line into its parts by decoding it.
func decodeAnthropicLine(rec *contract.Record) (anthropicLine, error) {
	var w struct {
		CustomID *string `json:"custom_id"`
		Result   *struct {
			Type    string         `json:"type"`
			Message jsontext.Value `json:"message"`
			Error   jsontext.Value `json:"error"`
		} `json:"result"`
	}
	if err := json.Unmarshal(rec.Raw, &w, lineOptions); err != nil {
		return anthropicLine{}, contract.DecodeError(rec, err)
	}
	if w.CustomID == nil || *w.CustomID == "" || w.Result == nil {
		if what := wrongLine(rec.Raw, "anthropic"); what != "" {
			return anthropicLine{}, rec.Errorf(0, "%s", what)
		}
		return anthropicLine{}, rec.Errorf(0, "a batch result line needs custom_id and result")
	}
	return anthropicLine{customID: *w.CustomID, kind: w.Result.Type, message: w.Result.Message, errRaw: w.Result.Error}, nil
}

// quickAnthropicLine splits the line d as decodeAnthropicLine does, in one
// pass over its bytes, and reports whether it could (quickOpenAILine).
func quickAnthropicLine(d []byte, l *anthropicLine) bool {
	var seen uint8
	result := false
	end := strictjson.Members(d, 0, func(name []byte, i int) (int, bool) {
		k, ok := member(name, &seen, "custom_id", "result")
		switch {
		case !ok:
			return i, false
		case k == 0:
			end, ok := quickString(d, i, &l.customID)
			return end, ok && l.customID != ""
		case k == 1:
			result = true
			var seen uint8
			end := strictjson.Members(d, i, func(name []byte, i int) (int, bool) {
				k, ok := member(name, &seen, "type", "message", "error")
				switch {
				case !ok:
					return i, false
				case k == 0:
					return quickString(d, i, &l.kind)
				case k == 1:
					end, ok := skip(d, i)
					l.message = d[i:end]
					return end, ok
				case k == 2:
					end, ok := skip(d, i)
					l.errRaw = d[i:end]
					return end, ok
				}
				return skip(d, i)
			})
			return end, end >= 0
		}
		return skip(d, i)
	})
	return end == len(d) && result && l.customID != ""
}
