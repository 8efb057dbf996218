package score

import (
	"strconv"

	"github.com/fbeval/fbeval/contract"
)

// CutWarning is the warning for n answers the model stopped at its token
// limit, which score as written.
func CutWarning(n int) string {
	return contract.Plural(n, "answer was", "answers were") + " cut short at the model's token limit (finish_reason length, max_tokens, max_output_tokens, model_context_window_exceeded or model_length) and " +
		contract.Pick(n, "scores", "score") + " as written: raise the runner's --max-tokens if that was not meant (where the model's context window filled, model_context_window_exceeded or model_length, shorten the prompts or ask a model with a larger one)"
}

// FilteredWarning is the warning for n answers a safety filter stopped or
// withheld, or the model refused on safety grounds, which score as written;
// first names the first of them.
func FilteredWarning(n int, first string) string {
	return contract.Plural(n, "answer was", "answers were") + " stopped or withheld by a safety filter, or refused on safety grounds (finish_reason content_filter or refusal; Gemini's SAFETY, RECITATION, BLOCKLIST, PROHIBITED_CONTENT or SPII), and " +
		contract.Pick(n, "scores", "score") + " as written; the first is " + first + ": the figures count the provider's filter with the model, so check its settings (Azure OpenAI: the deployment's content filter) before reading them as the model's"
}

// BlankWarning is the warning for n answers of the answered that are empty
// (or only white space), where some are not: each scores as a failure, and
// many of them are more often a runner's trouble than a model's answer.
// first names the first of them.
func BlankWarning(n, answered int, first string) string {
	return contract.Plural(n, "answer", "answers") + " of " + strconv.Itoa(answered) + " " + contract.Pick(n, "is", "are") + " empty (no text, or an empty text encoded: \"\" or null) and " +
		contract.Pick(n, "scores as a failure", "score as failures") + "; the first is " + first +
		": a runner that took no text from some of the model's answers, or a reasoning model that spent its tokens before it answered (its finish_reason says so when the runner records it), measures the runner: check it before reading the figures as the model's"
}

// InQuotes says what an answer that is one JSON string is, and how a runner
// makes one.
const InQuotes = "the model's text encoded once more, as a runner that encodes the text it writes as the output makes it: json.dumps of the model's text"

// EncodedTwice says what an answer that is a JSON string holding JSON is:
// the answer encoded twice, and how a runner makes one. Score's warnings and
// check's note say it in these words.
const EncodedTwice = "the answer encoded twice, as a runner that encodes the text it writes as the output makes it: json.dumps of a text that was JSON already"
