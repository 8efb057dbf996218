package score

import (
	"bytes"

	"github.com/fbeval/fbeval/contract"
)

// HoldsThinking reports whether an answer holds a reasoning model's thinking
// before its answer, as a server without a reasoning parser returns it: it
// begins with <think>, or (the chat template having opened the block) holds
// </think>. An answer that begins as a JSON object holds none, so a toolcall
// answer that is clean costs one byte's look.
func HoldsThinking(output []byte) bool {
	s := bytes.TrimLeft(output, " \t\r\n")
	if len(s) == 0 || s[0] == '{' {
		return false
	}
	return bytes.HasPrefix(s, []byte("<think>")) || bytes.Contains(s, []byte("</think>"))
}

// ThinkingWarning is the warning for n answers that hold the model's thinking
// (HoldsThinking), which score as what: the server is the place to take it apart.
func ThinkingWarning(n int, what string) string {
	return contract.Plural(n, "answer holds", "answers hold") + " the model's thinking (<think>...</think>) before " + contract.Pick(n, "its", "their") + " answer and " +
		contract.Pick(n, "scores", "score") + " as " + what + ": the server returned the model's reasoning as part of the answer; have it return the reasoning apart (vLLM: --reasoning-parser) if that was not meant"
}
