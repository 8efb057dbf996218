package contract

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/go-json-experiment/json"
)

// TestReaderReadError: an I/O error is one clean line naming the file once, and the
// records read before it are kept.
func TestReaderReadError(t *testing.T) {
	tests := []struct {
		name    string
		in      io.Reader
		records int
		err     string
	}{
		{"at once", iotest.ErrReader(errors.New("input/output error")), 0,
			"in.jsonl: cannot read: input/output error"},
		{"after two lines", io.MultiReader(strings.NewReader("{\"a\":1}\n{\"b\":2}\n"), iotest.ErrReader(errors.New("input/output error"))), 2,
			"in.jsonl:3: cannot read: input/output error"},
		{"inside a list", io.MultiReader(strings.NewReader("[{\"a\":1},\n"), iotest.ErrReader(errors.New("input/output error"))), 1,
			"in.jsonl: cannot read: input/output error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader("in.jsonl", tt.in, batchOpts)
			n := 0
			for r.Scan() {
				if err := r.Record().Err; err != nil {
					t.Fatalf("unexpected rejected line: %v", err)
				}
				n++
			}
			if n != tt.records {
				t.Errorf("records = %d, want %d", n, tt.records)
			}
			if r.Err() == nil || r.Err().Error() != tt.err {
				t.Errorf("err = %v, want %q", r.Err(), tt.err)
			}
			var ie *InputError
			if !errors.As(r.Err(), &ie) || ie.ExitCode() != 2 {
				t.Errorf("err %T is not an *InputError with exit code 2", r.Err())
			}
		})
	}
}

// TestReaderHostileShapes: nesting far past the decoder's limit, a huge number, NUL
// bytes and invalid UTF-8 give a located error or a rejected record, never a crash.
func TestReaderHostileShapes(t *testing.T) {
	deep := 100000
	tests := []struct {
		name string
		in   string
		want []string // records, as readAll prints them; long raws are cut
		err  string
	}{
		{"deep list", strings.Repeat("[", deep) + strings.Repeat("]", deep), nil,
			"in.jsonl:1:10001: invalid JSON: exceeded max depth"},
		{"deep unclosed list", strings.Repeat("[", deep), nil,
			"in.jsonl:1:10001: invalid JSON: exceeded max depth"},
		{"nul between lines", "{\"a\":1}\n\x00\n{\"b\":2}\n", []string{`1:1 {"a":1}`, "2:1 \x00", `3:1 {"b":2}`}, ""},
		{"nul in list", "[{\"a\":1},\x00]", []string{`1:2 {"a":1}`},
			"in.jsonl:1:10: invalid JSON: invalid character '\\x00' at start of value"},
		{"bad utf-8 in list", "[\"\xff\"]", nil, "in.jsonl:1:3: invalid JSON: invalid UTF-8"},
		{"only a bom", "\ufeff", nil, ""},
		{"bom then list", "\ufeff[{}]", []string{`1:2 {}`}, ""},
		{"cr only line ends", "{\"a\":1}\r{\"b\":2}\r", []string{"1:1 {\"a\":1}\r{\"b\":2}"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, got, err := readAll(t, tt.in, batchOpts)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("records:\n got %.300q\nwant %q", got, tt.want)
			}
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || err.Error() != tt.err) {
				t.Errorf("err = %v, want %q", err, tt.err)
			}
		})
	}
}

// TestReaderDeepJSONLLine: a JSONL line nested past the limit is handed over as
// one record (the reader does not parse lines) and its decoding fails cleanly.
func TestReaderDeepJSONLLine(t *testing.T) {
	deep := 100000
	in := "{\"request_id\":\"r1\",\"output\":\"x\"}\n{\"responses\": " + strings.Repeat("[", deep) + "\n{\"request_id\":\"r2\",\"output\":\"y\"}\n"
	r := NewReader("in.jsonl", strings.NewReader(in), batchOpts)
	var got []string
	for r.Scan() {
		rec := r.Record()
		if rec.Err != nil {
			t.Fatalf("line %d rejected by the reader: %v", rec.Line, rec.Err)
		}
		resp, err := DecodeResponse(rec)
		if err != nil {
			got = append(got, err.Error())
			continue
		}
		got = append(got, resp.ID())
	}
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	want := []string{"r1", "in.jsonl:2:10014: invalid JSON: exceeded max depth", "r2"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// TestDecodeHostileRecords: one record at a time, every problem is an *InputError
// at the record's line with the column of the offending byte.
func TestDecodeHostileRecords(t *testing.T) {
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	digits := "1" + strings.Repeat("9", 10000)
	tests := []struct {
		name string
		raw  string
		err  string // "" when the record is accepted
		id   string
	}{
		{"ok", `{"request_id":"r1","output":"x"}`, "", "r1"},
		{"deep output", `{"request_id":"r1","output":` + deep + `}`, "f:7:10030: invalid JSON: exceeded max depth", ""},
		{"10000 digit output", `{"request_id":"r1","output":` + digits + `}`, "", "r1"},
		{"10000 digit latency", `{"request_id":"r1","output":"x","latency_ms":` + digits + `}`,
			"f:7:48: number out of range for a number at /latency_ms", ""},
		{"10000 digit token count", `{"request_id":"r1","output":"x","input_token_count":` + digits + `}`,
			"f:7:55: input_token_count must be a whole number from 0 to 9223372036854775807, got 19999999999999999999999999999999999999999999999999999999999999999999999999999999...", ""},
		// a count is a whole number however it is written, as JSON Schema's
		// integer is (fbeval validate and the published schema take 10.0)
		{"count written 10.0", `{"request_id":"r1","output":"x","input_token_count":10.0,"output_token_count":1e1}`, "", "r1"},
		{"count with a fraction", `{"request_id":"r1","output":"x","output_token_count":1.5}`, "f:7:56: output_token_count must be a whole number from 0 to 9223372036854775807, got 1.5", ""},
		{"negative count", `{"request_id":"r1","output":"x","input_token_count":-1.0}`, "f:7:55: input_token_count must be a whole number from 0 to 9223372036854775807, got -1.0", ""},
		{"count as a string", `{"request_id":"r1","output":"x","input_token_count":"3"}`, `f:7:55: input_token_count must be a whole number from 0 to 9223372036854775807, got "3"`, ""},
		{"count past int64 as a float", `{"request_id":"r1","output":"x","input_token_count":1e300}`, "f:7:55: input_token_count must be a whole number from 0 to 9223372036854775807, got 1e300", ""},
		{"null count", `{"request_id":"r1","output":"x","input_token_count":null}`, "", "r1"},
		{"duplicate key", `{"request_id":"r1","output":"x","output":"y"}`, "f:7:35: invalid JSON: duplicate object member name", ""},
		{"bad utf-8", "{\"request_id\":\"r1\",\"output\":\"\xff\"}", "f:7:32: invalid JSON: invalid UTF-8", ""},
		{"nul byte", "{\"request_id\":\"r1\",\x00\"output\":\"x\"}", `f:7:22: invalid JSON: invalid character '\x00' at start of value`, ""},
		{"raw nul in string", "{\"request_id\":\"r1\",\"output\":\"a\x00\"}", "f:7:33: invalid JSON: invalid character '\\x00' in string (expecting non-control character)", ""},
		{"escaped nul in string", `{"request_id":"r1","output":"a\u0000"}`, "", "r1"},
		{"wrong version", `{"schema_version":"fbeval-response/v2","request_id":"r1","output":"x"}`,
			`f:7:3: schema_version must be "fbeval-response/v1" or absent, got "fbeval-response/v2": another version of the format than this fbeval reads (fbeval-response/v1): read it with the tool of its version, or make it again with this fbeval and its runners`, ""},
		{"numeric version", `{"schema_version":1,"request_id":"r1","output":"x"}`,
			`f:7:3: schema_version must be "fbeval-response/v1" or absent, got 1`, ""},
		{"null version", `{"schema_version":null,"request_id":"r1","output":"x"}`, "", "r1"},
		{"id number", `{"request_id":7,"output":"x"}`, "f:7:3: request_id must be a non-empty string, got 7", ""},
		{"id float", `{"request_id":7.5,"output":"x"}`, "f:7:3: request_id must be a non-empty string, got 7.5", ""},
		{"id true", `{"request_id":true,"output":"x"}`, "f:7:3: request_id must be a non-empty string, got true", ""},
		{"id list", `{"request_id":["a"],"output":"x"}`, `f:7:3: request_id must be a non-empty string, got ["a"] (a list of one: R jsonlite's toJSON writes each value so without auto_unbox = TRUE)`, ""},
		{"id object", `{"request_id":{},"output":"x"}`, "f:7:3: request_id must be a non-empty string, got {}", ""},
		{"id empty", `{"request_id":"","output":"x"}`, `f:7:3: request_id must be a non-empty string, got ""`, ""},
		{"id null, case id", `{"request_id":null,"case_id":"c1","output":"x"}`, "", "c1"},
		{"no id", `{"output":"x"}`, "f:7:3: a response record needs request_id (or case_id)", ""},
		{"no output", `{"request_id":"r1"}`, "f:7:3: a response record needs one of output, text, completion (or an error)", ""},
		{"scalar", `42`, "f:7:3: a response record must be a JSON object, got a JSON number", ""},
		{"string", `"r1"`, "f:7:3: a response record must be a JSON object, got a JSON string", ""},
		{"list", `[{"request_id":"r1","output":"x"}]`, "f:7:3: a response record must be a JSON object, got a JSON list", ""},
		{"torn", `{"request_id":"r1","outp`, "f:7:27: invalid JSON: the record ends inside a JSON value", ""},
		{"id spanning lines", "{\"request_id\": [\n  1,\n  2\n]}", "f:7:3: request_id must be a non-empty string, got [1,2]", ""},
		{"long id value", `{"request_id":[` + strings.Repeat(`"abcdefgh",`, 20) + `1]}`,
			`f:7:3: request_id must be a non-empty string, got ["abcdefgh","abcdefgh","abcdefgh","abcdefgh","abcdefgh","abcdefgh","abcdefgh","a...`, ""},
		{"control characters in a version", `{"schema_version":"a\u0000\nb","request_id":"r","output":"x"}`,
			`f:7:3: schema_version must be "fbeval-response/v1" or absent, got "a\u0000\nb"`, ""},
		{"lone CR line ends", "{\"request_id\":\"r1\",\"output\":\"x\"}\r{\"request_id\":\"r2\",\"output\":\"y\"}\r", `f:7:36: invalid JSON: records separated by a carriage return alone (lines ended as classic Mac OS ended them): end each line with a line feed (tr '\r' '\n' < FILE > FIXED)`, ""},
		{"trailing data", `{"request_id":"r1","output":"x"} {}`, "f:7:36: invalid JSON: another record follows the first on this line (files joined with cat where one's last line had no line end): give each record a line of its own", ""},
		{"trailing text", `{"request_id":"r1","output":"x"} x`, "f:7:36: invalid JSON: invalid character 'x' after top-level value", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &Record{File: "f", Line: 7, Col: 3, Raw: []byte(tt.raw), inline: true}
			resp, err := DecodeResponse(rec)
			if tt.err == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				if resp.ID() != tt.id {
					t.Errorf("id = %q, want %q", resp.ID(), tt.id)
				}
				return
			}
			if err == nil || err.Error() != tt.err {
				t.Fatalf("err = %v\nwant %s", err, tt.err)
			}
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Errorf("err %T is not an *InputError", err)
			}
		})
	}
}

func TestDecodeErrorUnknownField(t *testing.T) {
	type small struct {
		A int `json:"a"`
	}
	rec := &Record{File: "s.json", Line: 1, Col: 1, Raw: []byte("{\"a\": 1,\n \"b\": 2}")}
	var v small
	err := json.Unmarshal(rec.Raw, &v, json.RejectUnknownMembers(true))
	if err == nil {
		t.Fatal("want an error for an unknown member")
	}
	if got := DecodeError(rec, err).Error(); got != "s.json:2:2: unknown field at /b" {
		t.Errorf("got %q", got)
	}
}

func TestDecodeRequestHostile(t *testing.T) {
	tests := []struct {
		name, raw, err string
	}{
		{"ok v1", `{"schema_version":"fbeval-request/v1","request_id":"r","messages":[{"role":"user","content":"x"}]}`, ""},
		{"ok coglang", `{"schema_version":"coglang-generation-eval-request/v0.1","case_id":"c"}`, ""},
		{"no version", `{"request_id":"r"}`, `f:1:1: schema_version must be "fbeval-request/v1" or "coglang-generation-eval-request/v0.1", got ""`},
		{"a toolcall response", `{"schema_version":"fbeval-response/v1","request_id":"r","output":"x"}`, `f:1:1: schema_version must be "fbeval-request/v1" or "coglang-generation-eval-request/v0.1", got "fbeval-response/v1": this is a response file; give the request file fbeval export wrote`},
		{"a CogLang response", `{"schema_version":"coglang-generation-eval-response/v0.1","case_id":"c","output":"x"}`, `f:1:1: schema_version must be "fbeval-request/v1" or "coglang-generation-eval-request/v0.1", got "coglang-generation-eval-response/v0.1": this is a response file; give the request file fbeval export wrote`},
		{"an OpenAI chat completion", `{"id":"chatcmpl-1","object":"chat.completion","model":"m","choices":[]}`, `f:1:1: schema_version must be "fbeval-request/v1" or "coglang-generation-eval-request/v0.1", got "": this is an OpenAI chat completion (the API's reply), not a record of fbeval's: let fbeval-openai call the API and write the records, or write one {"request_id", "output"} line per request (docs/contract.md)`},
		{"version number", `{"schema_version":1}`, "f:1:19: want a string, got a JSON number at /schema_version"},
		{"no messages", `{"schema_version":"fbeval-request/v1","request_id":"r"}`, "f:1:1: messages must hold at least one message"},
		{"no id", `{"schema_version":"fbeval-request/v1","messages":[{"role":"user","content":"x"}]}`, "f:1:1: request_id must be a non-empty string"},
		{"coglang no case", `{"schema_version":"coglang-generation-eval-request/v0.1"}`, "f:1:1: case_id must be a non-empty string"},
		{"repeat overflow", `{"schema_version":"fbeval-request/v1","repeat":1` + strings.Repeat("0", 30) + `}`, "f:1:48: number out of range for an integer at /repeat"},
		{"scalar", `true`, "f:1:1: a request record must be a JSON object, got JSON true"},
		{"fraction for an integer", `{"schema_version":"fbeval-request/v1","attempt":1.5}`, "f:1:49: want an integer, got a JSON number at /attempt"},
		{"messages not a list", `{"schema_version":"fbeval-request/v1","messages":{}}`, "f:1:50: want a JSON list, got a JSON object at /messages"},
		{"empty", ``, "f:1:1: a request record must be a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &Record{File: "f", Line: 1, Col: 1, Raw: []byte(tt.raw), inline: true}
			_, err := DecodeRequest(rec)
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("unexpected error %v", err)
			case tt.err != "" && (err == nil || err.Error() != tt.err):
				t.Fatalf("err = %v\nwant %s", err, tt.err)
			}
		})
	}
}

// TestCountWrittenAsFloat: a token count written 10.0 or 1e1 is the count 10,
// the same as 10 (it was refused, and the record's answer with it).
func TestCountWrittenAsFloat(t *testing.T) {
	for _, raw := range []string{
		`{"request_id":"r1","output":"x","input_token_count":10,"output_token_count":2}`,
		`{"request_id":"r1","output":"x","input_token_count":10.0,"output_token_count":2e0}`,
		`{"request_id":"r1","output":"x","input_token_count":1e1,"output_token_count":0.2e1}`,
	} {
		resp, err := DecodeResponse(&Record{File: "f", Line: 1, Col: 1, Raw: []byte(raw), inline: true})
		if err != nil || resp.InputTokens == nil || *resp.InputTokens != 10 || resp.OutputTokens == nil || *resp.OutputTokens != 2 {
			t.Errorf("%s: %+v %v", raw, resp, err)
		}
	}
}
