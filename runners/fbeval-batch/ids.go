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
