package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/fbeval/fbeval/contract"
)

// Reports written by fbeval score (testdata/live_*.json: a toolcall report with a
// provider error, missing rows, a rejected line, prices and a gate; CogLang results
// in full and summary-only) read back into the model and are written again byte
// for byte: the model's types are the report's one definition.
func TestModelRoundTrip(t *testing.T) {
	for _, name := range []string{"live_toolcall.json", "live_coglang.json", "live_coglang_summary.json"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata", name)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := Load(path, data)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := WriteJSON(&b, doc); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b.Bytes(), data) {
				i := 0
				for i < min(b.Len(), len(data)) && b.Bytes()[i] == data[i] {
					i++
				}
				t.Fatalf("written again, the report differs at byte %d: %q, want %q", i, clip(b.String()[i:], 80), clip(string(data[i:]), 80))
			}
		})
	}
}

// Rows are spliced into the report one at a time, each compact on a line of its
// own; the rest is the report as one value would be written. For no rows, one and
// many.
func TestWriteJSONRows(t *testing.T) {
	out := "x"
	for _, rows := range [][]Row{nil, {}, {{CaseID: "a", Arm: "no_schema"}}, {{CaseID: "a", Output: &out}, {CaseID: "b", AttemptResults: []AttemptResult{{Attempt: 1}}}}} {
		r := &ToolcallReport{SchemaVersion: "fbeval-report/v1", Rows: rows, Cases: []CaseInfo{{CaseID: "a", Expected: jsontext.Value(`{"a":[1]}`)}}}
		var got bytes.Buffer
		if err := WriteJSON(&got, Doc{Kind: KindToolcall, Toolcall: r}); err != nil {
			t.Fatal(err)
		}
		head := *r
		head.Rows = nil
		want, err := contract.Marshal(&head, contract.PythonIndent)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) > 0 {
			lines := make([]string, len(rows))
			for i := range rows {
				line, err := contract.Marshal(&rows[i], contract.Compact)
				if err != nil {
					t.Fatal(err)
				}
				lines[i] = string(line)
			}
			want = bytes.Replace(want, []byte(`"rows": []`), []byte("\"rows\": [\n    "+strings.Join(lines, ",\n    ")+"\n  ]"), 1)
		}
		if got.String() != string(want)+"\n" {
			t.Errorf("%d rows:\n%s\nwant\n%s", len(rows), got.String(), want)
		}
		// The same rows from a source give the same bytes.
		src := *r
		src.Rows, src.RowSource = nil, sliceSeq(rows)
		var streamed bytes.Buffer
		if err := WriteJSON(&streamed, Doc{Kind: KindToolcall, Toolcall: &src}); err != nil {
			t.Fatal(err)
		}
		if streamed.String() != got.String() {
			t.Errorf("%d rows from a source:\n%s\nwant\n%s", len(rows), streamed.String(), got.String())
		}
	}
}

// A CaseResult line is written compact, with a provider error's two members and a
// judge error's six.
func TestWriteCaseResults(t *testing.T) {
	path, kw := "/arguments/x", "type"
	res := []CaseResult{{SchemaVersion: "fbeval-case-result/v1", CaseID: "c", Arm: "no_schema", Repeat: 1, RequestIDs: []string{"c.no_schema.r1.a1"},
		Attempts: []CaseAttempt{{Attempt: 1, Codes: []string{"PROVIDER_ERROR"}, Errors: []ErrorInfo{{Code: "PROVIDER_ERROR", Message: "rate_limit: slow"}}},
			{Attempt: 2, Codes: []string{"TYPE"}, Errors: []ErrorInfo{{Code: "TYPE", Path: &path, Keyword: &kw, Message: "m", Expected: jsontext.Value(`"integer"`), Actual: jsontext.Value("null")}}}}}}
	var b bytes.Buffer
	if err := WriteCaseResultRanges(&b, sliceRanges(res)); err != nil {
		t.Fatal(err)
	}
	want := `{"schema_version":"fbeval-case-result/v1","case_id":"c","domain":"","category":"","cluster":"","arm":"no_schema","repeat":1,"request_ids":["c.no_schema.r1.a1"],"first_pass_success":false,"final_success":false,"provider_error":false,"missing":false,"attempts":[{"attempt":1,"success":false,"codes":["PROVIDER_ERROR"],"errors":[{"code":"PROVIDER_ERROR","message":"rate_limit: slow"}]},{"attempt":2,"success":false,"codes":["TYPE"],"errors":[{"code":"TYPE","path":"/arguments/x","keyword":"type","message":"m","expected":"integer","actual":null}]}]}` + "\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
