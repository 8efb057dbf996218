package schemas

import (
	"iter"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
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

// printer writes the library's messages in English, as every fbeval message is.
var printer = message.NewPrinter(language.English)

// Message is the library's text for one error, on one line.
func Message(k jsonschema.ErrorKind) string {
	msg := k.LocalizedString(printer)
	if strings.ContainsAny(msg, "\r\n") {
		msg = strings.Join(strings.Fields(msg), " ")
	}
	return msg
}
