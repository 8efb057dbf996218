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
		{"", false},
		{" \n", false},
	} {
		if got := HoldsThinking([]byte(tt.output)); got != tt.want {
			t.Errorf("HoldsThinking(%q) = %v, want %v", tt.output, got, tt.want)
		}
	}
}
