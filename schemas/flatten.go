package schemas

import (
	"iter"
	"math/big"
	"strings"

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
