package study

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"unsafe"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/contract/strictjson"
	"github.com/fbeval/fbeval/score"
	tc "github.com/fbeval/fbeval/score/toolcall"
)

// detailSamples are entries of every shape: outputs alone, provider errors, and
// errors with every field, values absent and present, nested details.
var detailSamples = []detail{
	{},
	{output: "I would call the tool."},
	{output: "", provider: &contract.ProviderError{Code: "rate_limit", Message: "slow down"}},
	{output: "{\"action\":\"refuse\"}\n\x00\xff", errors: []tc.Error{
		{Code: tc.CodeWrongAction, Path: "/action", Message: `action "refuse", expected "call_tool"`,
			Expected: strictjson.JSONText(`"call_tool"`), Actual: strictjson.JSONText(`"refuse"`)},
		{Code: tc.CodeJSONInvalid, Message: "unexpected end of JSON input"},
	}},
	{output: "{}", errors: []tc.Error{
		{Code: tc.CodeCandidateSchemaInvalid, Path: "/arguments", Keyword: "required", Message: "missing properties",
			Expected: strictjson.JSONText(""), Details: []tc.Error{
				{Code: tc.CodeSchemaInvalid, Path: "/arguments/x", Keyword: "type", Message: "want string", Actual: strictjson.JSONText("1")},
				{Code: tc.CodeSchemaInvalid, Path: "/arguments/y", Keyword: "minimum", Message: "below"},
			}},
	}},
}

func encodeDetail(d detail) []byte {
	return appendDetail(nil, []byte(d.output), d.provider, d.errors)
}

// TestDetailRoundTrip: an entry decodes to what was encoded, every field; with
// outputOnly, to its output and provider error alone; and a cut or extended
// entry is refused.
func TestDetailRoundTrip(t *testing.T) {
	for i, d := range detailSamples {
		b := encodeDetail(d)
		got, err := decodeDetail(b, false)
		if err != nil {
			t.Fatalf("sample %d: %v", i, err)
		}
		if !reflect.DeepEqual(got, d) {
			t.Errorf("sample %d: decoded %+v, want %+v", i, got, d)
		}
		short, err := decodeDetail(b, true)
		if err != nil || short.output != d.output || !reflect.DeepEqual(short.provider, d.provider) || short.errors != nil {
			t.Errorf("sample %d: output only: %+v, %v", i, short, err)
		}
		for n := range len(b) {
			if _, err := decodeDetail(b[:n], false); err == nil {
				t.Errorf("sample %d: cut to %d of %d bytes, decoded", i, n, len(b))
			}
		}
		if _, err := decodeDetail(append(b[:len(b):len(b)], 0), false); err == nil {
			t.Errorf("sample %d: a byte after the entry, decoded", i)
		}
	}
}

// FuzzDetailDecode: the spool decoder never panics on any bytes, and what it
// decodes encodes to an entry that decodes to the same.
func FuzzDetailDecode(f *testing.F) {
	for _, d := range detailSamples {
		f.Add(encodeDetail(d))
	}
	f.Add([]byte{0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Add([]byte{1, 0, 0, 0, 1, 0, 0, 0, 0, 2})
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := decodeDetail(b, false)
		if err != nil {
			return
		}
		again, err := decodeDetail(encodeDetail(d), false)
		if err != nil || !reflect.DeepEqual(again, d) {
			t.Fatalf("%q decodes to %+v, which encodes to %+v (%v)", b, d, again, err)
		}
		// lists taken from an arena (settledRange), after other lists, are the same
		var errs arena[tc.Error]
		errs.take(3)
		inArena, err := decodeDetailString(string(b), false, &errs)
		if err != nil || !reflect.DeepEqual(inArena, d) {
			t.Fatalf("%q decodes to %+v with an arena, %+v without (%v)", b, inArena, d, err)
		}
	})
}

// TestAttemptSlotSize: what scoring holds per attempt stays a small fixed slot.
func TestAttemptSlotSize(t *testing.T) {
	if n := unsafe.Sizeof(att{}); n > 64 {
		t.Errorf("an attempt's slot is %d bytes, want at most 64", n)
	}
}

// TestSpoolLeavesNoFile: the details file lives in TMPDIR, is gone from it as
// soon as it is made (so no exit, error or signal leaves it behind), and is
// closed by Close.
func TestSpoolLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	run := tcBenchRun(t)
	if _, err := run.Read(score.Source{Name: "r.jsonl", R: bytes.NewReader(tcMixed(t, 2000))}, score.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := run.Report(); err != nil {
		t.Fatal(err)
	}
	f := run.spool.f
	if f == nil {
		t.Fatal("the file has failures and no details were spooled")
	}
	if filepath.Dir(f.Name()) != dir {
		t.Errorf("spool %s, want it in TMPDIR %s", f.Name(), dir)
	}
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		t.Errorf("TMPDIR holds %s while scoring", left[0].Name())
	}
	run.Close()
	if _, err := f.Stat(); err == nil {
		t.Error("the spool is still open after Close")
	}
}
