package runner

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/contract"
)

// TestAppendRecordLineBreaks: an answer holding the line breaks JSON leaves
// raw (U+2028, U+2029, U+0085) is written with their escapes, so the record
// stays one line for a reader that splits on them (the CogLang reference
// scorer's str.splitlines), and reads back the same.
func TestAppendRecordLineBreaks(t *testing.T) {
	answer := "Equal[1,\u2028 1]\u2029 and\u0085 more é"
	req := &contract.Request{RequestID: "FB-L1-001", CaseID: "FB-L1-001"}
	line, err := AppendRecord(nil, req, &Result{Output: &answer})
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{"\u2028", "\u2029", "\u0085"} {
		if strings.Contains(string(line), raw) {
			t.Errorf("%q raw in %s", raw, line)
		}
	}
	if !strings.Contains(string(line), `Equal[1,\u2028 1]\u2029 and\u0085 more é`) {
		t.Errorf("line %s", line)
	}
	var back struct {
		Output string `json:"output"`
	}
	if err := json.Unmarshal(line, &back); err != nil || back.Output != answer {
		t.Errorf("read back %q, %v", back.Output, err)
	}
	plain := "no breaks"
	if line, _ := AppendRecord([]byte("x"), req, &Result{Output: &plain}); !strings.HasPrefix(string(line), `x{`) {
		t.Errorf("prefix lost: %s", line)
	}
}
