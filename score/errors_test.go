package score

import (
	"errors"
	"testing"

	"github.com/fbeval/fbeval/contract"
)

// TestErrorKinds: a malformed gate is a usage error and a file of the wrong kind is
// said to be one, whatever their messages say.
func TestErrorKinds(t *testing.T) {
	for _, g := range []string{"x>=", "x=>5", "x>=five", ">=5", "x", "x=5"} {
		_, err := ParseGate(g)
		if !errors.Is(err, contract.ErrUsage) {
			t.Errorf("ParseGate(%q) = %v, want a usage error", g, err)
		}
		// the gate it is about, as written, for a caller that names it
		// otherwise (by the flag it was made of)
		if ge, ok := errors.AsType[*GateError](err); !ok || ge.Gate != g {
			t.Errorf("ParseGate(%q) = %v, want the GateError of %q", g, err, g)
		}
	}
	tests := []struct {
		suite, raw string
	}{
		{contract.SuiteToolcall, `{"schema_version":"fbeval-request/v1","request_id":"a","messages":[]}`},
		{contract.SuiteToolcall, `{"case_id":"FB-L1-001","output":"Equal[1, 1]"}`},
	}
	for _, tt := range tests {
		rec := &contract.Record{File: "r.jsonl", Line: 4, Col: 1, Raw: []byte(tt.raw)}
		err := SniffRecord(rec, tt.suite)
		var ie *contract.InputError
		if !errors.Is(err, contract.ErrWrongFile) || !errors.As(err, &ie) || ie.Line != 4 {
			t.Errorf("SniffRecord(%s) = %v, want a wrong-file error at line 4", tt.raw, err)
		}
	}
}
