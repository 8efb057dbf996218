package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
)

// Anthropic custom ids must match this pattern.
var anthropicID = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// anthropicCustomID maps a request id to an Anthropic custom id, deterministically:
// letters, digits and "-" are kept, any other byte becomes "_" and two hex digits
// ("flights-000.a1" -> "flights-000_2ea1"), so most ids map back without the request
// file. An id whose escaped form is longer than 64 becomes "_h" and 62 hex digits of
// its SHA-256; "_h" is never an escape, so the two forms cannot collide, and such ids
// map back only through --requests.
func anthropicCustomID(id string) string {
	var b strings.Builder
	for i := 0; i < len(id); i++ {
		c := id[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "_%02x", c)
		}
	}
	if b.Len() > 0 && b.Len() <= 64 {
		return b.String()
	}
	sum := sha256.Sum256([]byte(id))
	return "_h" + hex.EncodeToString(sum[:])[:62]
}

// decodeAnthropicID reverses the escaped form; ok is false for a hashed id or text
// that is not an escaped id.
func decodeAnthropicID(cid string) (string, bool) {
	if strings.HasPrefix(cid, "_h") {
		return "", false
	}
	var b strings.Builder
	for i := 0; i < len(cid); i++ {
		c := cid[i]
		if c != '_' {
			b.WriteByte(c)
			continue
		}
		if i+2 >= len(cid) {
			return "", false
		}
		v, err := hex.DecodeString(cid[i+1 : i+3])
		if err != nil {
			return "", false
		}
		b.WriteByte(v[0])
		i += 2
	}
	return b.String(), true
}

// A batch line's custom id carries a tag of its request's recipe (the first
// recipeTag hex digits of the recipe's hash) after the request id: results
// joined to the requests of another export, whose ids are alike and whose
// prompts are not (another dataset, schema, prompt template, decoding, seed, max_tokens or temperature),
// then answer none of them and are refused, where they were written as answers
// to prompts they never saw. A request without a recipe gets the id alone, as
// batches made before the tag have it, which from-* still joins.
const (
	recipeTag = 8
	// openAITag and anthropicTag come before the tag: OpenAI's custom ids are
	// the request id as it is, Anthropic's escaped, where "_r" is no escape
	openAITag    = "#r"
	anthropicTag = "_r"
	// anthropicTagged is the longest escaped id a tagged Anthropic custom id
	// holds; a longer one is hashed to that length
	anthropicTagged = 64 - len(anthropicTag) - recipeTag
)

// tagOf is the tag of a recipe ("sha256:0f28a999da7113fd" -> "0f28a999", a
// CogLang request's "crc32c:682c51ad" -> "682c51ad"), or "" for a request with
// none or one not of that form.
func tagOf(recipe string) string {
	h, ok := strings.CutPrefix(recipe, "sha256:")
	if !ok {
		// a CogLang request's: the CRC-32C of its text
		h, ok = strings.CutPrefix(recipe, "crc32c:")
	}
	if !ok || len(h) < recipeTag {
		return ""
	}
	for i := range recipeTag {
		if c := h[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return ""
		}
	}
	return h[:recipeTag]
}

// batchCustomID is the custom id of a request's batch line: with anth, the
// Anthropic form; tagged with its recipe when it has one.
func batchCustomID(anth bool, id, recipe string) string {
	tag := tagOf(recipe)
	switch {
	case tag == "" && anth:
		return anthropicCustomID(id)
	case tag == "":
		return id
	case !anth:
		return id + openAITag + tag
	}
	esc := anthropicCustomID(id)
	if len(esc) > anthropicTagged || strings.HasPrefix(esc, "_h") {
		sum := sha256.Sum256([]byte(id))
		esc = "_h" + hex.EncodeToString(sum[:])[:anthropicTagged-2]
	}
	return esc + anthropicTag + tag
}

// untagged is a custom id without its recipe tag, and the tag ("" when it has
// none).
func untagged(anth bool, cid string) (string, string) {
	sep := openAITag
	if anth {
		sep = anthropicTag
	}
	n := len(cid) - recipeTag - len(sep)
	if n < 1 || cid[n:n+len(sep)] != sep {
		return cid, ""
	}
	tag := cid[n+len(sep):]
	if tagOf("sha256:"+tag) != tag {
		return cid, ""
	}
	return cid[:n], tag
}

// requestOf is the request id a custom id names without the request file, and
// false when it cannot be known from the custom id (a hashed Anthropic id).
func requestOf(anth bool, cid string) (string, bool) {
	id, _ := untagged(anth, cid)
	if !anth {
		return id, true
	}
	return decodeAnthropicID(id)
}
