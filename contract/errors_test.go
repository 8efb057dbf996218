package contract

import (
	"errors"
	"strings"
	"testing"
)

// TestInputErrorKinds: every input error the reader and the record decoders return
// says what kind of problem it is and where, without reading its message.
func TestInputErrorKinds(t *testing.T) {
	long := `"` + strings.Repeat("x", 100) + `"`
	tests := []struct {
		name      string
		in        string
		kind      error
		line, col int
		record    bool // the error is a record's, and the reading goes on
	}{
		{"NUL", "\n \x00", ErrSyntax, 2, 2, false},
		{"broken element", "[{\"a\":1},\n {\"b\":tru}]", ErrSyntax, 2, 10, false},
		{"data after the list", "[{\"a\":1}] x", ErrSyntax, 1, 11, false},
		{"truncated list", "[{\"a\":1},\n{\"b\":", ErrSyntax, 2, 6, false},
		{"object without a list", `{"x": 1}`, ErrShape, 1, 1, false},
		{"list key not a list", `{"responses": 3}`, ErrShape, 1, 15, false},
		{"object over the limit", "{\n\"x\": " + long + ",\n\"responses\": []}\n", ErrLimit, 1, 1, false},
		{"batch element over the limit", "{\n\"responses\": [\n{\"a\":" + long + "}]}\n", ErrLimit, 3, 1, true},
		{"line over the limit", `{"a":` + long + "}\n{}\n", ErrLimit, 1, 1, true},
		{"element over the limit", "[{\"b\":" + long + "}]", ErrLimit, 1, 2, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader("in.jsonl", strings.NewReader(tt.in), ReadOptions{ListKeys: []string{"responses"}, MaxLineBytes: 50})
			var err error
			for r.Scan() {
				if e := r.Record().Err; e != nil && err == nil {
					err = e
				}
			}
			if (err != nil) != tt.record {
				t.Fatalf("record error = %v, want one: %v", err, tt.record)
			}
			if !tt.record {
				err = r.Err()
			}
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v (%T) is not an *InputError", err, err)
			}
			if !errors.Is(err, tt.kind) || ie.Line != tt.line || ie.Col != tt.col {
				t.Errorf("got %v at %d:%d (%v), want %v at %d:%d", ie.Kind, ie.Line, ie.Col, err, tt.kind, tt.line, tt.col)
			}
		})
	}
}

// TestRecordErrorKinds: the record decoders give field, syntax and version errors
// their kinds, located inside the record, with the member at fault where the
// decoder names one and whether the message says what to do (a caller adds
// advice by these, not by the message's words).
func TestRecordErrorKinds(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		kind    error
		col     int
		member  string
		advised bool
	}{
		{"bad version", `{"schema_version":"x","request_id":"a","output":"o"}`, ErrVersion, 1, "", false},
		{"other version", `{"schema_version":"fbeval-response/v2","request_id":"a","output":"o"}`, ErrVersion, 1, "", true},
		{"wrong type", `{"request_id":"a","output":"o","latency_ms":"slow"}`, ErrField, 45, "/latency_ms", false},
		{"error a string", `{"request_id":"a","error":""}`, ErrField, 27, "/error", false},
		{"empty id", `{"request_id":"","output":"o"}`, ErrField, 1, "", false},
		{"boxed id", `{"request_id":["a"],"output":"o"}`, ErrField, 1, "", true},
		{"id quoting advice", `{"request_id":["another version of the format than this fbeval reads"," at /x"],"output":"o"}`, ErrField, 1, "", false},
		{"invalid JSON", `{"request_id":"a","output":"o",}`, ErrSyntax, 31, "", true}, // it names the comma to remove
		{"invalid JSON cut", `{"request_id":"a","output":"o"`, ErrSyntax, 31, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &Record{File: "r.jsonl", Line: 3, Col: 1, Raw: []byte(tt.in), inline: true}
			_, err := DecodeResponse(rec)
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v (%T) is not an *InputError", err, err)
			}
			if !errors.Is(err, tt.kind) || ie.Line != 3 || ie.Col != tt.col {
				t.Errorf("got %v at %d:%d (%v), want %v at 3:%d", ie.Kind, ie.Line, ie.Col, err, tt.kind, tt.col)
			}
			if ie.Member != tt.member || ie.Advised != tt.advised {
				t.Errorf("got member %q, advised %v (%v); want %q, %v", ie.Member, ie.Advised, err, tt.member, tt.advised)
			}
		})
	}
}

// An error with no code and no message beside an answer says no error: the
// answer stands (a notebook's resp.get("error") or {} made every answer a
// provider error, and "the model never answered"); with a code or a message,
// or with no answer, it is a provider error.
func TestEmptyErrorBesideAnAnswer(t *testing.T) {
	for _, tt := range []struct {
		in      string
		isError bool
	}{
		{`{"request_id":"a","output":"x","error":{}}`, false},
		{`{"request_id":"a","output":"x","error":{"code":null,"message":null}}`, false},
		{`{"request_id":"a","output":"x","error":{"code":"","message":""}}`, false},
		{`{"request_id":"a","output":"x","error":{"code":"http_429"}}`, true},
		{`{"request_id":"a","output":"x","error":{"message":"rate limited"}}`, true},
		{`{"request_id":"a","error":{}}`, true},
		{`{"request_id":"a","output":null,"error":{}}`, true},
	} {
		r, err := DecodeResponse(&Record{File: "r.jsonl", Line: 1, Col: 1, Raw: []byte(tt.in), inline: true})
		if err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		if (r.Error != nil) != tt.isError {
			t.Errorf("%s: error %+v, want a provider error %v", tt.in, r.Error, tt.isError)
		}
	}
}

// NotJSON names NaN and Infinity, which Python's json.dumps writes, as words
// of their own: NaNx is only an invalid character.
func TestNotJSONNaN(t *testing.T) {
	for raw, named := range map[string]bool{
		`{"a":NaN}`: true, `{"a":Infinity,"b":1}`: true, `{"a":-Infinity}`: true,
		`{"a":NaNx}`: false, `{"a":Infinity2}`: false, `{"a":Nope}`: false,
	} {
		got := NotJSON([]byte(raw), 5)
		if strings.HasPrefix(got, "NaN or Infinity") != named {
			t.Errorf("NotJSON(%s) = %q, want NaN named %v", raw, got, named)
		}
	}
}
