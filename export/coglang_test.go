package export

import (
	"bytes"
	"os"
	"testing"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/fixtures"
	"github.com/fbeval/fbeval/fixtures/fixturetest"
)

func interopFixture(t *testing.T) *fixtures.CogLangFixture {
	t.Helper()
	fx, err := fixtures.LoadCogLangFixture(fixturetest.Interop(t, "coglang", "generation_eval_minimal_v0_1.json"))
	if err != nil {
		t.Fatal(err)
	}
	return fx
}

// The JSONL export is byte-identical to the reference tool's, with and without
// reference expressions.
func TestCogLangJSONLMatchesReference(t *testing.T) {
	fx := interopFixture(t)
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
	fx := interopFixture(t)
	want, err := os.ReadFile(fixturetest.Interop(t, "coglang", "exported_request_batch.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := WriteCogLangBatch(&got, fx, "<absolute path of generation_eval_minimal_v0_1.json>", false); err != nil {
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
	if err := WriteCogLangJSONL(&buf, fx, true); err != nil {
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
