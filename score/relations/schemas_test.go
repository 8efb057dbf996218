package relations

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/schemas"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// compileFileSchema compiles one of the embedded contract file schemas.
func compileFileSchema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	s, err := schemas.Compiler().Compile(schemas.URL(strings.TrimSuffix(name, ".schema.json")))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestExampleFilesMatchSchemas(t *testing.T) {
	contractSchema := compileFileSchema(t, "fbeval-contract.schema.json")
	contextSchema := compileFileSchema(t, "fbeval-context.schema.json")
	for _, name := range exampleNames {
		dir := filepath.Join("testdata", "examples", name)
		for file, sch := range map[string]*jsonschema.Schema{
			"contract.json": contractSchema, "context.json": contextSchema, "context-unapproved.json": contextSchema,
		} {
			data, err := os.ReadFile(filepath.Join(dir, file))
			if err != nil {
				t.Fatal(err)
			}
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			if err := sch.Validate(doc); err != nil {
				t.Errorf("%s/%s: %v", name, file, err)
			}
		}
	}
	// The schemas reject what the parsers reject.
	bad, _ := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(`{"schema_version":"fbeval-contract/v0","id":"x","version":"1","schema":{}}`)))
	if contractSchema.Validate(bad) == nil {
		t.Error("contract schema accepts a wrong schema_version")
	}
	bad, _ = jsonschema.UnmarshalJSON(bytes.NewReader([]byte(`{"version":1.5,"approved":true,"facts":{}}`)))
	if contextSchema.Validate(bad) == nil {
		t.Error("context schema accepts a fractional version")
	}
}
