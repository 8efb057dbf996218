package contract

import "bytes"

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
