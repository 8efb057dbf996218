package toolcall

import (
	"strconv"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/contract/strictjson"
)

// RecordFields are the members of one plain response record that scoring needs,
// as ScanRecord found them. Byte slices point into the record's text, or into the
// scanner's buffer for strings that held escapes: they are valid until the next
// Scan.
type RecordFields struct {
	RequestID     []byte // nil when absent or null
	CaseID        []byte
	Output        []byte // the first of output, text, completion that is not null
	HasOutput     bool
	Provider      []byte
	Model         []byte
	RawResponseID []byte
	FinishReason  []byte
	LatencyMS     float64
	HasLatency    bool
	InputTokens   int64
	HasInput      bool
	OutputTokens  int64
	HasOutputTok  bool
	// ErrorCode and ErrorMessage are a provider error's code and message,
	// when HasError (the record's error is an object, not null).
	ErrorCode, ErrorMessage []byte
	HasError                bool
	// Recipe is the string recipe of the record's run member, nil when it has
	// none (see contract.Response.Recipe).
	Recipe []byte
	// RunRunner and RunSettings are the run member's runner and settings,
	// nil where it names none (see contract.Response.RunSettings).
	RunRunner, RunSettings []byte
}

// Response returns the fields as contract.DecodeResponse returns them.
func (f *RecordFields) Response() contract.Response {
	r := contract.Response{
		RequestID: string(f.RequestID), CaseID: string(f.CaseID),
		Output: string(f.Output), HasOutput: f.HasOutput,
		Provider: string(f.Provider), Model: string(f.Model),
		RawResponseID: string(f.RawResponseID), FinishReason: string(f.FinishReason),
		Recipe: string(f.Recipe), RunRunner: string(f.RunRunner), RunSettings: string(f.RunSettings),
	}
	if f.HasLatency {
		l := f.LatencyMS
		r.LatencyMS = &l
	}
	if f.HasInput {
		n := f.InputTokens
		r.InputTokens = &n
	}
	if f.HasOutputTok {
		n := f.OutputTokens
		r.OutputTokens = &n
	}
	if f.HasError {
		r.Error = &contract.ProviderError{Code: string(f.ErrorCode), Message: string(f.ErrorMessage)}
	}
	return r
}

// RecordScanner reads the response records that runners write (an object of
// string, number and null members with known names) in one pass without
// allocating. It is a fast path for contract.DecodeResponse: it accepts a record
// only when that function would accept it with the same result, and declines
// anything else (a duplicate name, a non-string output, a provider error with
// other members than a string code and message, any doubt about syntax),
// which is then left to contract.DecodeResponse for its verdict and message. Members scoring does not use (metadata, a runner's own
// fields) are read as strictly as the decoder reads them and skipped. A
// differential test holds the two in agreement.
type RecordScanner struct {
	buf   []byte // unescaped strings
	spans [nFields]span
	names [][]byte // names of the skipped members and of the objects open in them
	data  []byte
	pos   int
}

// span locates one string value: in the record's text, or in buf.
type span struct {
	set   bool
	null  bool
	inBuf bool
	a, b  int
}

const (
	fSchemaVersion = iota
	fRequestID
	fCaseID
	fOutput
	fText
	fCompletion
	fProvider
	fModel
	fRawResponseID
	fFinishReason
	fLatency
	fInputTokens
	fOutputTokens
	fError
	fErrorCode    // the error's code
	fErrorMessage // and message
	fRun
	fRecipe      // the run's recipe
	fRunRunner   // its runner
	fRunSettings // and settings
	nFields
)

// fieldOf returns the field a member name stands for, or -1.
func fieldOf(name []byte) int {
	switch string(name) {
	case "schema_version":
		return fSchemaVersion
	case "request_id":
		return fRequestID
	case "case_id":
		return fCaseID
	case "output":
		return fOutput
	case "text":
		return fText
	case "completion":
		return fCompletion
	case "provider":
		return fProvider
	case "model":
		return fModel
	case "raw_response_id":
		return fRawResponseID
	case "finish_reason":
		return fFinishReason
	case "latency_ms":
		return fLatency
	case "input_token_count":
		return fInputTokens
	case "output_token_count":
		return fOutputTokens
	case "error":
		return fError
	case "run":
		return fRun
	}
	return -1
}

// Scan reads raw into f. It returns false when the record is not one it reads
// (f is then undefined): decode it with contract.DecodeResponse.
func (s *RecordScanner) Scan(raw []byte, f *RecordFields) bool {
	*f = RecordFields{}
	s.buf = s.buf[:0]
	s.spans = [nFields]span{}
	s.data, s.pos = raw, 0
	ok := s.object(f)
	s.data = nil
	clear(s.names) // they point into raw
	s.names = s.names[:0]
	if !ok {
		return false
	}
	get := func(i int) []byte {
		sp := &s.spans[i]
		if !sp.set || sp.null {
			return nil
		}
		if sp.inBuf {
			return s.buf[sp.a:sp.b:sp.b]
		}
		return raw[sp.a:sp.b:sp.b]
	}
	if sp := &s.spans[fSchemaVersion]; sp.set && !sp.null && string(get(fSchemaVersion)) != contract.ResponseV1 {
		return false
	}
	for _, i := range [...]int{fRequestID, fCaseID} {
		if sp := &s.spans[i]; sp.set && !sp.null && sp.a == sp.b {
			return false // an empty id is an error
		}
	}
	f.RequestID, f.CaseID = get(fRequestID), get(fCaseID)
	if f.RequestID == nil && f.CaseID == nil {
		return false
	}
	for _, i := range [...]int{fOutput, fText, fCompletion} {
		if sp := &s.spans[i]; sp.set && !sp.null {
			f.Output, f.HasOutput = get(i), true
			break
		}
	}
	if sp := &s.spans[fError]; sp.set && !sp.null {
		f.ErrorCode, f.ErrorMessage, f.HasError = get(fErrorCode), get(fErrorMessage), true
		if f.HasOutput && len(f.ErrorCode) == 0 && len(f.ErrorMessage) == 0 {
			// an error that says nothing beside an answer is none, as
			// contract.DecodeResponse reads it
			f.ErrorCode, f.ErrorMessage, f.HasError = nil, nil, false
		}
	}
	if !f.HasOutput && !f.HasError {
		return false // a record with neither: the decoder words the error
	}
	f.Provider, f.Model = get(fProvider), get(fModel)
	f.RawResponseID, f.FinishReason = get(fRawResponseID), get(fFinishReason)
	f.Recipe = get(fRecipe)
	f.RunRunner, f.RunSettings = get(fRunRunner), get(fRunSettings)
	return true
}

func (s *RecordScanner) skipSpace() { s.pos = strictjson.SkipSpace(s.data, s.pos) }

func (s *RecordScanner) object(f *RecordFields) bool {
	// the decoder wants the object's brace first; trailing space is fine
	if len(s.data) == 0 || s.data[0] != '{' {
		return false
	}
	if i := strictjson.SkipSpace(s.data, 1); i < len(s.data) && s.data[i] == '}' {
		return false // no id: an error
	}
	ok := s.members(func(name []byte) bool {
		field := fieldOf(name)
		if field < 0 {
			// a member scoring does not use (metadata, a runner's own fields)
			return s.addName(0, name) && s.skip(0)
		}
		return !s.spans[field].set && s.value(field, f)
	})
	s.skipSpace()
	return ok && s.pos == len(s.data)
}

// members reads the object whose brace is at s.pos, calling member with each
// name once s.pos is at its value, to read the value; false when the object
// is not well formed or member declines.
func (s *RecordScanner) members(member func(name []byte) bool) bool {
	s.pos++ // '{'
	s.skipSpace()
	if s.pos < len(s.data) && s.data[s.pos] == '}' {
		s.pos++
		return true
	}
	for {
		s.skipSpace()
		name, ok := s.name()
		if !ok {
			return false
		}
		s.skipSpace()
		if s.pos >= len(s.data) || s.data[s.pos] != ':' {
			return false
		}
		s.pos++
		s.skipSpace()
		if !member(name) {
			return false
		}
		s.skipSpace()
		if s.pos >= len(s.data) {
			return false
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
		case '}':
			s.pos++
			return true
		default:
			return false
		}
	}
}

// name reads a member name at its opening quote. Names hold no escapes in the
// records read here; a name with one declines.
func (s *RecordScanner) name() ([]byte, bool) {
	if s.pos >= len(s.data) || s.data[s.pos] != '"' {
		return nil, false
	}
	end, escaped, err := strictjson.ScanString(s.data, s.pos, strictjson.RejectSurrogates)
	if err != strictjson.LexOK || escaped {
		return nil, false
	}
	name := s.data[s.pos+1 : end-1]
	s.pos = end
	return name, true
}

// Limits of the values skip reads; past them the record is declined.
const (
	maxSkipDepth = 16 // containers within a skipped value
	maxSkipNames = 32 // members of one object
)

// addName records a member name of the object whose names start at base in
// s.names; false for a duplicate (the decoder refuses it) or past maxSkipNames.
func (s *RecordScanner) addName(base int, name []byte) bool {
	if len(s.names)-base >= maxSkipNames {
		return false
	}
	for _, n := range s.names[base:] {
		if string(n) == string(name) {
			return false
		}
	}
	s.names = append(s.names, name)
	return true
}

// skip reads one JSON value that scoring does not use, as strictly as the
// decoder reads it: what it cannot vouch for (nesting past maxSkipDepth, names
// with escapes, large objects, lone surrogates) declines.
func (s *RecordScanner) skip(depth int) bool {
	if depth > maxSkipDepth || s.pos >= len(s.data) {
		return false
	}
	switch s.data[s.pos] {
	case '"':
		var sp span
		return s.str(&sp)
	case '{':
		return s.skipObject(depth)
	case '[':
		return s.skipArray(depth)
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	}
	_, _, ok := s.number()
	return ok
}

func (s *RecordScanner) literal(word string) bool {
	end, err := strictjson.ScanLiteral(s.data, s.pos, word)
	s.pos = end
	return err == strictjson.LexOK
}

func (s *RecordScanner) skipObject(depth int) bool {
	base := len(s.names)
	if !s.members(func(name []byte) bool { return s.addName(base, name) && s.skip(depth+1) }) {
		return false
	}
	s.names = s.names[:base]
	return true
}

func (s *RecordScanner) skipArray(depth int) bool {
	s.pos++ // '['
	s.skipSpace()
	if s.pos < len(s.data) && s.data[s.pos] == ']' {
		s.pos++
		return true
	}
	for {
		s.skipSpace()
		if !s.skip(depth + 1) {
			return false
		}
		s.skipSpace()
		if s.pos >= len(s.data) {
			return false
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
			continue
		case ']':
			s.pos++
			return true
		}
		return false
	}
}

func (s *RecordScanner) value(field int, f *RecordFields) bool {
	sp := &s.spans[field]
	sp.set = true
	if s.pos+4 <= len(s.data) && string(s.data[s.pos:s.pos+4]) == "null" {
		s.pos += 4
		sp.null = true
		return true
	}
	switch field {
	case fLatency:
		lit, _, ok := s.number()
		if !ok {
			return false
		}
		x, err := strconv.ParseFloat(string(lit), 64)
		if err != nil || x < 0 {
			return false // the full decoder words the error
		}
		f.LatencyMS, f.HasLatency = x, true
		return true
	case fInputTokens, fOutputTokens:
		lit, isInt, ok := s.number()
		if !ok || !isInt {
			return false // a fraction or an exponent: the decoder reads it (10.0 is a count) or words the error
		}
		n, err := strconv.ParseInt(string(lit), 10, 64)
		if err != nil || n < 0 {
			return false
		}
		if field == fInputTokens {
			f.InputTokens, f.HasInput = n, true
		} else {
			f.OutputTokens, f.HasOutputTok = n, true
		}
		return true
	case fError:
		return s.providerError()
	case fRun:
		return s.run()
	}
	if s.pos >= len(s.data) || s.data[s.pos] != '"' {
		return false
	}
	return s.str(sp)
}

// providerError reads a provider error at its opening brace: an object of a
// string code and a string message, each at most once (either may be
// missing). Anything else (another member, a null, a value of another type)
// declines, for the decoder's verdict.
func (s *RecordScanner) providerError() bool {
	if s.pos >= len(s.data) || s.data[s.pos] != '{' {
		return false
	}
	return s.members(func(name []byte) bool {
		var sp *span
		switch string(name) {
		case "code":
			sp = &s.spans[fErrorCode]
		case "message":
			sp = &s.spans[fErrorMessage]
		default:
			return false
		}
		if sp.set {
			return false
		}
		sp.set = true
		return s.pos < len(s.data) && s.data[s.pos] == '"' && s.str(sp)
	})
}

// run reads the run member's value, as strictly as skip reads it, keeping its
// recipe, runner and settings where they are strings.
func (s *RecordScanner) run() bool {
	if s.pos >= len(s.data) || s.data[s.pos] != '{' {
		return s.skip(0)
	}
	base := len(s.names)
	if !s.members(func(name []byte) bool {
		if !s.addName(base, name) {
			return false
		}
		if s.pos < len(s.data) && s.data[s.pos] == '"' {
			var sp *span
			switch string(name) {
			case "recipe":
				sp = &s.spans[fRecipe]
			case "runner":
				sp = &s.spans[fRunRunner]
			case "settings":
				sp = &s.spans[fRunSettings]
			}
			if sp != nil {
				sp.set = true
				return s.str(sp)
			}
		}
		return s.skip(1)
	}) {
		return false
	}
	s.names = s.names[:base]
	return true
}

// number reads one JSON number literal; isInt reports one with no fraction and
// no exponent.
func (s *RecordScanner) number() (lit []byte, isInt, ok bool) {
	end, isInt, err := strictjson.ScanNumber(s.data, s.pos)
	if err != strictjson.LexOK {
		return nil, false, false
	}
	lit = s.data[s.pos:end]
	s.pos = end
	return lit, isInt, true
}

// str reads a string value at the opening quote into sp. A lone surrogate escape
// declines: the decoder refuses it.
func (s *RecordScanner) str(sp *span) bool {
	a := len(s.buf)
	end, buf, escaped, err := strictjson.ReadString(s.data, s.pos, s.buf, strictjson.RejectSurrogates)
	if err != strictjson.LexOK {
		return false
	}
	if escaped {
		s.buf = buf
		sp.inBuf, sp.a, sp.b = true, a, len(buf)
	} else {
		sp.a, sp.b = s.pos+1, end-1
	}
	s.pos = end
	return true
}
