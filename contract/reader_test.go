package contract

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

func readAll(t *testing.T, input string, opts ReadOptions) (shape Shape, got []string, err error) {
	t.Helper()
	r := NewReader("in.jsonl", strings.NewReader(input), opts)
	for r.Scan() {
		rec := r.Record()
		if rec.Err != nil {
			got = append(got, "ERR "+rec.Err.Error())
			continue
		}
		got = append(got, fmt.Sprintf("%d:%d %s", rec.Line, rec.Col, rec.Raw))
	}
	return r.Shape(), got, r.Err()
}

var batchOpts = ReadOptions{
	ListKeys: []string{"responses", "answers"},
	SingleRecord: func(names []string) bool {
		return slices.Contains(names, "case_id") && slices.Contains(names, "output")
	},
}

func TestReaderShapes(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		shape Shape
		want  []string
		err   string
	}{
		{"empty", "", ShapeJSONL, nil, ""},
		{"blank", "  \n\n \t\n", ShapeJSONL, nil, ""},
		{"jsonl", "{\"a\":1}\n\n  {\"b\":2}\n", ShapeJSONL, []string{`1:1 {"a":1}`, `3:3 {"b":2}`}, ""},
		{"jsonl crlf", "{\"a\":1}\r\n{\"b\":2}\r\n", ShapeJSONL, []string{`1:1 {"a":1}`, `2:1 {"b":2}`}, ""},
		{"jsonl no final newline", "{\"a\":1}\n{\"b\":2}", ShapeJSONL, []string{`1:1 {"a":1}`, `2:1 {"b":2}`}, ""},
		{"jsonl bad first line", "{\"a\":1]\n{\"b\":2}\n", ShapeJSONL, []string{`1:1 {"a":1]`, `2:1 {"b":2}`}, ""},
		{"list", "[\n {\"a\":1},\n {\"b\":2}\n]\n", ShapeList, []string{`2:2 {"a":1}`, `3:2 {"b":2}`}, ""},
		{"list trailing data", "[{\"a\":1}] x", ShapeList, []string{`1:2 {"a":1}`}, "in.jsonl:1:11: unexpected data after the JSON document"},
		{"pretty records one after another", "{\n  \"case_id\": \"x\",\n  \"output\": \"y\"\n}\n{\n  \"case_id\": \"z\",\n  \"output\": \"w\"\n}\n", ShapeObject, nil, "in.jsonl:5:1: another JSON object follows the first: records pretty-printed one after another (as jq writes them without -c) are not read; give one record a line (jq -c), a JSON list or a batch object"},
		// a byte no value starts with where an element begins is said there,
		// not as a missing comma at the element after it
		{"list stray byte first", "[\f{\"a\":1}]", ShapeList, nil, `in.jsonl:1:2: invalid JSON: invalid character '\f' at start of value`},
		{"list comma first", "[,{\"a\":1}]", ShapeList, nil, "in.jsonl:1:2: invalid JSON: invalid character ',' at start of value"},
		{"list two commas", "[{\"a\":1},,{\"b\":2}]", ShapeList, []string{`1:2 {"a":1}`}, "in.jsonl:1:10: invalid JSON: invalid character ',' at start of value"},
		{"list truncated", "[{\"a\":1},\n{\"b\":", ShapeList, []string{`1:2 {"a":1}`}, "truncated"},
		{"single record", "{\"case_id\": \"x\", \"output\": \"y\"}\n", ShapeObject, []string{`1:1 {"case_id": "x", "output": "y"}`}, ""},
		{"batch", "{\n  \"schema_version\": \"v\",\n  \"responses\": [\n    {\"a\": 1}\n  ]\n}\n", ShapeObject, []string{`4:5 {"a": 1}`}, ""},
		{"batch one line", `{"answers": [{"a": 1}, {"b": 2}]}`, ShapeObject, []string{`1:14 {"a": 1}`, `1:24 {"b": 2}`}, ""},
		// a batch object on one line, then a record: it was read as JSON
		// lines, the batch one rejected line and its records not scored
		{"batch one line then more", "{\"schema_version\":\"fbeval-response-batch/v1\",\"responses\":[{\"a\":1}]}\n\n  {\"b\":2}\n", ShapeJSONL, nil, "in.jsonl:3:3: more follows the batch object of line 1 (fbeval-response-batch/v1), which is a whole file: give the records one a line (JSONL), or all in the batch object's list"},
		// the first list is read as it comes; the second ends the reading
		{"batch with both lists", `{"answers": [{"a": 1}], "responses": [{"b": 2}]}`, ShapeObject, []string{`1:14 {"a": 1}`}, `in.jsonl:1:13: the object holds both "responses" and "answers"`},
		{"batch with both lists, the preferred one first", `{"responses": [{"b": 2}], "answers": [{"a": 1}]}`, ShapeObject, []string{`1:16 {"b": 2}`}, `in.jsonl:1:38: the object holds both "responses" and "answers"`},
		// a list given twice (Python's json keeps the last, other readers the
		// first): said, on one line as on several (one line was read as one
		// JSONL record, "a response record needs case_id")
		{"batch with a list twice, one line", `{"responses": [{"a": 1}], "responses": [{"b": 2}]}`, ShapeObject, []string{`1:16 {"a": 1}`}, `in.jsonl:1:27: the object holds "responses" twice: keep the records in one list`},
		{"batch with a list twice", "{\"responses\": [{\"a\": 1}],\n\"responses\": []}", ShapeObject, []string{`1:16 {"a": 1}`}, `in.jsonl:2:1: the object holds "responses" twice: keep the records in one list`},
		{"batch with both, the other no list", "{\"answers\": 5,\n \"responses\": [{\"b\": 2}]}", ShapeObject, []string{`2:16 {"b": 2}`}, `in.jsonl:1:13: the object holds both "responses" and "answers"`},
		{"batch header after the list", "{\"responses\": [{\"b\": 2}],\n \"schema_version\": \"v\"}", ShapeObject, []string{`1:16 {"b": 2}`}, ""},
		{"batch header broken after the list", "{\"responses\": [{\"b\": 2}],\n \"schema_version\": tru}", ShapeObject, []string{`1:16 {"b": 2}`}, "in.jsonl:2:23: invalid JSON"},
		{"batch name twice around the list", "{\"x\": 1, \"responses\": [{\"b\": 2}],\n \"x\": 2}", ShapeObject, []string{`1:24 {"b": 2}`}, `in.jsonl:2:2: invalid JSON: the member "x" is given twice in one object: give it once (JSON readers keep one or the other)`},
		{"batch that is one record too", "{\"responses\": [{\"b\": 2}], \"case_id\": \"x\", \"output\": \"y\"}", ShapeObject, []string{`1:16 {"b": 2}`}, `in.jsonl:1:1: the object is one record (it has the members of one) and holds a list of records in "responses"`},
		{"one record with a list", "{\"case_id\": \"x\", \"output\": \"y\",\n \"responses\": [{\"b\": 2}]}", ShapeObject, []string{"1:1 {\"case_id\": \"x\", \"output\": \"y\",\n \"responses\": [{\"b\": 2}]}"}, ""},
		{"batch list name escaped", `{"respons\u0065s": [{"b": 2}]}`, ShapeObject, []string{`1:21 {"b": 2}`}, ""},
		{"batch trailing comma", "{\n\"responses\": [{\"b\": 2}],\n}", ShapeObject, []string{`2:15 {"b": 2}`}, "in.jsonl:3:1: invalid JSON: expected a member name, found '}'"},
		{"batch missing colon", "{\n\"responses\" [{\"b\": 2}]}\n", ShapeObject, nil, "in.jsonl:2:13: invalid JSON: expected ':' after an object member name, found '['"},
		{"batch without list", `{"x": 1}` + "\n", ShapeObject, nil, `in.jsonl:1:1: a JSON object must be one record or hold the records in "responses" or "answers"`},
		{"batch list not a list", `{"responses": 3}`, ShapeObject, nil, `"responses" must be a JSON list`},
		{"bom", "\ufeff{\"a\":1}\n{}\n", ShapeJSONL, []string{`1:1 {"a":1}`, `2:1 {}`}, ""},
		{"scalar", "42\n", ShapeJSONL, []string{`1:1 42`}, ""},
		{"pretty object truncated", "{\n \"responses\": [\n", ShapeObject, nil, "truncated"},
		{"duplicate batch key", "{\"responses\": [], \"responses\": []}", ShapeObject, nil, `in.jsonl:1:19: the object holds "responses" twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			shape, got, err := readAll(t, tt.in, batchOpts)
			if shape != tt.shape {
				t.Errorf("shape = %v, want %v", shape, tt.shape)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("records:\n got %q\nwant %q", got, tt.want)
			}
			switch {
			case tt.err == "" && err != nil:
				t.Errorf("unexpected error %v", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Errorf("error = %v, want it to contain %q", err, tt.err)
			}
		})
	}
}

// TestRecordOffset: every record's Offset is where its bytes are in the input, in
// every shape, after a byte order mark, blank lines, CRLF line ends and a line over
// the limit, so the record can be read again from the input.
func TestRecordOffset(t *testing.T) {
	long := `{"x":"` + strings.Repeat("y", 600) + `"}`
	for _, in := range []string{
		"{\"a\":1}\n\n  {\"b\":2}  \n",
		"\ufeff{\"a\":1}\r\n\t{\"b\":2}\r\n{\"c\":3}",
		"\n \n{\"a\":1}\n" + long + "\n{\"c\":3}\n",
		"\ufeff [\n {\"a\":1},\r\n {\"b\":2}\n]\n",
		"\ufeff\n {\"case_id\": \"x\", \"output\": \"y\"}\r\n",
		"{\"schema_version\": \"v\",\r\n  \"responses\": [\r\n    {\"a\": 1},\r\n{\"b\": 2}]\r\n}\r\n",
		"\n  {\"responses\": [{\"a\": 1}, {\"b\": 2}]}",
		"{\n\"answers\": [{\"a\": 1}, {\"b\": 2}]}\n",
	} {
		r := NewReader("in", strings.NewReader(in), ReadOptions{ListKeys: []string{"responses", "answers"}, MaxLineBytes: 500, SingleRecord: batchOpts.SingleRecord})
		n := 0
		for r.Scan() {
			rec := r.Record()
			if rec.Err != nil {
				if !strings.HasPrefix(in[rec.Offset:], long) {
					t.Errorf("%q: the line over the limit is not at offset %d", in, rec.Offset)
				}
				continue
			}
			n++
			if end := rec.Offset + int64(len(rec.Raw)); rec.Offset < 0 || end > int64(len(in)) || in[rec.Offset:end] != string(rec.Raw) {
				t.Errorf("%q: record %d (%s) at offset %d", in, rec.Index, rec.Raw, rec.Offset)
			}
		}
		if r.Err() != nil || n < 1 {
			t.Errorf("%q: %d records, %v", in, n, r.Err())
		}
	}
}

func TestReaderLongLine(t *testing.T) {
	in := "{\"a\":1}\n{\"b\":\"" + strings.Repeat("x", 100) + "\"}\n{\"c\":3}\n"
	_, got, err := readAll(t, in, ReadOptions{MaxLineBytes: 50})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`1:1 {"a":1}`, "ERR in.jsonl:2:1: line is longer than 50 bytes (raise the limit with --max-line-bytes)", `3:1 {"c":3}`}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestRecordErrorf(t *testing.T) {
	r := Record{File: "f", Line: 3, Col: 5, Raw: []byte("{\n  \"a\": x}")}
	if got := r.Errorf(9, "bad").Error(); got != "f:4:8: bad" {
		t.Errorf("multi-line: %s", got)
	}
	r = Record{File: "f", Line: 3, Col: 2, Raw: []byte(`{"a": x}`), inline: true}
	if got := r.Errorf(6, "bad").Error(); got != "f:3:8: bad" {
		t.Errorf("inline: %s", got)
	}
}

func FuzzReader(f *testing.F) {
	for _, s := range []string{"", "{}\n", "[{}]", `{"responses":[{}]}`, "{\n", "[1,", "\ufeff{}", "{\"case_id\":1,\"output\":2}", "{\"responses\": [\r\n {\"a\": 1}]}", "\x1f\x8b\x08\x00", "\xef\xbb\xbf\x1f\x8b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		fuzzReader(t, in, batchOpts)
		checked := batchOpts
		checked.RecordsChecked = true
		fuzzReader(t, in, checked)
	})
}

// fuzzReader reads in with opts: every record placed and at its bytes, a whole
// file's records valid JSON unless the caller checks them, an error one line.
func fuzzReader(t *testing.T, in string, opts ReadOptions) {
	r := NewReader("fuzz", strings.NewReader(in), opts)
	n := 0
	for r.Scan() {
		n++
		if n > len(in)+1 {
			t.Fatalf("more records than bytes")
		}
		rec := r.Record()
		if rec.Line < 1 || rec.Col < 1 {
			t.Fatalf("record %d at %d:%d", rec.Index, rec.Line, rec.Col)
		}
		if rec.Err == nil && r.Shape() != ShapeJSONL && !opts.RecordsChecked && !jsontext.Value(rec.Raw).IsValid() {
			t.Fatalf("whole-file record is not valid JSON: %q", rec.Raw)
		}
		if rec.Err == nil && (rec.Offset < 0 || rec.Offset+int64(len(rec.Raw)) > int64(len(in)) || in[rec.Offset:rec.Offset+int64(len(rec.Raw))] != string(rec.Raw)) {
			t.Fatalf("record %d at offset %d is not the input's bytes there: %q", rec.Index, rec.Offset, rec.Raw)
		}
	}
	if err := r.Err(); err != nil {
		var ie *InputError
		if !errors.As(err, &ie) || ie.File != "fuzz" {
			t.Fatalf("scan error %T is not an *InputError of the file: %v", err, err)
		}
		if strings.ContainsAny(err.Error(), "\n\r") {
			t.Fatalf("scan error is not one line: %q", err)
		}
	}
}

// TestReaderLimits: the limit holds for every shape, and nothing over it is dropped
// without a word: a record over the limit is an error record at its position, and
// a document that cannot be read at all ends the scan with a located error.
func TestReaderLimits(t *testing.T) {
	long := `"` + strings.Repeat("x", 100) + `"`
	tests := []struct {
		name string
		in   string
		want []string
		err  string
	}{
		{"first line over the limit", `{"a":` + long + "}\n{\"c\":3}\n", []string{"ERR in.jsonl:1:1: line is longer than 50 bytes (raise the limit with --max-line-bytes)", `2:1 {"c":3}`}, ""},
		{"indented first line over the limit", "\n  {\"a\":" + long + "}\n{\"c\":3}\n", []string{"ERR in.jsonl:2:1: line is longer than 50 bytes (raise the limit with --max-line-bytes)", `3:1 {"c":3}`}, ""},
		{"one-line batch object over the limit", `{"responses":[{"a":` + long + "}]}\n", nil, "in.jsonl:1:1: one line of more than 50 bytes: a JSON object this large cannot be read (raise the limit with --max-line-bytes, or write JSONL)"},
		// a batch object's list is read element by element: over the limit is
		// an element, as in a list; what comes before the list is held
		{"batch object over the limit", "{\n\"responses\": [\n{\"a\":" + long + "}]}\n", []string{"ERR in.jsonl:3:1: a record longer than 50 bytes (raise the limit with --max-line-bytes)"}, ""},
		{"batch object header over the limit", "{\n\"x\": " + long + ",\n\"responses\": [{}]}\n", nil, "in.jsonl:1:1: a JSON object longer than 50 bytes cannot be read whole"},
		{"batch object member after the list over the limit", "{\n\"responses\": [{}],\n\"x\": " + long + "}\n", []string{`2:15 {}`}, "in.jsonl:3:6: a member of the object after its list of records is longer than 50 bytes (raise the limit with --max-line-bytes)"},
		{"batch object member name after the list over the limit", "{\n\"responses\": [{}],\n" + long + ": 1}\n", []string{`2:15 {}`}, "in.jsonl:3:1: a member of the object after its list of records is longer than 50 bytes"},
		{"list element over the limit", "[{\"a\":1},\n {\"b\":" + long + "},\n {\"c\":3}]", []string{`1:2 {"a":1}`, "ERR in.jsonl:2:2: a record longer than 50 bytes (raise the limit with --max-line-bytes)", `3:2 {"c":3}`}, ""},
		{"list element string over the limit", "[" + long + ",{}]", []string{"ERR in.jsonl:1:2: a record longer than 50 bytes (raise the limit with --max-line-bytes)", `1:105 {}`}, ""},
		{"NUL at the start", "\x00\x00\x00", nil, "in.jsonl:1:1: a NUL byte: this is not a JSON text file"},
		{"NUL after blank lines", "\n\n  \x00", nil, "in.jsonl:3:3: a NUL byte"},
		{"broken element", "[{\"a\":1},\n {\"b\":tru}]", []string{`1:2 {"a":1}`}, "in.jsonl:2:10: invalid JSON: invalid character '}' in literal true"},
		{"missing comma", "[{\"a\":1} {\"b\":2}]", []string{`1:2 {"a":1}`}, "in.jsonl:1:10: invalid JSON: expected ',' or ']' after a list element, found '{'"},
		{"bracket in a string", `[{"a":"]}"}, {"b":"\"]"}]`, []string{`1:2 {"a":"]}"}`, `1:14 {"b":"\"]"}`}, ""},
		{"endless NUL after a record", "{\"a\":1}\n" + strings.Repeat("\x00", 1000), []string{`1:1 {"a":1}`}, "in.jsonl:2: a NUL byte in a line longer than the limit"},
		{"endless NUL in the first line", "{" + strings.Repeat("\x00", 1000), nil, "in.jsonl:1: a NUL byte in a line longer than the limit"},
		{"scalars", `[1, "x", null, true]`, []string{`1:2 1`, `1:5 "x"`, `1:10 null`, `1:16 true`}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, got, err := readAll(t, tt.in, ReadOptions{ListKeys: []string{"responses"}, MaxLineBytes: 50})
			if !slices.Equal(got, tt.want) {
				t.Errorf("records:\n got %q\nwant %q", got, tt.want)
			}
			switch {
			case tt.err == "" && err != nil:
				t.Errorf("unexpected error %v", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Errorf("error = %v, want it to contain %q", err, tt.err)
			}
		})
	}
}

// TestReaderWhitespaceMemory: a list padded with megabytes of white space is read
// without holding the white space.
func TestReaderWhitespaceMemory(t *testing.T) {
	pad := strings.Repeat(" \n", 8<<20)
	in := "[" + pad + "{}" + pad + "," + pad + "{}" + pad + "]" + pad
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := NewReader("in.json", strings.NewReader(in), ReadOptions{})
	n := 0
	for r.Scan() {
		n++
	}
	runtime.ReadMemStats(&after)
	if r.Err() != nil || n != 2 {
		t.Fatalf("%d records, err %v", n, r.Err())
	}
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 4<<20 {
		t.Errorf("reading allocated %d bytes for 80 MiB of white space", grown)
	}
	if r.Lines() != 5*(8<<20) {
		t.Errorf("lines = %d", r.Lines())
	}
}

// TestReaderLastLineCutShort: a last line that ends inside a JSON value with no
// line end after it is a record error that says the file was cut short, with
// the reader's hint, where the value stops; a last line that is whole, or wrong
// where it stops, is read as any line is.
func TestReaderLastLineCutShort(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"{\"a\":1}\n{\"b\":\"tor", "in.jsonl:2:10: invalid JSON: the record ends inside a JSON value, on a last line with no line end: the file was cut short while it was written (hint)"},
		{"{\"a\":1}\n  {\"b\":[1, ", "in.jsonl:2:11: invalid JSON: the record ends inside a JSON value, on a last line with no line end: the file was cut short while it was written (hint)"},
		{"{\"a\":1}\n{\"b\":2}", ""},
		{"{\"a\":1}\n{\"b\":2}}", ""},
		{"{\"a\":1}\n{\"b\":\"tor\n", ""},
		// zeros a crash left: after the last line end, or after part of a record
		// (or a whole one whose line end was lost), at the first zero byte
		{"{\"a\":1}\n\x00\x00\x00", "in.jsonl:2:1: 3 zero bytes where a record should be, on a last line with no line end: the file was cut short while it was written (hint)"},
		{"{\"a\":1}\n{\"b\":\"tor\x00\x00", "in.jsonl:2:10: invalid JSON: the record ends in 2 zero bytes, on a last line with no line end: the file was cut short while it was written (hint)"},
		{"{\"a\":1}\n{\"b\":2}\x00", "in.jsonl:2:8: invalid JSON: the record ends in 1 zero byte, on a last line with no line end: the file was cut short while it was written (hint)"},
		// a zero byte elsewhere is invalid JSON, as any byte that does not belong
		{"{\"a\":1}\n\x00\x00\n{\"b\":2}\n", ""},
	} {
		rd := NewReader("in.jsonl", strings.NewReader(tc.in), ReadOptions{CutHint: "hint"})
		var got string
		for rd.Scan() {
			if err := rd.Record().Err; err != nil {
				got = err.Error()
			}
		}
		if got != tc.want {
			t.Errorf("%q: %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestReaderMarkMidFile: a byte order mark is read past at a file's start
// only; one that begins a later line (files joined with cat, each saved with
// its mark) makes that line's record an error that says so, where
// "must be a JSON object" said nothing of why. Each record is still read.
func TestReaderMarkMidFile(t *testing.T) {
	const want = "in.jsonl:%d:%d: the line begins with a UTF-8 byte order mark, which only a file's start may have (files joined with cat keep each one's): give the files on their own, or strip the marks (sed 's/^\\xEF\\xBB\\xBF//')"
	for _, tc := range []struct {
		in   string
		errs []string // by record
	}{
		{"\xEF\xBB\xBF{\"a\":1}\n{\"b\":2}\n", []string{"", ""}},
		{"{\"a\":1}\n\xEF\xBB\xBF{\"b\":2}\n{\"c\":3}\n", []string{"", fmt.Sprintf(want, 2, 1), ""}},
		{"\xEF\xBB\xBF{\"a\":1}\n  \xEF\xBB\xBF{\"b\":2}", []string{"", fmt.Sprintf(want, 2, 3)}},
		// inside a string, a mark is a character as any other
		{"{\"a\":\"\xEF\xBB\xBF\"}\n{\"b\":2}\n", []string{"", ""}},
	} {
		rd := NewReader("in.jsonl", strings.NewReader(tc.in), ReadOptions{})
		var got []string
		for rd.Scan() {
			msg := ""
			if err := rd.Record().Err; err != nil {
				msg = err.Error()
			}
			got = append(got, msg)
		}
		if rd.Err() != nil || !slices.Equal(got, tc.errs) {
			t.Errorf("%q: %q (%v), want %q", tc.in, got, rd.Err(), tc.errs)
		}
	}
}

// TestReaderLongDocumentSaysWhatItIs: a whole-file object over the limit that
// is no file of records (a report, a CogLang result) is named by its
// schema_version, as a short one is; a batch of records on one line over it
// is still the limit's error (one of several lines is read element by element:
// TestReaderLimits).
func TestReaderLongDocumentSaysWhatItIs(t *testing.T) {
	long := strings.Repeat(`"x", `, 100)
	for _, tc := range []struct{ in, want string }{
		{"{\n  \"schema_version\": \"fbeval-report/v1\",\n  \"rows\": [" + long + "\"x\"]\n}\n", "in.json:1:1: this is an fbeval report (fbeval-report/v1), not a file of records"},
		{"{\"schema_version\": \"coglang-generation-eval-result/v0.1\", \"cases\": [" + long + "\"x\"]}", "in.json:1:1: this is a CogLang result (coglang-generation-eval-result/v0.1), not a file of records"},
		{"{\"schema_version\": \"fbeval-response-batch/v1\", \"responses\": [" + long + "\"x\"]}", "in.json:1:1: one line of more than 200 bytes: a JSON object this large cannot be read"},
	} {
		rd := NewReader("in.json", strings.NewReader(tc.in), ReadOptions{ListKeys: []string{"responses"}, MaxLineBytes: 200})
		for rd.Scan() {
		}
		if err := rd.Err(); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%.60q: %v, want %q", tc.in, err, tc.want)
		}
	}
}

// TestReaderTextHint: an input that starts as no JSON value is given to
// TextHint, which may name it as one error at its first byte; JSON inputs never
// reach it, and an input it cannot name is read as JSON lines.
func TestReaderTextHint(t *testing.T) {
	var seen []string
	opts := ReadOptions{TextHint: func(head []byte) string {
		seen = append(seen, string(head))
		if strings.HasPrefix(string(head), "<?xml") {
			return "this is XML"
		}
		return ""
	}}
	for _, tc := range []struct{ in, wantErr, wantHead string }{
		{"\ufeff \n  <?xml version=\"1.0\"?>\n<testsuites/>\n", "in.jsonl:2:3: this is XML", "<?xml version=\"1.0\"?>\n<testsuites/>\n"},
		{"<?xml", "in.jsonl:1:1: this is XML", "<?xml"},
		{"plain text\n", "", "plain text\n"},
		{"{\"a\": 1}\n{\"a\": 2}\n", "", ""},
		{"[{\"a\": 1}]", "", ""},
		{"", "", ""},
	} {
		seen = nil
		rd := NewReader("in.jsonl", strings.NewReader(tc.in), opts)
		n := 0
		for rd.Scan() {
			n++
		}
		err := rd.Err()
		switch {
		case tc.wantErr != "" && (err == nil || err.Error() != tc.wantErr || !errors.Is(err, ErrWrongFile)):
			t.Errorf("%q: error %v, want %q (ErrWrongFile)", tc.in, err, tc.wantErr)
		case tc.wantErr != "" && n != 0:
			t.Errorf("%q: %d records scanned before the error", tc.in, n)
		case tc.wantErr == "" && err != nil:
			t.Errorf("%q: error %v", tc.in, err)
		}
		if tc.wantHead == "" && len(seen) > 0 {
			t.Errorf("%q: TextHint called with %q", tc.in, seen)
		}
		if tc.wantHead != "" && (len(seen) != 1 || seen[0] != tc.wantHead) {
			t.Errorf("%q: TextHint given %q, want %q", tc.in, seen, tc.wantHead)
		}
	}
	// the head is at most 4 KiB
	seen = nil
	rd := NewReader("in.jsonl", strings.NewReader(strings.Repeat("x", 10000)), opts)
	for rd.Scan() {
	}
	if len(seen) != 1 || len(seen[0]) != 4096 {
		t.Errorf("a long text: TextHint given %d heads (%.20q), want one of 4096 bytes", len(seen), seen)
	}
}

// FuzzReaderBatchObject: a batch object read member by member gives the
// elements of its list, in order, each at its offset, and its other members as
// the header, as the object parsed whole gives them; and the same object on one
// line, read whole, gives the same.
func FuzzReaderBatchObject(f *testing.F) {
	for _, s := range []string{
		"{\n  \"schema_version\": \"v\",\n  \"responses\": [\n    {\"a\": 1},\n    [\"]\", \"\\\\\"]\n  ],\n  \"x\": {\"y\": [1, {}]}\n}\n",
		"{\"answers\": [1, \"x\", null, {\"b\": \"\\u00e9\"}]}",
		"{\n\"respons\\u0065s\": [{}],\n\"n\": -1.5e3}",
		"{\n\"a\": \"é\", \"responses\": []}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		names, _, err := splitObject(jsontext.Value(in))
		if err != nil || !jsontext.Value(in).IsValid() || batchOpts.SingleRecord(names) {
			return
		}
		// the elements of the object's one list and its members, as its
		// text has them
		elements := func(text string) ([]string, map[string]jsontext.Value, bool) {
			_, members, err := splitObject(jsontext.Value(text))
			if err != nil {
				t.Fatal(err)
			}
			var list jsontext.Value
			lists := 0
			for _, key := range batchOpts.ListKeys {
				if v, ok := members[key]; ok {
					list, lists = v, lists+1
				}
			}
			if lists != 1 || list.Kind() != '[' {
				return nil, nil, false
			}
			var out []string
			d := jsontext.NewDecoder(strings.NewReader(string(list)))
			d.ReadToken()
			for d.PeekKind() != ']' {
				v, err := d.ReadValue()
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, string(v))
			}
			return out, members, true
		}
		if _, _, ok := elements(in); !ok {
			return
		}
		// on several lines and on one (a line break in a record's white
		// space is a space there)
		for _, text := range []string{in, strings.ReplaceAll(in, "\n", " ")} {
			want, members, _ := elements(text)
			r := NewReader("fuzz", strings.NewReader(text), batchOpts)
			var got []string
			for r.Scan() {
				rec := r.Record()
				if rec.Err != nil {
					t.Fatalf("%q: record error %v", text, rec.Err)
				}
				if text[rec.Offset:rec.Offset+int64(len(rec.Raw))] != string(rec.Raw) {
					t.Fatalf("%q: record %d at offset %d is not the input's bytes there", text, rec.Index, rec.Offset)
				}
				got = append(got, string(rec.Raw))
			}
			if r.Err() != nil || r.Shape() != ShapeObject || !slices.Equal(got, want) {
				t.Fatalf("%q: %v, shape %v, records %q, want %q", text, r.Err(), r.Shape(), got, want)
			}
			for _, n := range names {
				if slices.Contains(batchOpts.ListKeys, n) {
					continue
				}
				if h, ok := r.Header()[n]; !ok || !bytes.Equal(h, members[n]) {
					t.Fatalf("%q: header %q = %q, want %q", text, n, h, members[n])
				}
			}
		}
	})
}

// TestReaderLongBatchLine: a batch object on one line longer than the read
// buffer (json.dump without indent writes one so) is read member by member,
// its records one at a time, whatever the limit; a JSONL file whose first
// record is that long is still read as lines.
func TestReaderLongBatchLine(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"schema_version": "v", "respons\u0065s": [`)
	const n = 40000
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `{"i": %d}`, i)
	}
	b.WriteString("], \"tool\": \"x\"}\n")
	if b.Len() < 256<<10 {
		t.Fatalf("the line is %d bytes, not longer than the buffer", b.Len())
	}
	opts := batchOpts
	opts.MaxLineBytes = 1000
	r := NewReader("in.json", strings.NewReader(b.String()), opts)
	got := 0
	for r.Scan() {
		rec := r.Record()
		if rec.Err != nil || string(rec.Raw) != fmt.Sprintf(`{"i": %d}`, got) || rec.Line != 1 {
			t.Fatalf("record %d: %s at %d:%d (%v)", got, rec.Raw, rec.Line, rec.Col, rec.Err)
		}
		got++
	}
	if r.Err() != nil || got != n || r.Shape() != ShapeObject || string(r.Header()["tool"]) != `"x"` {
		t.Fatalf("%d records, shape %v, header %v, %v", got, r.Shape(), r.Header(), r.Err())
	}
	// a long first JSONL record: a line over the limit, and the next line read
	long := `{"output": "` + strings.Repeat("x", 300<<10) + `", "responses": 1}` + "\n{\"b\": 2}\n"
	_, lines, err := readAll(t, long, opts)
	if err != nil || len(lines) != 2 || !strings.HasPrefix(lines[0], "ERR in.jsonl:1:1: line is longer than 1000 bytes") || lines[1] != `2:1 {"b": 2}` {
		t.Fatalf("%q, %v", lines, err)
	}
}

// TestReaderRecordsChecked: with RecordsChecked, a list element that is broken
// JSON is handed over as a JSONL line is, for the caller to refuse, and the
// list read on; a break between elements still ends the scan.
func TestReaderRecordsChecked(t *testing.T) {
	opts := batchOpts
	opts.RecordsChecked = true
	for _, tt := range []struct {
		name, in string
		want     []string
		err      string
	}{
		{"broken element", "[{\"a\":1},\n {\"b\":tru},\n {\"c\":3}]", []string{`1:2 {"a":1}`, `2:2 {"b":tru}`, `3:2 {"c":3}`}, ""},
		{"broken element of a batch", "{\"responses\": [{\"a\":1},\n {\"b\":tru}]}", []string{`1:16 {"a":1}`, `2:2 {"b":tru}`}, ""},
		{"name twice in an element", "[{\"a\":1,\"a\":2}]", []string{`1:2 {"a":1,"a":2}`}, ""},
		{"missing comma", "[{\"a\":1} {\"b\":2}]", []string{`1:2 {"a":1}`}, "in.jsonl:1:10: invalid JSON: expected ',' or ']' after a list element, found '{'"},
		{"truncated", "[{\"a\":1},\n{\"b\":", []string{`1:2 {"a":1}`}, "truncated"},
		// a byte no value starts with, where an element begins: said there
		// (it was "expected ',' ... found '{'" at the element after it)
		{"stray byte", "[\f{\"a\":1}]", []string{"1:2 \f"}, `in.jsonl:1:2: invalid JSON: invalid character '\f' at start of value`},
		{"two commas", "[{\"a\":1},,{\"b\":2}]", []string{`1:2 {"a":1}`, `1:10 ,`}, "in.jsonl:1:10: invalid JSON: invalid character ',' at start of value"},
		{"stray character", "[{\"a\":1},\n\u201c{\"b\":2}]", []string{`1:2 {"a":1}`, "2:1 \u201c"}, "in.jsonl:2:1: invalid JSON: invalid character '\u201c' at start of value"},
		{"a word is an element", "[{\"a\":1}, nope, {\"b\":2}]", []string{`1:2 {"a":1}`, `1:11 nope`, `1:17 {"b":2}`}, ""},
	} {
		_, got, err := readAll(t, tt.in, opts)
		if !slices.Equal(got, tt.want) || (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: %q, %v; want %q, %q", tt.name, got, err, tt.want, tt.err)
		}
	}
}

// TestReaderLines: Lines counts physical lines in every shape alike, a last
// line without its line end included: a JSON list or batch object on one line
// with no final newline counted 0 lines, an indented one a line short, where
// JSON lines counted theirs.
func TestReaderLines(t *testing.T) {
	rec := `{"request_id":"a","output":"x"}`
	for _, tt := range []struct {
		name, in string
		want     int
	}{
		{"jsonl", rec + "\n" + rec + "\n", 2},
		{"jsonl, no last line end", rec + "\n" + rec, 2},
		{"list on one line", "[" + rec + "]", 1},
		{"list on one line, line end", "[" + rec + "]\n", 1},
		{"indented list", "[\n  " + rec + ",\n  " + rec + "\n]", 4},
		{"indented list, line end", "[\n  " + rec + ",\n  " + rec + "\n]\n", 4},
		{"batch object", "{\"responses\": [\n" + rec + "\n]}", 3},
		{"trailing blank lines", "[" + rec + "]\n\n\n", 3},
	} {
		r := NewReader("in", strings.NewReader(tt.in), ReadOptions{ListKeys: []string{"responses"}})
		for r.Scan() {
		}
		if r.Err() != nil || r.Lines() != tt.want {
			t.Errorf("%s: %d lines, err %v; want %d", tt.name, r.Lines(), r.Err(), tt.want)
		}
	}
}
