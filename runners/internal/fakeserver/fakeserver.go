// Package fakeserver is a local stand-in for the provider APIs the fbeval runners
// speak (OpenAI Chat Completions and Responses, Anthropic Messages) and for their
// batch services, with faults injected on demand: 429 with Retry-After, 500, slow
// answers, truncated and non-JSON bodies, reset connections, and error bodies that
// echo the request's key headers.
//
// A request that offers tools gets a call_tool answer as that API's tool call (Chat
// Completions tool_calls beside "content": "", a Responses function_call item, an
// Anthropic text block then a tool_use block), any other answer as text.
//
// It answers each call with a fixed text, with Options.Reply, or with canned Answers:
// LoadAnswers reads a request file exported with --include-reference, and each
// conversation then gets its reference output, whichever API it came through. The
// same answers come out of RunOpenAIBatch and RunAnthropicBatch, which play the batch
// services offline, so a live run and a batch round trip can be compared.
//
//	answers, err := fakeserver.LoadAnswers("answers.jsonl", f)
//	srv := httptest.NewServer(fakeserver.New(fakeserver.Options{Answers: answers}))
//	// fbeval-openai --base-url srv.URL+"/v1" ...
//
// The fbeval-fakeserver command serves it on a local port, and plays the batch
// services on files.
package fakeserver

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Fault is what the server does instead of (or before) answering.
type Fault struct {
	Status     int    // answer with this HTTP status and an API error body
	RetryAfter string // Retry-After header sent with Status
	// ShouldRetry is the X-Should-Retry header sent with Status ("true",
	// "false"), the server's word on asking again
	ShouldRetry string
	Delay       time.Duration // wait before answering
	Truncate    bool          // cut the answer body in half
	NonJSON     bool          // answer 200 with an HTML page
	Reset       bool          // close the connection without an answer
	EchoKey     bool          // with Status: the error body echoes the request's headers
	Body        []byte        // with Status: this error body (a recorded one), not the fake's
	// EchoHeaders answers 200 with a body that is not JSON and holds every request
	// header, as a misconfigured proxy might.
	EchoHeaders bool
	// Redirect answers 307 Temporary Redirect to this base URL plus the path.
	Redirect string
}

// Options configure a Server.
type Options struct {
	// Reply returns the model's answer to a request, given its last user message.
	// Nil: a fixed refusal envelope.
	Reply func(user string) string
	// Answers, when set, answers each conversation with its canned answer (and
	// Reply is not used); a conversation it lacks gets a 404 not_found_error.
	Answers Answers
	// Fault returns the fault for the n-th call (1-based) carrying this last user
	// message. Nil: none.
	Fault func(user string, n int) Fault
}

// DefaultReply is the answer when Options.Reply is nil: a toolcall refusal envelope.
const DefaultReply = `{"action":"refuse","tool":null,"arguments":{},"missingFields":[],"reason":"fake server"}`

// Server is an http.Handler speaking the three APIs under any prefix
// (…/chat/completions, …/responses, …/messages).
type Server struct {
	opts    Options
	mu      sync.Mutex
	calls   map[string]int
	total   int
	headers []http.Header
}

// Headers returns the headers of every call received, in order.
func (s *Server) Headers() []http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]http.Header(nil), s.headers...)
}

// New returns a Server.
func New(opts Options) *Server { return &Server{opts: opts, calls: map[string]int{}} }

// Calls returns how many calls carried the user message, and all calls.
func (s *Server) Calls(user string) (int, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[user], s.total
}

type wireRequest struct {
	Model        string `json:"model"`
	Messages     []Turn `json:"messages"`
	Input        []Turn `json:"input"`
	System       string `json:"system"`       // Anthropic
	Instructions string `json:"instructions"` // Responses API
	Tools        []struct {
		Name     string `json:"name"` // Responses API, Anthropic
		Function struct {
			Name string `json:"name"`
		} `json:"function"` // Chat Completions
	} `json:"tools"`
}

// offers reports whether the request offers the tool name.
func (req *wireRequest) offers(name string) bool {
	for _, t := range req.Tools {
		if t.Name == name || t.Function.Name == name {
			return true
		}
	}
	return false
}

// toolCall reads a call_tool envelope: the tool's name and its arguments (exact).
func toolCall(reply string) (name string, args json.RawMessage, ok bool) {
	var env struct {
		Action    string          `json:"action"`
		Tool      string          `json:"tool"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if json.Unmarshal([]byte(reply), &env) != nil || env.Action != "call_tool" || env.Tool == "" || len(env.Arguments) == 0 {
		return "", nil, false
	}
	return env.Tool, env.Arguments, true
}

// apiOf names the API a call's path asks for: /chat/completions, /responses or
// /messages, each under /v1 as the APIs serve them (behind any prefix, as a proxy
// puts them); "" for any other path.
func apiOf(path string) string {
	for _, api := range []string{"/chat/completions", "/responses", "/messages"} {
		if strings.HasSuffix(path, "/v1"+api) {
			return api
		}
	}
	return ""
}

// conversation reads the chat a request body carries, whichever API it is for
// (apiOf).
func (req *wireRequest) conversation(api string) Conversation {
	if api == "/responses" {
		return Conversation{System: req.Instructions, Turns: req.Input}
	}
	if api == "/messages" {
		return Conversation{System: req.System, Turns: req.Messages}
	}
	var c Conversation
	var system []string
	for _, m := range req.Messages {
		if m.Role == "system" || m.Role == "developer" {
			system = append(system, m.Content)
		} else {
			c.Turns = append(c.Turns, m)
		}
	}
	c.System = strings.Join(system, "\n\n")
	return c
}

// ServeHTTP answers one call, with the fault Options.Fault chooses for it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.serve(w, r, true) }

func (s *Server) serve(w http.ResponseWriter, r *http.Request, faults bool) {
	s.mu.Lock()
	s.headers = append(s.headers, r.Header.Clone())
	s.mu.Unlock()
	api := apiOf(r.URL.Path)
	if api == "" {
		http.NotFound(w, r) // as Ollama and other Go servers answer a path they do not serve, whatever the method
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, `{"error":{"type":"invalid_request_error","message":"method `+r.Method+` not allowed: the API takes POST"}}`, http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, `{"error":{"type":"invalid_request_error","message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	var req wireRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, `{"error":{"type":"invalid_request_error","message":"body is not JSON"}}`, http.StatusBadRequest)
		return
	}
	conv := req.conversation(api)
	user := conv.LastUser()
	s.mu.Lock()
	s.calls[user]++
	s.total++
	n := s.calls[user]
	s.mu.Unlock()

	var f Fault
	if s.opts.Fault != nil && faults {
		f = s.opts.Fault(user, n)
	}
	if f.Delay > 0 {
		select {
		case <-time.After(f.Delay):
		case <-r.Context().Done():
			return
		}
	}
	switch {
	case f.Reset:
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
				return
			}
		}
		panic(http.ErrAbortHandler)
	case f.Redirect != "":
		http.Redirect(w, r, strings.TrimSuffix(f.Redirect, "/")+r.URL.Path, http.StatusTemporaryRedirect)
		return
	case f.EchoHeaders:
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "proxy error; your request was:\n")
		r.Header.Write(w)
		return
	case f.NonJSON:
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html><body>502 Bad Gateway</body></html>")
		return
	case f.Status != 0:
		if f.RetryAfter != "" {
			w.Header().Set("Retry-After", f.RetryAfter)
		}
		if f.ShouldRetry != "" {
			w.Header().Set("X-Should-Retry", f.ShouldRetry)
		}
		if f.Body != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(f.Status)
			w.Write(f.Body)
			return
		}
		msg := "fake failure"
		if f.EchoKey {
			msg = fmt.Sprintf("Incorrect API key provided: %s %s", r.Header.Get("Authorization"), r.Header.Get("X-Api-Key"))
		}
		kind := "server_error"
		if f.Status == 429 {
			kind = "rate_limit_exceeded"
		}
		writeError(w, f.Status, kind, msg)
		return
	}
	reply := DefaultReply
	switch {
	case s.opts.Answers != nil:
		var ok bool
		if reply, ok = s.opts.Answers[conv.Key()]; !ok {
			writeError(w, http.StatusNotFound, "not_found_error", "the fake server has no answer for this conversation")
			return
		}
	case s.opts.Reply != nil:
		reply = s.opts.Reply(user)
	}
	// The answer's id names the conversation: the same request gets the same id,
	// live or in a batch.
	id := conv.Key()[:12]
	var answer any
	// A request that offers tools gets a call envelope back as the API's tool call,
	// shaped as the providers send it: Chat Completions with "content": "" beside
	// tool_calls (as Ollama does), a Responses function_call item, and an Anthropic
	// tool_use block after a text block.
	name, args, isCall := toolCall(reply)
	isCall = isCall && req.offers(name)
	switch {
	case isCall && api == "/chat/completions":
		answer = map[string]any{
			"id": "chatcmpl-" + id, "object": "chat.completion", "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": "tool_calls",
				"message": map[string]any{"role": "assistant", "content": "", "tool_calls": []any{map[string]any{
					"id": "call_" + id, "index": 0, "type": "function",
					"function": map[string]any{"name": name, "arguments": string(args)}}}}}},
			"usage": map[string]any{"prompt_tokens": len(user) / 4, "completion_tokens": len(reply) / 4, "total_tokens": (len(user) + len(reply)) / 4},
		}
	case isCall && api == "/responses":
		answer = map[string]any{
			"id": "resp_" + id, "object": "response", "model": req.Model, "status": "completed",
			"output": []any{map[string]any{"type": "function_call", "id": "fc_" + id, "call_id": "call_" + id,
				"name": name, "arguments": string(args), "status": "completed"}},
			"usage": map[string]any{"input_tokens": len(user) / 4, "output_tokens": len(reply) / 4},
		}
	case isCall && api == "/messages":
		answer = map[string]any{
			"id": "msg_" + id, "type": "message", "role": "assistant", "model": req.Model,
			"content": []any{map[string]any{"type": "text", "text": "I'll search for that."},
				map[string]any{"type": "tool_use", "id": "toolu_" + id, "name": name, "input": args}},
			"stop_reason": "tool_use",
			"usage":       map[string]any{"input_tokens": len(user) / 4, "output_tokens": len(reply) / 4},
		}
	case api == "/chat/completions":
		answer = map[string]any{
			"id": "chatcmpl-" + id, "object": "chat.completion", "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": reply}}},
			"usage": map[string]any{"prompt_tokens": len(user) / 4, "completion_tokens": len(reply) / 4, "total_tokens": (len(user) + len(reply)) / 4},
		}
	case api == "/responses":
		answer = map[string]any{
			"id": "resp_" + id, "object": "response", "model": req.Model, "status": "completed",
			"output": []any{map[string]any{"type": "message", "role": "assistant",
				"content": []any{map[string]any{"type": "output_text", "text": reply}}}},
			"usage": map[string]any{"input_tokens": len(user) / 4, "output_tokens": len(reply) / 4},
		}
	default: // /messages
		answer = map[string]any{
			"id": "msg_" + id, "type": "message", "role": "assistant", "model": req.Model,
			"content":     []any{map[string]any{"type": "text", "text": reply}},
			"stop_reason": "end_turn",
			"usage":       map[string]any{"input_tokens": len(user) / 4, "output_tokens": len(reply) / 4, "cache_read_input_tokens": 2},
		}
	}
	b, _ := json.Marshal(answer)
	if f.Truncate {
		b = b[:len(b)/2]
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

// writeError answers with an API error body, {"error": {"message", "type", "code"}}.
func writeError(w http.ResponseWriter, status int, kind, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": kind, "code": kind}})
	w.Write(b)
}
