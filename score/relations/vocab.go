package relations

import (
	"bytes"
	_ "embed"
	"strings"
	"sync"

	"github.com/fbeval/fbeval/schemas"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/message"
)

// VocabularyURL identifies the relations vocabulary in a meta-schema's $vocabulary.
const VocabularyURL = "https://fbeval.dev/vocab/relations/v1"

// MetaSchemaURL is a meta-schema (Draft 2020-12 plus this vocabulary) that schemas
// name in $schema to switch the relation keywords on. NewCompiler holds it in
// memory; it is never fetched.
const MetaSchemaURL = "https://fbeval.dev/meta/relations/v1"

// keywordsURL is the schema for the syntax of the keywords themselves.
const keywordsURL = "https://fbeval.dev/vocab/relations/v1/keywords"

var (
	//go:embed meta/keywords.schema.json
	keywordsSchemaJSON []byte
	//go:embed meta/relations.meta.json
	metaSchemaJSON []byte
)

// Keywords lists the keywords of the vocabulary, sorted.
var Keywords = []string{
	"x-compare", "x-count", "x-decimal", "x-nonOverlapping", "x-ordered",
	"x-product", "x-references", "x-sum", "x-tensor", "x-uniqueKeys",
}

// a misspelt relation keyword in a schema that names MetaSchemaURL would check
// nothing: schemas.Misspelt names it
func init() { schemas.RegisterKeywords(MetaSchemaURL, Keywords) }

var keywordsSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(keywordsSchemaJSON))
	if err != nil {
		return nil, err
	}
	c := schemas.NewCompiler()
	if err := c.AddResource(keywordsURL, doc); err != nil {
		return nil, err
	}
	return c.Compile(keywordsURL)
})

// runState carries what one contract check needs beyond the value at hand: the
// document root (for x-tensor dims) and, while assembling, the computed values.
type runState struct {
	// schema is the contract's schema document, for a local $ref a relation's
	// pointer walks through (subschemaAt)
	schema     map[string]any
	root       any
	assembling bool
	inserts    []Insertion
}

// Vocabulary adds the relations vocabulary to a compiler of the one configuration
// (schemas.NewCompiler(relations.Vocabulary)): the keywords then apply to schemas
// whose $schema is MetaSchemaURL (or another meta-schema that declares
// VocabularyURL). x-tensor dims bindings need the whole document and are refused
// by such a compiler; contracts support them.
func Vocabulary(c *jsonschema.Compiler) {
	if err := addVocabulary(c, nil); err != nil {
		// The embedded schemas are fixed and tested; failure here is a build defect.
		panic("relations: embedded schemas do not compile: " + err.Error())
	}
}

// newCompiler builds a compiler bound to st (nil outside a contract). assert turns
// the keywords on for every schema, as contracts want.
func newCompiler(st *runState, assert bool) (*jsonschema.Compiler, error) {
	var err error
	c := schemas.NewCompiler(func(c *jsonschema.Compiler) { err = addVocabulary(c, st) })
	if err != nil {
		return nil, err
	}
	if assert {
		c.AssertVocabs()
	}
	return c, nil
}

// addVocabulary registers the vocabulary, bound to st, and adds its meta-schema.
func addVocabulary(c *jsonschema.Compiler, st *runState) error {
	ksch, err := keywordsSchema()
	if err != nil {
		return err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(keywordsSchemaJSON))
	if err != nil {
		return err
	}
	if err := c.AddResource(keywordsURL, doc); err != nil {
		return err
	}
	meta, err := jsonschema.UnmarshalJSON(bytes.NewReader(metaSchemaJSON))
	if err != nil {
		return err
	}
	if err := c.AddResource(MetaSchemaURL, meta); err != nil {
		return err
	}
	v := &vocab{st: st}
	c.RegisterVocabulary(&jsonschema.Vocabulary{
		URL:    VocabularyURL,
		Schema: ksch,
		Subschemas: []jsonschema.SchemaPath{
			{jsonschema.Prop("x-count"), jsonschema.Prop("where")},
			{jsonschema.Prop("x-count"), jsonschema.AllItem{}, jsonschema.Prop("where")},
		},
		Compile: v.compile,
	})
	return nil
}

// relKind is the jsonschema error kind of a relation failure; it carries the Error
// that Check reports.
type relKind struct {
	kw string
	e  Error
}

func (k *relKind) KeywordPath() []string                   { return []string{k.kw} }
func (k *relKind) LocalizedString(*message.Printer) string { return k.e.Message }

// schemaLocation shortens a compiled schema location to its fragment.
func schemaLocation(loc string) string {
	if i := strings.IndexByte(loc, '#'); i >= 0 {
		return loc[i:]
	}
	return loc
}

// ErrorOf returns the relation failure a jsonschema error kind carries, so that a
// validator built with NewCompiler can report COMPARE_FAILED, SUM_MISMATCH and the
// rest under their own codes.
func ErrorOf(k jsonschema.ErrorKind) (Error, bool) {
	rk, ok := k.(*relKind)
	if !ok {
		return Error{}, false
	}
	return rk.e, true
}

// Declares reports whether a schema document (decoded JSON) names the relations
// meta-schema in $schema, which switches the keywords on.
func Declares(doc any) bool {
	m, ok := doc.(map[string]any)
	if !ok {
		return false
	}
	s, _ := m["$schema"].(string)
	return strings.TrimSuffix(s, "#") == MetaSchemaURL
}

// keywordCodes maps each keyword to the code its failures carry.
var keywordCodes = map[string]string{
	"x-compare": CodeCompare, "x-uniqueKeys": CodeDuplicateKey, "x-count": CodeCount,
	"x-sum": CodeSum, "x-product": CodeProduct, "x-references": CodeDangling,
	"x-ordered": CodeOrder, "x-nonOverlapping": CodeOverlap, "x-decimal": CodeDecimal,
	"x-tensor": CodeTensor,
}

// CodeFor returns the error code of a relation keyword ("x-sum" -> SUM_MISMATCH).
func CodeFor(keyword string) (string, bool) {
	c, ok := keywordCodes[keyword]
	return c, ok
}
