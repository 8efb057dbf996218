package fakeserver

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/runners/internal/runner"
)

// Turn is one message of a conversation.
type Turn struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Conversation is a chat as a provider sees it: the system text (Chat Completions
// system messages, the Responses API's instructions or Anthropic's system, several
// joined by a blank line, as the runners join them) and the other turns. The same
// fbeval request sent to any of the three APIs is the same conversation.
type Conversation struct {
	System string `json:"system"`
	Turns  []Turn `json:"turns"`
}

// Key identifies the conversation: the hex SHA-256 of its JSON form.
func (c Conversation) Key() string {
	b, _ := json.Marshal(c) // a struct of strings always marshals
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// LastUser is the text of the last user turn ("" when there is none).
func (c Conversation) LastUser() string {
	for i := len(c.Turns) - 1; i >= 0; i-- {
		if c.Turns[i].Role == "user" {
			return c.Turns[i].Content
		}
	}
	return ""
}

// ConversationOf is the conversation a runner sends for req.
func ConversationOf(req *contract.Request) Conversation {
	var c Conversation
	var system []string
	for _, m := range req.Messages {
		if m.Role == "system" || m.Role == "developer" {
			system = append(system, m.Content)
		} else {
			c.Turns = append(c.Turns, Turn{Role: m.Role, Content: m.Content})
		}
	}
	c.System = strings.Join(system, "\n\n")
	return c
}

// Answers maps conversation keys to the answer the server gives them.
type Answers map[string]string

// LoadAnswers reads a request file exported with --include-reference (any form the
// runners read, either family) and answers each request's conversation with its
// reference output, so a run against the server scores as the reference does.
// A request without a reference output, or two requests with the same conversation
// and different references, is an error at FILE:LINE.
func LoadAnswers(name string, r io.Reader) (Answers, error) {
	items, err := runner.ReadRequests(name, r)
	if err != nil {
		return nil, err
	}
	a := make(Answers, len(items))
	for i := range items {
		it := &items[i]
		ref := it.Req.ReferenceOutput
		if ref == nil {
			return nil, fmt.Errorf("%s: request %s has no reference output; export with --include-reference", it.Where(), it.Req.RequestID)
		}
		key := ConversationOf(&it.Req).Key()
		if prev, ok := a[key]; ok && prev != *ref {
			return nil, fmt.Errorf("%s: request %s repeats an earlier conversation with another reference output", it.Where(), it.Req.RequestID)
		}
		a[key] = *ref
	}
	return a, nil
}
