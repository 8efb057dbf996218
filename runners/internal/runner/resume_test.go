package runner

import "testing"

// TestResumeMismatch: what a record's run says that refuses the file, in the
// words of the refusal; a run that does not say a provider, model or settings
// is not refused for it, but one of a converter (fbeval-batch names no model run:
// each result names its own) is said to be that, not model "".
func TestResumeMismatch(t *testing.T) {
	live := Resume{Run: RunInfo{Runner: "fbeval-openai", Provider: "openai-compatible", Model: "m", Settings: "api=chat max_tokens=request temperature=request"}}
	batch := Resume{Run: RunInfo{Runner: "fbeval-batch", Provider: "anthropic"}}
	for _, tt := range []struct {
		r    Resume
		run  *RunInfo
		want string
	}{
		{live, nil, ""},
		{live, &RunInfo{Runner: "fbeval-openai", Provider: "openai-compatible", Model: "m"}, ""},
		{live, &RunInfo{Runner: "fbeval-openai", Provider: "openai-compatible", Model: "m2"}, `model "m2"; this run's is "m"`},
		{live, &RunInfo{Runner: "fbeval-batch", Provider: "openai-compatible"}, `fbeval-batch, whose records' run names no model; this run's is "m"`},
		{live, &RunInfo{Provider: "openai-compatible"}, `model ""; this run's is "m"`},
		{batch, &RunInfo{Runner: "fbeval-batch", Provider: "openai-compatible"}, `provider "openai-compatible"; this run's is "anthropic"`},
		// another API, temperature or token limit: answers not alike
		{live, &RunInfo{Runner: "fbeval-openai", Provider: "openai-compatible", Model: "m", Settings: "api=chat max_tokens=request temperature=1"}, `settings "api=chat max_tokens=request temperature=1"; this run's are "api=chat max_tokens=request temperature=request"`},
		{live, &RunInfo{Runner: "fbeval-openai", Provider: "openai-compatible", Model: "m", Settings: "api=chat max_tokens=request temperature=request"}, ""},
		{live, &RunInfo{Runner: "fbeval-openai", Provider: "openai-compatible", Model: "m"}, ""}, // written before runs said their settings
		{batch, &RunInfo{Runner: "fbeval-batch"}, ""}, // written before from-* named its provider
		{batch, &RunInfo{Runner: "fbeval-mock", Provider: "fbeval-mock", Model: "mock-garble"}, `provider "fbeval-mock"; this run's is "anthropic"`},
	} {
		if got := tt.r.mismatch(tt.run); got != tt.want {
			t.Errorf("%+v against %+v: %q, want %q", tt.run, tt.r.Run, got, tt.want)
		}
	}
}
