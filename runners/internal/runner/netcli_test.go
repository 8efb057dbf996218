package runner

import (
	"math"
	"testing"
)

// TestCheckTemperature: a temperature outside what the API documents is
// refused: a whole number ten times too large with the value likely meant (a
// decimal point left out), one past Anthropic's 1 but within OpenAI's 2 with
// OpenAI's range (a study written for OpenAI's API), and none with a guess
// (1.5 is not a slip for 0.15).
func TestCheckTemperature(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, tt := range []struct {
		t    *float64
		max  float64
		want string
	}{
		{nil, 2, ""},
		{f(0), 2, ""},
		{f(2), 2, ""},
		{f(0.7), 1, ""},
		{f(7), 2, "--temperature 7: the API takes 0 to 2; did you mean 0.7"},
		{f(15), 2, "--temperature 15: the API takes 0 to 2; did you mean 1.5"},
		{f(1.5), 1, "--temperature 1.5: the API takes 0 to 1 (OpenAI's API takes 0 to 2)"},
		{f(2), 1, "--temperature 2: the API takes 0 to 1 (OpenAI's API takes 0 to 2)"},
		{f(7), 1, "--temperature 7: the API takes 0 to 1; did you mean 0.7"},
		{f(2.5), 2, "--temperature 2.5: the API takes 0 to 2"},
		{f(25), 2, "--temperature 25: the API takes 0 to 2"},
		{f(-0.5), 2, "--temperature -0.5: the API takes 0 to 2"},
		{f(math.NaN()), 2, "--temperature NaN: the API takes 0 to 2"},
		{f(7), 0, ""}, // no bound known
	} {
		if got := CheckTemperature(tt.t, tt.max); got != tt.want {
			t.Errorf("CheckTemperature(%v, %v) = %q, want %q", tt.t, tt.max, got, tt.want)
		}
	}
}

// TestCheckKeyEnv: --api-key-env takes a variable's name; the key itself
// (pasted, or "$NAME" left unquoted, which the shell expands) is refused
// without being repeated, and a name given with its $ is named without it.
func TestCheckKeyEnv(t *testing.T) {
	const notAName = "--api-key-env takes the name of the environment variable that holds the key (letters, digits and _, e.g. OPENAI_API_KEY), not the key: the value given is no such name (not shown here, in case it is the key)"
	for _, tt := range []struct{ name, want string }{
		{"OPENAI_API_KEY", ""},
		{"_K2", ""},
		{"sk-proj-abcdefg123456", notAName},
		{"sk-ant-api03-AbC", notAName},
		{"", notAName},
		{"2KEY", notAName},
		{"MY KEY", notAName},
		{"$OPENAI_API_KEY", "--api-key-env $OPENAI_API_KEY: give the variable's name without the $: --api-key-env OPENAI_API_KEY"},
		{"${OPENAI_API_KEY}", notAName},
	} {
		if got := CheckKeyEnv(tt.name); got != tt.want {
			t.Errorf("CheckKeyEnv(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}
