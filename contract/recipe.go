package contract

import (
	"hash/crc32"
	"strconv"
	"unsafe"
)

// A CogLang request record is the reference's, byte for byte, and has no member
// for a recipe (a toolcall request's "recipe"): its recipe is a sum of its text,
// "crc32c:" and the eight hex digits of the CRC-32C of its instructions, a line
// feed and its prompt. fbeval's runners write it as run.recipe, and scoring checks
// each record's against its case's prompt in the fixture, so that an answer to
// another version of a case is not scored as an answer to this one.
const cogLangRecipePrefix = "crc32c:"

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// CogLangRecipeSum is the sum a CogLang request's recipe names.
func CogLangRecipeSum(instructions, prompt string) uint32 {
	return CogLangPromptSum(CogLangInstructionsSum(instructions), prompt)
}

// CogLangInstructionsSum is the sum of the instructions and the line feed after
// them, from which CogLangPromptSum goes on with each case's prompt.
func CogLangInstructionsSum(instructions string) uint32 {
	return crc32.Update(crc32.Update(0, castagnoli, bytesOf(instructions)), castagnoli, []byte{'\n'})
}

// CogLangPromptSum goes on from the instructions' sum with a prompt.
func CogLangPromptSum(instructions uint32, prompt string) uint32 {
	return crc32.Update(instructions, castagnoli, bytesOf(prompt))
}

// bytesOf returns the bytes of s without a copy, for a reader that does not
// keep or change them (crc32.Update): every request and case is summed.
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// CogLangRecipe writes a CogLang request's recipe from its sum.
func CogLangRecipe(sum uint32) string {
	b := make([]byte, 0, len(cogLangRecipePrefix)+8)
	b = append(b, cogLangRecipePrefix...)
	h := strconv.AppendUint(nil, uint64(sum), 16)
	for range 8 - len(h) {
		b = append(b, '0')
	}
	return string(append(b, h...))
}

// ParseCogLangRecipe reads the sum of a CogLang recipe as CogLangRecipe writes
// it; false for anything else.
func ParseCogLangRecipe(s []byte) (uint32, bool) {
	if len(s) != len(cogLangRecipePrefix)+8 || string(s[:len(cogLangRecipePrefix)]) != cogLangRecipePrefix {
		return 0, false
	}
	var sum uint32
	for _, c := range s[len(cogLangRecipePrefix):] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		default:
			return 0, false
		}
		sum = sum<<4 | uint32(c)
	}
	return sum, true
}

// ToolcallRequestID splits a toolcall request id, CASE.ARM.rREPEAT.aATTEMPT
// ("hotels-004.input_schema.r1.a2"; export.RequestID), into its parts (ARM
// of a-z and _, REPEAT and ATTEMPT of digits); ok is false for an id of
// another form (a CogLang request's is its case's). It reads the id from its
// end, with no copy: a runner resuming a file asks it of every record.
func ToolcallRequestID(id string) (caseID, arm, repeat, attempt string, ok bool) {
	// digits ending at end, preceded by the byte want: their start
	digits := func(end int, want byte) (int, bool) {
		i := end
		for i > 0 && id[i-1] >= '0' && id[i-1] <= '9' {
			i--
		}
		return i, i < end && i >= 2 && id[i-1] == want && id[i-2] == '.'
	}
	a, ok := digits(len(id), 'a')
	if !ok {
		return "", "", "", "", false
	}
	r, ok := digits(a-2, 'r')
	if !ok {
		return "", "", "", "", false
	}
	end := r - 2 // the arm's end, at its dot
	i := end
	for i > 0 && (id[i-1] >= 'a' && id[i-1] <= 'z' || id[i-1] == '_') {
		i--
	}
	if i == end || i < 2 || id[i-1] != '.' {
		return "", "", "", "", false
	}
	return id[:i-1], id[i:end], id[r : a-2], id[a:], true
}
