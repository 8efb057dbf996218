package runner

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/export"
	"github.com/fbeval/fbeval/fixtures"
)

// exportedRequests returns the request records fbeval export writes for the
// built-in toolcall study (with references) in each decoding, first attempts
// and repair requests, and for the default CogLang fixture.
func exportedRequests(t testing.TB) [][]byte {
	t.Helper()
	var buf bytes.Buffer
	for _, decoding := range []string{"prompt_only", "native_schema", "native_tools"} {
		s, err := export.LoadStudy("toolcall")
		if err != nil {
			t.Fatal(err)
		}
		if s, err = export.Resolve(s, export.Overrides{Decoding: decoding}); err != nil {
			t.Fatal(err)
		}
		p, err := export.PlanToolcall(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := export.StreamRequests(&buf, &p.Study, p.RequestCount(), "jsonl", func(yield func(*contract.Request) error) error {
			return p.Each(true, yield)
		}); err != nil {
			t.Fatal(err)
		}
		// repair requests: the conversation goes on with the model's outputs
		// and the feedback on them
		var repairs []export.Repair
		for i := range p.Cases[:10] {
			for _, arm := range p.Study.Arms {
				repairs = append(repairs, export.Repair{Case: &p.Cases[i], Arm: arm, Repeat: 1, Turns: []export.RepairTurn{
					{Output: "```json\n{\"action\": \"call_tool\"}\n```", Feedback: "The previous output was rejected:\n- JSON_INVALID: fenced\n"},
					{Output: "{}", Feedback: "The previous output was rejected:\n- SCHEMA_INVALID at /arguments (required): missing property 'city'\n"},
				}})
			}
		}
		reqs, err := p.RepairRequests(repairs, true)
		if err != nil {
			t.Fatal(err)
		}
		if err := export.WriteRequests(&buf, &p.Study, reqs, "jsonl"); err != nil {
			t.Fatal(err)
		}
	}
	if err := export.WriteCogLangJSONL(&buf, export.CogLangCasesOf(fixtures.DefaultCogLangSource()), true); err != nil {
		t.Fatal(err)
	}
	return bytes.SplitAfter(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), []byte("\n"))
}

// sameAsDecode fails t unless the quick reader's request (and the rules'
// error) for raw is DecodeRequest's.
func sameAsDecode(t *testing.T, q *quickReader, raw []byte) {
	t.Helper()
	rec := &contract.Record{File: "requests.jsonl", Line: 3, Col: 1, Raw: raw}
	var w contract.RequestFields
	if !q.read(raw, &w) {
		t.Fatalf("quick reader refused %.120q", raw)
	}
	got, gotErr := w.Check(rec)
	want, wantErr := contract.DecodeRequest(rec)
	if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
		t.Fatalf("%.120q: quick error %v, DecodeRequest %v", raw, gotErr, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%.120q:\nquick  %+v\ndecode %+v", raw, got, want)
	}
}

// TestQuickReadsExports: every request fbeval export writes, of both families,
// is read by the quick reader, as DecodeRequest reads it.
func TestQuickReadsExports(t *testing.T) {
	var q quickReader
	recs := exportedRequests(t)
	if len(recs) < 3*1440 {
		t.Fatalf("%d records exported", len(recs))
	}
	for _, raw := range recs {
		sameAsDecode(t, &q, bytes.TrimSuffix(raw, []byte("\n")))
	}
	if len(q.seen) == 0 {
		t.Error("no schema was remembered as checked")
	}
}

// TestQuickRead: what the quick reader reads (as DecodeRequest does) and what it
// leaves to DecodeRequest.
func TestQuickRead(t *testing.T) {
	const head = `{"schema_version":"fbeval-request/v1","request_id":"r1","messages":[{"role":"user","content":"hi"}]`
	read := []string{
		head + `}`,
		head + `,"extra":{"a":[1,{"b":null}],"c":"\u00e9"},"more":[true,false,-0.5e3]}`,
		head + `,"instructions":"a\"b\\c\n","prompt":"p\ud83d\ude00","case_id":"c\u0041"}`,
		head + `,"reference_output":null,"repeat":-0,"seed":-12345678901234567}`,
		head + `,"study":"sha256:0123456789abcdef","recipe":"sha256:fedcba9876543210"}`,
		head + `,"max_tokens":512,"temperature":0.7}`, // a study's sampling settings
		head + `,"max_tokens":1,"temperature":0}`,
		head + `,"temperature":1e-3,"max_tokens":0}`, // the rules refuse 0
		head + `,"temperature":-0.5}`,                // and a negative temperature
		head + `,"tools":[],"response_format":{}}`,
		head + `,"tools":[{"name":"t","parameters":{"type":"object","properties":{"x":{"type":"string"}}},"strict":true}]}`,
		head + `,"response_format":{"type":"json_schema","json_schema":{"name":"n","schema":true,"strict":false}}}`,
		head + `,"tools":[{"name":"t","parameters":null}]}`, // kept as null, as jsontext keeps it; the rules refuse it
		head + `,"response_format":{"type":"json_schema","json_schema":{"name":"n","schema":"x"}}}`,
		`{"schema_version":"fbeval-request/v1","request_id":"","messages":[]}`,  // the rules' errors
		`{"schema_version":"fbeval-response/v1","request_id":"r","output":"x"}`, // the wrong file
		`{"schema_version":"coglang-generation-eval-request/v0.1","case_id":"c","instructions":"i","prompt":"p","level":"L1","expected_top_level_heads":["A"],"reference_expr":"A[]"}`,
		`{ "schema_version" : "fbeval-request/v1" , "request_id" : "r" , "messages" : [ { "role" : "user" , "content" : "x" } ] }`,
		// a message that is the prompt written another way is read, not shared
		head[:len(head)-1] + `,{"role":"user","content":"h\u0069"}],"prompt":"hi"}`,
	}
	var q quickReader
	for _, raw := range read {
		sameAsDecode(t, &q, []byte(raw))
	}
	left := []string{
		head + `,"request_id":"r2"}`,                                 // a member twice
		head + `,"x":1,"x":2}`,                                       // an unknown member twice
		head + `,"tools":[{"name":"t","parameters":{"a":1,"a":2}}]}`, // a name twice in a schema
		head + `,"x":[{"a":{"b":1,"b":1}}]}`,                         // and in any value
		head + `,"request\u005fid":"r"}`,                             // an escaped name
		head + `,"study":null}`,                                      // null for a string
		head + `,"recipe":7}`,                                        // and a number
		head + `,"max_tokens":512.0}`,                                // a token limit with a fraction
		head + `,"max_tokens":null}`,                                 // null for a number
		head + `,"temperature":1e400}`,                               // a temperature past a float64
		head + `,"recipe":"a","recipe":"a"}`,
		head + `,"repeat":1.0}`,                                          // a fraction
		head + `,"repeat":1e2}`,                                          // an exponent
		head + `,"seed":1234567890123456789}`,                            // past 18 digits
		head + `,"messages":[{"role":"user","content":"x","name":"n"}]}`, // a member a message has not
		head + `,"tools":[{"name":"t","parameters":{},"x":1}]}`,
		head + `,"response_format":{"type":"json_schema","json_schema":{"schema":{},"x":1}}}`,
		head + `} x`,
		head + `,"prompt":"\ud800"}`,         // a lone surrogate
		head + `,"prompt":"` + "\xff" + `"}`, // invalid UTF-8
		head + `,"x":` + strings.Repeat("[", quickDepth+1) + strings.Repeat("]", quickDepth+1) + `}`,
		head,
		`[` + head + `}]`,
		` ` + head + `}`,
	}
	for _, raw := range left {
		var w contract.RequestFields
		if q.read([]byte(raw), &w) {
			t.Errorf("quick reader read %.100q", raw)
		}
	}
}

// TestQuickRemembersSchemas: a schema is checked once, and another with a name
// twice is still refused after it.
func TestQuickRemembersSchemas(t *testing.T) {
	var q quickReader
	var w contract.RequestFields
	good := `{"schema_version":"fbeval-request/v1","request_id":"r","messages":[{"role":"user","content":"x"}],"tools":[{"name":"t","parameters":{"type":"object","properties":{"a":{}}}}]}`
	for range 3 {
		if !q.read([]byte(good), &w) {
			t.Fatal("refused a good record")
		}
	}
	if len(q.seen) != 1 || q.seenSize != len(`{"type":"object","properties":{"a":{}}}`) {
		t.Errorf("remembered %d values, %d bytes", len(q.seen), q.seenSize)
	}
	bad := strings.Replace(good, `"a":{}`, `"a":{},"a":{}`, 1)
	if q.read([]byte(bad), &w) {
		t.Error("read a schema with a name twice after a good one")
	}
}

// FuzzQuickRequest: whatever the quick reader reads, DecodeRequest reads the
// same, with the same error from the family's rules.
func FuzzQuickRequest(f *testing.F) {
	for i, raw := range exportedRequests(f) {
		if i%97 == 0 {
			f.Add(bytes.TrimSuffix(raw, []byte("\n")))
		}
	}
	f.Add([]byte(`{"schema_version":"fbeval-request/v1","request_id":"r","messages":[{"role":"user","content":"a\u00e9\n"}],"x":{"a":[1,2]},"reference_output":null}`))
	f.Add([]byte(`{"schema_version":"coglang-generation-eval-request/v0.1","case_id":"c","prompt":"p","reference_expr":"A[]","level":"L1"}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var q quickReader
		var w contract.RequestFields
		if !q.read(raw, &w) {
			return
		}
		sameAsDecode(t, &q, raw)
	})
}

// BenchmarkDecodeRequests decodes the requests fbeval export writes for the
// built-in toolcall study (in each decoding) and the default CogLang fixture, with the quick
// reader (falling back as a runner does) and with DecodeRequest alone.
func BenchmarkDecodeRequests(b *testing.B) {
	recs := exportedRequests(b)
	size := 0
	for _, r := range recs {
		size += len(r)
	}
	b.Run("reader=quick", func(b *testing.B) {
		var q quickReader
		var w contract.RequestFields
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			for _, raw := range recs {
				if _, err := decodeRequest(&q, &w, &contract.Record{Raw: bytes.TrimSuffix(raw, []byte("\n"))}); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("reader=DecodeRequest", func(b *testing.B) {
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			for _, raw := range recs {
				if _, err := contract.DecodeRequest(&contract.Record{Raw: bytes.TrimSuffix(raw, []byte("\n"))}); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
