package schemas

import (
	"errors"
	"fmt"
	"strings"

	"github.com/fbeval/fbeval/contract"
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
		var se *strictjson.SyntaxError
		if errors.As(err, &se) {
			// at its line and column in the file, and what an editor did, said
			msg := se.Msg
			if hint := contract.NotJSON(data, int64(se.Offset)); hint != "" {
				msg = hint
			}
			rec := &contract.Record{Line: 1, Col: 1, Raw: data}
			return nil, doc, rec.Errorf(int64(se.Offset), "schema: invalid JSON: %s", msg)
		}
		return nil, doc, fmt.Errorf("schema: %w", err)
	}
	s, err := CompileValue(doc, exts...)
	var me *MetaschemaError
	if errors.As(err, &me) {
		// at the mistake's line and column in the file
		rec := &contract.Record{Line: 1, Col: 1, Raw: data}
		return s, doc, rec.Errorf(contract.PointerOffset(data, me.Pointer), "%s", me.Error())
	}
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
		return nil, CompileError(err)
	}
	if err := misspeltError(doc); err != nil {
		return nil, err
	}
	return s, nil
}

// MetaschemaError is a schema that is not one: the first mistake the
// metaschema finds, at its pointer into the schema document.
type MetaschemaError struct {
	Pointer string // RFC 6901, "" for the document
	Msg     string
}

func (e *MetaschemaError) Error() string {
	ptr := e.Pointer
	if ptr == "" {
		ptr = "(root)"
	}
	return "schema: " + ptr + ": " + e.Msg
}

// CompileError is the one-line error of a schema that a compiler of the one
// configuration did not compile (err from its Compile): for one the
// metaschema refuses, a *MetaschemaError with its first mistake (Reasons),
// where the library writes its whole tree ("'allOf' failed - at ...: 'anyOf'
// failed - ...") and the document's internal URL.
func CompileError(err error) error {
	// a vocabulary's own mistake, placed (score/relations')
	var placed interface {
		SchemaPointer() string
		Reason() string
	}
	if errors.As(err, &placed) {
		return &MetaschemaError{Pointer: placed.SchemaPointer(), Msg: placed.Reason()}
	}
	var sv *jsonschema.SchemaValidationError
	var ve *jsonschema.ValidationError
	if errors.As(err, &sv) && errors.As(sv.Err, &ve) {
		if rs := Reasons(ve); len(rs) > 0 {
			msg := rs[0].Msg
			if more := rs[1:]; len(more) > 0 {
				var at []string
				for _, r := range more[:min(len(more), 3)] {
					at = append(at, string(Pointer(r.Loc)))
				}
				if len(more) > 3 {
					at = append(at, "...")
				}
				msg += fmt.Sprintf(" (and %s, at %s)", contract.Plural(len(more), "more mistake", "more mistakes"), strings.Join(at, ", "))
			}
			return &MetaschemaError{Pointer: string(Pointer(rs[0].Loc)), Msg: msg}
		}
	}
	// the document's internal URL names nothing the user wrote: "#/defs/x"
	return fmt.Errorf("schema: %s", strings.ReplaceAll(oneLine(err), DocumentURL, ""))
}

// oneLine flattens a multi-line library error into one line.
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}
