package schemas

import (
	"bytes"
	"encoding/json"
	"fmt"
	"iter"
	"math/big"
	"slices"
	"sort"
	"strings"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/contract/usage"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Leaf is one failure of a validation: an error of the tree without causes, or one
// whose causes are not each a reason (see Leaves).
type Leaf struct {
	*jsonschema.ValidationError
	// Parent is the instance location of the error above it (nil at the root). A
	// propertyNames error is about the object that holds the misnamed member, which
	// is its parent's location: its own is relative to the name.
	Parent []string
}

// Keyword is the last keyword of the leaf's keyword path ("" when it has none).
func (l Leaf) Keyword() string {
	kp := l.ErrorKind.KeywordPath()
	if len(kp) == 0 {
		return ""
	}
	return kp[len(kp)-1]
}

// Leaves flattens the error tree under root to its leaves, in document order,
// walking it with an explicit stack (no recursion however deep the tree). whole
// reports the errors to keep whole, their causes left out (for example anyOf, whose
// branches' failures are not each a reason); nil keeps none whole.
func Leaves(root *jsonschema.ValidationError, whole func(jsonschema.ErrorKind) bool) iter.Seq[Leaf] {
	return func(yield func(Leaf) bool) {
		stack := []Leaf{{ValidationError: root}}
		for len(stack) > 0 {
			l := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if len(l.Causes) == 0 || (whole != nil && whole(l.ErrorKind)) {
				if !yield(l) {
					return
				}
				continue
			}
			for i := len(l.Causes) - 1; i >= 0; i-- {
				stack = append(stack, Leaf{l.Causes[i], l.InstanceLocation})
			}
		}
	}
}

// printer writes the library's messages in English, as every fbeval message
// is, and its whole numbers as JSON writes them: POSIX English groups no digits
// (12345, not 12,345).
var printer = message.NewPrinter(language.MustParse("en-US-u-va-posix"))

// Message is the library's text for one error, on one line. The library writes
// the numbers of minimum, maximum, exclusiveMinimum, exclusiveMaximum and
// multipleOf as float64s in its printer's notation (1000000 as "1 × 10⁰⁶",
// 100000 as "100,000", a 30-digit integer rounded to 17 digits); Message writes
// them exactly, as JSON does (numberText), in the library's words. A message
// goes to reports and to the model in a repair round, which must not read
// 100,000 as a hundred.
func Message(k jsonschema.ErrorKind) string {
	bound := func(keyword string, got, want *big.Rat) string {
		return keyword + ": got " + numberText(got) + ", want " + numberText(want)
	}
	var msg string
	switch k := k.(type) {
	case *kind.Minimum:
		msg = bound("minimum", k.Got, k.Want)
	case *kind.Maximum:
		msg = bound("maximum", k.Got, k.Want)
	case *kind.ExclusiveMinimum:
		msg = bound("exclusiveMinimum", k.Got, k.Want)
	case *kind.ExclusiveMaximum:
		msg = bound("exclusiveMaximum", k.Got, k.Want)
	case *kind.MultipleOf:
		msg = bound("multipleOf", k.Got, k.Want)
	case *kind.AdditionalProperties:
		// the library lists them as it ranges over the object (a map): in
		// any order, a run to a run
		sorted := kind.AdditionalProperties{Properties: slices.Sorted(slices.Values(k.Properties))}
		msg = sorted.LocalizedString(printer)
	default:
		msg = k.LocalizedString(printer)
	}
	if strings.ContainsAny(msg, "\r\n") {
		msg = strings.Join(strings.Fields(msg), " ")
	}
	return msg
}

// maxNumberText is the longest exact text numberText writes; a number longer
// than that (1e400 is 401 digits) is written in 17 significant digits.
const maxNumberText = 40

// numberText writes r, a JSON number the library read, as a JSON number:
// exactly, without grouping or exponent (1000000, -0.25, 12.5), or past
// maxNumberText characters in 17 significant digits with an exponent
// (1e+400).
func numberText(r *big.Rat) string {
	if r.IsInt() {
		if s := r.Num().String(); len(s) <= maxNumberText {
			return s
		}
	} else if places, ok := decimalPlaces(r.Denom()); ok {
		if s := r.FloatString(places); len(s) <= maxNumberText {
			return s
		}
	}
	return new(big.Float).SetRat(r).Text('g', 17)
}

// decimalPlaces returns the digits after the point that a fraction over d
// (positive, in lowest terms) needs to be written exactly: d must be a product
// of twos and fives, as every decimal literal's is.
func decimalPlaces(d *big.Int) (int, bool) {
	twos := int(d.TrailingZeroBits())
	rest := new(big.Int).Rsh(d, uint(twos))
	five, m := big.NewInt(5), new(big.Int)
	fives := 0
	for rest.Cmp(big.NewInt(1)) > 0 {
		var q big.Int
		if q.DivMod(rest, five, m); m.Sign() != 0 {
			return 0, false
		}
		rest.Set(&q)
		fives++
	}
	return max(twos, fives), true
}

// Reason is one mistake a validation error tree says: where in the instance,
// and what.
type Reason struct {
	Loc []string
	Msg string
}

// Reasons flattens a validation error tree to its mistakes, one each, in
// document order: the leaves, but for an anyOf or oneOf only the branches that
// were meant (alternatives), and a branch's error not where another error is
// about the same value already (the type of error beside the error branch's
// says the same again).
func Reasons(ve *jsonschema.ValidationError) []Reason {
	var found, branches []Reason // branches: from the branches of an anyOf or oneOf
	var walk func(e *jsonschema.ValidationError, in *[]Reason)
	walk = func(e *jsonschema.ValidationError, in *[]Reason) {
		for l := range Leaves(e, keptWhole) {
			switch {
			case isPropertyNames(l.ErrorKind):
				// about the object whose member is misnamed; the causes' locations are
				// relative to the name, so they go in the message
				*in = append(*in, Reason{l.Parent, propertyNamesMessage(l)})
			case isAlternatives(l.ErrorKind) && len(l.Causes) > 0:
				reached, missing := alternatives(l.ValidationError)
				if len(reached) == 0 {
					*in = append(*in, Reason{l.InstanceLocation, missing})
				}
				for _, b := range reached {
					walk(b, &branches)
				}
			case isWrapper(l.ErrorKind):
			default:
				*in = append(*in, Reason{l.InstanceLocation, reasonText(l.ErrorKind)})
			}
		}
	}
	walk(ve, &found)
	for _, b := range branches {
		if !slices.ContainsFunc(found, func(r Reason) bool { return slices.Equal(r.Loc, b.Loc) }) {
			found = append(found, b)
		}
	}
	return found
}

// keptWhole tells the errors whose causes Validate reads itself: propertyNames
// (its causes are about the name) and anyOf or oneOf (their branches' failures
// are not each a reason).
func keptWhole(k jsonschema.ErrorKind) bool { return isPropertyNames(k) || isAlternatives(k) }

// isAlternatives tells an anyOf or oneOf that no branch passed.
func isAlternatives(k jsonschema.ErrorKind) bool {
	switch k.(type) {
	case *kind.AnyOf, *kind.OneOf:
		return true
	}
	return false
}

// alternatives says why no branch of the anyOf or oneOf e passed. A branch that
// failed only for want of members it requires, or for a member it requires
// being null (which fbeval's contracts read as absent), was not meant; the
// others (reached) were, and their errors say what is wrong: a member that is
// there with a wrong value. When every branch wants members, missing says so
// at once: "missing one of the properties 'output', 'text', 'completion',
// 'error' ('output' is null)", "missing property 'files', or properties
// 'sha256' and 'shape'".
func alternatives(e *jsonschema.ValidationError) (reached []*jsonschema.ValidationError, missing string) {
	var wants [][]string // each wanting branch's members
	var nulls []string
	for _, b := range e.Causes {
		if r, ok := b.ErrorKind.(*kind.Required); ok && len(b.Causes) == 0 && slices.Equal(b.InstanceLocation, e.InstanceLocation) {
			wants = append(wants, r.Missing)
			continue
		}
		if name := nullMember(b, e.InstanceLocation); name != "" {
			wants, nulls = append(wants, []string{name}), append(nulls, name)
			continue
		}
		reached = append(reached, b)
	}
	if len(reached) > 1 {
		// a branch that wants another type than the value's was not meant
		// when another wants the value's own (a type name mistyped: the enum
		// of names is meant, not the list of them)
		meant := slices.DeleteFunc(slices.Clone(reached), func(b *jsonschema.ValidationError) bool { return onlyType(b, e.InstanceLocation) })
		if len(meant) > 0 {
			reached = meant
		}
		// a branch that failed inside the value matched its shape, and says
		// more than one that failed on the value whole (a list of type
		// names with one mistyped: the name, not "want one name")
		inside := slices.DeleteFunc(slices.Clone(reached), func(b *jsonschema.ValidationError) bool { return !allInside(b, e.InstanceLocation) })
		if len(inside) > 0 {
			reached = inside
		}
	}
	if len(reached) > 0 || len(wants) == 0 {
		return reached, ""
	}
	quote := func(names []string) string { return "'" + strings.Join(names, "', '") + "'" }
	quoteAnd := func(names []string) string {
		q := make([]string, len(names))
		for i, n := range names {
			q[i] = "'" + n + "'"
		}
		return contract.JoinWords(q)
	}
	single := !slices.ContainsFunc(wants, func(m []string) bool { return len(m) != 1 })
	switch {
	case single && len(wants) == 1:
		missing = "missing property " + quote(wants[0])
	case single:
		missing = "missing one of the properties " + quote(slices.Concat(wants...))
	default:
		phrases := make([]string, len(wants))
		for i, m := range wants {
			if len(m) == 1 {
				phrases[i] = "property " + quote(m)
			} else {
				phrases[i] = "properties " + quoteAnd(m)
			}
		}
		missing = "missing " + strings.Join(phrases, ", or ")
	}
	if len(nulls) > 0 {
		missing += " (" + quoteAnd(nulls) + " " + contract.Pick(len(nulls), "is", "are") + " null)"
	}
	return nil, missing
}

// onlyType reports whether branch b failed on the type of the value at loc
// and on nothing else.
func onlyType(b *jsonschema.ValidationError, loc []string) bool {
	n := 0
	for l := range Leaves(b, nil) {
		if isWrapper(l.ErrorKind) {
			continue
		}
		if _, ok := l.ErrorKind.(*kind.Type); !ok || !slices.Equal(l.InstanceLocation, loc) {
			return false
		}
		n++
	}
	return n > 0
}

// allInside reports whether every failure of branch b is inside the value at
// loc, none at loc itself.
func allInside(b *jsonschema.ValidationError, loc []string) bool {
	n := 0
	for l := range Leaves(b, nil) {
		if isWrapper(l.ErrorKind) {
			continue
		}
		if len(l.InstanceLocation) <= len(loc) {
			return false
		}
		n++
	}
	return n > 0
}

// nullMember returns the name of the member of the object at loc that branch
// b failed on for being null, and on nothing else ("" otherwise).
func nullMember(b *jsonschema.ValidationError, loc []string) string {
	name := ""
	for l := range Leaves(b, nil) {
		if isWrapper(l.ErrorKind) {
			continue
		}
		t, ok := l.ErrorKind.(*kind.Type)
		at := l.InstanceLocation
		if !ok || t.Got != "null" || len(at) != len(loc)+1 || !slices.Equal(at[:len(loc)], loc) || (name != "" && at[len(loc)] != name) {
			return ""
		}
		name = at[len(loc)]
	}
	return name
}

func isPropertyNames(k jsonschema.ErrorKind) bool {
	_, ok := k.(*kind.PropertyNames)
	return ok
}

// isWrapper tells the error that only says a schema failed, whose causes say why.
func isWrapper(k jsonschema.ErrorKind) bool {
	_, ok := k.(*kind.Schema)
	return ok
}

// propertyNamesMessage says which names are wrong, with why, sorted.
func propertyNamesMessage(l Leaf) string {
	var why []string
	for _, c := range l.Causes {
		for inner := range Leaves(c, nil) {
			why = append(why, reasonText(inner.ErrorKind))
		}
	}
	sort.Strings(why)
	msg := Message(l.ErrorKind)
	if len(why) > 0 {
		msg += ": " + strings.Join(why, "; ")
	}
	return msg
}

// reasonText is the text of one error. Enum and const values are written as JSON
// (the library writes null as <nil> and lists as "value"), with the value found.
func reasonText(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = jsonText(w)
		}
		if len(want) == 1 {
			return "value must be " + want[0] + ", got " + jsonText(k.Got)
		}
		msg := "value must be one of " + strings.Join(want, ", ") + "; got " + jsonText(k.Got)
		if got, ok := k.Got.(string); ok {
			// a typo of one of the strings it takes ("strin" for "string")
			var strs []string
			for _, w := range k.Want {
				if s, ok := w.(string); ok {
					strs = append(strs, s)
				}
			}
			if near := usage.Nearest(got, strs); near != "" {
				msg += "; did you mean " + jsonText(near)
			}
		}
		return msg
	case *kind.Const:
		return "value must be " + jsonText(k.Want) + ", got " + jsonText(k.Got)
	case *kind.Type:
		// a type of every kind but null: the member is there, null
		if k.Got == "null" && len(k.Want) == 5 && !slices.Contains(k.Want, "null") {
			return "got null, want any value but null"
		}
	}
	return Message(k)
}

// jsonText writes v as compact JSON, cut short when long: <, > and & as
// they are, not as the \u escapes that keep HTML safe (a message is no page).
func jsonText(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if len(b) > 80 {
		return string(b[:77]) + "..."
	}
	return string(b)
}

// Alternatives is the error of an anyOf or oneOf (Keyword) that no branch
// passed where every branch wanted another type of the value itself
// (Pydantic's Optional[bool] is anyOf boolean, null): its message names the
// types it may take ("got string, want boolean or null") where the library's
// names the keyword alone ("'anyOf' failed").
type Alternatives struct {
	Keyword string
	Got     string
	Want    []string
}

// KeywordPath is the keyword's.
func (k *Alternatives) KeywordPath() []string { return []string{k.Keyword} }

// LocalizedString is a type error's message of the types the branches want.
func (k *Alternatives) LocalizedString(p *message.Printer) string {
	return (&kind.Type{Got: k.Got, Want: k.Want}).LocalizedString(p)
}

// AlternativesKind is the kind of e, an anyOf or oneOf that no branch passed:
// an *Alternatives where every branch failed on the type of the value itself,
// else e's own.
func AlternativesKind(e *jsonschema.ValidationError) jsonschema.ErrorKind {
	keyword := "anyOf"
	switch k := e.ErrorKind.(type) {
	case *kind.AnyOf:
	case *kind.OneOf:
		if k.Subschemas != nil {
			return k // more than one branch passed
		}
		keyword = "oneOf"
	default:
		return k
	}
	alt := &Alternatives{Keyword: keyword}
	for _, b := range e.Causes {
		t, ok := b.ErrorKind.(*kind.Type)
		if !ok || len(b.Causes) > 0 || !slices.Equal(b.InstanceLocation, e.InstanceLocation) {
			return e.ErrorKind
		}
		alt.add(t.Got, t.Want)
	}
	if alt.Got == "" {
		return e.ErrorKind
	}
	return alt
}

// add takes one branch's type error.
func (k *Alternatives) add(got string, want []string) {
	k.Got = got
	for _, w := range want {
		if !slices.Contains(k.Want, w) {
			k.Want = append(k.Want, w)
		}
	}
}
