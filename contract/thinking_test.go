package contract

import "testing"

func TestHoldsThinking(t *testing.T) {
	for _, tt := range []struct {
		output string
		want   bool
	}{
		{"<think>\nplan\n</think>\n{}", true},
		{"  \n<think>plan</think>Equal[2, 2]", true},
		{"Two equals two.\n</think>\n\nEqual[2, 2]", true}, // the chat template opened the block
		{"<think>\nstill thinking when the tokens ran out", true},
		{`{"reason":"</think> is text here"}`, false}, // an answer that begins as JSON
		{"Equal[2, 2]", false},
		{"Sure: <thinking>", false},
		// Magistral's [THINK] (vllm-mlx#599, llama.cpp#16158)
		{"[THINK]The user wants flights.[/THINK]{\"action\":\"call_tool\"}", true},
		{"The user wants flights.[/THINK]\n{}", true},
		{"[1, 2]", false},
		// gpt-oss's channels, as servers without its parser return them
		// (johnbean393/Sidekick#75, vllm-project/vllm#23694)
		{"<|channel|>analysis<|message|>User says \"hi\". We should reply politely.<|end|><|start|>assistant<|channel|>final<|message|>Hello! How can I help you today?", true},
		{"<|channel|>final<|message|>{\"issues\":[]}<|return|>", true},
		{"<|start|>assistant<|channel|>final<|message|>{}", true},
		{`{"reason":"<|channel|> is text here"}`, false},
		{"Equal[Add[1, 2], 3]", false},
		{"", false},
		{" \n", false},
	} {
		if got := HoldsThinking([]byte(tt.output)); got != tt.want {
			t.Errorf("HoldsThinking(%q) = %v, want %v", tt.output, got, tt.want)
		}
	}
}
