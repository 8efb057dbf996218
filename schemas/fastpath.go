package schemas

import (
	"cmp"
	"encoding/json"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/fbeval/fbeval/contract/strictjson"
)

// Fast decides validity for the common subset of JSON Schema that tool
// contracts use (type, enum, const, format, properties, required,
// additionalProperties, string lengths and patterns, numeric bounds, items and item
// counts, allOf, anyOf, oneOf, not), working on a strictjson.Value directly with no
// allocation in the usual case. It is built from the compiled schema (NewFast), so it reads every keyword exactly as the library
// does; a schema using anything else has no fast path. When it says "invalid",
// Failures names what fails (the library, where Failures cannot); differential tests
// hold the two in agreement.
type Fast struct {
	sch        *jsonschema.Schema // what the fast path was built from, for Failures
	always     *bool              // a boolean schema
	types      uint8              // typeBits; 0 = any
	enum       []constVal
	hasEnum    bool
	constant   *constVal
	allOf      []*Fast
	anyOf      []*Fast
	oneOf      []*Fast
	not        *Fast
	format     *jsonschema.Format
	formatDate bool // format is DateFormat
	required   []string
	props      []fastProp // sorted by name: a short list beats a map here
	addl       *Fast      // additionalProperties schema, nil = allowed
	minLen     int        // -1 = none
	maxLen     int
	pattern    jsonschema.Regexp
	minimum    *bound
	maximum    *bound
	exMinimum  *bound
	exMaximum  *bound
	multipleOf *big.Rat
	items      *Fast
	minItems   int // -1 = none
	maxItems   int
}

// bound is a numeric limit, with an int64 copy when it is a small integer.
type bound struct {
	rat    *big.Rat
	i      int64
	isInt  bool
	strict bool // exclusive
}

const (
	tNull uint8 = 1 << iota
	tBool
	tNumber
	tInteger
	tString
	tArray
	tObject
)

var typeBits = map[string]uint8{
	"null": tNull, "boolean": tBool, "number": tNumber, "integer": tInteger,
	"string": tString, "array": tArray, "object": tObject,
}

// maxFastDepth bounds the walk over a compiled schema (which may be cyclic through
// $ref; refs are not supported, so cycles cannot occur, but the limit is cheap).
const maxFastDepth = 64

var (
	falseSchema = false
	falseFast   = &Fast{always: &falseSchema, minLen: -1, maxLen: -1, minItems: -1, maxItems: -1}
)

// NewFast returns the fast path of a schema compiled with the one configuration, or
// nil when the schema uses a keyword the fast path does not handle (then validate
// with the library).
func NewFast(s *jsonschema.Schema) *Fast {
	f, _ := buildFast(s, 0)
	return f
}

// buildFast returns the fast checker of s, or false when s uses a keyword it does not
// handle.
func buildFast(s *jsonschema.Schema, depth int) (*Fast, bool) {
	if s == nil || depth > maxFastDepth {
		return nil, false
	}
	f := &Fast{sch: s, minLen: -1, maxLen: -1, minItems: -1, maxItems: -1}
	if s.Bool != nil {
		f.always = s.Bool
		return f, true
	}
	if s.Ref != nil || s.RecursiveRef != nil || s.DynamicRef != nil || s.If != nil || s.Then != nil || s.Else != nil ||
		s.MaxProperties != nil || s.MinProperties != nil || s.PropertyNames != nil || len(s.PatternProperties) > 0 ||
		len(s.Dependencies) > 0 || len(s.DependentRequired) > 0 || len(s.DependentSchemas) > 0 ||
		s.UnevaluatedProperties != nil || s.UniqueItems || s.Contains != nil || s.MinContains != nil ||
		s.MaxContains != nil || s.Items != nil || s.AdditionalItems != nil || len(s.PrefixItems) > 0 ||
		s.UnevaluatedItems != nil || s.ContentEncoding != nil || s.ContentMediaType != nil || s.ContentSchema != nil ||
		len(s.Extensions) > 0 {
		return nil, false
	}
	if s.Types != nil {
		for _, t := range s.Types.ToStrings() {
			f.types |= typeBits[t]
		}
	}
	if s.Enum != nil {
		f.hasEnum = true
		for _, v := range s.Enum.Values {
			c, ok := newConst(v, depth)
			if !ok {
				return nil, false
			}
			f.enum = append(f.enum, c)
		}
	}
	if s.Const != nil {
		c, ok := newConst(*s.Const, depth)
		if !ok {
			return nil, false
		}
		f.constant = &c
	}
	var ok bool
	if f.allOf, ok = buildFastList(s.AllOf, depth); !ok {
		return nil, false
	}
	if f.anyOf, ok = buildFastList(s.AnyOf, depth); !ok {
		return nil, false
	}
	if f.oneOf, ok = buildFastList(s.OneOf, depth); !ok {
		return nil, false
	}
	if s.Not != nil {
		if f.not, ok = buildFast(s.Not, depth+1); !ok {
			return nil, false
		}
	}
	if s.Format != nil {
		if s.Format.Name == "regex" { // validated through the regexp engine, not Validate
			return nil, false
		}
		f.format = s.Format
		f.formatDate = s.Format == DateFormat
	}
	f.required = s.Required
	if len(s.Properties) > 0 {
		for name, ps := range s.Properties {
			pf, ok := buildFast(ps, depth+1)
			if !ok {
				return nil, false
			}
			f.props = append(f.props, fastProp{name, pf})
		}
		slices.SortFunc(f.props, func(a, b fastProp) int { return strings.Compare(a.name, b.name) })
	}
	switch a := s.AdditionalProperties.(type) {
	case nil:
	case bool:
		if !a {
			f.addl = falseFast
		}
	case *jsonschema.Schema:
		af, ok := buildFast(a, depth+1)
		if !ok {
			return nil, false
		}
		f.addl = af
	default:
		return nil, false
	}
	if s.MinLength != nil {
		f.minLen = *s.MinLength
	}
	if s.MaxLength != nil {
		f.maxLen = *s.MaxLength
	}
	f.pattern = s.Pattern
	f.minimum = newBound(s.Minimum, false)
	f.maximum = newBound(s.Maximum, false)
	f.exMinimum = newBound(s.ExclusiveMinimum, true)
	f.exMaximum = newBound(s.ExclusiveMaximum, true)
	f.multipleOf = s.MultipleOf
	if s.Items2020 != nil {
		it, ok := buildFast(s.Items2020, depth+1)
		if !ok {
			return nil, false
		}
		f.items = it
	}
	if s.MinItems != nil {
		f.minItems = *s.MinItems
	}
	if s.MaxItems != nil {
		f.maxItems = *s.MaxItems
	}
	return f, true
}

// fastProp is one member of properties.
type fastProp struct {
	name   string
	schema *Fast
}

// prop returns the schema of property name, or nil.
func (f *Fast) prop(name string) *Fast {
	if len(f.props) > 16 {
		i, ok := slices.BinarySearchFunc(f.props, name, func(p fastProp, n string) int { return strings.Compare(p.name, n) })
		if !ok {
			return nil
		}
		return f.props[i].schema
	}
	for i := range f.props {
		if f.props[i].name == name {
			return f.props[i].schema
		}
	}
	return nil
}

func buildFastList(list []*jsonschema.Schema, depth int) ([]*Fast, bool) {
	var out []*Fast
	for _, sub := range list {
		f, ok := buildFast(sub, depth+1)
		if !ok {
			return nil, false
		}
		out = append(out, f)
	}
	return out, true
}

// constVal is an enum or const value of a compiled schema, ready to compare with
// a Value the way the library compares: numbers by exact value (1 == 1.0, unlike
// Equal), everything else by type and content.
type constVal struct {
	kind  strictjson.Kind // Null, Bool, String, Float (any number), Array, Object
	b     bool
	s     string
	num   *big.Rat
	i     int64
	isInt bool // num is an int64
	items []constVal
	props map[string]constVal
}

// newConst converts a value of the compiled schema (numbers are json.Number).
func newConst(v any, depth int) (constVal, bool) {
	if depth > maxFastDepth {
		return constVal{}, false
	}
	switch v := v.(type) {
	case nil:
		return constVal{kind: strictjson.Null}, true
	case bool:
		return constVal{kind: strictjson.Bool, b: v}, true
	case string:
		return constVal{kind: strictjson.String, s: v}, true
	case json.Number:
		r, ok := new(big.Rat).SetString(string(v))
		if !ok {
			return constVal{}, false
		}
		c := constVal{kind: strictjson.Float, num: r}
		if r.IsInt() && r.Num().IsInt64() {
			c.i, c.isInt = r.Num().Int64(), true
		}
		return c, true
	case []any:
		c := constVal{kind: strictjson.Array, items: make([]constVal, len(v))}
		for i, x := range v {
			var ok bool
			if c.items[i], ok = newConst(x, depth+1); !ok {
				return constVal{}, false
			}
		}
		return c, true
	case map[string]any:
		c := constVal{kind: strictjson.Object, props: make(map[string]constVal, len(v))}
		for k, x := range v {
			cv, ok := newConst(x, depth+1)
			if !ok {
				return constVal{}, false
			}
			c.props[k] = cv
		}
		return c, true
	}
	return constVal{}, false
}

// matches reports whether v equals c as the library's equality has it. The
// recursion follows c, whose depth is bounded when it is built.
func (c *constVal) matches(v strictjson.Value) bool {
	switch c.kind {
	case strictjson.Null:
		return v.Kind() == strictjson.Null
	case strictjson.Bool:
		return v.Kind() == strictjson.Bool && v.Bool() == c.b
	case strictjson.String:
		return v.Kind() == strictjson.String && v.Str() == c.s
	case strictjson.Float:
		if v.Kind() == strictjson.Int && c.isInt {
			return v.Int() == c.i
		}
		return v.IsNumber() && libRat(v).Cmp(c.num) == 0
	case strictjson.Array:
		if v.Kind() != strictjson.Array || v.Len() != len(c.items) {
			return false
		}
		for i := range c.items {
			if !c.items[i].matches(v.Index(i)) {
				return false
			}
		}
		return true
	case strictjson.Object:
		if v.Kind() != strictjson.Object || v.Len() != len(c.props) {
			return false
		}
		for i := range v.Len() {
			p, ok := c.props[v.Members()[i].Key]
			if !ok || !p.matches(v.Index(i)) {
				return false
			}
		}
		return true
	}
	return false
}

// libRat is the library's reading of a number: the exact value of its shortest
// decimal text.
func libRat(v strictjson.Value) *big.Rat {
	var r *big.Rat
	switch v.Kind() {
	case strictjson.Int:
		r = new(big.Rat).SetInt64(v.Int())
	case strictjson.BigInt:
		r, _ = new(big.Rat).SetString(v.Str())
	default:
		r, _ = new(big.Rat).SetString(strconv.FormatFloat(v.Float(), 'g', -1, 64))
	}
	return r
}

func newBound(r *big.Rat, strict bool) *bound {
	if r == nil {
		return nil
	}
	b := &bound{rat: r, strict: strict}
	if r.IsInt() && r.Num().IsInt64() {
		b.i, b.isInt = r.Num().Int64(), true
	}
	return b
}

// Valid reports whether v satisfies the schema, as the library would decide.
func (f *Fast) Valid(v strictjson.Value) bool {
	if f.always != nil {
		return *f.always
	}
	if f.types != 0 && !f.typeOK(v) {
		return false
	}
	if f.hasEnum {
		found := false
		for i := range f.enum {
			if f.enum[i].matches(v) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	if f.constant != nil && !f.constant.matches(v) {
		return false
	}
	for _, sub := range f.allOf {
		if !sub.Valid(v) {
			return false
		}
	}
	if len(f.anyOf) > 0 {
		matched := false
		for _, sub := range f.anyOf {
			if sub.Valid(v) {
				matched = true
				break
			}
		}
		if !matched {
			return false
		}
	}
	if len(f.oneOf) > 0 {
		n := 0
		for _, sub := range f.oneOf {
			if sub.Valid(v) {
				n++
			}
		}
		if n != 1 {
			return false
		}
	}
	if f.not != nil && f.not.Valid(v) {
		return false
	}
	if f.format != nil {
		if f.formatDate {
			// the date check, without boxing the string
			if v.Kind() == strictjson.String && !IsDate(v.Str()) {
				return false
			}
		} else {
			var inst any = v.Str()
			if v.Kind() != strictjson.String {
				inst = Instance(v)
			}
			if f.format.Validate(inst) != nil {
				return false
			}
		}
	}
	switch v.Kind() {
	case strictjson.Object:
		return f.objectOK(v)
	case strictjson.Array:
		return f.arrayOK(v)
	case strictjson.String:
		return f.stringOK(v.Str())
	case strictjson.Int, strictjson.BigInt, strictjson.Float:
		return f.numberOK(v)
	}
	return true
}

func (f *Fast) typeOK(v strictjson.Value) bool {
	switch v.Kind() {
	case strictjson.Null:
		return f.types&tNull != 0
	case strictjson.Bool:
		return f.types&tBool != 0
	case strictjson.String:
		return f.types&tString != 0
	case strictjson.Array:
		return f.types&tArray != 0
	case strictjson.Object:
		return f.types&tObject != 0
	case strictjson.Int, strictjson.BigInt:
		return f.types&(tNumber|tInteger) != 0
	case strictjson.Float:
		if f.types&tNumber != 0 {
			return true
		}
		x := v.Float()
		return f.types&tInteger != 0 && x == math.Trunc(x)
	}
	return false
}

func (f *Fast) objectOK(v strictjson.Value) bool {
	for _, r := range f.required {
		if _, ok := v.Get(r); !ok {
			return false
		}
	}
	members := v.Members()
	for i := range members {
		m := &members[i]
		if ps := f.prop(m.Key); ps != nil {
			if !ps.Valid(m.Value) {
				return false
			}
		} else if f.addl != nil && !f.addl.Valid(m.Value) {
			return false
		}
	}
	return true
}

func (f *Fast) arrayOK(v strictjson.Value) bool {
	if f.minItems >= 0 && v.Len() < f.minItems {
		return false
	}
	if f.maxItems >= 0 && v.Len() > f.maxItems {
		return false
	}
	if f.items != nil {
		for i := range v.Len() {
			if !f.items.Valid(v.Index(i)) {
				return false
			}
		}
	}
	return true
}

func (f *Fast) stringOK(s string) bool {
	if f.minLen >= 0 || f.maxLen >= 0 {
		n := utf8.RuneCountInString(s)
		if (f.minLen >= 0 && n < f.minLen) || (f.maxLen >= 0 && n > f.maxLen) {
			return false
		}
	}
	if f.pattern != nil && !f.pattern.MatchString(s) {
		return false
	}
	return true
}

func (f *Fast) numberOK(v strictjson.Value) bool {
	if f.minimum == nil && f.maximum == nil && f.exMinimum == nil && f.exMaximum == nil && f.multipleOf == nil {
		return true
	}
	var r *big.Rat
	rat := func() *big.Rat {
		if r == nil {
			r = libRat(v)
		}
		return r
	}
	cmp := func(b *bound) int {
		if b.isInt && v.Kind() == strictjson.Int {
			return cmp.Compare(v.Int(), b.i)
		}
		return rat().Cmp(b.rat)
	}
	if b := f.minimum; b != nil && cmp(b) < 0 {
		return false
	}
	if b := f.maximum; b != nil && cmp(b) > 0 {
		return false
	}
	if b := f.exMinimum; b != nil && cmp(b) <= 0 {
		return false
	}
	if b := f.exMaximum; b != nil && cmp(b) >= 0 {
		return false
	}
	if f.multipleOf != nil && !new(big.Rat).Quo(rat(), f.multipleOf).IsInt() {
		return false
	}
	return true
}
