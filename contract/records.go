package contract

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/fbeval/fbeval/contract/usage"
)

// Message is one chat turn of a request.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ResponseFormat asks a runner for provider-side structured output (native_schema
// decoding): {"type": "json_schema", "json_schema": {"name", "schema", "strict"}}.
type ResponseFormat struct {
	Type       string     `json:"type"`
	JSONSchema JSONSchema `json:"json_schema"`
}

// JSONSchema is the schema part of a ResponseFormat.
type JSONSchema struct {
	Name   string         `json:"name"`
	Schema jsontext.Value `json:"schema"`
	Strict bool           `json:"strict"`
}

// ToolDefinition is a provider-neutral tool definition (native_tools decoding): the tool's name
// and description, and Parameters, the JSON Schema of its arguments ({} when the arm
// shows no schema). Runners translate it to each API's tool format.
type ToolDefinition struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Parameters  jsontext.Value `json:"parameters"`
	Strict      bool           `json:"strict"`
}

// Request is one fbeval-request/v1 record: everything a runner needs to ask a model
// once. Messages is authoritative (it holds repair turns); Instructions and Prompt
// repeat the first system and user texts for runners that want them apart.
type Request struct {
	SchemaVersion string `json:"schema_version"`
	RequestID     string `json:"request_id"`
	CaseID        string `json:"case_id"`
	Suite         string `json:"suite"`
	Study         string `json:"study,omitempty"`  // identity of the study the request belongs to (fbeval-request/v1)
	Recipe        string `json:"recipe,omitempty"` // identity of what its text is made from (fbeval-request/v1)
	Arm           string `json:"arm,omitempty"`
	Repeat        int    `json:"repeat"`
	Attempt       int    `json:"attempt"`
	Seed          int64  `json:"seed"`
	// MaxTokens and Temperature are the study's sampling settings, present
	// when it sets them: a runner sends them unless told otherwise.
	MaxTokens       *int             `json:"max_tokens,omitempty"`
	Temperature     *float64         `json:"temperature,omitempty"`
	Instructions    string           `json:"instructions"`
	Prompt          string           `json:"prompt"`
	Messages        []Message        `json:"messages"`
	ResponseFormat  *ResponseFormat  `json:"response_format,omitempty"`
	Tools           []ToolDefinition `json:"tools,omitempty"`
	ReferenceOutput *string          `json:"reference_output,omitempty"`
}

// Object returns the request in its published key order.
func (r *Request) Object() Object {
	msgs := make([]Object, len(r.Messages))
	for i, m := range r.Messages {
		msgs[i] = Object{{"role", m.Role}, {"content", m.Content}}
	}
	o := Object{
		{"schema_version", r.SchemaVersion},
		{"request_id", r.RequestID},
		{"case_id", r.CaseID},
		{"suite", r.Suite},
	}
	if r.Study != "" {
		o = append(o, Member{"study", r.Study})
	}
	if r.Recipe != "" {
		o = append(o, Member{"recipe", r.Recipe})
	}
	if r.Arm != "" {
		o = append(o, Member{"arm", r.Arm})
	}
	o = append(o,
		Member{"repeat", r.Repeat},
		Member{"attempt", r.Attempt},
		Member{"seed", r.Seed},
	)
	if r.MaxTokens != nil {
		o = append(o, Member{"max_tokens", *r.MaxTokens})
	}
	if r.Temperature != nil {
		o = append(o, Member{"temperature", *r.Temperature})
	}
	o = append(o,
		Member{"instructions", r.Instructions},
		Member{"prompt", r.Prompt},
		Member{"messages", msgs},
	)
	if rf := r.ResponseFormat; rf != nil {
		o = append(o, Member{"response_format", Object{
			{"type", rf.Type},
			{"json_schema", Object{{"name", rf.JSONSchema.Name}, {"schema", Raw(rf.JSONSchema.Schema)}, {"strict", rf.JSONSchema.Strict}}},
		}})
	}
	if len(r.Tools) > 0 {
		tools := make([]Object, len(r.Tools))
		for i, t := range r.Tools {
			tools[i] = Object{{"name", t.Name}, {"description", t.Description}, {"parameters", Raw(t.Parameters)}, {"strict", t.Strict}}
		}
		o = append(o, Member{"tools", tools})
	}
	if r.ReferenceOutput != nil {
		o = append(o, Member{"reference_output", *r.ReferenceOutput})
	}
	return o
}

// ProviderError is a runner's report that the provider did not answer. It is counted
// apart from wrong answers.
type ProviderError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// empty reports whether e says nothing: no code and no message.
func (e *ProviderError) empty() bool { return e.Code == "" && e.Message == "" }

// EmptyError reports whether v, a record's error member, is an object that
// says nothing ({}, or no code and no message): beside an answer, no error
// (DecodeResponse, and the runners' resume, read it so).
func EmptyError(v []byte) bool {
	var e ProviderError
	return jsontext.Value(v).Kind() == '{' && json.Unmarshal(v, &e) == nil && e.empty()
}

// ContentFilterCode is the ProviderError code of a prompt a provider's safety
// filter blocked (Azure OpenAI's HTTP 400 with error code content_filter): the
// runners give it, and scoring says that asking again does not change it.
const ContentFilterCode = "content_filter"

// Response is one accepted response record, normalised: the id it answers, the
// output text, and what the runner said about the call.
type Response struct {
	RequestID     string // empty when the record named only a case
	CaseID        string
	Output        string
	HasOutput     bool
	Provider      string
	Model         string
	LatencyMS     *float64
	RawResponseID string
	InputTokens   *int64
	OutputTokens  *int64
	FinishReason  string
	Error         *ProviderError
	// Recipe is the recipe its run member names (run.recipe: fbeval's runners
	// copy the request's recipe there), or "" when it names none.
	Recipe string
	// RunRunner and RunSettings are the runner and the settings its run member
	// names (run.runner, run.settings: the runner's flags that change its
	// answers), or "" where it names none: two runs of one model are told
	// apart by them.
	RunRunner, RunSettings string
}

// ID is the request id, or the case id where the record names only a case.
func (r *Response) ID() string {
	if r.RequestID != "" {
		return r.RequestID
	}
	return r.CaseID
}

type wireResponse struct {
	SchemaVersion jsontext.Value `json:"schema_version"`
	RequestID     jsontext.Value `json:"request_id"`
	CaseID        jsontext.Value `json:"case_id"`
	Output        jsontext.Value `json:"output"`
	Text          jsontext.Value `json:"text"`
	Completion    jsontext.Value `json:"completion"`
	Provider      *string        `json:"provider"`
	Model         *string        `json:"model"`
	LatencyMS     *float64       `json:"latency_ms"`
	RawResponseID *string        `json:"raw_response_id"`
	InputTokens   jsontext.Value `json:"input_token_count"`
	OutputTokens  jsontext.Value `json:"output_token_count"`
	FinishReason  *string        `json:"finish_reason"`
	Error         *ProviderError `json:"error"`
	Run           jsontext.Value `json:"run"`
}

// responseMembers are the members a response record of either suite may hold:
// those DecodeResponse reads, and metadata, which runners write for people.
var responseMembers = func() map[string]bool {
	m := map[string]bool{"metadata": true}
	t := reflect.TypeFor[wireResponse]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		m[name] = true
	}
	return m
}()

// NoAnswerNote ends the message of a response record with no answer: the
// members it holds that no response record has, where a runner of one's own
// may have put the answer ("; it holds answer, which no response record has");
// "" when it holds none.
func NoAnswerNote(raw []byte) string {
	names, _, ok := objectOf(raw)
	if !ok {
		return ""
	}
	var other []string
	for _, n := range names {
		if !responseMembers[n] && !slices.Contains(other, n) {
			other = append(other, n)
		}
	}
	switch {
	case len(other) == 0:
		return ""
	case len(other) > 5:
		other = append(other[:5], "...")
	}
	return "; it holds " + PrintableLine(strings.Join(other, ", ")) + ", which no response record has"
}

// DecodeResponse parses one fbeval-response/v1 record strictly (one pass; duplicate
// names and invalid UTF-8 rejected) and returns it normalised. The output is the
// first of output, text, completion that is not null: a string as is, any other
// JSON value as its JSON text. A record must carry request_id or case_id, and an
// output unless it carries an error.
func DecodeResponse(rec *Record) (Response, error) {
	var w wireResponse
	if err := decodeObject(rec, "response", &w); err != nil {
		return Response{}, err
	}
	var out Response
	if v := w.SchemaVersion; len(v) > 0 && v.Kind() != 'n' {
		if s, ok := stringValue(v); !ok || s != ResponseV1 {
			other := OtherVersion(s, ResponseV1, CogLangResponse)
			return out, rec.Errorf(0, "schema_version must be %q or absent, got %s%s", ResponseV1, showValue(v), other).Of(ErrVersion).Advising(other != "")
		}
	}
	var err error
	if out.RequestID, err = idValue(rec, "request_id", w.RequestID); err != nil {
		return out, err
	}
	if out.CaseID, err = idValue(rec, "case_id", w.CaseID); err != nil {
		return out, err
	}
	if out.RequestID == "" && out.CaseID == "" {
		return out, rec.Errorf(0, "a response record needs request_id (or case_id)")
	}
	for _, v := range []jsontext.Value{w.Output, w.Text, w.Completion} {
		if len(v) == 0 || v.Kind() == 'n' {
			continue
		}
		if s, ok := stringValue(v); ok {
			out.Output = s
		} else {
			out.Output = string(v)
		}
		out.HasOutput = true
		break
	}
	out.Error = w.Error
	if out.HasOutput && out.Error != nil && out.Error.empty() {
		// {} or {"code": null, "message": null} beside an answer (a notebook's
		// resp.get("error") or {}): no error said, the answer stands
		out.Error = nil
	}
	if !out.HasOutput && out.Error == nil {
		if w.Output.Kind() == 'n' {
			// what a runner writes from a chat message's content, null beside
			// a tool call or a refusal (OpenAI's SDKs: content is optional)
			return out, rec.Errorf(0, "a response record needs one of output, text, completion (or an error), and its output is null, as a chat message's content is beside a tool call or a refusal: write the model's text there (a tool call as the envelope, docs/contract.md); a row of a table with no answer (a missing value after a join) is left out, or written an error")
		}
		return out, rec.Errorf(0, "a response record needs one of output, text, completion (or an error)%s", NoAnswerNote(rec.Raw))
	}
	// as the response schema says (and fbeval validate checks): a negative count
	// or latency is no measurement, and sums of them would be meaningless
	if w.LatencyMS != nil && *w.LatencyMS < 0 {
		return out, rec.Errorf(memberValueOffset(rec.Raw, "latency_ms"), "latency_ms must be a number at least 0, got %s", showNumber(*w.LatencyMS))
	}
	if out.InputTokens, err = countValue(rec, "input_token_count", w.InputTokens); err != nil {
		return out, err
	}
	if out.OutputTokens, err = countValue(rec, "output_token_count", w.OutputTokens); err != nil {
		return out, err
	}
	out.Provider = deref(w.Provider)
	out.Model = deref(w.Model)
	out.LatencyMS = w.LatencyMS
	out.RawResponseID = deref(w.RawResponseID)
	out.FinishReason = deref(w.FinishReason)
	out.Recipe = runMember(w.Run, "recipe")
	out.RunRunner = runMember(w.Run, "runner")
	out.RunSettings = runMember(w.Run, "settings")
	return out, nil
}

// memberValueOffset returns the offset of the value of the top-level member name in
// an object's text, or 0.
func memberValueOffset(raw []byte, name string) int64 {
	return PointerOffset(raw, string(jsontext.Pointer("").AppendToken(name)))
}

// PointerOffset returns the byte offset of the value a JSON Pointer (RFC 6901)
// names in the JSON text raw, or 0 when raw has no such value: for turning a
// pointer into the line and column of a message (see Record.Errorf).
func PointerOffset(raw []byte, ptr string) int64 {
	d := jsontext.NewDecoder(bytes.NewReader(raw))
	skipTo := func() int64 {
		off := d.InputOffset()
		for off < int64(len(raw)) && strings.IndexByte(" \t\r\n,:", raw[off]) >= 0 {
			off++
		}
		return off
	}
	if ptr == "" {
		return skipTo()
	}
	for t := range jsontext.Pointer(ptr).Tokens() {
		switch d.PeekKind() {
		case '{':
			d.ReadToken()
			found := false
			for d.PeekKind() == '"' {
				tok, err := d.ReadToken()
				if err != nil {
					return 0
				}
				if tok.String() == t {
					found = true
					break
				}
				if d.SkipValue() != nil {
					return 0
				}
			}
			if !found {
				return 0
			}
		case '[':
			d.ReadToken()
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 {
				return 0
			}
			for ; i > 0; i-- {
				if d.PeekKind() == ']' || d.SkipValue() != nil {
					return 0
				}
			}
			if d.PeekKind() == ']' {
				return 0
			}
		default:
			return 0
		}
	}
	return skipTo()
}

func showNumber(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// countValue reads a token count (name, v) of rec: absent or null is nil; a
// number whose value is a whole number from 0 is the count (ParseCount).
func countValue(rec *Record, name string, v jsontext.Value) (*int64, error) {
	if len(v) == 0 || v.Kind() == 'n' {
		return nil, nil
	}
	if v.Kind() == '0' {
		if n, ok := ParseCount(string(v)); ok {
			return &n, nil
		}
	}
	return nil, rec.Errorf(memberValueOffset(rec.Raw, name), "%s must be a whole number from 0 to %d, got %s", name, int64(math.MaxInt64), showValue(v))
}

// ParseCount reads a token count written as a JSON number: a whole number from
// 0 to the largest int64, written as an integer or not (10, 10.0, 1e1: JSON
// Schema's integer, and what Python's json writes of a float count), its value
// exact. The scorer reads counts with it, and the runners the counts a
// provider sends.
func ParseCount(num string) (int64, bool) {
	if n, err := strconv.ParseInt(num, 10, 64); err == nil {
		return max(n, 0), n >= 0
	}
	if i := strings.IndexAny(num, "eE"); i >= 0 {
		if strings.Trim(num[:i], "-0.") == "" {
			return 0, true // zero, whatever its exponent (0e999)
		}
		// a count's exponent is small; a large one would make big.Rat
		// build a huge number to say no
		if e, err := strconv.Atoi(strings.TrimPrefix(num[i+1:], "+")); err != nil || e > 40 || e < -400 {
			return 0, false
		}
	}
	var r big.Rat
	if _, ok := r.SetString(num); !ok || !r.IsInt() || r.Sign() < 0 || !r.Num().IsInt64() {
		return 0, false
	}
	return r.Num().Int64(), true
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func stringValue(v jsontext.Value) (string, bool) {
	if v.Kind() != '"' {
		return "", false
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", false
	}
	return s, true
}

func idValue(rec *Record, name string, v jsontext.Value) (string, error) {
	if len(v) == 0 || v.Kind() == 'n' {
		return "", nil
	}
	s, ok := stringValue(v)
	if !ok || s == "" {
		hint := ""
		if oneStringList(v) {
			// R jsonlite's toJSON boxes each value in a list
			hint = boxedHint
		}
		return "", rec.Errorf(0, "%s must be a non-empty string, got %s%s", name, showValue(v), hint).Of(ErrField).Advising(hint != "")
	}
	return s, nil
}

// boxedHint says what an id that is a list of one string is.
const boxedHint = " (a list of one: R jsonlite's toJSON writes each value so without auto_unbox = TRUE)"

// oneStringList reports whether v is a JSON list of one string.
func oneStringList(v jsontext.Value) bool {
	d := jsontext.NewDecoder(bytes.NewReader(v))
	if tok, err := d.ReadToken(); err != nil || tok.Kind() != '[' || d.PeekKind() != '"' {
		return false
	}
	if _, err := d.ReadToken(); err != nil {
		return false
	}
	tok, err := d.ReadToken()
	return err == nil && tok.Kind() == ']'
}

// nearestField returns the field of the struct an unknown member was met in
// that the member's name is a typo of ("repeat" for repeats), or "".
func nearestField(me *json.SemanticError) string {
	t := me.GoType
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct || me.JSONPointer == "" {
		return ""
	}
	var keys []string
	for _, f := range StructFields(t) {
		keys = append(keys, f.Key)
	}
	return usage.Nearest(me.JSONPointer.LastToken(), keys)
}

// DecodeError turns an error of the json v2 package (syntactic or semantic) into an
// *InputError at its position within the record.
func DecodeError(rec *Record, err error) error {
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		if at, ok := RecordFollows(rec.Raw, se.ByteOffset); ok {
			if LoneCR(rec.Raw[:at]) {
				return rec.Errorf(at, "%s", LoneCRLines).Of(ErrSyntax).Advising(true)
			}
			return rec.Errorf(at, "%s", TwoRecordsOnALine).Of(ErrSyntax).Advising(true)
		}
		if hint := NotJSON(rec.Raw, se.ByteOffset); hint != "" {
			return rec.Errorf(se.ByteOffset, "invalid JSON: %s", hint).Of(ErrSyntax).Advising(true)
		}
		return rec.Errorf(se.ByteOffset, "invalid JSON: %s", cleanJSONMessage(se.Err)).Of(ErrSyntax)
	}
	var me *json.SemanticError
	if errors.As(err, &me) {
		where := ""
		if me.JSONPointer != "" {
			where = " at " + showText(string(me.JSONPointer))
		}
		msg := "wrong type"
		if errors.Is(me.Err, json.ErrUnknownName) {
			// the pointer names the member; say so rather than blame its value's type
			if near := nearestField(me); near != "" {
				return rec.Errorf(me.ByteOffset, "unknown field%s; did you mean %s", where, near).Of(ErrField).Advising(true)
			}
			return rec.Errorf(me.ByteOffset, "unknown field%s", where).Of(ErrField)
		}
		if me.JSONKind != 0 && me.GoType != nil {
			want := wantedJSON(me.GoType)
			switch {
			case me.JSONKind == '0' && me.Err != nil && (errors.Is(me.Err, strconv.ErrRange) || strings.Contains(me.Err.Error(), "out of range")):
				msg = "number out of range for " + want
			case want != "":
				msg = "want " + want + ", got " + kindName(me.JSONKind)
			default:
				msg = "cannot use " + kindName(me.JSONKind) + " here"
			}
		} else if me.Err != nil {
			msg = cleanJSONMessage(me.Err)
		}
		e := rec.Errorf(me.ByteOffset, "%s%s", msg, where).Of(ErrField)
		e.Member = string(me.JSONPointer)
		return e
	}
	return rec.Errorf(0, "invalid JSON: %v", err).Of(ErrSyntax)
}

// maxShown bounds the bytes of input quoted in one message.
const maxShown = 80

// showValue returns a JSON value for a one-line message: compacted (a value that
// spans lines in a pretty file must not break the message), and cut short when long.
func showValue(v jsontext.Value) string {
	c := append(jsontext.Value(nil), v...)
	if err := c.Compact(); err != nil {
		c = append(c[:0], v...)
	}
	return showText(string(c))
}

// showText cuts text to maxShown bytes and quotes it if it holds control
// characters or invalid UTF-8, so that it stays on one printable line.
func showText(s string) string {
	s, cut := cutShown(s)
	if !utf8.ValidString(s) || strings.ContainsFunc(s, unicode.IsControl) {
		s = strconv.Quote(s)
	}
	if cut {
		s += "..."
	}
	return s
}

// cutShown cuts s to at most maxShown bytes, at a character's start, and
// says whether it cut.
func cutShown(s string) (string, bool) {
	if len(s) <= maxShown {
		return s, false
	}
	n := maxShown
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}

// wantedJSON names the JSON a Go type is decoded from, for messages that must not
// speak of Go types.
func wantedJSON(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		// a small object is named with its members: an error is
		// {"code", "message"}, not a string
		if fields := StructFields(t); len(fields) > 0 && len(fields) <= 3 {
			names := make([]string, len(fields))
			for i, f := range fields {
				names[i] = strconv.Quote(f.Key)
			}
			return "a JSON object {" + strings.Join(names, ", ") + "}"
		}
		return "a JSON object"
	case reflect.Map:
		return "a JSON object"
	case reflect.Slice, reflect.Array:
		return "a JSON list"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return ""
}

// kindName names a JSON kind as the messages do.
func kindName(k jsontext.Kind) string {
	switch k {
	case '{', '}':
		return "a JSON object"
	case '[', ']':
		return "a JSON list"
	case '"':
		return "a JSON string"
	case '0':
		return "a JSON number"
	case 't', 'f':
		return "JSON " + k.String()
	case 'n':
		return "JSON null"
	}
	return "JSON " + k.String()
}

// TwoRecordsOnALine says what a line that holds a second record after the
// first is, and what to do.
const TwoRecordsOnALine = "invalid JSON: another record follows the first on this line (files joined with cat where one's last line had no line end): give each record a line of its own"

// LoneCRLines says what a line that holds records separated by a carriage
// return alone is: lines ended as classic Mac OS ended them, which JSON lines
// (and Python's json, and fbeval) do not take for line ends.
const LoneCRLines = "invalid JSON: records separated by a carriage return alone (lines ended as classic Mac OS ended them): end each line with a line feed (tr '\\r' '\\n' < FILE > FIXED)"

// LoneCR reports whether what comes before the second record on a line ends
// in a carriage return that no line feed follows.
func LoneCR(before []byte) bool {
	b := bytes.TrimRight(before, " \t")
	return len(b) > 0 && b[len(b)-1] == '\r'
}

// RecordFollows reports whether raw holds, at off and after white space, the
// start of another JSON object that follows a whole first one (two records on
// one line), and the offset where that second object begins.
func RecordFollows(raw []byte, off int64) (int64, bool) {
	if off <= 0 || off > int64(len(raw)) {
		return 0, false
	}
	rest := bytes.TrimLeft(raw[off:], " \t\r\n")
	before := bytes.TrimRight(raw[:off], " \t\r\n")
	if len(rest) == 0 || rest[0] != '{' || len(before) == 0 || before[len(before)-1] != '}' {
		return 0, false
	}
	return int64(len(raw) - len(rest)), true
}

// ZeroBytes says what a line that starts with zero bytes is, for a file of
// what records ("response"): the zeros a file cut short while it was written
// holds where its last writes were, and, when a whole record follows them on
// the line (written after a crash left the zeros), that it is not read and
// how to mend the file.
func ZeroBytes(raw []byte, what string) string {
	rest := bytes.TrimLeft(raw, "\x00")
	zeros := Plural(len(raw)-len(rest), "zero byte", "zero bytes")
	if v := jsontext.Value(bytes.TrimSpace(rest)); v.Kind() == '{' && v.IsValid() {
		return zeros + " before a " + what + " record on this line (a file a crash left zeros in, written on after them): the record is not read: remove the zero bytes (tr -d '\\000' < FILE > FIXED) and give the mended file"
	}
	return zeros + " where a " + what + " record should be: what a file cut short while it was written holds where its last writes were (run the runner again with -o FILE to finish it)"
}

// TextLine reports whether a record's line starts with a letter: text, not JSON.
func TextLine(raw []byte) bool {
	return len(raw) > 0 && (raw[0] >= 'a' && raw[0] <= 'z' || raw[0] >= 'A' && raw[0] <= 'Z')
}

// TextNotJSON is the message of a line of text (TextLine) where a record of
// what goes: a CSV line (a spreadsheet's, a dataframe's to_csv) is named so.
func TextNotJSON(raw []byte, what string) string {
	msg := fmt.Sprintf("invalid JSON: text, not a JSON object: a %s record is one JSON object on a line of its own", what)
	if comma := bytes.IndexByte(raw, ','); comma > 0 && bytes.IndexFunc(raw[:comma], func(r rune) bool { return !csvWord(r) }) < 0 && bytes.IndexByte(raw, '{') < 0 {
		msg += "; this looks like CSV (a spreadsheet's, or a dataframe's to_csv): write JSON lines (pandas: df.to_json(FILE, orient=\"records\", lines=True))"
	}
	return msg
}

// csvWord reports whether r may be in a CSV line's first field as a header or
// an id writes it (case_id, FB-L1-001): not an expression's bracket (a CogLang
// answer, Equal[2, 2], has commas too).
func csvWord(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.' || r == ' '
}

// notObject is the error of a record that is no JSON object: what it is
// instead, where that says more than "must be a JSON object" (zero bytes, a
// comment, another JSON value, the place JSON stops).
func notObject(rec *Record, what string) error {
	raw := rec.Raw
	switch {
	case len(raw) == 0:
	case raw[0] == 0:
		return rec.Errorf(0, "%s", ZeroBytes(raw, what)).Of(ErrSyntax)
	case raw[0] == '#':
		return rec.Errorf(0, "invalid JSON: a comment (#), which JSON does not have: remove it").Of(ErrSyntax)
	case jsontext.Value(raw).IsValid():
		return rec.Errorf(0, "a %s record must be a JSON object, got %s", what, kindName(jsontext.Value(raw).Kind()))
	case TextLine(raw):
		return rec.Errorf(0, "%s", TextNotJSON(raw, what)).Of(ErrSyntax)
	default:
		var v any
		return DecodeError(rec, json.Unmarshal(raw, &v))
	}
	return rec.Errorf(0, "a %s record must be a JSON object", what)
}

// DuplicateMember is the words for an object that gives the member name
// twice: JSON readers keep one or the other (Python's json the last), so
// which one a file means is not known.
func DuplicateMember(name string) string {
	return fmt.Sprintf("the member %q is given twice in one object: give it once (JSON readers keep one or the other)", name)
}

// SyntaxWords are the words of a JSON syntax error se, without the library's
// prefix: a member given twice named (DuplicateMember), where the library
// names it only in its pointer.
func SyntaxWords(se *jsontext.SyntacticError) string {
	if errors.Is(se.Err, jsontext.ErrDuplicateName) {
		return DuplicateMember(se.JSONPointer.LastToken())
	}
	return strings.TrimPrefix(se.Err.Error(), "jsontext: ")
}

// NotJSON names what a file holds at off that JSON does not allow, though
// JavaScript, JSON5 or Python would: a comment, a comma before the '}' or ']'
// that closes, a string in single quotes (Python's str() of a dict). "" for
// anything else.
func NotJSON(raw []byte, off int64) string {
	if off < 0 || off >= int64(len(raw)) {
		return ""
	}
	at := raw[off:]
	switch {
	case bytes.HasPrefix(at, utf8BOM):
		return "a UTF-8 byte order mark, as Notepad and PowerShell's UTF8 encoding save one: save the file as UTF-8 without it"
	case bytes.HasPrefix(at, []byte("//")) || bytes.HasPrefix(at, []byte("/*")):
		return "a comment, which JSON does not have: remove it"
	case at[0] == ',':
		if rest := bytes.TrimLeft(at[1:], " \t\r\n"); len(rest) > 0 && (rest[0] == '}' || rest[0] == ']') {
			return fmt.Sprintf("a comma before the closing %q, which JSON does not allow: remove it", rest[0])
		}
	case at[0] == '\'':
		return "a string in single quotes, as Python's str() of a dict writes it: JSON strings take double quotes (json.dumps writes them)"
	case at[0] == 0x1a && len(bytes.Trim(at, "\x1a\r\n")) == 0:
		return "a DOS end-of-file mark (Ctrl-Z, byte 0x1A), which copy /b and old Windows tools add at a file's end: remove it (tr -d '\\032' < FILE > FIXED)"
	case word(at, "NaN") || word(at, "Infinity") || word(at, "-Infinity"):
		return "NaN or Infinity, which JSON does not have (Python's json.dumps writes them for a float nan, a dataframe's missing value): write null (json.dumps(..., allow_nan=False) refuses them; pandas' to_json writes null)"
	}
	return ""
}

// word reports whether b starts with w as a word of its own (NaN, not NaNx).
func word(b []byte, w string) bool {
	if !bytes.HasPrefix(b, []byte(w)) {
		return false
	}
	rest := b[len(w):]
	return len(rest) == 0 || !(rest[0] == '_' || rest[0] >= '0' && rest[0] <= '9' || rest[0]|0x20 >= 'a' && rest[0]|0x20 <= 'z')
}

func cleanJSONMessage(err error) string {
	s := err.Error()
	s = strings.TrimPrefix(s, "jsontext: ")
	s = strings.TrimPrefix(s, "json: ")
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return "the record ends inside a JSON value"
	}
	return s
}

// RequestFields is a request record's members as read, before the rules of its
// family: the published fields, and the CogLang family's reference expression,
// which Request keeps as ReferenceOutput. A reader that decodes a record by other
// means (the runners' quick reader) fills one as DecodeRequest would and finishes
// it with Check.
type RequestFields struct {
	Request
	ReferenceExpr *string `json:"reference_expr"`
}

// DecodeRequest parses one request record of either family: fbeval-request/v1, or a
// CogLang generation-eval request (which has no request id or messages: the case id
// is the request id, and the messages are its instructions and prompt).
func DecodeRequest(rec *Record) (Request, error) {
	var w RequestFields
	if err := decodeObject(rec, "request", &w); err != nil {
		return Request{}, err
	}
	return w.Check(rec)
}

// Check applies the rules of the record's family to its fields, as DecodeRequest
// does after decoding rec, and returns the request.
func (w *RequestFields) Check(rec *Record) (Request, error) {
	r := w.Request
	switch w.SchemaVersion {
	case RequestV1:
		if r.RequestID == "" {
			return r, rec.Errorf(0, "request_id must be a non-empty string")
		}
		if len(r.Messages) == 0 {
			return r, rec.Errorf(0, "messages must hold at least one message")
		}
		if r.MaxTokens != nil && *r.MaxTokens < 1 {
			return r, rec.Errorf(0, "max_tokens must be at least 1, got %d", *r.MaxTokens)
		}
		if t := r.Temperature; t != nil && !(*t >= 0 && !math.IsInf(*t, 1)) {
			return r, rec.Errorf(0, "temperature must be a number from 0, got %v", *t)
		}
		if rf := r.ResponseFormat; rf != nil {
			if rf.Type != "json_schema" {
				return r, rec.Errorf(0, "response_format.type must be \"json_schema\", got %q", rf.Type)
			}
			if k := rf.JSONSchema.Schema.Kind(); k != '{' && k != 't' && k != 'f' {
				return r, rec.Errorf(0, "response_format.json_schema.schema must be a JSON Schema (an object or a boolean)")
			}
		}
		for i, t := range r.Tools {
			if t.Name == "" {
				return r, rec.Errorf(0, "tools[%d].name must be a non-empty string", i)
			}
			if k := t.Parameters.Kind(); k != '{' && k != 't' && k != 'f' {
				return r, rec.Errorf(0, "tools[%d].parameters must be a JSON Schema (an object or a boolean)", i)
			}
		}
	case CogLangRequest:
		if r.CaseID == "" {
			return r, rec.Errorf(0, "case_id must be a non-empty string")
		}
		r.RequestID = r.CaseID
		r.Suite = SuiteCogLang
		r.Attempt = 1
		r.ReferenceOutput = w.ReferenceExpr
		r.Messages = []Message{{Role: "system", Content: r.Instructions}, {Role: "user", Content: r.Prompt}}
	default:
		hint := OtherVersion(w.SchemaVersion, RequestV1, CogLangRequest)
		switch what, kind := ProviderRecord(rec.Raw), FileKind(w.SchemaVersion); {
		case hint != "":
		case w.SchemaVersion == ResponseV1 || w.SchemaVersion == CogLangResponse:
			hint = ": this is a response file; give the request file fbeval export wrote"
		case what != "":
			hint = ": this is " + what
		case kind != "":
			// case results, a report's lines: what fbeval score wrote
			hint = ": this is " + kind + ", not requests: give the request file fbeval export wrote"
		}
		return r, rec.Errorf(0, "schema_version must be %q or %q, got %q%s", RequestV1, CogLangRequest, w.SchemaVersion, hint).Of(ErrVersion)
	}
	return r, nil
}

// decodeObject decodes a record that must be one JSON object, strictly, into w.
func decodeObject(rec *Record, what string, w any) error {
	if len(rec.Raw) == 0 || rec.Raw[0] != '{' {
		return notObject(rec, what)
	}
	if err := json.Unmarshal(rec.Raw, w); err != nil {
		return DecodeError(rec, err)
	}
	return nil
}

// ShowValue returns a JSON value for a one-line message: compacted, quoted when it
// holds control characters, and cut at 80 bytes.
func ShowValue(v jsontext.Value) string { return showValue(v) }

// RunStudy returns the study identity a response record names in its run
// member ("run": {"study": "sha256:..."}, as fbeval's runners write it), or ""
// when it names none. Scoring reads it of a file's first record only, to say
// which study a file that misses most of a study's rows was written for.
func RunStudy(raw []byte) string {
	return runMember(lastMember(raw, "run"), "study")
}

// lastMember returns the value of the last member name of the JSON object
// raw, in one walk of one decoder (a scorer asks it of every file's first
// record); nil when there is none or raw is no whole object.
func lastMember(raw []byte, name string) jsontext.Value {
	if jsontext.Value(raw).Kind() != '{' {
		return nil
	}
	d := jsontext.NewDecoder(bytes.NewBuffer(raw), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)) // a Buffer is read in place, not copied
	if _, err := d.ReadToken(); err != nil {
		return nil
	}
	var found jsontext.Value
	for d.PeekKind() == '"' {
		tok, err := d.ReadToken()
		if err != nil {
			return nil
		}
		if tok.String() != name {
			if err := d.SkipValue(); err != nil {
				return nil
			}
			continue
		}
		v, err := d.ReadValue()
		if err != nil {
			return nil
		}
		found = bytes.Clone(v) // the decoder's buffer is reused
	}
	if _, err := d.ReadToken(); err != nil {
		return nil
	}
	return found
}

// runMember returns the string member name of a record's run member, or ""
// when run is not an object or name not a string in it.
func runMember(run jsontext.Value, name string) string {
	_, members, ok := objectOf(run)
	if !ok {
		return ""
	}
	s, _ := stringOf(members[name])
	return s
}
