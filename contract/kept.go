package contract

import (
	"bytes"

	"github.com/go-json-experiment/json/jsontext"
)

// KeptHeadBytes is how much of a file Kept needs to see.
const KeptHeadBytes = 64 << 10

// Kept names, from its first bytes, a file that fbeval reads and none of its
// commands writes, so that no output of fbeval replaces it: response records
// of either family (what a runner wrote, which a provider was paid for), a
// provider's batch results, a study file, a CogLang fixture or an fbeval
// contract. It is "" for any other file, and for one whose first record does
// not show in head (its first KeptHeadBytes are enough).
func Kept(head []byte) string {
	names, strs := headMembers(head)
	if names == nil {
		return ""
	}
	has := func(n string) bool { return names[n] }
	switch v := strs["schema_version"]; {
	case v == ResponseV1 || v == ResponseBatchV1 || v == CogLangResponse || v == CogLangResponseBatch:
		return "a response file (" + v + ")"
	case v == StudyV1 || v == CogLangFixture || v == ContractV1:
		return FileKind(v) + " (" + v + ")"
	case v != "":
		return ""
	case has("custom_id") && has("response"):
		return "an OpenAI Batch output file (custom_id, response)"
	case has("custom_id") && has("result"):
		return "Anthropic Message Batches results (custom_id, result)"
	case (has("request_id") || has("case_id")) && (has("output") || has("text") || has("completion") || has("error")) && !has("messages") && !has("prompt"):
		return "response records (request_id or case_id, with output, text, completion or error)"
	case has("responses") || has("answers"):
		return "a batch of responses"
	}
	return ""
}

// VersionOf is the schema_version of the first object in data (the file's
// own object, the first element of its list or its first line), read as far
// as data goes: a pretty-printed report cut off after its first lines still
// names itself; "" when that object has none, or data starts as no object.
// With FileKind it says what a file given in the wrong place is (a response
// file given as a study, say).
func VersionOf(data []byte) string {
	_, strs := headMembers(data)
	return strs["schema_version"]
}

// headMembers reads the top-level members of the first object in head: the
// file's own object, the first element of its list or its first line. A value
// cut off by the end of head ends the reading; its name and what was read
// before it stand. Both are nil when head starts as no object.
func headMembers(head []byte) (names map[string]bool, strs map[string]string) {
	head = bytes.TrimPrefix(head, []byte("\ufeff"))
	d := jsontext.NewDecoder(bytes.NewReader(head), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	tok, err := d.ReadToken()
	if err == nil && tok.Kind() == '[' {
		tok, err = d.ReadToken()
	}
	if err != nil || tok.Kind() != '{' {
		return nil, nil
	}
	names, strs = map[string]bool{}, map[string]string{}
	for {
		name, err := d.ReadToken()
		if err != nil || name.Kind() != '"' {
			return names, strs
		}
		n := name.String()
		names[n] = true
		v, err := d.ReadValue()
		if err != nil {
			return names, strs
		}
		if s, ok := stringOf(v); ok {
			strs[n] = s
		}
	}
}
