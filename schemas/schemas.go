// Package schemas is fbeval's one home of JSON Schema. It owns:
//
//   - the JSON Schemas (Draft 2020-12) of every record and file fbeval reads or
//     writes, embedded in the binary, and the checking of contract files against
//     them: the engine behind `fbeval validate` and `fbeval schema`;
//   - the one compiler configuration every schema is compiled with (NewCompiler:
//     Draft 2020-12, formats asserted, references refused, format "date" and
//     regular expressions read as Python's jsonschema reads them), extended by
//     vocabularies such as score/relations' relation keywords (Extension);
//   - Compile, which compiles a tool's schema document read strictly;
//   - the allocation-free fast path that decides valid instances (Fast);
//   - the one flattener of jsonschema/v6 error trees (Leaves, Message) and JSON
//     Pointers built with jsontext.Pointer (Pointer).
//
// Each embedded schema is named after its version string without the version
// ("fbeval-request" for fbeval-request/v1) and has the $id BaseURL+NAME+".schema.json".
// Schemas refer to each other by $id only; nothing is ever fetched.
//
// Validating a file, each record against the schema its schema_version names:
//
//	v, err := schemas.NewValidator()
//	if err != nil {
//		return err
//	}
//	for _, p := range v.ValidateFile("responses.jsonl", data, schemas.Options{}) {
//		fmt.Fprintln(os.Stderr, p) // responses.jsonl:2:92: /latency_ms: got string, want null or number
//	}
//
// Records without a schema_version (a toolcall case, a bare response) need the
// schema named in Options.Schema.
//
// Compiling a tool's schema and deciding instances quickly:
//
//	s, _, err := schemas.Compile(data, relations.Vocabulary)
//	if err != nil {
//		return err // "schema: ..." on one line
//	}
//	fast := schemas.NewFast(s) // nil when the schema uses keywords it lacks
//	ok := fast != nil && fast.Valid(v) || fast == nil && s.Validate(schemas.Instance(v)) == nil
package schemas

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed *.schema.json
var files embed.FS

// BaseURL is the common prefix of every schema's $id. It is an identifier, not a
// location: schemas are served from the binary only.
const BaseURL = "https://fbeval.dev/schemas/"

const suffix = ".schema.json"

// Names returns the names of the embedded schemas, sorted.
func Names() []string {
	entries, _ := fs.Glob(files, "*"+suffix)
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e, suffix))
	}
	sort.Strings(names)
	return names
}

// Get returns the text of the schema called name.
func Get(name string) ([]byte, bool) {
	if name == "" || strings.ContainsAny(name, "/\\") {
		return nil, false
	}
	data, err := files.ReadFile(name + suffix)
	if err != nil {
		return nil, false
	}
	return data, true
}

// URL returns the $id of the schema called name.
func URL(name string) string { return BaseURL + name + suffix }

// versions maps each schema_version string to the schema that describes it. It is
// read from the schemas themselves (the const or enum of their schema_version
// property), so a schema added later is found without a table to keep in step.
var versions = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, name := range Names() {
		data, _ := Get(name)
		var doc struct {
			Properties struct {
				SchemaVersion struct {
					Const any   `json:"const"`
					Enum  []any `json:"enum"`
				} `json:"schema_version"`
			} `json:"properties"`
		}
		if json.Unmarshal(data, &doc) != nil {
			continue
		}
		sv := doc.Properties.SchemaVersion
		for _, v := range append([]any{sv.Const}, sv.Enum...) {
			if s, ok := v.(string); ok {
				m[s] = name
			}
		}
	}
	return m
})

// ForVersion returns the name of the schema for records whose schema_version is
// version (for example "fbeval-response-batch/v1" -> "fbeval-response-batch").
func ForVersion(version string) (name string, ok bool) {
	name, ok = versions()[version]
	return name, ok
}

// Compiler returns a compiler with the one configuration (see NewCompiler) that
// holds every embedded schema under its $id, so they resolve each other and nothing
// else. Compile a schema with c.Compile(schemas.URL(name)).
func Compiler() *jsonschema.Compiler {
	c := NewCompiler()
	for _, name := range Names() {
		data, _ := Get(name)
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			// embedded and tested: the compile below names the schema
			continue
		}
		if err := c.AddResource(URL(name), doc); err != nil {
			continue
		}
	}
	return c
}

// compiled holds every embedded schema, compiled once.
var compiled = sync.OnceValues(func() (map[string]*jsonschema.Schema, error) {
	c := Compiler()
	m := map[string]*jsonschema.Schema{}
	for _, name := range Names() {
		s, err := c.Compile(URL(name))
		if err != nil {
			return nil, fmt.Errorf("schema %s does not compile: %v", name, err)
		}
		m[name] = s
	}
	return m, nil
})
