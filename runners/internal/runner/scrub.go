package runner

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/fbeval/fbeval/contract"
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
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
	return replaceSpans(s, secretSpans(s, secrets), nil)
}

// secretSpans are the byte ranges of s that Redact removes, in order, merged
// where they overlap or touch.
func secretSpans(s string, secrets []string) [][2]int {
	var spans [][2]int
	for _, sec := range secrets {
		if len(sec) < 4 {
			continue
		}
		for i := 0; ; {
			k := strings.Index(s[i:], sec)
			if k < 0 {
				break
			}
			spans = append(spans, [2]int{i + k, i + k + len(sec)})
			i += k + len(sec)
		}
	}
	grams := make(map[string]struct{})
	for _, sec := range secrets {
		for i := 0; i+MinSecretRun <= len(sec); i++ {
			grams[sec[i:i+MinSecretRun]] = struct{}{}
		}
	}
	for i := 0; len(grams) > 0 && i+MinSecretRun <= len(s); i++ {
		if _, ok := grams[s[i:i+MinSecretRun]]; ok {
			spans = append(spans, [2]int{i, i + MinSecretRun})
		}
	}
	if len(spans) == 0 {
		return nil
	}
	slices.SortFunc(spans, func(a, b [2]int) int { return cmp.Compare(a[0], b[0]) })
	merged := spans[:1]
	for _, sp := range spans[1:] {
		last := &merged[len(merged)-1]
		if sp[0] <= last[1] {
			last[1] = max(last[1], sp[1])
		} else {
			merged = append(merged, sp)
		}
	}
	return merged
}

// replaceSpans writes s with each span replaced by "[redacted]"; with at, the
// spans are of another text whose byte k came from s[at[k][0]:at[k][1]].
func replaceSpans(s string, spans [][2]int, at [][2]int) string {
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		from, to := sp[0], sp[1]
		if at != nil {
			from, to = at[sp[0]][0], at[sp[1]-1][1]
		}
		if from < last { // two spans of the view from one escape
			from = last
		}
		b.WriteString(s[last:from])
		if to > from {
			b.WriteString("[redacted]")
		}
		last = max(last, to)
	}
	b.WriteString(s[last:])
	return b.String()
}

// RedactEscaped is Redact of text that may hold JSON text (an answer that is
// an envelope, a provider's message kept as JSON): a secret written with JSON
// escapes ("\u0073\u006b-..."), which a reader of that JSON reads as the
// secret, is found in the text the escapes stand for and removed with them.
func RedactEscaped(s string, secrets []string) string {
	if !strings.Contains(s, `\`) {
		return Redact(s, secrets)
	}
	// the text as read, its plain bytes as they are: one span a run of the
	// secret, however it is written, so no escape is cut in two
	view, at := unescapedView(s)
	return replaceSpans(s, secretSpans(view, secrets), at)
}

// unescapedView is s with its JSON string escapes (\uXXXX, a surrogate pair,
// \n, \" ...) read, and for each byte of it the range of s it came from.
func unescapedView(s string) (string, [][2]int) {
	var b []byte
	var at [][2]int
	emit := func(p []byte, from, to int) {
		b = append(b, p...)
		for range p {
			at = append(at, [2]int{from, to})
		}
	}
	for i := 0; i < len(s); {
		if s[i] != '\\' || i+1 >= len(s) {
			emit([]byte{s[i]}, i, i+1)
			i++
			continue
		}
		switch c := s[i+1]; c {
		case 'u':
			r, n := escapedRune(s[i:])
			if n == 0 {
				emit([]byte{s[i]}, i, i+1)
				i++
				continue
			}
			emit(utf8.AppendRune(nil, r), i, i+n)
			i += n
		case '"', '\\', '/':
			emit([]byte{c}, i, i+2)
			i += 2
		case 'b', 'f', 'n', 'r', 't':
			emit([]byte{controlOf(c)}, i, i+2)
			i += 2
		default:
			emit([]byte{s[i]}, i, i+1)
			i++
		}
	}
	return string(b), at
}

// controlOf is the character a one-letter JSON escape (\n) stands for.
func controlOf(c byte) byte {
	switch c {
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	}
	return '\t'
}

// escapedRune reads a \uXXXX escape (a pair of them for a surrogate pair) at
// the start of s: the rune and the bytes read, 0 when there is none.
func escapedRune(s string) (rune, int) {
	hex4 := func(t string) (rune, bool) {
		if len(t) < 6 || t[0] != '\\' || t[1] != 'u' {
			return 0, false
		}
		v, err := strconv.ParseUint(t[2:6], 16, 16)
		return rune(v), err == nil
	}
	r, ok := hex4(s)
	if !ok {
		return 0, 0
	}
	if utf16.IsSurrogate(r) {
		if lo, ok := hex4(s[6:]); ok {
			if p := utf16.DecodeRune(r, lo); p != utf8.RuneError {
				return p, 12
			}
		}
	}
	return r, 6
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

// DecodeBody decodes an API answer's body into (a pointer to the answer's
// type); what names that type ("a chat completion"). A body that cannot be
// decoded, or that is null (a batch result of status 200 and no body), is a
// bad_response that says so.
func DecodeBody(body []byte, into any, what string) error {
	if err := JSON.Unmarshal(body, into); err != nil {
		return BadResponse("the answer is not %s: %s", what, DecodeErrorText(body, "the body", into, err))
	}
	if string(bytes.TrimSpace(body)) == "null" {
		return BadResponse("the answer's body is null, not %s", what)
	}
	return nil
}

// DecodeErrorText says, on one line, why body (what of names: "the body", a
// member of it) could not be decoded into (a pointer to the value it was
// decoded into), in fbeval's words and at its place: the body decoded again by the reader of
// fbeval's files (as leniently as the provider's decoder: a name twice,
// invalid UTF-8 and a name's letter case let be), since the fast decoder's
// errors quote its internals ("Mismatch type int64 ... at index 404"). Where
// the two disagree, the fast decoder's error is given, on one line and cut
// to 160 bytes.
func DecodeErrorText(body []byte, of string, into any, err error) string {
	t := bytes.TrimSpace(body)
	if len(t) == 0 {
		return of + " is empty"
	}
	if t[0] == '<' {
		// a proxy's page, a sign-in page, a web server's at the base URL,
		// answered with 200: its start says whose
		return of + " is an HTML page, not JSON (a proxy's, a sign-in page, or a web page at --base-url): " + oneLine(strings.ToValidUTF8(string(t[:min(len(t), 4*MaxMessageBytes)]), "\uFFFD"))
	}
	if bytes.HasPrefix(t, []byte("event:")) || bytes.HasPrefix(t, []byte("data:")) {
		// server-sent events: the answer streamed, which the runner does
		// not ask for
		return of + " is an event stream (text/event-stream), not JSON: the server streams its answers though the request asks for none (a proxy's setting, or a server that streams by default)"
	}
	if into != nil {
		again := reflect.New(reflect.TypeOf(into).Elem()).Interface()
		if e := jsonv2.Unmarshal(body, again, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true), jsonv2.MatchCaseInsensitiveNames(true)); e != nil {
			var ie *contract.InputError
			if errors.As(contract.DecodeError(&contract.Record{Line: 1, Col: 1, Raw: body}, e), &ie) {
				return fmt.Sprintf("%s (line %d, column %d of %s)", ie.Msg, ie.Line, ie.Col, of)
			}
		}
	}
	return capText(strings.Join(strings.Fields(strings.ToValidUTF8(err.Error(), "\uFFFD")), " "), 160)
}
