package contract

import "testing"

// TestFinishReason: the providers' words for an answer cut at the token limit
// and for one a safety system stopped, in any case; nothing else.
func TestFinishReason(t *testing.T) {
	for _, tt := range []struct {
		reason string
		want   int
	}{
		{"", 0},
		{"stop", 0},
		{"end_turn", 0},
		{"tool_calls", 0},
		{"lengthy", 0},
		{"content", 0},
		{"length", FinishCut},            // a chat completion
		{"max_output_tokens", FinishCut}, // the Responses API
		{"max_tokens", FinishCut},        // Anthropic
		{"model_context_window_exceeded", FinishCut}, // Anthropic
		{"MAX_TOKENS", FinishCut},                    // Gemini
		{"model_length", FinishCut},                  // Mistral
		{"content_filter", FinishFiltered},           // OpenAI, Azure OpenAI
		{"refusal", FinishFiltered},                  // Anthropic
		{"SAFETY", FinishFiltered},                   // Gemini
		{"RECITATION", FinishFiltered},
		{"BLOCKLIST", FinishFiltered},
		{"PROHIBITED_CONTENT", FinishFiltered},
		{"SPII", FinishFiltered},
	} {
		if got := FinishReason([]byte(tt.reason)); got != tt.want {
			t.Errorf("FinishReason(%q) = %d, want %d", tt.reason, got, tt.want)
		}
	}
}

// BenchmarkFinishReason: the reason nearly every record of a real response file
// carries, asked of each one.
func BenchmarkFinishReason(b *testing.B) {
	for _, r := range []string{"stop", "end_turn", "length"} {
		b.Run(r, func(b *testing.B) {
			reason := []byte(r)
			for b.Loop() {
				FinishReason(reason)
			}
		})
	}
}
