package contract

import (
	"fmt"
	"strconv"
	"strings"
)

// Plural writes a count with the noun that fits it: "1 record", "2 records".
// Every message that counts something words it so.
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// Pick chooses the word that agrees with a count given elsewhere in the
// message: "it" or "them", "scores" or "score".
func Pick(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// FileList names files for a line a person reads: each of them up to three,
// else the first two and how many more (a thousand shards are not a line of
// 40 KB).
func FileList(names []string) string {
	if len(names) <= 3 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s, %s and %d more files", names[0], names[1], len(names)-2)
}

// JoinWords writes words as a list in a sentence: "a", "a and b", "a, b and c".
func JoinWords(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}
