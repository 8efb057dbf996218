package contract

import "bytes"

// HoldsThinking reports whether an answer holds a reasoning model's thinking
// (or its chat format's markup) around its answer, as a server without a
// reasoning parser returns it: it begins with <think> (DeepSeek-R1, Qwen3),
// [THINK] (Magistral) or gpt-oss's channel markup (<|channel|>analysis
// <|message|>..., <|start|>assistant...), or, the chat template having opened
// the block, it holds </think>, [/THINK] or <|channel|>. An answer that begins
// as a JSON object holds none, so a toolcall answer that is clean costs one
// byte's look.
func HoldsThinking(output []byte) bool {
	s := bytes.TrimLeft(output, " \t\r\n")
	if len(s) == 0 || s[0] == '{' {
		return false
	}
	for _, open := range thinkingOpens {
		if bytes.HasPrefix(s, open) {
			return true
		}
	}
	for _, mark := range thinkingMarks {
		if bytes.Contains(s, mark) {
			return true
		}
	}
	return false
}

var (
	thinkingOpens = [][]byte{[]byte("<think>"), []byte("[THINK]"), []byte("<|channel|>"), []byte("<|start|>")}
	thinkingMarks = [][]byte{[]byte("</think>"), []byte("[/THINK]"), []byte("<|channel|>")}
)
