package runner

import (
	"os"
	"strings"
	"testing"
)

// TestSeeTo: what a run that stops or ends on errors says to check follows the
// last error: a key that is not valid is named so though Gemini's
// OpenAI-compatible API answers it with HTTP 400 (it was told of --max-tokens
// and --temperature); a timeout names the flag that sets it.
func TestSeeTo(t *testing.T) {
	gemini, err := os.ReadFile("../openai/testdata/error_400_gemini_api_key_invalid.json")
	if err != nil {
		t.Fatal(err)
	}
	keyErr := StatusError(400, gemini)
	for _, tt := range []struct{ code, message, want string }{
		{keyErr.Code, keyErr.Message, "check the API key (--api-key-env names its variable)"},
		{"http_400", "HTTP 400 Bad Request (INVALID_ARGUMENT): API Key not found. Please pass a valid API key.", "check the API key"},
		{"http_401", "HTTP 401 Unauthorized", "check the API key"},
		{"http_400", "HTTP 400 Bad Request (invalid_request_error): max_tokens is too large", "the provider refuses the requests as sent"},
		{"timeout", "no answer within --timeout 1s", "needs a longer --timeout"},
		{"network", "connection refused", "check --base-url and that the server is up"},
	} {
		if got := seeTo(tt.code, tt.message); !strings.Contains(got, tt.want) {
			t.Errorf("%s %q: %q, want %q in it", tt.code, tt.message, got, tt.want)
		}
	}
}
