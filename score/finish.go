package score

import (
	"bytes"
	"slices"

	"github.com/fbeval/fbeval/contract"
)

// Why an answer ended, read from the finish_reason the runners copy from the
// provider (FinishReason).
const (
	// FinishCut: the model stopped at its token limit: "length" from a chat
	// completion, "max_output_tokens" from the Responses API's
	// incomplete_details, "max_tokens" and "model_context_window_exceeded"
	// from Anthropic's stop_reason, Gemini's MAX_TOKENS.
	FinishCut = 1 << iota
	// FinishFiltered: a safety system stopped or withheld the answer, or the
	// model refused on safety grounds: "content_filter" from a chat completion
	// (OpenAI, Azure OpenAI) or the Responses API's incomplete_details,
	// "refusal" from Anthropic's stop_reason (and fbeval-openai's word for a
	// structured-output refusal), and Gemini's finishReason values for the same.
	FinishFiltered
)

var (
	cutReasons    = [][]byte{[]byte("length"), []byte("max_tokens"), []byte("max_output_tokens"), []byte("model_context_window_exceeded")}
	filterReasons = [][]byte{[]byte("content_filter"), []byte("refusal"), []byte("safety"), []byte("recitation"), []byte("blocklist"), []byte("prohibited_content"), []byte("spii")}
)

// FinishReason says why an answer ended (FinishCut, FinishFiltered or 0),
// from its finish_reason as text, in any case.
func FinishReason(reason []byte) int {
	if len(reason) == 0 {
		return 0
	}
	is := func(r []byte) bool { return bytes.EqualFold(reason, r) }
	switch {
	case slices.ContainsFunc(cutReasons, is):
		return FinishCut
	case slices.ContainsFunc(filterReasons, is):
		return FinishFiltered
	}
	return 0
}

// CutWarning is the warning for n answers the model stopped at its token
// limit, which score as written.
func CutWarning(n int) string {
	return contract.Plural(n, "answer was", "answers were") + " cut short at the model's token limit (finish_reason length, max_tokens, max_output_tokens or model_context_window_exceeded) and " +
		contract.Pick(n, "scores", "score") + " as written: raise the runner's --max-tokens if that was not meant"
}

// FilteredWarning is the warning for n answers a safety filter stopped or
// withheld, or the model refused on safety grounds, which score as written;
// first names the first of them.
func FilteredWarning(n int, first string) string {
	return contract.Plural(n, "answer was", "answers were") + " stopped or withheld by a safety filter, or refused on safety grounds (finish_reason content_filter or refusal; Gemini's SAFETY, RECITATION, BLOCKLIST, PROHIBITED_CONTENT or SPII), and " +
		contract.Pick(n, "scores", "score") + " as written; the first is " + first + ": the figures count the provider's filter with the model, so check its settings (Azure OpenAI: the deployment's content filter) before reading them as the model's"
}
