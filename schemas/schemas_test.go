package schemas

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/contract"
)

// The schemas every fbeval build publishes (the contract and context schemas are
// written elsewhere and checked when present).
var published = []string{
	"coglang-generation-eval-fixture",
	"coglang-generation-eval-request",
	"coglang-generation-eval-request-batch",
	"coglang-generation-eval-response",
	"coglang-generation-eval-response-batch",
	"coglang-generation-eval-result",
	"fbeval-case-result",
	"fbeval-report",
	"fbeval-request",
	"fbeval-request-batch",
	"fbeval-response",
	"fbeval-response-batch",
	"fbeval-study",
	"fbeval-toolcall-case",
}

func TestNames(t *testing.T) {
	names := Names()
	if !slices.IsSorted(names) {
		t.Errorf("Names() not sorted: %v", names)
	}
	for _, want := range published {
		if !slices.Contains(names, want) {
			t.Errorf("schema %s is not embedded", want)
		}
	}
	for _, bad := range []string{"", "nope", "../schemas", "fbeval-study.schema.json", "/fbeval-study"} {
		if _, ok := Get(bad); ok {
			t.Errorf("Get(%q) found something", bad)
		}
	}
}

func TestEverySchemaCompiles(t *testing.T) {
	if _, err := NewValidator(); err != nil {
		t.Fatal(err)
	}
	c := Compiler()
	for _, name := range Names() {
		if _, err := c.Compile(URL(name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestSchemaDocumentation checks each schema's $id, draft, and that the schema and
// every property it declares, at any depth, have a title and a description.
func TestSchemaDocumentation(t *testing.T) {
	for _, name := range Names() {
		data, _ := Get(name)
		var doc map[string]any
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if doc["$id"] != URL(name) {
			t.Errorf("%s: $id is %v, want %s", name, doc["$id"], URL(name))
		}
		if doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s: $schema is %v", name, doc["$schema"])
		}
		for _, key := range []string{"title", "description"} {
			if s, _ := doc[key].(string); s == "" {
				t.Errorf("%s: no %s", name, key)
			}
		}
		type item struct {
			path string
			v    any
		}
		stack := []item{{"#", doc}}
		for len(stack) > 0 {
			it := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			switch v := it.v.(type) {
			case map[string]any:
				if props, ok := v["properties"].(map[string]any); ok && !strings.Contains(it.path, "/if") && !strings.Contains(it.path, "Of/") && !strings.Contains(it.path, "/then") && !strings.Contains(it.path, "/else") {
					for p, ps := range props {
						m, _ := ps.(map[string]any)
						for _, key := range []string{"title", "description"} {
							if s, _ := m[key].(string); s == "" {
								t.Errorf("%s: property %s/properties/%s has no %s", name, it.path, p, key)
							}
						}
					}
				}
				for k, sub := range v {
					stack = append(stack, item{it.path + "/" + k, sub})
				}
			case []any:
				for _, sub := range v {
					stack = append(stack, item{it.path + "/[]", sub})
				}
			}
		}
	}
}

func TestForVersion(t *testing.T) {
	tests := map[string]string{
		contract.StudyV1:              "fbeval-study",
		contract.RequestV1:            "fbeval-request",
		contract.RequestBatchV1:       "fbeval-request-batch",
		contract.ResponseV1:           "fbeval-response",
		contract.ResponseBatchV1:      "fbeval-response-batch",
		contract.CaseResultV1:         "fbeval-case-result",
		contract.ReportV1:             "fbeval-report",
		contract.CogLangFixture:       "coglang-generation-eval-fixture",
		contract.CogLangResult:        "coglang-generation-eval-result",
		contract.CogLangRequestBatch:  "coglang-generation-eval-request-batch",
		contract.CogLangRequest:       "coglang-generation-eval-request",
		contract.CogLangResponseBatch: "coglang-generation-eval-response-batch",
		contract.CogLangResponse:      "coglang-generation-eval-response",
	}
	if _, ok := Get("fbeval-contract"); ok {
		tests[contract.ContractV1] = "fbeval-contract"
	}
	for version, want := range tests {
		if got, ok := ForVersion(version); !ok || got != want {
			t.Errorf("ForVersion(%q) = %q, %v; want %q", version, got, ok, want)
		}
	}
	for _, bad := range []string{"", "fbeval-request/v2", "fbeval-request", "coglang-generation-eval-response/v0.2"} {
		if got, ok := ForVersion(bad); ok {
			t.Errorf("ForVersion(%q) = %q, want none", bad, got)
		}
	}
}

func TestLoaderRefusesOtherReferences(t *testing.T) {
	tmp := filepath.Join(t.TempDir(), "other.json")
	if err := os.WriteFile(tmp, []byte(`{"type": "string"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{
		"https://example.com/other.schema.json",
		BaseURL + "missing.schema.json",
		"file://" + tmp,
	} {
		c := Compiler()
		doc := map[string]any{"$ref": ref}
		if err := c.AddResource("https://fbeval.dev/test/root.json", doc); err != nil {
			t.Fatal(err)
		}
		_, err := c.Compile("https://fbeval.dev/test/root.json")
		if err == nil {
			t.Errorf("$ref %s compiled", ref)
			continue
		}
		if ref != BaseURL+"missing.schema.json" && !strings.Contains(err.Error(), "refused") {
			t.Errorf("$ref %s: error does not say it was refused: %v", ref, err)
		}
	}
	// embedded schemas resolve across files
	c := Compiler()
	doc := map[string]any{"$ref": URL("fbeval-response")}
	if err := c.AddResource("https://fbeval.dev/test/root.json", doc); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Compile("https://fbeval.dev/test/root.json"); err != nil {
		t.Errorf("reference to an embedded schema: %v", err)
	}
}

func TestFormatsAsserted(t *testing.T) {
	c := Compiler()
	if err := c.AddResource("https://fbeval.dev/test/date.json", map[string]any{"type": "string", "format": "date"}); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("https://fbeval.dev/test/date.json")
	if err != nil {
		t.Fatal(err)
	}
	if s.Validate("2027-02-30") == nil {
		t.Error("format date not asserted")
	}
	if err := s.Validate("2027-02-28"); err != nil {
		t.Errorf("valid date rejected: %v", err)
	}
}
