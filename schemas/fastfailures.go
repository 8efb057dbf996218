package schemas

import (
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/fbeval/fbeval/contract/strictjson"
)

// Failure is one keyword a value fails: where (the reference tokens of the
// failing value below the one validated) and the library's error kind for it,
// filled as the library fills it, so its message and keyword are the library's.
type Failure struct {
	Tokens []string
	Kind   jsonschema.ErrorKind
}

// maxFailureDepth bounds Failures' walk; past it the library names the errors.
const maxFailureDepth = 48

// Failures appends to out every keyword of the schema that v fails, as Python's
// jsonschema reports them (iter_errors): each failing keyword of each subschema
// that applies, anyOf, oneOf and not one failure each, allOf through the failures
// of its subschemas, required as one failure listing the missing names and
// additionalProperties: false as one listing the extra ones (in member order). The
// library stops a subschema at its first failing type, const, enum or format;
// validating that subschema again without the keyword (as fbeval's Python-compatible
// flattening does) finds the rest, which Failures finds in one walk.
//
// ok is false when the walk cannot vouch for that answer (very deep values, a
// subschema fbeval could not validate again alone): then out is returned as given
// and the library names the errors.
func (f *Fast) Failures(v strictjson.Value, out []Failure) (_ []Failure, ok bool) {
	w := failWalker{out: out}
	if !w.walk(f, v, 0) {
		return out, false
	}
	return w.out, true
}

// failWalker collects failures; tokens is the path to the value being walked.
type failWalker struct {
	out    []Failure
	tokens []string
}

func (w *failWalker) add(k jsonschema.ErrorKind) {
	w.out = append(w.out, Failure{Tokens: append([]string(nil), w.tokens...), Kind: k})
}

// early adds a failure of a keyword after which the library skips the rest of the
// subschema: it holds only when that subschema can be validated again on its own.
func (w *failWalker) early(f *Fast, k jsonschema.ErrorKind) bool {
	if !revalidatable(f.sch) {
		return false
	}
	w.add(k)
	return true
}

// revalidatable reports whether the subschema at s's location can be compiled
// again from its document with keywords left out: it lies in the one document
// under a plain JSON Pointer fragment.
func revalidatable(s *jsonschema.Schema) bool {
	if s == nil {
		return false
	}
	url, frag, ok := strings.Cut(s.Location, "#")
	return ok && url == DocumentURL && !strings.ContainsAny(frag, "%~")
}

func (w *failWalker) walk(f *Fast, v strictjson.Value, depth int) bool {
	if depth > maxFailureDepth {
		return false
	}
	if f.always != nil {
		if !*f.always {
			w.add(&kind.FalseSchema{})
		}
		return true
	}
	s := f.sch
	if s == nil {
		return false
	}
	if f.types != 0 && !f.typeOK(v) {
		if !w.early(f, &kind.Type{Got: typeName(v), Want: s.Types.ToStrings()}) {
			return false
		}
	}
	if f.constant != nil && !f.constant.matches(v) {
		if !w.early(f, &kind.Const{Got: Instance(v), Want: *s.Const}) {
			return false
		}
	}
	if f.hasEnum {
		found := false
		for i := range f.enum {
			if f.enum[i].matches(v) {
				found = true
				break
			}
		}
		if !found && !w.early(f, &kind.Enum{Got: Instance(v), Want: s.Enum.Values}) {
			return false
		}
	}
	if f.format != nil {
		if err := s.Format.Validate(Instance(v)); err != nil {
			if !w.early(f, &kind.Format{Got: Instance(v), Want: s.Format.Name, Err: err}) {
				return false
			}
		}
	}
	var ok bool
	switch v.Kind() {
	case strictjson.Object:
		ok = w.object(f, v, depth)
	case strictjson.Array:
		ok = w.array(f, v, depth)
	case strictjson.String:
		w.string(f, v.Str())
		ok = true
	case strictjson.Int, strictjson.BigInt, strictjson.Float:
		w.number(f, v)
		ok = true
	default:
		ok = true
	}
	if !ok {
		return false
	}
	if f.not != nil && f.not.Valid(v) {
		w.add(&kind.Not{})
	}
	for _, sub := range f.allOf {
		if !sub.Valid(v) && !w.walk(sub, v, depth+1) {
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
			w.add(fastAlternatives("anyOf", &kind.AnyOf{}, f.anyOf, v))
		}
	}
	if len(f.oneOf) > 0 {
		first := -1
		for i, sub := range f.oneOf {
			if !sub.Valid(v) {
				continue
			}
			if first >= 0 {
				w.add(&kind.OneOf{Subschemas: []int{first, i}})
				break
			}
			first = i
		}
		if first < 0 {
			w.add(fastAlternatives("oneOf", &kind.OneOf{}, f.oneOf, v))
		}
	}
	return true
}

func (w *failWalker) object(f *Fast, v strictjson.Value, depth int) bool {
	var missing []string
	for _, r := range f.required {
		if _, ok := v.Get(r); !ok {
			missing = append(missing, r)
		}
	}
	if missing != nil {
		w.add(&kind.Required{Missing: missing})
	}
	var extra []string
	members := v.Members()
	for i := range members {
		m := &members[i]
		ps := f.prop(m.Key)
		if ps == nil {
			if f.addl == falseFast {
				extra = append(extra, m.Key)
				continue
			}
			ps = f.addl
		}
		if ps == nil || ps.Valid(m.Value) {
			continue
		}
		w.tokens = append(w.tokens, m.Key)
		ok := w.walk(ps, m.Value, depth+1)
		w.tokens = w.tokens[:len(w.tokens)-1]
		if !ok {
			return false
		}
	}
	if extra != nil {
		w.add(&kind.AdditionalProperties{Properties: extra})
	}
	return true
}

func (w *failWalker) array(f *Fast, v strictjson.Value, depth int) bool {
	if f.minItems >= 0 && v.Len() < f.minItems {
		w.add(&kind.MinItems{Got: v.Len(), Want: f.minItems})
	}
	if f.maxItems >= 0 && v.Len() > f.maxItems {
		w.add(&kind.MaxItems{Got: v.Len(), Want: f.maxItems})
	}
	if f.items == nil {
		return true
	}
	for i := range v.Len() {
		item := v.Index(i)
		if f.items.Valid(item) {
			continue
		}
		w.tokens = append(w.tokens, strconv.Itoa(i))
		ok := w.walk(f.items, item, depth+1)
		w.tokens = w.tokens[:len(w.tokens)-1]
		if !ok {
			return false
		}
	}
	return true
}

func (w *failWalker) string(f *Fast, s string) {
	if f.minLen >= 0 || f.maxLen >= 0 {
		n := utf8.RuneCountInString(s)
		if f.minLen >= 0 && n < f.minLen {
			w.add(&kind.MinLength{Got: n, Want: f.minLen})
		}
		if f.maxLen >= 0 && n > f.maxLen {
			w.add(&kind.MaxLength{Got: n, Want: f.maxLen})
		}
	}
	if f.pattern != nil && !f.pattern.MatchString(s) {
		w.add(&kind.Pattern{Got: s, Want: f.pattern.String()})
	}
}

func (w *failWalker) number(f *Fast, v strictjson.Value) {
	if f.numberOK(v) {
		return
	}
	s := f.sch
	got := libRat(v) // the exact value of the number's %v text, as the library reads it
	if s.Minimum != nil && got.Cmp(s.Minimum) < 0 {
		w.add(&kind.Minimum{Got: got, Want: s.Minimum})
	}
	if s.Maximum != nil && got.Cmp(s.Maximum) > 0 {
		w.add(&kind.Maximum{Got: got, Want: s.Maximum})
	}
	if s.ExclusiveMinimum != nil && got.Cmp(s.ExclusiveMinimum) <= 0 {
		w.add(&kind.ExclusiveMinimum{Got: got, Want: s.ExclusiveMinimum})
	}
	if s.ExclusiveMaximum != nil && got.Cmp(s.ExclusiveMaximum) >= 0 {
		w.add(&kind.ExclusiveMaximum{Got: got, Want: s.ExclusiveMaximum})
	}
	if s.MultipleOf != nil && !new(big.Rat).Quo(got, s.MultipleOf).IsInt() {
		w.add(&kind.MultipleOf{Got: got, Want: s.MultipleOf})
	}
}

// fastAlternatives is the failure of an anyOf or oneOf (keyword; the library's
// kind k) none of whose branches passed v, as AlternativesKind makes it of the
// library's error: an *Alternatives where every branch's own type rejects v
// (the library checks a schema's type first, and stops there).
func fastAlternatives(keyword string, k jsonschema.ErrorKind, branches []*Fast, v strictjson.Value) jsonschema.ErrorKind {
	alt := &Alternatives{Keyword: keyword}
	for _, b := range branches {
		if b.always != nil || b.sch == nil || b.types == 0 || b.typeOK(v) {
			return k
		}
		alt.add(typeName(v), b.sch.Types.ToStrings())
	}
	return alt
}

// typeName is the library's name of v's type: every number is a "number".
func typeName(v strictjson.Value) string {
	switch v.Kind() {
	case strictjson.Null:
		return "null"
	case strictjson.Bool:
		return "boolean"
	case strictjson.String:
		return "string"
	case strictjson.Array:
		return "array"
	case strictjson.Object:
		return "object"
	}
	return "number"
}
