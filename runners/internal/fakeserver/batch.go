package fakeserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
)

// Batch files answered here have the shapes the providers document.
//
// OpenAI Batch API input, one line per request: {"custom_id", "method", "url",
// "body"}; output, one line per request: {"id", "custom_id", "response":
// {"status_code", "request_id", "body"}, "error"}.
//
// Anthropic Message Batches create body: {"requests": [{"custom_id", "params"}]};
// results, one line per request: {"custom_id", "result": {"type": "succeeded",
// "message"}} or {"custom_id", "result": {"type": "errored", "error": {"type":
// "error", "error": {"type", "message"}}}}.

type openaiOutputLine struct {
	ID       string          `json:"id"`
	CustomID string          `json:"custom_id"`
	Response *openaiResponse `json:"response"`
	Error    json.RawMessage `json:"error"`
}

type openaiResponse struct {
	StatusCode int             `json:"status_code"`
	RequestID  string          `json:"request_id"`
	Body       json.RawMessage `json:"body"`
}

// RunOpenAIBatch answers an OpenAI Batch API input file (name is for messages) as
// the Batch API would, and writes its output file to out. Lines are written in
// reverse order, since the providers promise no order: a reader must join by
// custom_id. Faults are not injected. A line that is not a batch request is an error
// at name:LINE, and nothing is written.
func (s *Server) RunOpenAIBatch(name string, in io.Reader, out io.Writer) error {
	var lines [][]byte
	err := eachLine(in, func(n int, line []byte) error {
		var w struct {
			CustomID string          `json:"custom_id"`
			Method   string          `json:"method"`
			URL      string          `json:"url"`
			Body     json.RawMessage `json:"body"`
		}
		if err := json.Unmarshal(line, &w); err != nil {
			return fmt.Errorf("%s:%d: not a batch request line: %v", name, n, err)
		}
		if w.CustomID == "" || w.Method != http.MethodPost || !strings.HasPrefix(w.URL, "/v1/") || len(w.Body) == 0 {
			return fmt.Errorf("%s:%d: a batch request line needs custom_id, method POST, a /v1/ url and a body", name, n)
		}
		status, body := s.answer(w.URL, w.Body)
		b, err := json.Marshal(openaiOutputLine{
			ID: fmt.Sprintf("batch_req_%d", len(lines)+1), CustomID: w.CustomID,
			Response: &openaiResponse{StatusCode: status, RequestID: fmt.Sprintf("req_%d", len(lines)+1), Body: body},
			Error:    json.RawMessage("null"),
		})
		if err != nil {
			return fmt.Errorf("%s:%d: %v", name, n, err)
		}
		lines = append(lines, b)
		return nil
	})
	if err != nil {
		return err
	}
	return writeReversed(out, lines)
}

type anthropicResultLine struct {
	CustomID string          `json:"custom_id"`
	Result   anthropicResult `json:"result"`
}

type anthropicResult struct {
	Type    string          `json:"type"`
	Message json.RawMessage `json:"message,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

// RunAnthropicBatch answers an Anthropic Message Batches create body (name is for
// messages) as the batch would, and writes its results file to out, in reverse
// request order. Faults are not injected.
func (s *Server) RunAnthropicBatch(name string, in io.Reader, out io.Writer) error {
	var create struct {
		Requests []struct {
			CustomID string          `json:"custom_id"`
			Params   json.RawMessage `json:"params"`
		} `json:"requests"`
	}
	dec := json.NewDecoder(in)
	if err := dec.Decode(&create); err != nil {
		return fmt.Errorf("%s: not a Message Batches create body: %v", name, err)
	}
	var lines [][]byte
	for i, r := range create.Requests {
		if r.CustomID == "" || len(r.Params) == 0 {
			return fmt.Errorf("%s: request %d needs custom_id and params", name, i+1)
		}
		status, body := s.answer("/v1/messages", r.Params)
		res := anthropicResult{Type: "succeeded", Message: body}
		if status != http.StatusOK {
			var e struct {
				Error struct {
					Type    string `json:"type"`
					Message string `json:"message"`
				} `json:"error"`
			}
			json.Unmarshal(body, &e)
			wrapped, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]string{"type": e.Error.Type, "message": e.Error.Message}})
			res = anthropicResult{Type: "errored", Error: wrapped}
		}
		b, err := json.Marshal(anthropicResultLine{CustomID: r.CustomID, Result: res})
		if err != nil {
			return fmt.Errorf("%s: request %d: %v", name, i+1, err)
		}
		lines = append(lines, b)
	}
	return writeReversed(out, lines)
}

// answer serves one call in process, without faults, and returns its status and
// body.
func (s *Server) answer(path string, body []byte) (int, []byte) {
	req, err := http.NewRequest(http.MethodPost, "http://batch"+path, bytes.NewReader(body))
	if err != nil || req.URL.Path != path {
		b, _ := json.Marshal(map[string]any{"error": map[string]string{"type": "invalid_request_error", "message": "bad url"}})
		return http.StatusBadRequest, b
	}
	rec := httptest.NewRecorder()
	s.serve(rec, req, false)
	b := bytes.TrimSpace(rec.Body.Bytes())
	if !json.Valid(b) {
		b, _ = json.Marshal(map[string]any{"error": map[string]string{"type": "invalid_request_error", "message": string(b)}})
	}
	return rec.Code, b
}

// eachLine calls f with every non-blank line of r and its 1-based number.
func eachLine(r io.Reader, f func(n int, line []byte) error) error {
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if t := bytes.TrimSpace(line); len(t) > 0 {
			if ferr := f(n, t); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func writeReversed(out io.Writer, lines [][]byte) error {
	var b []byte
	for i := len(lines) - 1; i >= 0; i-- {
		b = append(append(b, lines[i]...), '\n')
	}
	_, err := out.Write(b)
	return err
}
