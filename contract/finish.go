package contract

import "bytes"

// Why an answer ended, read from the finish_reason the runners copy from the
// provider (FinishReason).
const (
	// FinishCut: the model stopped at its token limit: "length" from a chat
	// completion, "max_output_tokens" from the Responses API's
	// incomplete_details, "max_tokens" and "model_context_window_exceeded"
	// from Anthropic's stop_reason, Gemini's MAX_TOKENS, Mistral's
	// "model_length" (the model's context filled).
	FinishCut = 1 << iota
	// FinishFiltered: a safety system stopped or withheld the answer, or the
	// model refused on safety grounds: "content_filter" from a chat completion
	// (OpenAI, Azure OpenAI) or the Responses API's incomplete_details,
	// "refusal" from Anthropic's stop_reason (and fbeval-openai's word for a
	// structured-output refusal), and Gemini's finishReason values for the same.
	FinishFiltered
)

var (
	cutReasons    = []string{"length", "max_tokens", "max_output_tokens", "model_context_window_exceeded", "model_length"}
	filterReasons = []string{"content_filter", "refusal", "safety", "recitation", "blocklist", "prohibited_content", "spii"}
	// finishByLen holds the reasons by their length: a record's reason ("stop",
	// "end_turn", ...) is compared with the few of its length, not with all.
	finishByLen = func() (by [32][]finishWord) {
		for _, r := range cutReasons {
			by[len(r)] = append(by[len(r)], finishWord{[]byte(r), FinishCut})
		}
		for _, r := range filterReasons {
			by[len(r)] = append(by[len(r)], finishWord{[]byte(r), FinishFiltered})
		}
		return by
	}()
)

type finishWord struct {
	word []byte
	kind int
}

// FinishReason says why an answer ended (FinishCut, FinishFiltered or 0),
// from its finish_reason as text, in any ASCII case. Every response record
// that carries a finish reason asks it.
func FinishReason(reason []byte) int {
	if len(reason) >= len(finishByLen) {
		return 0
	}
	for _, w := range finishByLen[len(reason)] {
		if bytes.EqualFold(reason, w.word) {
			return w.kind
		}
	}
	return 0
}
