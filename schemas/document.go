package schemas

import (
	"fmt"
	"strings"

	"github.com/fbeval/fbeval/contract/strictjson"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// DocumentURL is where Compile places a schema document in its compiler. It is an
// identifier, never fetched.
const DocumentURL = "mem:///fbeval/schema.json"

// Compile compiles one self-contained schema document (a tool's reference or
// candidate schema), read strictly (strictjson.Parse), with the one configuration
// and the vocabularies of exts. Errors are one line that starts "schema: ".
func Compile(data []byte, exts ...Extension) (*jsonschema.Schema, strictjson.Value, error) {
	doc, err := strictjson.Parse(string(data))
	if err != nil {
		return nil, doc, fmt.Errorf("schema: %w", err)
	}
	s, err := CompileValue(doc, exts...)
	return s, doc, err
}

// CompileValue compiles a schema document already read; see Compile.
func CompileValue(doc strictjson.Value, exts ...Extension) (*jsonschema.Schema, error) {
	if doc.Kind() != strictjson.Object && doc.Kind() != strictjson.Bool {
		return nil, fmt.Errorf("schema: must be an object or a boolean, got %s", doc.Kind())
	}
	c := NewCompiler(exts...)
	if err := c.AddResource(DocumentURL, Exact(doc)); err != nil {
		return nil, fmt.Errorf("schema: %s", oneLine(err))
	}
	s, err := c.Compile(DocumentURL)
	if err != nil {
		return nil, fmt.Errorf("schema: %s", oneLine(err))
	}
	return s, nil
}

// oneLine flattens a multi-line library error into one line.
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}
