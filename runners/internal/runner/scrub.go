package runner

import (
	"strings"
	"unicode/utf8"
)

// MinSecretRun is the shortest run of a secret's bytes that Redact removes: any 8
// bytes in a row of a key or header value are a trace of it, so a key split over
// two messages cannot be put together again.
const MinSecretRun = 8

// MaxMessageBytes caps a provider's text in an error record or on stderr.
const MaxMessageBytes = 400

// Redact replaces in s every secret (whole, when at least 4 bytes long) and every
// run of at least MinSecretRun bytes found in a secret with "[redacted]". Overlapping
// runs from different places of a secret are replaced together: a little too much
// is removed rather than too little.
func Redact(s string, secrets []string) string {
	for _, sec := range secrets {
		if len(sec) >= 4 {
			s = strings.ReplaceAll(s, sec, "[redacted]")
		}
	}
	grams := make(map[string]struct{})
	for _, sec := range secrets {
		for i := 0; i+MinSecretRun <= len(sec); i++ {
			grams[sec[i:i+MinSecretRun]] = struct{}{}
		}
	}
	if len(grams) == 0 || len(s) < MinSecretRun {
		return s
	}
	var b strings.Builder
	covered := -1 // s[start:covered] is being removed
	start := 0
	last := 0 // s[last:] not yet copied
	for i := 0; i+MinSecretRun <= len(s); i++ {
		if _, ok := grams[s[i:i+MinSecretRun]]; !ok {
			continue
		}
		if i > covered {
			if covered >= 0 {
				b.WriteString(s[last:start])
				b.WriteString("[redacted]")
				last = covered
			}
			start = i
		}
		covered = i + MinSecretRun
	}
	if covered < 0 {
		return s
	}
	b.WriteString(s[last:start])
	b.WriteString("[redacted]")
	b.WriteString(s[covered:])
	return b.String()
}

// ProviderText makes text that came from a provider (an error message, part of a
// body that is not the API's JSON) fit for a record or stderr: valid UTF-8, one
// line, scrubbed of secrets, and at most MaxMessageBytes long.
func ProviderText(s string, secrets []string) string {
	// Cut first, with room, so that scrubbing a 32 MB body stays cheap; a secret cut
	// at the edge is still found by its runs.
	if len(s) > 4*MaxMessageBytes {
		s = s[:4*MaxMessageBytes]
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Join(strings.Fields(s), " ")
	return capText(Redact(s, secrets), MaxMessageBytes)
}

// capText cuts s to at most n bytes on a character boundary, marking the cut.
func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("...")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return capText(s, 300)
}

// DecodeErrorText is a decoder's error for a message: on one line (the JSON
// decoder's errors show the text around the fault over several), cut on a
// character boundary to 160 bytes.
func DecodeErrorText(err error) string {
	return capText(strings.Join(strings.Fields(strings.ToValidUTF8(err.Error(), "\uFFFD")), " "), 160)
}
