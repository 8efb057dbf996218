package schemas

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/fbeval/fbeval/contract/strictjson"
	"github.com/fbeval/fbeval/contract/usage"
	"github.com/go-json-experiment/json/jsontext"
)

// Keywords are the keywords of JSON Schema 2020-12 (core, applicator,
// validation, unevaluated, meta-data, format and content vocabularies), and
// definitions, which older schemas use for $defs.
var Keywords = []string{"$schema", "$id", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$vocabulary", "$comment", "$defs", "definitions",
	"type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength", "minLength", "pattern",
	"maxItems", "minItems", "uniqueItems", "maxContains", "minContains", "maxProperties", "minProperties", "required", "dependentRequired",
	"allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "prefixItems", "items", "contains", "properties",
	"patternProperties", "additionalProperties", "propertyNames", "unevaluatedItems", "unevaluatedProperties",
	"title", "description", "default", "deprecated", "readOnly", "writeOnly", "examples", "format", "contentEncoding", "contentMediaType", "contentSchema"}

// otherKeywords are the keywords of the older drafts a schema may name in
// $schema, and OpenAPI's, which schemas copied from an API description carry:
// known words, never taken for a misspelt one.
var otherKeywords = []string{"id", "dependencies", "additionalItems", "$recursiveRef", "$recursiveAnchor",
	"example", "nullable", "discriminator", "xml", "externalDocs"}

// checking are the keywords whose absence changes what a schema accepts: the
// assertions and applicators, and format (which fbeval asserts). A misspelling
// of one of them is a key JSON Schema ignores, so the schema passes what its
// author meant it to refuse.
var checking = []string{"$ref", "$dynamicRef",
	"type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength", "minLength", "pattern",
	"maxItems", "minItems", "uniqueItems", "maxContains", "minContains", "maxProperties", "minProperties", "required", "dependentRequired",
	"allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "prefixItems", "items", "contains", "properties",
	"patternProperties", "additionalProperties", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "format"}

// subschema, subschemaMap and subschemaList say where a schema holds schemas:
// as a member's value, as the values of an object, as the items of an array
// (items and dependencies take either form in the older drafts).
var (
	subschema     = []string{"not", "if", "then", "else", "items", "contains", "additionalProperties", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "contentSchema", "additionalItems"}
	subschemaMap  = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"}
	subschemaList = []string{"allOf", "anyOf", "oneOf", "prefixItems", "items"}
)

// Misspelt finds the first key, in document order, of a schema object in doc
// (the document and every schema it holds) that is no keyword JSON Schema
// knows but a misspelling of one that checks (fromat, requried, Type,
// additionalproperties, minLenght): JSON Schema ignores a key it does not
// know, so the schema accepts what that keyword was written to refuse. It
// returns the key's JSON Pointer, the key and the keyword it misspells, or
// three "" when there is none. The keywords of the older drafts and of
// OpenAPI are never taken for one, nor is a key an extension names (x-...)
// but a misspelling of one of vocab, the keywords of a vocabulary the schema
// is read with (x-summ for x-sum).
func Misspelt(doc strictjson.Value, vocab ...string) (ptr, key, keyword string) {
	eachKey(doc, func(at jsontext.Pointer, _ strictjson.Value, k string, _ strictjson.Value) bool {
		if want := misspelling(k, vocab); want != "" {
			ptr, key, keyword = string(at.AppendToken(k)), k, want
			return true
		}
		return false
	})
	return ptr, key, keyword
}

// Formats are the values of format Draft 2020-12 defines, and the library's
// others (period, semver).
var Formats = []string{"date-time", "date", "time", "duration", "email", "idn-email", "hostname", "idn-hostname",
	"ipv4", "ipv6", "uri", "uri-reference", "iri", "iri-reference", "uuid", "uri-template", "json-pointer",
	"relative-json-pointer", "regex", "period", "semver"}

// otherFormats are the formats other tools write (OpenAPI's; ajv-formats',
// Zod's, NJsonSchema's identifiers, Pydantic's UUIDs): known words, never taken for a misspelt
// one.
var otherFormats = []string{"int32", "int64", "float", "double", "byte", "binary", "password",
	"url", "guid", "ulid", "cuid", "cuid2", "ksuid", "nanoid", "decimal", "char", "uuid1", "uuid3", "uuid4", "uuid5", "uuid6", "uuid7", "uuid8"}

// misspeltFormat returns the format v misspells: the same but for case and
// separators (date_time, DateTime, EMAIL), one cut short by a letter or two
// (dat, emai), one edit from one of five letters or more, two letters swapped
// (emial), or a four-letter one's last letter wrong (data); "" when none, or
// more than one is near. A format of one's own, near none, is no typo (json,
// ulid).
func misspeltFormat(v string) string {
	fold := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r == '-' || r == '_' || r == ' ' {
				return -1
			}
			return unicode.ToLower(r)
		}, s)
	}
	found := ""
	for _, f := range Formats {
		if fold(v) == fold(f) || len(v) >= 3 && len(f)-len(v) <= 2 && strings.HasPrefix(f, v) {
			if found != "" {
				return ""
			}
			found = f
		}
	}
	if found != "" {
		return found
	}
	if w := usage.Misspelling(v, Formats); w != "" && len(v) >= 5 && usage.EditDistance(strings.ToLower(v), w) == 1 {
		return w
	}
	for _, f := range Formats {
		// two letters swapped (emial, tiem), which Levenshtein counts as
		// two; a four-letter format's last letter wrong (data, tims), where
		// another's first is more likely a word of one's own (rate)
		if len(v) >= 4 && swapped(strings.ToLower(v), f) || len(v) == 4 && len(f) == 4 && strings.EqualFold(v[:3], f[:3]) {
			return f
		}
	}
	return ""
}

// MisspeltFormat finds the first format in doc whose value is no format
// fbeval knows but a misspelling of one (dat, date_time, Email): an unknown
// format is an annotation, so it checks nothing. A format of one's own, near
// none, is left alone. It returns the value's pointer, the value and the
// format it misspells, or three "".
func MisspeltFormat(doc strictjson.Value) (ptr, value, format string) {
	eachKey(doc, func(at jsontext.Pointer, obj strictjson.Value, k string, v strictjson.Value) bool {
		if k != "format" || v.Kind() != strictjson.String || slices.Contains(Formats, v.Str()) || slices.Contains(otherFormats, v.Str()) {
			return false
		}
		if want := misspeltFormat(v.Str()); want != "" {
			ptr, value, format = string(at.AppendToken(k)), v.Str(), want
			return true
		}
		return false
	})
	return ptr, value, format
}

// nullableTrue finds the first "nullable": true in doc's schema objects (a
// schema copied from an OpenAPI 3.0 description), whose author meant null
// to pass, which JSON Schema does not read: its pointer, or "".
func nullableTrue(doc strictjson.Value) string {
	ptr := ""
	eachKey(doc, func(at jsontext.Pointer, obj strictjson.Value, k string, v strictjson.Value) bool {
		if k == "nullable" && v.Kind() == strictjson.Bool && v.Bool() && typeExcludesNull(obj) {
			ptr = string(at.AppendToken(k))
		}
		return ptr != ""
	})
	return ptr
}

// typeExcludesNull reports whether a schema object says a type that is not
// null: with none (an anyOf, an enum, a $ref say what passes) nullable is
// left to them.
func typeExcludesNull(obj strictjson.Value) bool {
	t, ok := obj.Get("type")
	if !ok {
		return false
	}
	if t.Kind() == strictjson.String {
		return t.Str() != "null"
	}
	for _, m := range t.Items() {
		if m.Value.Kind() == strictjson.String && m.Value.Str() == "null" {
			return false
		}
	}
	return true
}

// eachKey calls f with each member name and value of every schema object of
// doc (the document and every schema it holds: subschema, subschemaMap,
// subschemaList), in document order, with the object and its pointer, until
// f returns true.
func eachKey(doc strictjson.Value, f func(at jsontext.Pointer, obj strictjson.Value, key string, value strictjson.Value) bool) {
	var walk func(v strictjson.Value, at jsontext.Pointer) bool
	walk = func(v strictjson.Value, at jsontext.Pointer) bool {
		if v.Kind() != strictjson.Object {
			return false
		}
		for _, m := range v.Members() {
			k := m.Key
			if f(at, v, k, m.Value) {
				return true
			}
			in := at.AppendToken(k)
			switch {
			case m.Value.Kind() == strictjson.Object && slices.Contains(subschemaMap, k):
				for _, s := range m.Value.Members() {
					if walk(s.Value, in.AppendToken(s.Key)) {
						return true
					}
				}
			case m.Value.Kind() == strictjson.Object && slices.Contains(subschema, k):
				if walk(m.Value, in) {
					return true
				}
			case m.Value.Kind() == strictjson.Array && slices.Contains(subschemaList, k):
				for i := range m.Value.Len() {
					if walk(m.Value.Index(i), in.AppendToken(fmt.Sprint(i))) {
						return true
					}
				}
			case strings.HasPrefix(k, "x-"):
				// a vocabulary keyword's "where" is a schema (the relations'
				// x-count), in one entry or a list of them
				entries := []strictjson.Value{m.Value}
				at := []jsontext.Pointer{in}
				if m.Value.Kind() == strictjson.Array {
					entries, at = nil, nil
					for i := range m.Value.Len() {
						entries, at = append(entries, m.Value.Index(i)), append(at, in.AppendToken(fmt.Sprint(i)))
					}
				}
				for i, e := range entries {
					if w, ok := e.Get("where"); ok && e.Kind() == strictjson.Object && walk(w, at[i].AppendToken("where")) {
						return true
					}
				}
			}
		}
		return false
	}
	walk(doc, "")
}

// Inactive finds the first key of a schema object in doc that is a keyword of
// a registered vocabulary (RegisterKeywords) whose meta-schema the document's
// $schema does not name (meta): JSON Schema then ignores it, so it checks
// nothing. It returns the key's pointer, the key and the meta-schema that
// declares it, or three "".
func Inactive(doc strictjson.Value, meta string) (ptr, key, url string) {
	eachKey(doc, func(at jsontext.Pointer, _ strictjson.Value, k string, _ strictjson.Value) bool {
		if !strings.HasPrefix(k, "x-") {
			return false
		}
		vocabularies.Range(func(u, kws any) bool {
			if u.(string) != meta && slices.Contains(kws.([]string), k) {
				ptr, key, url = string(at.AppendToken(k)), k, u.(string)
				return false
			}
			return true
		})
		return ptr != ""
	})
	return ptr, key, url
}

// misspelling returns the checking keyword k misspells (an x- key: one of
// vocab), or "" when k is a keyword, an extension's or near none: the same
// but for case, or as near as usage.Misspelling takes a typo (a keyword of
// three letters or fewer, not, if and $ref's kin, only for case, so that
// notes is no misspelt not).
func misspelling(k string, vocab []string) string {
	if w := unprefixed(k, vocab); w != "" {
		return w
	}
	if strings.HasPrefix(k, "x-") {
		if len(vocab) == 0 || slices.Contains(vocab, k) {
			return ""
		}
		// x- names an extension by convention: only a key one edit
		// away is taken for a misspelt keyword (x-summ; not x-order,
		// Cog's, for x-ordered)
		for _, w := range vocab {
			// two letters swapped (x-comapre): Levenshtein counts two
			if swapped(strings.ToLower(k), strings.ToLower(w)) {
				return w
			}
		}
		w := usage.Misspelling(k, vocab)
		if w == "" || usage.EditDistance(strings.ToLower(k), strings.ToLower(w)) > 1 {
			return ""
		}
		return w
	}
	if slices.Contains(Keywords, k) || slices.Contains(otherKeywords, k) {
		return ""
	}
	for _, w := range checking {
		// a plural keyword written singular (additionalProperty,
		// patternProperty, prefixItem): three edits, past Misspelling
		if len(w) > 5 && (strings.HasSuffix(w, "ies") && k == w[:len(w)-3]+"y" || strings.HasSuffix(w, "s") && k == w[:len(w)-1]) {
			return w
		}
	}
	w := usage.Misspelling(k, checking)
	if w == "" || len(w) <= 3 && !strings.EqualFold(k, w) {
		return ""
	}
	return w
}

// unprefixed returns the keyword of vocab (each "x-" and a name) that k writes
// without its "x-", or with "x_" or "x" for it, or with other separators or
// case (uniqueKeys, x_count, xcount, non-overlapping for x-nonOverlapping):
// JSON Schema ignores such a key, and the relation it meant checks nothing.
// "" when k is a keyword of vocab, or writes none.
func unprefixed(k string, vocab []string) string {
	if slices.Contains(vocab, k) {
		return ""
	}
	fold := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r == '-' || r == '_' {
				return -1
			}
			return unicode.ToLower(r)
		}, s)
	}
	name := k
	for _, p := range []string{"x-", "x_", "X-", "X_", "x", "X"} {
		if rest, ok := strings.CutPrefix(k, p); ok && rest != "" {
			name = rest
			break
		}
	}
	for _, w := range vocab {
		base, ok := strings.CutPrefix(w, "x-")
		if !ok {
			continue
		}
		if fold(name) == fold(base) || fold(k) == fold(base) {
			return w
		}
	}
	return ""
}

// vocabularies holds the keywords of each vocabulary a meta-schema declares
// (RegisterKeywords), by the meta-schema's URL.
var vocabularies sync.Map

// RegisterKeywords records the keywords of the vocabulary that the
// meta-schema at url declares (score/relations registers its relation
// keywords), so that in a schema whose $schema names it an x- key near one of
// them is taken for its misspelling (x-summ for x-sum), which would check
// nothing.
func RegisterKeywords(url string, keywords []string) {
	vocabularies.Store(url, slices.Clone(keywords))
}

// swapped reports whether a is b with two neighbouring bytes swapped.
func swapped(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:]
}

// misspeltError is Misspelt's finding as CompileValue returns it, at the key:
// with the keywords of the vocabulary the document's $schema names.
func misspeltError(doc strictjson.Value) error {
	var vocab []string
	meta := ""
	if m, ok := doc.Get("$schema"); ok {
		meta = strings.TrimSuffix(m.Str(), "#")
		if kws, ok := vocabularies.Load(meta); ok {
			vocab = kws.([]string)
		}
	}
	if ptr, key, url := Inactive(doc, meta); ptr != "" {
		return &MetaschemaError{Pointer: ptr, Msg: fmt.Sprintf("%s is a keyword of the vocabulary of %s, which this schema's $schema does not name, so it checks nothing: add \"$schema\": %q at the schema's top", key, url, url)}
	}
	if ptr := nullableTrue(doc); ptr != "" {
		return &MetaschemaError{Pointer: ptr, Msg: "nullable is OpenAPI's, which JSON Schema ignores, so null is refused here all the same: write the type with \"null\" in it ([\"string\", \"null\"]), or add {\"type\": \"null\"} to an anyOf"}
	}
	if ptr, v, want := MisspeltFormat(doc); ptr != "" {
		return &MetaschemaError{Pointer: ptr, Msg: fmt.Sprintf("%q is no format JSON Schema knows, so it checks nothing: did you mean %q?", v, want)}
	}
	ptr, key, want := Misspelt(doc, vocab...)
	if ptr == "" {
		return nil
	}
	if strings.HasPrefix(key, "x-") {
		return &MetaschemaError{Pointer: ptr, Msg: fmt.Sprintf("not a keyword of the vocabulary of %s, so it checks nothing: did you mean %q?", meta, want)}
	}
	if strings.HasPrefix(want, "x-") {
		// the relation's name without its "x-": JSON Schema ignores it
		return &MetaschemaError{Pointer: ptr, Msg: fmt.Sprintf("not a JSON Schema keyword nor one of the vocabulary of %s (whose keywords start \"x-\"), so it checks nothing: did you mean %q?", meta, want)}
	}
	return &MetaschemaError{Pointer: ptr, Msg: fmt.Sprintf("not a JSON Schema keyword, so it checks nothing: did you mean %q? (a keyword of your own starts \"x-\")", want)}
}

// composing are the keywords by which a schema's fields come from elsewhere
// than its own properties.
var composing = []string{"allOf", "anyOf", "oneOf", "$ref", "$dynamicRef", "if", "then", "else", "dependentSchemas", "dependencies", "patternProperties"}

// Properties lists the properties a schema document's top level names, in its
// order, when those are all its fields: nil when it names none (a schema of
// no properties, or not an object, or no JSON), or when it also takes fields
// by composition (allOf, $ref, if/then, patternProperties: composing).
func Properties(data []byte) []string {
	doc, err := strictjson.Parse(string(data))
	if err != nil {
		return nil
	}
	return PropertiesOf(doc)
}

// PropertiesOf is Properties of a schema document already read. A document
// whose top level is a $ref to a definition of its own gives that
// definition's properties (FieldsAt).
func PropertiesOf(doc strictjson.Value) []string {
	_, doc = FieldsAt(doc)
	for _, k := range composing {
		if _, ok := doc.Get(k); ok {
			return nil
		}
	}
	props, ok := doc.Get("properties")
	if !ok || props.Kind() != strictjson.Object || props.Len() == 0 {
		return nil
	}
	names := make([]string, 0, props.Len())
	for _, m := range props.Members() {
		names = append(names, m.Key)
	}
	return names
}
