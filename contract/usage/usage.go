// Package usage words the usage errors of every fbeval binary (fbeval and the
// runners) as the command's help words them, where kong's own words speak of
// its grammar: a command's missing arguments (`expected "<results> ..."`), a
// flag given last with no value after it (`expected string value but got
// "EOL" (<EOL>)`), a value a flag does not take (`must be one of ...`, with
// the one meant when it is near) and a value that begins with "-"; and it
// lists names in a message (List) and measures typos (EditDistance) for all
// of them.
package usage

import (
	"fmt"
	"math/big"
	"reflect"
	"regexp"
	"slices"
	"strconv"
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
	return missingFlags(badNumber(dashValue(notOneOf(missingValue(missingArguments(prog, msg, ctx), ctx)))))
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

// notEnum matches kong's words for a value a flag does not take:
// `--format must be one of "json","text" but got "xml"`.
var notEnum = regexp.MustCompile(`^--([a-z0-9-]+) must be one of ((?:"[^"]*",?)+) but got "(.*)"$`)

// notOneOf words a value a flag does not take with the values it does, the
// nearest first when one is near (--format xml: not one of json, text; --mode
// Garble: ...; did you mean garble); any other msg is returned as it is.
func notOneOf(msg string) string {
	m := notEnum.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	var values []string
	for _, v := range strings.Split(m[2], ",") {
		// an empty value (unset: the study's own) is not one to give
		if v = strings.Trim(v, `"`); v != "" {
			values = append(values, v)
		}
	}
	got := m[3]
	if got == "" || strings.ContainsAny(got, " \t") {
		got = fmt.Sprintf("%q", got)
	}
	return fmt.Sprintf("--%s %s: not one of %s", m[1], got, strings.Join(values, ", ")) + Suggest(m[3], values)
}

// Suggest is "; did you mean X" when v is a typo of X, one of values
// (Nearest), to end a message that refuses v; "" when it is none's.
func Suggest(v string, values []string) string {
	if near := Nearest(v, values); near != "" {
		return "; did you mean " + near
	}
	return ""
}

// SuggestWord is Suggest, or when no value is near v, the one value v is the
// first word of (input for input_schema): "" when none or several are.
func SuggestWord(v string, values []string) string {
	if s := Suggest(v, values); s != "" {
		return s
	}
	found := ""
	for _, w := range values {
		if rest, ok := strings.CutPrefix(w, v); ok && v != "" && (rest == "" || rest[0] == '_' || rest[0] == '-' || rest[0] == '.') {
			if found != "" {
				return ""
			}
			found = w
		}
	}
	if found == "" {
		return ""
	}
	return "; did you mean " + found
}

// Nearest returns the one of values that v is a typo of: the same but for
// case, or one edit away (two when v is five bytes or longer, so that a swap
// of two letters is near; none but case below three bytes); "" when none is,
// or more than one is equally near.
func Nearest(v string, values []string) string {
	best, bestD, ties := "", 3, 0
	if len(v) < 5 {
		bestD = 2
	}
	for _, w := range values {
		d := EditDistance(strings.ToLower(v), strings.ToLower(w))
		switch {
		case d < bestD:
			best, bestD, ties = w, d, 0
		case d == bestD && best != "":
			ties++
		}
	}
	if ties > 0 || bestD > 0 && len(v) < 3 {
		return ""
	}
	return best
}

// Misspelling returns the one of values that v misspells: Nearest's, unless
// v holds it whole with more around it than one letter after it (a plural's
// s, a doubled letter), which makes another word built on it, not a typo of
// it (tsType holds type, promptId prompt, incomplete complete,
// unconfirmedState confirmedState); "" when none.
func Misspelling(v string, values []string) string {
	w := Nearest(v, values)
	lv, lw := strings.ToLower(v), strings.ToLower(w)
	if w == "" || len(lv) > len(lw) && strings.Contains(lv, lw) && !(len(lv) == len(lw)+1 && strings.HasPrefix(lv, lw)) {
		return ""
	}
	return w
}

// dashTaken matches kong's words for a value that begins with "-" and was
// taken for a flag: `--seed: expected int value but got "-3" (short flag);
// perhaps try --seed="-3"?`.
var dashTaken = regexp.MustCompile(`^--([a-z0-9-]+): expected [a-z0-9.]+ value but got "(-[^"]*)" \((?:short|long) flag\); perhaps try --[a-z0-9-]+="-[^"]*"\?$`)

// dashValue says how to give a value that begins with "-" (--seed=-3), where
// kong's msg says it was taken for a flag; any other msg is returned as it is.
func dashValue(msg string) string {
	m := dashTaken.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	return fmt.Sprintf(`--%s %s: a value that begins with "-" is taken for a flag: write --%s=%s`, m[1], m[2], m[1], m[2])
}

// notNumber matches kong's words for a value that is not the number or
// duration a flag takes: `--seed: expected a valid 64 bit int but got "1.5"`,
// `--temperature: expected a float but got "abc" (string)`, `--timeout:
// expected duration but got "5": time: missing unit in duration "5"`.
var notNumber = regexp.MustCompile(`^--([a-z0-9-]+): expected (a valid \d+ bit u?int|a float|duration) but got "(.*?)"(?: \([a-z]+\)|: .*)?$`)

var wholeNumber = regexp.MustCompile(`^[+-]?[0-9]+$`)

// intRange is the least and the greatest value of kong's "a valid N bit int"
// (or uint).
func intRange(kind string) (lo, hi string) {
	bits := 64
	fmt.Sscanf(strings.TrimPrefix(kind, "a valid "), "%d", &bits)
	if strings.Contains(kind, "uint") {
		return "0", new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(bits)), big.NewInt(1)).String()
	}
	half := new(big.Int).Lsh(big.NewInt(1), uint(bits-1))
	return new(big.Int).Neg(half).String(), half.Sub(half, big.NewInt(1)).String()
}

// badNumber says what a flag's value should look like where kong's msg
// speaks of Go's types (--seed 1.5: not a whole number; --timeout 5: not a
// duration: give it with its unit, 30s, 2m, 1h30m); any other msg is returned
// as it is.
func badNumber(msg string) string {
	m := notNumber.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	flag, got := m[1], m[3]
	if got == "" || strings.ContainsAny(got, " \t") {
		got = fmt.Sprintf("%q", got)
	}
	switch {
	case strings.Contains(m[2], "int") && wholeNumber.MatchString(got):
		// a whole number the flag's type cannot hold
		lo, hi := intRange(m[2])
		// the type's bound, which the flag's own may be inside of
		// (--workers takes at most 1024): said as the bound of every flag
		if strings.HasPrefix(got, "-") {
			return fmt.Sprintf("--%s %s: too small: no flag takes a number below %s (--help says what --%s takes)", flag, got, lo, flag)
		}
		return fmt.Sprintf("--%s %s: too large: no flag takes a number past %s (--help says what --%s takes)", flag, got, hi, flag)
	case strings.Contains(m[2], "int"):
		return fmt.Sprintf("--%s %s: not a whole number", flag, got)
	case m[2] == "a float":
		return fmt.Sprintf("--%s %s: not a number", flag, got)
	}
	return fmt.Sprintf("--%s %s: not a duration: give it with its unit (30s, 2m, 1h30m)", flag, got)
}

// missingFlags says how to give the flags a command requires, where kong's
// msg lists them as `missing flags: --model=STRING`; any other msg is
// returned as it is.
func missingFlags(msg string) string {
	list, ok := strings.CutPrefix(msg, "missing flags: ")
	if !ok {
		return msg
	}
	var names, give []string
	for _, f := range strings.Split(list, ", ") {
		name, value, _ := strings.Cut(f, "=")
		names = append(names, name)
		give = append(give, strings.TrimSpace(name+" "+value))
	}
	return fmt.Sprintf("missing %s: give %s", strings.Join(names, " and "), strings.Join(give, " "))
}

// EditDistance is the Levenshtein distance of two strings (bytes): how far a
// typo is from the name it misspells.
func EditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
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

// EmptyValue words a flag or argument of ctx given as an empty string, or
// "" when there is none: `-o "$OUT"` or `--dataset "$DATASET"` with the
// variable unset is the flag left out, silently (the report on standard
// output, the built-in dataset scored in place of one's own). A list flag
// counts when an item is empty. A flag whose values include "" and the flags
// named in exempt (whose own checks word it for what they take) may be empty.
func EmptyValue(ctx *kong.Context, exempt ...string) string {
	for _, p := range ctx.Path {
		v := p.Positional
		name := ""
		if p.Flag != nil {
			v, name = p.Flag.Value, "--"+p.Flag.Name
		}
		if v == nil || slices.Contains(exempt, v.Name) || !emptyValue(v.Target) {
			continue
		}
		if v.Enum != "" && slices.Contains(strings.Split(v.Enum, ","), "") {
			continue // "" is one of its values (--decoding "": the study's)
		}
		if name == "" {
			arg := strings.ToUpper(v.Name)
			return fmt.Sprintf("an empty argument %s (a shell variable that is not set?): give %s", arg, arg)
		}
		what := "give a value, or leave the flag out"
		if v.Required {
			what = "give a value"
		}
		return fmt.Sprintf("%s \"\": an empty value names nothing (a shell variable that is not set?): %s", name, what)
	}
	return ""
}

// emptyValue reports whether v, a flag's value, is an empty string, or a
// list of strings that holds one or none.
func emptyValue(v reflect.Value) bool {
	switch {
	case v.Kind() == reflect.String:
		return v.String() == ""
	case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.String:
		if v.Len() == 0 {
			return true
		}
		for i := range v.Len() {
			if v.Index(i).String() == "" {
				return true
			}
		}
	}
	return false
}

// Repeated words a flag of ctx that takes one value given more than once, or
// "" when there is none: the parser keeps the last, so `-o a.json ... -o
// b.json` (a script's flags and the user's) wrote b.json alone and said
// nothing of a.json. Flags that take a list, and switches, may repeat.
func Repeated(ctx *kong.Context) string {
	seen := map[*kong.Flag]bool{}
	for _, p := range ctx.Path {
		f := p.Flag
		if f == nil || p.Resolved || f.IsCumulative() || f.IsBool() || f.IsCounter() {
			continue
		}
		if seen[f] {
			name := "--" + f.Name
			if f.Short != 0 {
				name = "-" + string(f.Short) + "/" + name
			}
			return fmt.Sprintf("%s is given more than once, and takes one value (the last, %s, would be used alone): give it once", name, givenValue(f))
		}
		seen[f] = true
	}
	return ""
}

// givenValue is a flag's value as given, quoted for a message: what a
// pointer (a flag whose absence is told from its zero) points to.
func givenValue(f *kong.Flag) string {
	v := f.Target
	for v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	return strconv.Quote(fmt.Sprint(v.Interface()))
}
