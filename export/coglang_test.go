package export

import (
	"bytes"
	"os"
	"testing"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/fixtures"
	"github.com/fbeval/fbeval/fixtures/fixturetest"
)

func interopFixture(t *testing.T) (CogLangCases, int) {
	t.Helper()
	src := fixtures.CogLangSource{Name: fixturetest.Interop(t, "coglang", "generation_eval_minimal_v0_1.json")}
	n, _, err := CheckCogLangFixture(src)
	if err != nil {
		t.Fatal(err)
	}
	return CogLangCasesOf(src), n
}

// The JSONL export is byte-identical to the reference tool's, with and without
// reference expressions.
func TestCogLangJSONLMatchesReference(t *testing.T) {
	fx, _ := interopFixture(t)
	for _, tt := range []struct {
		file string
		ref  bool
	}{{"exported_requests.jsonl", false}, {"exported_requests_with_reference.jsonl", true}} {
		want, err := os.ReadFile(fixturetest.Interop(t, "coglang", tt.file))
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := WriteCogLangJSONL(&got, fx, tt.ref); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s: export differs from the reference tool's", tt.file)
		}
	}
}

// The batch export is the reference tool's batch byte for byte, but for the tool
// name, the fixture path and a final newline.
func TestCogLangBatchMatchesReference(t *testing.T) {
	fx, n := interopFixture(t)
	want, err := os.ReadFile(fixturetest.Interop(t, "coglang", "exported_request_batch.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := WriteCogLangBatch(&got, fx, n, "<absolute path of generation_eval_minimal_v0_1.json>", false); err != nil {
		t.Fatal(err)
	}
	text := bytes.Replace(got.Bytes(), []byte(`"tool": "fbeval"`), []byte(`"tool": "coglang"`), 1)
	if !bytes.Equal(bytes.TrimSuffix(text, []byte("\n")), want) {
		t.Errorf("batch export differs from the reference tool's:\n%s", text[:min(400, len(text))])
	}
}

func TestCogLangDefaultExportReadsBack(t *testing.T) {
	var buf bytes.Buffer
	fx := fixtures.DefaultCogLangFixture()
	if err := WriteCogLangJSONL(&buf, CogLangCasesOf(fixtures.DefaultCogLangSource()), true); err != nil {
		t.Fatal(err)
	}
	r := contract.NewReader("export", &buf, contract.ReadOptions{})
	n := 0
	for r.Scan() {
		req, err := contract.DecodeRequest(r.Record())
		if err != nil {
			t.Fatal(err)
		}
		if req.ReferenceOutput == nil || *req.ReferenceOutput != fx.Cases[n].ReferenceExpr {
			t.Fatalf("request %d lost its reference expression", n)
		}
		n++
	}
	if n != len(fx.Cases) || r.Err() != nil {
		t.Fatalf("read %d of %d requests: %v", n, len(fx.Cases), r.Err())
	}
}

// A fixture without cases is one empty line, as the reference prints it; a bad
// fixture is refused by the first pass.
func TestCogLangExportEdges(t *testing.T) {
	empty := fixtures.CogLangSource{Name: "e.json", Data: []byte(`{"schema_version": "coglang-generation-eval-fixture/v0.1", "cases": []}`)}
	var buf bytes.Buffer
	if err := WriteCogLangJSONL(&buf, CogLangCasesOf(empty), false); err != nil || buf.String() != "\n" {
		t.Errorf("empty fixture: %q %v", buf.String(), err)
	}
	bad := fixtures.CogLangSource{Name: "b.json", Data: []byte(`{"schema_version": "coglang-generation-eval-fixture/v0.1", "cases": [{"case_id": "a", "level": "L1", "prompt": "p", "reference_expr": "X"}, 7]}`)}
	if n, _, err := CheckCogLangFixture(bad); err == nil || err.Error() != "b.json:1:141: cases[1] must be an object, got a number" {
		t.Errorf("bad fixture: %d %v", n, err)
	}
}

// The text summary of the request batch is what the reference tool prints with
// --export-requests --format text, but for the tool name.
func TestCogLangSummaryMatchesReference(t *testing.T) {
	src := fixtures.DefaultCogLangSource()
	n, _, err := CheckCogLangFixture(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		file string
		ref  bool
	}{{"testdata/reference_summary.txt", false}, {"testdata/reference_summary_with_reference.txt", true}} {
		want, err := os.ReadFile(tt.file)
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := WriteCogLangSummary(&got, n, "fbeval_default_v0_1.json", tt.ref); err != nil {
			t.Fatal(err)
		}
		text := bytes.Replace(got.Bytes(), []byte("\ntool: fbeval\n"), []byte("\ntool: coglang\n"), 1)
		if !bytes.Equal(text, want) {
			t.Errorf("%s: the summary differs from the reference tool's:\n%s", tt.file, got.Bytes())
		}
	}
}
