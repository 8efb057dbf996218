package contract

// KeptHeadBytes is how much of a file Kept needs to see.
const KeptHeadBytes = 64 << 10

// Kept names, from its first bytes, a file that fbeval reads and none of its
// commands writes, so that no output of fbeval replaces it: response records
// of either family (what a runner wrote, which a provider was paid for), a
// provider's batch results, a study file, a CogLang fixture, an fbeval
// contract, a toolcall dataset, and what Foreign names (a JSON Schema,
// HESchema's files, a provider's replies) but the batch files fbeval-batch
// writes. It is "" for any other file, and for one whose first record does
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
	case has("custom_id") && (has("body") || has("params")):
		return "" // a batch file fbeval-batch to-* writes again
	}
	// a JSON Schema, HESchema's files, a provider's replies: made by hand or
	// paid for
	what, _ := ForeignOf(names, strs)
	return what
}
