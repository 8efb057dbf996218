package schemas

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/contract/strictjson"
	"github.com/go-json-experiment/json/jsontext"
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
		if me := RefError(doc, err, DocumentURL); me != nil {
			return nil, me
		}
		return nil, CompileError(err)
	}
	if err := misspeltError(doc); err != nil {
		return nil, err
	}
	if err := ExpansionError(s, DocumentURL); err != nil {
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

// RefError places err, a compiler's failure to load or resolve what the
// schema document doc (added at base) names, at its place in doc: a $schema
// of no meta-schema fbeval compiles, or a $ref that resolves nowhere or names
// another document (the library's words name its internal URL and say
// "failing loading"); nil for another error.
func RefError(doc strictjson.Value, err error, base string) *MetaschemaError {
	if me := unknownMetaschema(doc, err); me != nil {
		return me
	}
	return unresolvedRef(doc, err, base)
}

// unknownMetaschema is err, a compiler's failure to load a document, when the
// document is the meta-schema doc's $schema names: a draft fbeval does not
// compile (draft-03) or a URL of no meta-schema. The library's words were
// that schemas must be self-contained, which said nothing of the draft. Nil
// for another error.
func unknownMetaschema(doc strictjson.Value, err error) *MetaschemaError {
	var le *jsonschema.LoadURLError
	if !errors.As(err, &le) || doc.Kind() != strictjson.Object {
		return nil
	}
	for _, m := range doc.Members() {
		if m.Key != "$schema" || m.Value.Kind() != strictjson.String {
			continue
		}
		if strings.TrimSuffix(m.Value.Str(), "#") != strings.TrimSuffix(le.URL, "#") {
			return nil
		}
		return &MetaschemaError{Pointer: "/$schema", Msg: fmt.Sprintf("$schema %q is no meta-schema fbeval compiles: it compiles JSON Schema drafts 4, 6, 7, 2019-09 and 2020-12 (%q, the draft of a schema without $schema): name one of them, or leave $schema out", m.Value.Str(), "https://json-schema.org/draft/2020-12/schema")}
	}
	return nil
}

// unresolvedRef places err, a compiler's failure to resolve a $ref of doc, at
// the first $ref (in document order) that names what it could not find, and
// says what a $ref may name; nil for another error. The library's error names
// the document's internal URL (failing loading "mem:///fbeval/Person"),
// nothing the user wrote.
func unresolvedRef(doc strictjson.Value, err error, baseURL string) *MetaschemaError {
	var target, why string
	whole := false // the target is compared with its fragment
	var le *jsonschema.LoadURLError
	var pe *jsonschema.JSONPointerNotFoundError
	var ae *jsonschema.AnchorNotFoundError
	switch {
	case errors.As(err, &pe):
		target, whole, why = pe.URL, true, "names no place in this document"
	case errors.As(err, &ae):
		target, whole, why = ae.Reference, true, "names no anchor of this document"
	case errors.As(err, &le):
		target, why = le.URL, "names no schema of this document"
	default:
		return nil
	}
	base, _ := url.Parse(baseURL)
	var found string // the $ref's pointer
	var ref string
	var walk func(v strictjson.Value, at jsontext.Pointer)
	walk = func(v strictjson.Value, at jsontext.Pointer) {
		if found != "" {
			return
		}
		switch v.Kind() {
		case strictjson.Object:
			for _, m := range v.Members() {
				if m.Key == "$ref" && m.Value.Kind() == strictjson.String {
					if u, err := url.Parse(m.Value.Str()); err == nil {
						r := base.ResolveReference(u)
						if !whole {
							r.Fragment, r.RawFragment = "", ""
						}
						if r.String() == target {
							found, ref = string(at.AppendToken("$ref")), m.Value.Str()
							return
						}
					}
				}
				walk(m.Value, at.AppendToken(m.Key))
			}
		case strictjson.Array:
			for i := range v.Len() {
				walk(v.Index(i), at.AppendToken(strconv.Itoa(i)))
			}
		}
	}
	walk(doc, "")
	if found == "" {
		return nil
	}
	if u, _ := url.Parse(ref); le != nil && pe == nil && ae == nil && (u.IsAbs() || strings.HasSuffix(u.Path, ".json")) {
		return &MetaschemaError{Pointer: found, Msg: fmt.Sprintf("$ref %q names another document: refused, as a schema must be self-contained (no remote or file references; its definitions in $defs, named \"#/$defs/Name\")", ref)}
	}
	return &MetaschemaError{Pointer: found, Msg: fmt.Sprintf("$ref %q %s: a $ref names a place in it by a JSON Pointer (\"#/$defs/Name\") or a schema of it by the $id that schema gives itself; other files are not read", ref, why)}
}
