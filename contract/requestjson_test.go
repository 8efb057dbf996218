package contract

import (
	"bytes"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// compactVia is what AppendCompact must append: the request's object written by
// AppendJSON.
func compactVia(t *testing.T, r *Request) []byte {
	t.Helper()
	b, err := AppendJSON(nil, r.Object(), Compact, 0)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestAppendCompact: AppendCompact writes AppendJSON's bytes for every shape of
// request, with a memo and without, and a memo gives the same bytes for a string
// met again, an equal string and one of the same length.
func TestAppendCompact(t *testing.T) {
	long := strings.Repeat("line \"quoted\"\n\t", 40)
	ref := "Equal[2, 2]"
	reqs := []Request{
		{SchemaVersion: RequestV1, RequestID: "r", Suite: SuiteToolcall},
		{SchemaVersion: RequestV1, RequestID: "r\u2028", CaseID: "c", Suite: SuiteToolcall, Study: "sha256:1", Arm: "no_schema", Repeat: 3, Attempt: 2, Seed: -7,
			Instructions: long, Prompt: long + "x", Messages: []Message{{"system", long}, {"user", long + "x"}, {"assistant", "{}"}, {"user", strings.Clone(long)}},
			ResponseFormat:  &ResponseFormat{Type: "json_schema", JSONSchema: JSONSchema{Name: "n", Schema: jsontext.Value(`{"type":"object"}`), Strict: true}},
			Tools:           []ToolDefinition{{Name: "t", Description: long, Parameters: jsontext.Value(`{}`)}, {Name: "u", Parameters: jsontext.Value(`true`), Strict: true}},
			ReferenceOutput: &ref},
		{SchemaVersion: CogLangRequest, CaseID: "FB-L1-001", Instructions: "é\x00<>&", Prompt: strings.Repeat("y", memoMin), Messages: []Message{}},
		{SchemaVersion: RequestV1, RequestID: "r", Prompt: strings.Repeat("z", memoMin), Messages: []Message{{"user", strings.Repeat("y", memoMin)}}},
		// a study's sampling settings, the temperature as Python writes a float
		{SchemaVersion: RequestV1, RequestID: "r", MaxTokens: new(512), Temperature: new(0.0)},
		{SchemaVersion: RequestV1, RequestID: "r", Temperature: new(1e-7)},
	}
	var memo StringMemo
	for round := range 3 {
		for i := range reqs {
			want := compactVia(t, &reqs[i])
			if got := reqs[i].AppendCompact([]byte("x"), &memo); !bytes.Equal(got[1:], want) || got[0] != 'x' {
				t.Errorf("round %d, request %d with a memo:\n got %s\nwant %s", round, i, got[1:], want)
			}
			if got := reqs[i].AppendCompact(nil, nil); !bytes.Equal(got, want) {
				t.Errorf("request %d without a memo:\n got %s\nwant %s", i, got, want)
			}
		}
	}
}

// FuzzAppendCompact: for any texts, AppendCompact writes AppendJSON's bytes, the
// memo's copies included.
func FuzzAppendCompact(f *testing.F) {
	f.Add("instructions \"x\"\n", "prompt", "other", int64(3))
	f.Add(strings.Repeat("\\", 300), strings.Repeat("\x01", 300), strings.Repeat("é", 150), int64(-1))
	f.Fuzz(func(t *testing.T, a, b, c string, seed int64) {
		var memo StringMemo
		reqs := []Request{
			{SchemaVersion: RequestV1, RequestID: c, Seed: seed, Instructions: a, Prompt: b, Messages: []Message{{"system", a}, {"user", b}, {c, c}}},
			{SchemaVersion: RequestV1, RequestID: a, Instructions: b, Prompt: a, Messages: []Message{{"user", c}, {"user", b}}, Tools: []ToolDefinition{{Name: c, Description: a, Parameters: jsontext.Value(`{}`)}}},
		}
		for range 2 {
			for i := range reqs {
				if got, want := reqs[i].AppendCompact(nil, &memo), compactVia(t, &reqs[i]); !bytes.Equal(got, want) {
					t.Fatalf("request %d:\n got %q\nwant %q", i, got, want)
				}
			}
		}
	})
}
