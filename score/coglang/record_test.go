package coglang

import (
	"bytes"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/fbeval/fbeval/contract/strictjson"
)

var scanCases = []struct {
	in     string
	accept bool // scanRecord reads it without the full decoder
}{
	{`{"case_id": "a", "output": "Equal[1, 1]"}`, true},
	{`{"schema_version":"coglang-generation-eval-response/v0.1","case_id":"FB-L1-001","output":"Equal[\"red\", \"blue\"]","provider":"p","model":"m"}`, true},
	{` { "case_id" : 7 , "output" : null , "text" : "x" } `, true},
	{`{"case_id": "a", "output": "x", "metadata": {"k": [1, 2.5e-3, true, false, null, {}, []]}}`, true},
	{`{"case_id": "a", "output": "x", "output": "y"}`, true},
	{`{"case_id": "a", "output": "é"}`, true},
	{`{}`, true},
	{`{"case_id": "a\\b\"c\/d\b\f\n\r\t", "output": "x"}`, true},
	{`{"case_id": "a", "output": "\u0041\ud83d\ude00"}`, true},
	{`{"case_id": "a", "out\u0070ut": "x"}`, true},
	{`{"case_id": "a", "output": "\u004"}`, false},
	{`{"case_id": "a", "output": "x"} {}`, false},
	{`{"case_id": "a", "output": tru}`, false},
	{`{"case_id": "a", "output": 01}`, false},
	{`{"case_id": "a", "output": 1.}`, false},
	{`{"case_id": "a", "output": "x",}`, false},
	{`{"case_id": "a" "output": "x"}`, false},
	{`{"case_id": "a", "output": ["x",]}`, false},
	{`{"case_id": "a", "output": {"k" 1}}`, false},
	{"{\"case_id\": \"a\", \"output\": \"\xff\"}", false},
	{"{\"case_id\": \"a\", \"output\": \"\t\"}", false},
	{`["a"]`, false},
	{``, false},
	{`{"case_id": "a", "output": "x", "run": {"runner": "fbeval-mock", "recipe": "crc32c:0000abcd"}}`, true},
	{`{"case_id": "a", "output": "x", "run": {"recipe": "crc32c:0000abcd"}, "run": 7}`, true},
	{`{"case_id": "a", "output": "x", "run": {"recipe": "crc32c:0000abcd",}}`, false},
}

// TestRecipe: the run member's recipe, as fbeval's runners write it, is read
// as Python reads the record (the last of a name wins); anything else is no
// recipe, and the record is not checked.
func TestRecipe(t *testing.T) {
	for _, tc := range []struct {
		run  string
		sum  uint32
		want bool
	}{
		{`{"runner":"fbeval-mock","study":"sha256:070d0ddfc0688ecf","recipe":"crc32c:682c51ad"}`, 0x682c51ad, true},
		{` { "recipe" : "crc32c:00000001" } `[1:], 1, true},
		{`{"recipe":"crc32c:00000001","recipe":"crc32c:00000002"}`, 2, true}, // the last wins
		{`{"recipe":"crc32c:00000001","x":{"recipe":"crc32c:00000002"}}`, 1, true},
		{``, 0, false},
		{`null`, 0, false},
		{`"crc32c:00000001"`, 0, false},
		{`{}`, 0, false},
		{`{"recipe":null}`, 0, false},
		{`{"recipe":1}`, 0, false},
		{`{"recipe":"sha256:0123456789abcdef"}`, 0, false},
		{`{"recipe":"crc32c:0000000\u0031"}`, 0, false}, // not as a runner writes it
		{`{"recipe":"CRC32C:00000001"}`, 0, false},
		{`{"re\u0063ipe":"crc32c:00000001"}`, 0, false},
	} {
		f := recordFields{run: jsontext.Value(tc.run)}
		recipe, _, _ := f.runMembers()
		sum, ok := recipeSum(recipe)
		if ok != tc.want || sum != tc.sum {
			t.Errorf("run %s: recipe %08x, %v; want %08x, %v", tc.run, sum, ok, tc.sum, tc.want)
		}
	}
}

func TestScanRecord(t *testing.T) {
	for _, tc := range scanCases {
		var fast, full recordFields
		ok := scanRecord([]byte(tc.in), &fast)
		if ok != tc.accept {
			t.Errorf("%s: scanRecord %v, want %v", tc.in, ok, tc.accept)
			continue
		}
		if ok {
			if err := decodeFields([]byte(tc.in), &full); err != nil {
				t.Errorf("%s: the full decoder rejects what scanRecord read: %v", tc.in, err)
			} else if !sameFields(&fast, &full) {
				t.Errorf("%s: scanRecord and the full decoder disagree", tc.in)
			}
		}
	}
}

func sameFields(a, b *recordFields) bool {
	if !bytes.Equal(a.caseID, b.caseID) || !bytes.Equal(a.version, b.version) || !bytes.Equal(a.run, b.run) || !bytes.Equal(a.model, b.model) || !bytes.Equal(a.finish, b.finish) {
		return false
	}
	for i := range a.outputs {
		if !bytes.Equal(a.outputs[i], b.outputs[i]) {
			return false
		}
	}
	return true
}

// FuzzScanRecord: whatever scanRecord reads, the full decoder reads the same way.
func FuzzScanRecord(f *testing.F) {
	for _, tc := range scanCases {
		f.Add([]byte(tc.in))
	}
	for _, tc := range decodeCases {
		f.Add([]byte(tc.in))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var fast, full recordFields
		if !scanRecord(raw, &fast) {
			if err := decodeFields(raw, &full); err == nil {
				t.Fatalf("scanRecord refused %q, which the full decoder reads", raw)
			}
			return
		}
		if err := decodeFields(raw, &full); err != nil {
			// only for what Python reads and jsontext refuses: a lone surrogate
			if _, lerr := strictjson.SkipValue(raw, strictjson.SkipSpace(raw, 0), recordMaxDepth, strictjson.RejectSurrogates); lerr != strictjson.ErrLoneSurrogate {
				t.Fatalf("scanRecord read %q, the full decoder says %v", raw, err)
			}
			return
		}
		if !sameFields(&fast, &full) {
			t.Fatalf("scanRecord and the full decoder disagree on %q", raw)
		}
		for _, v := range append([]jsontext.Value{fast.caseID, fast.version}, fast.outputs[:]...) {
			if len(v) == 0 || v.Kind() != '"' {
				continue
			}
			want, err := jsontext.AppendUnquote(nil, v)
			if err != nil {
				t.Fatalf("%s: %v", v, err)
			}
			if got := unquoteJSON(v); got != string(want) {
				t.Fatalf("unquoteJSON(%s) = %q, want %q", v, got, want)
			}
		}
	})
}
