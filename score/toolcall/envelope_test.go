package toolcall

import (
	"testing"

	"github.com/fbeval/fbeval/contract/strictjson"
)

// benchOutput is a typical clean output of a tool-calling model.
var benchOutput = `{"action": "call_tool", "tool": "search_hotels", "arguments": {"city": "Delhi", "checkIn": "2027-01-11", "checkOut": "2027-01-13", "guests": 3, "maxNightlyPrice": 6000}, "missingFields": [], "reason": "All details confirmed."}`

// FuzzEnvelope holds the envelope fast path to the envelope schema.
func FuzzEnvelope(f *testing.F) {
	for _, s := range []string{
		benchOutput,
		`{"action":"call_tool","tool":"search_hotels","arguments":{"city":"Goa","guests":2},"missingFields":[],"reason":""}`,
		`{"action":"refuse","tool":null,"arguments":{},"missingFields":["a","a"],"reason":"x","extra":1}`,
		`{"action":"ask","tool":1,"arguments":[],"missingFields":[1],"reason":null}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := strictjson.ParseDepth(s, 64)
		if err != nil {
			return
		}
		if fast, slow := envelopeOK(v), len(envelope().Validate(v)) == 0; fast != slow {
			t.Fatalf("envelope fast path %v, schema %v, for %s", fast, slow, strictjson.Canonical(v))
		}
	})
}
