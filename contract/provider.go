package contract

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// ProviderRecord says what a record that is a provider's own shape is and how
// to turn it into response records, or "" when it is none of them: a line of an
// OpenAI Batch (or vLLM run-batch) output or input file, of Anthropic Message
// Batches results or requests, or a single reply of the OpenAI Chat
// Completions or Responses API or the Anthropic Messages API, as their SDKs
// define them; or, named with the way in there is, a reply or batch line of
// the Gemini API, Ollama's own API or Amazon Bedrock's batch inference, or a
// line of HESchema's run log, its report, config or benchmark manifest, or
// a JSON Schema (a candidate schema given where records go). A
// record with request_id or case_id is none of them. Scoring such a file is a
// step skipped, not a bad record: the message names the step.
func ProviderRecord(raw []byte) string {
	return ProviderRecordOf(TopLevel(raw))
}

// ProviderRecordOf is ProviderRecord of a record TopLevel took apart.
func ProviderRecordOf(keys map[string]bool, strs map[string]string) string {
	what, way := ForeignOf(keys, strs)
	if what == "" {
		return ""
	}
	return what + ", not a record of fbeval's: " + way
}

// Foreign says what ProviderRecord says of raw in two parts: what it is
// ("a JSON Schema") and the way into fbeval from it; "" when it is none. A
// loader of a file of another kind than records (a study, a fixture, a
// report) names it with its own words between them.
func Foreign(raw []byte) (what, way string) {
	return ForeignOf(TopLevel(raw))
}

// ForeignOf is Foreign of an object TopLevel took apart.
func ForeignOf(keys map[string]bool, strs map[string]string) (what, way string) {
	if keys == nil {
		return "", ""
	}
	has := func(k string) bool { return keys[k] }
	switch {
	case has("custom_id") && has("response"):
		return "an OpenAI Batch output line (custom_id, response)", "convert the file with fbeval-batch from-openai FILE --requests REQUESTS and score what it writes"
	case has("custom_id") && has("result"):
		return "an Anthropic Message Batches result line (custom_id, result)", "convert the file with fbeval-batch from-anthropic FILE --requests REQUESTS and score what it writes"
	case has("custom_id") && has("body") && has("url"):
		return "an OpenAI Batch input line (custom_id, method, url, body)", "send the file to the batch API, then convert its output with fbeval-batch from-openai"
	case has("custom_id") && has("params"):
		return "an Anthropic Message Batches request (custom_id, params)", "send the file to the batch API, then convert its results with fbeval-batch from-anthropic"
	case strs["object"] == "chat.completion" || has("choices") && has("model") && !has("request_id") && !has("case_id"):
		return "an OpenAI chat completion (the API's reply)", "let fbeval-openai call the API and write the records, or write one {\"request_id\", \"output\"} line per request (docs/contract.md)"
	case strs["object"] == "response" && !has("request_id") && !has("case_id"):
		return "an OpenAI Responses API reply", "let fbeval-openai --api responses call the API and write the records, or write one {\"request_id\", \"output\"} line per request (docs/contract.md)"
	case strs["type"] == "message" && strs["role"] == "assistant" && has("content"):
		return "an Anthropic Messages API reply", "let fbeval-anthropic call the API and write the records, or write one {\"request_id\", \"output\"} line per request (docs/contract.md)"
	case strs["object"] == "batch" && has("input_file_id"):
		return "an OpenAI Batch object (the batch's status, as GET /v1/batches/ID returns it)", "download the file its output_file_id names (and error_file_id's), convert them with fbeval-batch from-openai FILE --requests REQUESTS and score what it writes"
	case strs["type"] == "message_batch" && has("processing_status"):
		return "an Anthropic Message Batch object (the batch's status)", "download the file its results_url names, convert it with fbeval-batch from-anthropic FILE --requests REQUESTS and score what it writes"
	}
	if has("request_id") || has("case_id") {
		return "", "" // a record of fbeval's contract, whatever else it holds
	}
	// providers fbeval has no runner or converter for: what they are, and the
	// way in that there is
	switch {
	case has("key") && (has("response") || has("error")):
		return "a Gemini Batch API output line (key, response)", "fbeval-batch reads OpenAI's and Anthropic's batch files (Gemini's Batch API takes OpenAI's format too); or write one {\"request_id\", \"output\"} line per request (docs/contract.md)"
	case has("key") && has("request"):
		return "a Gemini Batch API input line (key, request)", "fbeval-batch writes OpenAI's and Anthropic's batch files (Gemini's Batch API takes OpenAI's format too), and reads the results back"
	case has("candidates"):
		return "a Gemini API reply (candidates)", "let fbeval-openai call Gemini's OpenAI-compatible API (--base-url " + geminiOpenAI + ") and write the records, or write one {\"request_id\", \"output\"} line per request (docs/contract.md)"
	case has("model") && has("created_at") && has("done") && (has("message") || has("response")):
		return "an Ollama API reply (/api/chat or /api/generate)", "let fbeval-openai call Ollama's OpenAI-compatible API (--base-url http://localhost:11434/v1) and write the records, or write one {\"request_id\", \"output\"} line per request (docs/contract.md)"
	case has("caseId") && has("arm") && has("attempts"):
		return "a line of HESchema's run log (caseId, arm, repeat, attempts)", "convert the file with fbeval-batch from-heschema FILE (or its folder) and score what it writes"
	case has("completedRuns") && has("arms") && has("effects"):
		return "HESchema's report (config, arms, effects)", "convert the run log beside it with fbeval-batch from-heschema DIR and score what it writes"
	case datasetCase(keys):
		return "a toolcall dataset case (id, domain, prompt, expected: HESchema's case format)", "a dataset goes to --dataset FILE (of fbeval export, score, study show and fixtures audit)"
	case has("datasetHash") && has("schemaHashes"):
		return "HESchema's config.json (a run's configuration)", "convert the run log beside it with fbeval-batch from-heschema DIR and score what it writes"
	case has("cases") && has("sha256") && has("domains") && has("categories"):
		return "HESchema's benchmark manifest (cases, sha256, domains, categories)", "its cases are in cases.jsonl beside it, which --dataset reads"
	case has("$schema") || has("properties") && (has("type") || has("required")):
		return AJSONSchema, "a candidate schema goes to --schema FILE (of fbeval export, score and check) or --minimal-schema FILE"
	case has("recordId") && has("modelInput"):
		return "an Amazon Bedrock batch inference line (recordId, modelInput)", "fbeval-batch reads OpenAI's and Anthropic's batch files, not Bedrock's; write one {\"request_id\", \"output\"} line per request (docs/contract.md) from each line's modelOutput"
	}
	return "", ""
}

// DatasetCase reports whether raw is an object with the members of a toolcall
// dataset case (HESchema's case format), which Foreign names as one: the
// dataset's loader, to which a case that fails its checks is no other file.
func DatasetCase(raw []byte) bool {
	keys, _ := TopLevel(raw)
	return datasetCase(keys)
}

func datasetCase(keys map[string]bool) bool {
	return keys["id"] && keys["domain"] && keys["prompt"] && keys["expected"]
}

// AJSONSchema is what Foreign calls a JSON Schema document, for a caller that
// treats one apart (fbeval check, given a schema as the output to check).
const AJSONSchema = "a JSON Schema"

// geminiOpenAI is the base URL of Gemini's OpenAI-compatible API.
const geminiOpenAI = "https://generativelanguage.googleapis.com/v1beta/openai"

// TopLevel returns the member names of the JSON object raw, with the values of
// those that are strings (the last, when a name repeats); nil when raw is no
// object. It is for telling what a record is (ProviderRecord, the scorers'
// first-record check), not for reading one.
//
// One walk of one decoder: a scorer asks it of every file's first record, so
// ten thousand shards ask it ten thousand times. A string longer than
// maxTopLevelString (an answer's text) is named, its value not kept: what is
// read from strs is versions, ids and kinds.
func TopLevel(raw []byte) (keys map[string]bool, strs map[string]string) {
	if jsontext.Value(raw).Kind() != '{' {
		return nil, nil
	}
	d := jsontext.NewDecoder(bytes.NewBuffer(raw), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)) // a Buffer is read in place, not copied
	if _, err := d.ReadToken(); err != nil {
		return nil, nil
	}
	keys, strs = map[string]bool{}, map[string]string{}
	for d.PeekKind() == '"' {
		tok, err := d.ReadToken()
		if err != nil {
			return nil, nil
		}
		name := tok.String()
		v, err := d.ReadValue()
		if err != nil {
			return nil, nil
		}
		keys[name] = true
		delete(strs, name) // the last value of a name is its value
		if len(v) <= maxTopLevelString {
			if s, ok := stringOf(v); ok {
				strs[name] = s
			}
		}
	}
	if _, err := d.ReadToken(); err != nil {
		return nil, nil // not one whole object, as objectOf refuses it
	}
	return keys, strs
}

// maxTopLevelString is the longest string value, quotes and escapes
// included, whose text TopLevel keeps.
const maxTopLevelString = 1 << 10

// FindMember walks the top-level members of the JSON object text begins with,
// in order, and reports whether found is true of one, given its name and the
// kind of its value. The text may be cut short (a file's first bytes): a
// member it ends inside ends the walk. Names may repeat.
func FindMember(text []byte, found func(name string, kind jsontext.Kind) bool) bool {
	d := jsontext.NewDecoder(bytes.NewReader(text), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if tok, err := d.ReadToken(); err != nil || tok.Kind() != '{' {
		return false
	}
	for d.PeekKind() == '"' {
		tok, err := d.ReadToken()
		if err != nil {
			return false
		}
		if found(tok.String(), d.PeekKind()) {
			return true
		}
		if d.SkipValue() != nil {
			return false
		}
	}
	return false
}

// objectOf splits raw, when it is a JSON object, as splitObject does, letting
// names repeat and strings hold invalid UTF-8: it reads records to say what
// they are, whatever they are.
func objectOf(raw []byte) ([]string, map[string]jsontext.Value, bool) {
	if jsontext.Value(raw).Kind() != '{' {
		return nil, nil, false
	}
	names, members, err := splitObject(raw, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	return names, members, err == nil
}

// stringOf returns the JSON string v holds.
func stringOf(v jsontext.Value) (string, bool) {
	if v.Kind() != '"' {
		return "", false
	}
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' && bytes.IndexByte(v, '\\') < 0 && utf8.Valid(v) {
		return string(v[1 : len(v)-1]), true // its text is its bytes
	}
	tok, err := jsontext.NewDecoder(bytes.NewReader(v), jsontext.AllowInvalidUTF8(true)).ReadToken()
	if err != nil {
		return "", false
	}
	return tok.String(), true
}

// TableForm names the table a dataframe tool writes as one JSON object that
// raw is, where records were meant (pandas' to_json with an orient other than
// records, R jsonlite's dataframe="columns"), with the way to write records;
// "" when raw is none.
func TableForm(raw []byte) string {
	d := jsontext.NewDecoder(bytes.NewReader(raw), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if tok, err := d.ReadToken(); err != nil || tok.Kind() != '{' {
		return ""
	}
	kinds := map[string]byte{}
	firsts := map[string]string{} // an object member's first key
	lens := map[string]int{}      // a list member's items
	rowKey := func(k string) bool { return k != "" && strings.Trim(k, "0123456789") == "" }
	digits, objects, n := true, true, 0
	firstAnswers := false // the first member is an object holding an answer
	for d.PeekKind() == '"' {
		tok, err := d.ReadToken()
		if err != nil {
			return ""
		}
		name := tok.String()
		v, err := d.ReadValue()
		if err != nil {
			return ""
		}
		n++
		kinds[name] = byte(v.Kind())
		digits = digits && rowKey(name)
		objects = objects && v.Kind() == '{'
		if v.Kind() == '[' {
			lens[name] = listLen(v)
		}
		if n == 1 && v.Kind() == '{' {
			keys, _ := TopLevel(v)
			firstAnswers = keys["output"] || keys["text"] || keys["completion"]
		}
		if v.Kind() == '{' {
			vd := jsontext.NewDecoder(bytes.NewReader(v))
			if _, err := vd.ReadToken(); err == nil && vd.PeekKind() == '"' {
				if k, err := vd.ReadToken(); err == nil {
					firsts[name] = k.String()
				}
			}
		}
	}
	const way = `: write one record a line (pandas: to_json(orient="records", lines=True); R: jsonlite::stream_out)`
	switch {
	case n == 0 || kinds["request_id"] == '"' || kinds["case_id"] == '"':
		// a record (other members are its own)
		return ""
	case kinds["columns"] == '[' && kinds["data"] == '[':
		return `a table pandas' to_json writes with orient="split" (columns, index, data), not records` + way
	case kinds["columns"] == '[' && n == 1:
		return `a table by columns (polars' write_json in its older form: each column's name and values), not records` + way
	case kinds["schema"] == '{' && kinds["data"] == '[':
		return `a table pandas' to_json writes with orient="table" (schema, data), not records` + way
	case digits && objects:
		return `a table pandas' to_json writes with orient="index" (a record under each row's number), not records` + way
	case objects && firstAnswers:
		return `a table pandas' to_json writes with orient="index" (a record under each row's index, its ids), not records` + way
	}
	// by the id column and the output's, a column as well: a record's id is
	// a string, and a CogLang record's id of another kind (a list) is read as
	// Python's str() of it, beside an output that is a text
	for _, col := range []string{"request_id", "case_id"} {
		switch {
		case kinds[col] == '{' && rowKey(firsts[col]) && kinds["output"] != '"':
			return `a table by columns (pandas' to_json default, orient="columns": a column's values under each row's number), not records` + way
		case kinds[col] == '{' && kinds["output"] == '{':
			return `a table by columns (pandas' to_json default, orient="columns", of a table indexed by its ids: a column's values under each row's id), not records` + way
		case kinds[col] == '[' && kinds["output"] == '[' && lens[col] > 1:
			// (a list of one is a record's value boxed: jsonlite's toJSON
			// without auto_unbox)
			return `a table by columns (R jsonlite's dataframe="columns": a column's values in a list), not records` + way
		}
	}
	return ""
}

// listLen is the number of items of the JSON list v.
func listLen(v jsontext.Value) int {
	d := jsontext.NewDecoder(bytes.NewReader(v))
	if _, err := d.ReadToken(); err != nil {
		return 0
	}
	n := 0
	for d.PeekKind() != ']' && d.PeekKind() != 0 {
		if d.SkipValue() != nil {
			return n
		}
		n++
	}
	return n
}
