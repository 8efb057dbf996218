// Package usage words the usage errors of every fbeval binary (fbeval and the
// runners) as the command's help words them, where kong's own words speak of
// its grammar: a command's missing arguments (`expected "<results> ..."`) and
// a flag given last with no value after it (`expected string value but got
// "EOL" (<EOL>)`); and it lists names in a message (List) for all of them.
package usage

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/alecthomas/kong"
)

// Explain returns kong's parse error msg for the program prog in the words of
// the command's help: `missing RESULTS: fbeval-batch from-openai RESULTS ...`,
// `--mode needs a value: one of reference, refuse, garble`, `--cases-out needs
// a value: --cases-out FILE`. Any other msg comes back as it is.
func Explain(prog, msg string, ctx *kong.Context) string {
	if ctx == nil {
		return msg
	}
	return missingValue(missingArguments(prog, msg, ctx), ctx)
}

// Command is the program prog with the command chosen on the command line
// ("fbeval score", "fbeval-batch from-openai"; prog alone for a program
// without commands), as its help and usage lines name it.
func Command(prog string, ctx *kong.Context) string {
	parts := []string{prog}
	for _, p := range ctx.Path {
		if p.Command != nil {
			parts = append(parts, p.Command.Name)
		}
	}
	return strings.Join(parts, " ")
}

// missingArguments says which arguments a command lacks as its usage names
// them, where kong's msg says `expected "<a> <b>"`; any other msg is returned
// as it is.
func missingArguments(prog, msg string, ctx *kong.Context) string {
	node := ctx.Selected()
	if node == nil {
		node = ctx.Model.Node
	}
	if node == nil || !strings.HasPrefix(msg, `expected "<`) {
		return msg
	}
	var missing, args []string
	for _, p := range node.Positional {
		name := strings.ToUpper(p.Name)
		if p.Tag != nil && p.Tag.PlaceHolder != "" {
			name = p.Tag.PlaceHolder
		}
		if strings.Contains(msg, "<"+p.Name+">") {
			missing = append(missing, name)
		}
		if p.IsSlice() {
			name += " ..."
		}
		args = append(args, name)
	}
	if len(missing) == 0 {
		return msg
	}
	return fmt.Sprintf("missing %s: %s %s", strings.Join(missing, " and "), Command(prog, ctx), strings.Join(args, " "))
}

// noValue matches kong's words for a flag given last with no value after it:
// `--cases-out: expected string value but got "EOL" (<EOL>)` and
// `--responses: missing value, expecting "<arg>"` (`"<arg>,..."` for a list).
var noValue = regexp.MustCompile(`^--([a-z0-9-]+): (?:expected [a-z0-9.]+ value but got "EOL" \(<EOL>\)|missing value, expecting "<arg>(?:,\.\.\.)?")$`)

// missingValue says which value a flag given without one lacks, as its help
// names it (--cases-out needs a value: --cases-out FILE), where kong's msg
// speaks of EOL; any other msg is returned as it is.
func missingValue(msg string, ctx *kong.Context) string {
	m := noValue.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	for _, f := range ctx.Flags() {
		switch {
		case f.Name != m[1]:
		case f.Enum != "":
			// an empty value (unset: the study's own) is not one to give
			values := slices.DeleteFunc(strings.Split(f.Enum, ","), func(v string) bool { return strings.TrimSpace(v) == "" })
			return fmt.Sprintf("--%s needs a value: one of %s", f.Name, strings.Join(values, ", "))
		default:
			return fmt.Sprintf("--%s needs a value: --%s %s", f.Name, f.Name, placeholder(f))
		}
	}
	return msg
}

// placeholder is the flag's placeholder as its help writes it, or where the
// help writes its default instead (--seed=0), the kind of value it takes.
func placeholder(f *kong.Flag) string {
	if f.PlaceHolder != "" || !f.HasDefault {
		return f.FormatPlaceHolder()
	}
	t := f.Value.Target.Type()
	switch {
	case t == reflect.TypeFor[time.Duration]():
		return "DURATION"
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
		return "INT"
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		return "NUMBER"
	case t.Kind() == reflect.String:
		return "STRING" // as the help names a string flag without a default
	}
	return "VALUE"
}

// List writes items for a message: at most max of them, each cut at 40 bytes,
// then how many more there are ("a, b, c and 4 more").
func List(items []string, max int) string {
	var out []string
	for i, it := range items {
		if i == max {
			return strings.Join(out, ", ") + fmt.Sprintf(" and %d more", len(items)-max)
		}
		if len(it) > 40 {
			it = strings.ToValidUTF8(it[:40], "") + "..."
		}
		out = append(out, it)
	}
	return strings.Join(out, ", ")
}
