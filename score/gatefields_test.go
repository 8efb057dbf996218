package score

import "testing"

// A gate's bare word finds the metrics that have it as whole parts of their
// key, or one edit from them when the word is long enough to be a typo.
func TestHasWord(t *testing.T) {
	tests := []struct {
		key, word string
		want      bool
	}{
		{"first_pass_success_percent", "success", true},
		{"first_pass_success_percent", "first_pass", true},
		{"first_pass_success_percent", "pass_success", true},
		{"first_pass_success_percent", "first_pass_success_percent", true},
		{"first_pass_success_percent", "sucess", true}, // one edit
		{"first_pass_success_percent", "succes", true}, // one edit
		{"first_pass_success_percent", "suces", false}, // two edits
		{"first_pass_success_percent", "succ", false},  // not a whole part
		{"first_pass_success_percent", "pas", false},   // short words must match whole
		{"first_pass_success_percent", "first_success", false},
		{"cost_per_successful_task_usd", "success", false}, // successful is three edits away
		{"latency_p95_ms", "latency", true},
		{"latency_p95_ms", "latncy", true},
		{"runs", "run", false},
		{"", "x", false},
	}
	for _, tt := range tests {
		if got := HasWord(tt.key, tt.word); got != tt.want {
			t.Errorf("HasWord(%q, %q) = %v, want %v", tt.key, tt.word, got, tt.want)
		}
	}
}
