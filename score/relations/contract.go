package relations

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/contract/strictjson"
	"github.com/fbeval/fbeval/contract/usage"
	"github.com/fbeval/fbeval/schemas"
)

// Contract is a parsed fbeval contract: a schema with relation keywords and optional
// bindings of output values to context facts.
type Contract struct {
	Name        string            // file name or label given to ParseContract
	ID          string            // the contract's id
	Version     string            // the contract's version
	Description string            // free text
	Bindings    map[string]string // output pointer -> fact pointer
	Hash        string            // sha256 (hex) of the canonical JSON: the identity
	Schema      any               // the schema as decoded, numbers as json.Number

	bindings []binding // sorted by output pointer
	sch      *jsonschema.Schema
	st       *runState
	mu       sync.Mutex // one check at a time: st holds the document being checked
}

type binding struct{ out, fact pointer }

// contractURL is where a contract's schema lives inside its own compiler.
const contractURL = "mem://fbeval/contract.json"

// LoadContract reads and parses a contract file.
func LoadContract(path string) (*Contract, error) {
	data, err := contract.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read contract: %v", err)
	}
	return ParseContract(path, data)
}

// decodeJSON decodes one strict JSON value: valid UTF-8, no duplicate member names,
// nothing after the value, numbers kept exact as json.Number. A text that is
// not one is a *syntaxError, or errNoValue when it holds nothing.
func decodeJSON(data []byte) (any, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	for n := 0; ; n++ {
		if _, err := dec.ReadToken(); err != nil {
			if errors.Is(err, io.EOF) && n == 0 {
				return nil, errNoValue
			}
			var se *jsontext.SyntacticError
			if !errors.As(err, &se) {
				return nil, fmt.Errorf("invalid JSON: %s", oneLine(strings.TrimPrefix(err.Error(), "jsontext: ")))
			}
			return nil, &syntaxError{data: data, off: se.ByteOffset, msg: syntaxMessage(data, se), end: errors.Is(se.Err, io.ErrUnexpectedEOF)}
		}
		if dec.StackDepth() == 0 {
			break // one whole value: the decoder would read another
		}
	}
	if off := dec.InputOffset(); len(bytes.TrimLeft(data[off:], " \t\r\n")) > 0 {
		off += int64(len(data[off:]) - len(bytes.TrimLeft(data[off:], " \t\r\n")))
		return nil, &syntaxError{data: data, off: off, msg: "text after the JSON value: give one JSON value"}
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("invalid JSON: %s", oneLine(err.Error()))
	}
	return v, nil
}

// errNoValue is decodeJSON's error for a text of white space or nothing.
var errNoValue = errors.New("invalid JSON: empty, no JSON value")

// syntaxError is a JSON syntax error of decodeJSON at offset off of data;
// fileError places it in its file. Its message (an output's INVALID_JSON) says
// where, as a toolcall output's JSON_INVALID does: "invalid JSON at line 1,
// column 7 (offset 6): ...".
type syntaxError struct {
	data []byte
	off  int64
	msg  string
	end  bool // the text ends inside a value
}

func (e *syntaxError) Error() string {
	msg := e.msg
	if e.end {
		msg = "the text ends inside a JSON value"
	}
	line, col := strictjson.LineCol(e.data, int(e.off))
	return fmt.Sprintf("invalid JSON at line %d, column %d (offset %d): %s", line, col, e.off, msg)
}

// syntaxMessage says what is wrong at a syntax error in data: what JSON does
// not allow there that a person's hand or Python's str() put there (a
// trailing comma, a byte order mark, single quotes: contract.NotJSON), or the
// library's words without its prefix and place, a repeated name named.
func syntaxMessage(data []byte, se *jsontext.SyntacticError) string {
	if hint := contract.NotJSON(data, se.ByteOffset); hint != "" {
		return hint
	}
	return oneLine(contract.SyntaxWords(se))
}

// otherFile refuses another of fbeval's files (a study, a report, responses:
// named by their schema_version) given as what (a contract, a context); own
// is the version of what, when it has one.
func otherFile(name string, data []byte, what, own string) error {
	if kind, v := contract.KindOf(data); kind != "" && v != own {
		return fmt.Errorf("%s: this is %s (%s), not %s: give a file of that kind (docs/contracts.md)", name, kind, v, what)
	}
	return nil
}

// fileError is the error of decoding the file name, whose text is data: a
// syntax error at its line and column, saying what a hand-edited file holds
// there that JSON does not allow (contract.NotJSON); others named with the file.
func fileError(name string, data []byte, err error) error {
	var se *syntaxError
	if errors.As(err, &se) {
		msg := se.msg
		if se.end {
			msg = "the file ends inside a JSON value"
		}
		rec := contract.Record{File: name, Line: 1, Col: 1, Raw: data}
		return rec.Errorf(se.off, "invalid JSON: %s", msg)
	}
	return fmt.Errorf("%s: %v", name, err)
}

// looksLikeSchema reports whether a document is a JSON Schema: it has the
// keywords one is made of, where a contract has none at its top.
func looksLikeSchema(obj map[string]any) bool {
	for _, k := range []string{"$schema", "type", "properties", "required", "$defs", "allOf", "anyOf", "oneOf"} {
		if _, ok := obj[k]; ok {
			return true
		}
	}
	return false
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// ParseContract parses a contract; name labels errors. Every keyword is checked as
// it compiles: a bad pointer, an unknown op or a bad expression is one error naming
// the keyword and its location in the schema.
func ParseContract(name string, data []byte) (*Contract, error) {
	if err := otherFile(name, data, "an fbeval contract ("+contract.ContractV1+")", contract.ContractV1); err != nil {
		return nil, err
	}
	doc, err := decodeJSON(data)
	if err != nil {
		return nil, fileError(name, data, err)
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: a contract must be a JSON object", name)
	}
	c := &Contract{Name: name, Bindings: map[string]string{}}
	allowed := map[string]bool{"schema_version": true, "id": true, "version": true, "description": true, "schema": true, "bindings": true}
	var unknown []string
	for k := range obj {
		if !allowed[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		rec := contract.Record{File: name, Line: 1, Col: 1, Raw: data}
		if _, versioned := obj["schema_version"]; !versioned && looksLikeSchema(obj) {
			return nil, rec.Errorf(0, "this is a JSON Schema, not an fbeval contract (%s): a contract holds a schema in \"schema\" beside its id and version (docs/contracts.md); fbeval check --schema FILE and fbeval fixtures probes --schema FILE take a schema alone", contract.ContractV1)
		}
		names := slices.Sorted(maps.Keys(allowed))
		return nil, rec.Errorf(contract.PointerOffset(data, string(schemas.Pointer([]string{unknown[0]}))), "unknown field %q (a contract's fields are %s)%s", unknown[0], strings.Join(names, ", "), usage.Suggest(unknown[0], names))
	}
	if sv, _ := obj["schema_version"].(string); sv != contract.ContractV1 {
		rec := contract.Record{File: name, Line: 1, Col: 1, Raw: data}
		if _, ok := obj["schema_version"]; !ok {
			return nil, rec.Errorf(0, "the contract has no schema_version: want %q", contract.ContractV1)
		}
		return nil, rec.Errorf(contract.PointerOffset(data, "/schema_version"), "schema_version must be %q (the version this fbeval reads), got %s", contract.ContractV1, contract.ShortLine(describe(obj["schema_version"])))
	}
	for _, f := range []struct {
		key string
		dst *string
		req bool
	}{{"id", &c.ID, true}, {"version", &c.Version, true}, {"description", &c.Description, false}} {
		raw, present := obj[f.key]
		s, ok := raw.(string)
		if (present && !ok) || (f.req && s == "") {
			return nil, fmt.Errorf("%s: %s must be a non-empty string", name, f.key)
		}
		*f.dst = s
	}
	c.Schema, ok = obj["schema"]
	if _, isObj := c.Schema.(map[string]any); !ok || !isObj {
		if _, isBool := c.Schema.(bool); !isBool {
			return nil, fmt.Errorf("%s: schema must be a JSON Schema object", name)
		}
	}
	if raw, ok := obj["bindings"]; ok {
		rec := contract.Record{File: name, Line: 1, Col: 1, Raw: data}
		m, ok := raw.(map[string]any)
		if !ok {
			return nil, rec.Errorf(contract.PointerOffset(data, "/bindings"), "bindings must be an object of pointers (output pointer: fact pointer)")
		}
		// in name order, each mistake at its place: the same one said first
		// on every run
		for _, out := range slices.Sorted(maps.Keys(m)) {
			at := contract.PointerOffset(data, string(schemas.Pointer([]string{"bindings", out})))
			fs, ok := m[out].(string)
			if !ok {
				return nil, rec.Errorf(at, "bindings %q must map to a pointer string (the fact's place in the context's facts, \"/customer/id\")", out)
			}
			op, err := parsePointer(out, false)
			if err != nil {
				return nil, rec.Errorf(at, "bindings: %v", err)
			}
			fp, err := parsePointer(fs, false)
			if err != nil {
				return nil, rec.Errorf(at, "bindings %q: %v", out, err)
			}
			c.Bindings[out] = fs
			c.bindings = append(c.bindings, binding{op, fp})
		}
		sort.Slice(c.bindings, func(i, j int) bool { return c.bindings[i].out.text < c.bindings[j].out.text })
	}
	canon, err := contract.Marshal(doc, contract.Compact)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	sum := sha256.Sum256(canon)
	c.Hash = hex.EncodeToString(sum[:])

	schemaDoc, _ := c.Schema.(map[string]any)
	c.st = &runState{schema: schemaDoc}
	comp, err := newCompiler(c.st, true)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if err := comp.AddResource(contractURL, c.Schema); err != nil {
		return nil, fmt.Errorf("%s: schema: %v", name, err)
	}
	c.sch, err = comp.Compile(contractURL)
	// a mistake in the schema, at its line and column in the file: the
	// relation keyword's own, the metaschema's first, or a keyword misspelt
	rec := contract.Record{File: name, Line: 1, Col: 1, Raw: data}
	at := func(ptr string) int64 { return contract.PointerOffset(data, "/schema"+ptr) }
	var ce *compileError
	var me *schemas.MetaschemaError
	switch {
	case errors.As(err, &ce):
		return nil, rec.Errorf(at(strings.TrimPrefix(ce.loc, "#")), "schema: %s", ce.Error())
	case err != nil && refError(data, err) != nil:
		// a $ref to another document, a $schema of no meta-schema: placed
		me := refError(data, err)
		return nil, rec.Errorf(at(me.Pointer), "%s", me.Error())
	case err != nil && errors.As(schemas.CompileError(err), &me):
		return nil, rec.Errorf(at(me.Pointer), "%s", me.Error())
	case err != nil:
		return nil, fmt.Errorf("%s: %s", name, strings.ReplaceAll(schemas.CompileError(err).Error(), contractURL, ""))
	}
	if doc, err := strictjson.Parse(string(data)); err == nil {
		schema, _ := doc.Get("schema")
		if ptr, _, want := schemas.Misspelt(schema, Keywords...); ptr != "" {
			return nil, rec.Errorf(at(ptr), "schema: %s: not a JSON Schema keyword nor a relation keyword, so it checks nothing: did you mean %q?", ptr, want)
		}
		if errors.As(schemas.ExpansionError(c.sch, contractURL), &me) {
			return nil, rec.Errorf(at(me.Pointer), "%s", me.Error())
		}
	}
	return c, nil
}

// refError is schemas.RefError of the contract's schema in data.
func refError(data []byte, err error) *schemas.MetaschemaError {
	doc, perr := strictjson.Parse(string(data))
	if perr != nil {
		return nil
	}
	schema, ok := doc.Get("schema")
	if !ok {
		return nil
	}
	return schemas.RefError(schema, err, contractURL)
}

type leaf struct {
	loc, keyword, msg string
	kind              jsonschema.ErrorKind
}

// flatten collects the failures under e, one per failing keyword. anyOf, oneOf and
// contains stay whole: their branches' failures are not each a reason.
func flatten(e *jsonschema.ValidationError, out []leaf) []leaf {
	for l := range schemas.Leaves(e, keptWhole) {
		k := schemas.AlternativesKind(l.ValidationError)
		out = append(out, leaf{
			loc:     locationPointer(l.InstanceLocation),
			keyword: strings.Join(k.KeywordPath(), "/"),
			msg:     schemas.Message(k),
			kind:    k,
		})
	}
	return out
}

// keptWhole: a relation failure is one reason, and so are anyOf, oneOf and
// contains, whatever failed in their branches.
func keptWhole(k jsonschema.ErrorKind) bool {
	if _, ok := k.(*relKind); ok {
		return true
	}
	switch strings.Join(k.KeywordPath(), "/") {
	case "anyOf", "oneOf", "contains":
		return true
	}
	return false
}

func asValidationError(err error) (*jsonschema.ValidationError, bool) {
	var ve *jsonschema.ValidationError
	ok := errors.As(err, &ve)
	return ve, ok
}
