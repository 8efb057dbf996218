package contract

import "strconv"

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
