package score

import "github.com/fbeval/fbeval/contract"

// ThinkingWarning is the warning for n answers that hold the model's thinking
// (contract.HoldsThinking), which score as what: the server is the place to take it apart.
func ThinkingWarning(n int, what string) string {
	return contract.Plural(n, "answer holds", "answers hold") + " the model's thinking (<think>...</think>, [THINK] or <|channel|> markup) before " + contract.Pick(n, "its", "their") + " answer and " +
		contract.Pick(n, "scores", "score") + " as " + what + ": the server returned the model's reasoning as part of the answer; have it return the reasoning apart (vLLM: --reasoning-parser) if that was not meant"
}
