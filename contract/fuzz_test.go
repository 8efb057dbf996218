package contract

import (
	"errors"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// checkLocated fails unless err is an *InputError at or after the record's start.
func checkLocated(t *testing.T, rec *Record, err error) {
	t.Helper()
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Fatalf("error %T is not an *InputError: %v", err, err)
	}
	if ie.File != rec.File || ie.Line < rec.Line || ie.Col < 1 {
		t.Fatalf("error not located within the record: %v", err)
	}
	if ie.Line == rec.Line && ie.Col < rec.Col {
		t.Fatalf("error before the record's first byte: %v", err)
	}
	if ie.Col > rec.Col+len(rec.Raw) {
		t.Fatalf("error column past the record's end: %v", err)
	}
}

func FuzzDecodeResponse(f *testing.F) {
	for _, s := range []string{
		`{"request_id":"r1","output":"x"}`,
		`{"schema_version":"fbeval-response/v1","request_id":"r1","case_id":"c","text":{"a":[1,2]},"latency_ms":12.5,"input_token_count":3}`,
		`{"case_id":"c","error":{"code":"rate_limit","message":"slow down"}}`,
		`{"request_id":7,"output":"x"}`,
		`{"request_id":"r1","output":"x","output":"y"}`,
		"{\"request_id\":\"r1\",\"output\":\"\xff\"}",
		`{"request_id":"r1","completion":null,"output":[[[[]]]]}`,
		`42`, ``, `{`, `{"request_id":"r1","latency_ms":1e999,"output":""}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		rec := &Record{File: "f", Line: 3, Col: 2, Raw: []byte(raw), inline: true}
		resp, err := DecodeResponse(rec)
		if err != nil {
			checkLocated(t, rec, err)
			return
		}
		if resp.ID() == "" {
			t.Fatalf("accepted a record without an id: %q", raw)
		}
		if !resp.HasOutput && resp.Error == nil {
			t.Fatalf("accepted a record with neither output nor error: %q", raw)
		}
	})
}

func FuzzDecodeRequest(f *testing.F) {
	for _, s := range []string{
		`{"schema_version":"fbeval-request/v1","request_id":"r","case_id":"c","suite":"toolcall","arm":"no_schema","repeat":1,"attempt":1,"seed":5,"instructions":"i","prompt":"p","messages":[{"role":"system","content":"i"},{"role":"user","content":"p"}]}`,
		`{"schema_version":"fbeval-request/v1","request_id":"r","messages":[{"role":"user","content":"x"}],"response_format":{"type":"json_schema","json_schema":{"name":"n","schema":{"type":"object"},"strict":true}}}`,
		`{"schema_version":"fbeval-request/v1","request_id":"r","messages":[{"role":"user","content":"x"}],"tools":[{"name":"t","description":"d","parameters":{},"strict":false}]}`,
		`{"schema_version":"fbeval-request/v1","request_id":"r","messages":[{"role":"user","content":"x"}],"tools":[{"name":1}]}`,
		`{"schema_version":"fbeval-request/v1","request_id":"r","messages":[{"role":"user","content":"x"}],"tools":[{"name":"t"}]}`,
		`{"schema_version":"coglang-generation-eval-request/v0.1","case_id":"FB-L1-001","instructions":"i","prompt":"p","reference_expr":"Equal[2, 2]"}`,
		`{"schema_version":"fbeval-request/v1","repeat":1e400}`,
		`{"schema_version":"fbeval-request/v1","messages":[{"role":1}]}`,
		`[]`, `{"a":1,"a":2}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		rec := &Record{File: "f", Line: 1, Col: 1, Raw: []byte(raw), inline: true}
		req, err := DecodeRequest(rec)
		if err != nil {
			checkLocated(t, rec, err)
			return
		}
		if req.RequestID == "" || len(req.Messages) == 0 {
			t.Fatalf("accepted a request without an id or messages: %q", raw)
		}
		// an accepted request must write back out as deterministic JSON
		a, err := Marshal(req.Object(), Compact)
		if err != nil {
			t.Fatalf("accepted request does not marshal: %v", err)
		}
		b, _ := Marshal(req.Object(), Compact)
		if string(a) != string(b) {
			t.Fatal("marshal is not deterministic")
		}
		if !jsontext.Value(a).IsValid() {
			t.Fatalf("accepted request writes back as invalid JSON: %s", a)
		}
	})
}
