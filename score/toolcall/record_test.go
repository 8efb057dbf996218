package toolcall

import (
	"reflect"
	"testing"

	"github.com/fbeval/fbeval/contract"
)

// recordCases are response records of every kind: plain ones the scanner reads,
// and unusual or broken ones it must leave to contract.DecodeResponse.
var recordCases = []struct {
	raw     string
	scanned bool // the fast path reads it
}{
	{`{"request_id":"r1","output":"x"}`, true},
	{`{"request_id":"r1","output":"{\"a\":\"\\u00e9\\n\"}","model":"m","provider":"p"}`, true},
	{`{ "case_id" : "c" , "text" : "é" } `, true},
	{` {"case_id":"c","text":"é"}`, false},
	{`{"schema_version":"fbeval-response/v1","request_id":"r","completion":"c","latency_ms":12.5,"input_token_count":3,"output_token_count":-0}`, true},
	{`{"request_id":"r","output":null,"text":"t","raw_response_id":"x","finish_reason":"stop"}`, true},
	{`{"request_id":"r","case_id":null,"output":"","latency_ms":1e2,"input_token_count":null}`, true},
	{`{"request_id":"r","output":"\ud83d\ude00"}`, true}, // a pair is one character
	{`{"request_id":"r","output":"\ud83d"}`, false},
	{`{"request_id":"r","output":"x","metadata":{}}`, true},
	{`{"request_id":"r","output":"x","metadata":{"garble":"right","n":[1,-2.5e3,true,false,null,{"a":{}},[]],"s":"\u00e9\n"},"id":"chatcmpl-1","usage":{ "prompt_tokens" : 3 }}`, true},
	{`{"metadata":{"a":1},"request_id":"r","output":"x"}`, true},
	{`{"request_id":"r","output":"x","metadata":{"a":1,"a":2}}`, false},
	{`{"request_id":"r","output":"x","m":{"a":{"b":1,"b":1}}}`, false},
	{`{"request_id":"r","output":"x","extra":1,"extra":2}`, false},
	{`{"request_id":"r","output":"x","extra":"\ud800"}`, false},
	{`{"request_id":"r","output":"x","extra":[1,]}`, false},
	{`{"request_id":"r","output":"x","extra":{"a":1,}}`, false},
	{`{"request_id":"r","output":"x","extra":tru}`, false},
	{`{"request_id":"r","output":"x","extra":01}`, false},
	{`{"request_id":"r","output":"x","extra":[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]}`, false},
	{`{"request_id":"r","output":"x","extra":{"\u0061":1,"a":2}}`, false},
	{"{\"request_id\":\"r\",\"output\":\"x\",\"extra\":\"\xff\"}", false},
	{`{"request_id":"r","output":"x","OUTPUT":"y"}`, true},
	{`{"request_id":"r","output":{"a":1}}`, false},
	{`{"request_id":"r","output":"x","output":"y"}`, false},
	{`{"request_id":"","output":"x"}`, false},
	{`{"request_id":7,"output":"x"}`, false},
	{`{"schema_version":"v2","request_id":"r","output":"x"}`, false},
	// provider errors: a string code and message, each at most once
	{`{"request_id":"r","error":{"code":"c","message":"m"}}`, true},
	{`{"request_id":"r","error": { "message" : "slow \"down\"" , "code":"rate_limit" } ,"latency_ms":3}`, true},
	{`{"request_id":"r","error":{}}`, true},
	{`{"request_id":"r","error":{"code":"c"}}`, true},
	{`{"request_id":"r","output":"x","error":{"code":"c","message":"m"}}`, true},
	{`{"request_id":"r","error":{"code":"c","code":"d"}}`, false},
	{`{"request_id":"r","error":{"code":"c","type":"t"}}`, false},
	{`{"request_id":"r","error":{"Code":"c"}}`, false},
	{`{"request_id":"r","error":{"code":null}}`, false},
	{`{"request_id":"r","error":{"code":7}}`, false},
	{`{"request_id":"r","error":{"code":"\ud800"}}`, false},
	{`{"request_id":"r","error":"c"}`, false},
	{`{"request_id":"r","error":null}`, false},
	{`{"request_id":"r","error":{"code":"c",}}`, false},
	{`{"request_id":"r","error":{"code":"c"},"error":{"code":"c"}}`, false},
	{`{"request_id":"r","output":"x","error":null}`, true},
	// an error that says nothing beside an answer is none, as the decoder reads it
	{`{"request_id":"r","output":"x","error":{}}`, true},
	{`{"request_id":"r","output":"x","error":{"code":"","message":""}}`, true},
	{`{"request_id":"r"}`, false},
	{`{"output":"x"}`, false},
	{`{"request_id":"r","output":"x","latency_ms":1e999}`, false},
	{`{"request_id":"r","output":"x","input_token_count":1.0}`, false},
	{`{"request_id":"r","output":"x","input_token_count":99999999999999999999}`, false},
	{"{\"request_id\":\"r\",\"output\":\"\xff\"}", false},
	{"{\"request_id\":\"r\",\"output\":\"a\tb\"}", false},
	{`{"request_id":"r","output":"x"} x`, false},
	{`{"request_id":"r","output":"x",}`, false},
	{`{"Request_ID":"r","output":"x"}`, false},
	{`{"request_id":"r","output":"\x"}`, false},
	{`{"request_id":"r","output":"x"`, false},
	{`[]`, false}, {``, false}, {`{}`, false}, {`{"request_id":"r","output":nul}`, false},
	{`{"request_id":"r","output":"x","latency_ms":01}`, false},
	{`{"request_id":"r","output":"x","latency_ms":-}`, false},
	{`{"request_id":"r","output":"x","latency_ms":1.}`, false},
	{`{"request_id":"r","output":"x","latency_ms":1e-400}`, true},
	// the run member: its recipe is kept when it is a string
	{`{"request_id":"r","output":"x","run":{"runner":"fbeval-mock","study":"sha256:1","recipe":"sha256:2"}}`, true},
	{`{"request_id":"r","output":"x","run":{ "recipe" : "sha256:\u0032" }}`, true},
	{`{"request_id":"r","output":"x","run":{"recipe":null}}`, true},
	{`{"request_id":"r","output":"x","run":{"recipe":7,"x":[{"recipe":"y"}]}}`, true},
	{`{"request_id":"r","output":"x","run":{"a":{"recipe":"y"}}}`, true},
	{`{"request_id":"r","output":"x","run":"sha256:2"}`, true},
	{`{"request_id":"r","output":"x","run":null}`, true},
	{`{"request_id":"r","output":"x","run":{}}`, true},
	{`{"request_id":"r","output":"x","run":{"recipe":"a","recipe":"b"}}`, false},
	{`{"request_id":"r","output":"x","run":{"recipe":"a","x":1,"x":2}}`, false},
	{`{"request_id":"r","output":"x","run":{"recipe":"\ud800"}}`, false},
	{`{"request_id":"r","output":"x","run":{"recipe":"a",}}`, false},
	{`{"request_id":"r","output":"x","run":{},"run":{}}`, false},
	{`{"run":{"recipe":"a"},"request_id":"r","error":{"code":"c"}}`, true},
}

// checkRecord holds the scanner to contract.DecodeResponse on raw: where the
// scanner reads a record, the decoder accepts it with the same Response.
func checkRecord(t *testing.T, s *RecordScanner, raw string) bool {
	t.Helper()
	var f RecordFields
	ok := s.Scan([]byte(raw), &f)
	rec := &contract.Record{File: "f", Line: 1, Col: 1, Raw: []byte(raw)}
	want, err := contract.DecodeResponse(rec)
	if !ok {
		return false
	}
	if err != nil {
		t.Fatalf("%q: scanner reads it, decoder rejects it: %v", raw, err)
	}
	if got := f.Response(); !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: scanner gives %+v, decoder %+v", raw, got, want)
	}
	return true
}

func TestRecordScannerAgreesWithDecoder(t *testing.T) {
	var s RecordScanner
	for _, c := range recordCases {
		if got := checkRecord(t, &s, c.raw); got != c.scanned {
			t.Errorf("%q: scanned %v, want %v", c.raw, got, c.scanned)
		}
	}
}

func FuzzRecordScanner(f *testing.F) {
	for _, c := range recordCases {
		f.Add(c.raw)
	}
	var s RecordScanner
	f.Fuzz(func(t *testing.T, raw string) {
		checkRecord(t, &s, raw)
	})
}

func BenchmarkRecordScanner(b *testing.B) {
	for _, c := range []struct{ name, raw string }{
		{"plain", `{"request_id":"flights-000.minimal_schema.r1.a1","output":"{\"action\":\"call_tool\",\"arguments\":{\"departureDate\":\"2027-07-14\",\"destination\":\"Auckland\",\"origin\":\"Osaka\",\"travellers\":4},\"missingFields\":[],\"reason\":\"\",\"tool\":\"search_flights\"}","model":"synth-mixed"}`},
		// a record as fbeval-mock writes it: metadata and run
		{"runner", `{"schema_version":"fbeval-response/v1","request_id":"flights-000.minimal_schema.r1.a1","case_id":"flights-000","output":"{\"action\":\"call_tool\",\"arguments\":{\"departureDate\":\"2027-07-14\",\"destination\":\"Auckland\",\"origin\":\"Osaka\",\"travellers\":4},\"missingFields\":[],\"reason\":\"\",\"tool\":\"search_flights\"}","provider":"fbeval-mock","model":"mock-garble","metadata":{"garble":"right"},"run":{"runner":"fbeval-mock","provider":"fbeval-mock","model":"mock-garble","study":"sha256:65ab798a5acfafcc","recipe":"sha256:0f28a999da7113fd"}}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			raw := []byte(c.raw)
			var s RecordScanner
			var f RecordFields
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				if !s.Scan(raw, &f) {
					b.Fatal("declined")
				}
			}
		})
	}
}
