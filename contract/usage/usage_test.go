package usage

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kong"
)

type grammar struct {
	Send struct {
		Mode    string        `enum:"a,b" default:"a" help:"Mode."`
		Style   string        `enum:",x,y" default:"" help:"Style (unset: the study's)."`
		Arms    []string      `placeholder:"ARM" help:"Arms."`
		Out     string        `placeholder:"FILE" help:"Output."`
		Model   string        `help:"Model."`
		KeyEnv  string        `default:"KEY" help:"Key variable."`
		Seed    int64         `default:"3" help:"Seed."`
		Timeout time.Duration `default:"2m" help:"Timeout."`
		Temp    float64       `default:"0.5" help:"Temperature."`
		Input   string        `arg:"" placeholder:"REQUESTS" help:"Requests."`
		Results []string      `arg:"" help:"Results."`
	} `cmd:"" help:"Send."`
	Need struct {
		Model string `required:"" help:"Model."`
		Key   string `required:"" placeholder:"VAR" help:"Key variable."`
	} `cmd:"" help:"Needs flags."`
}

// parse returns kong's parse error of args, worded by Explain, and the
// command its context names.
func parse(t *testing.T, args ...string) (string, string) {
	t.Helper()
	var g grammar
	p, err := kong.New(&g, kong.Name("prog"), kong.Exit(func(int) { t.Fatal("exit") }))
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Parse(args)
	var pe *kong.ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("%v: no parse error (%v)", args, err)
	}
	return Explain("prog", pe.Unwrap().Error(), pe.Context), Command("prog", pe.Context)
}

func TestExplain(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"send"}, "missing REQUESTS and RESULTS: prog send REQUESTS RESULTS ..."},
		{[]string{"send", "r.jsonl"}, "missing RESULTS: prog send REQUESTS RESULTS ..."},
		{[]string{"send", "r", "x", "--mode"}, "--mode needs a value: one of a, b"},
		{[]string{"send", "r", "x", "--out"}, "--out needs a value: --out FILE"},
		{[]string{"send", "r", "x", "--model"}, "--model needs a value: --model STRING"},
		{[]string{"send", "r", "x", "--key-env"}, "--key-env needs a value: --key-env STRING"}, // a default, named as one without
		{[]string{"send", "r", "x", "--seed"}, "--seed needs a value: --seed INT"},             // not its default
		{[]string{"send", "r", "x", "--timeout"}, "--timeout needs a value: --timeout DURATION"},
		{[]string{"send", "r", "x", "--temp"}, "--temp needs a value: --temp NUMBER"},
		{[]string{"send", "r", "x", "--style"}, "--style needs a value: one of x, y"}, // not the empty one
		{[]string{"send", "r", "x", "--arms"}, "--arms needs a value: --arms ARM,..."},
		{[]string{"send", "r", "x", "--mode", "c"}, `--mode c: not one of a, b`},
		{[]string{"send", "r", "x", "--mode", "A"}, `--mode A: not one of a, b; did you mean a`},
		{[]string{"send", "r", "x", "--style", "z"}, `--style z: not one of x, y`},
		{[]string{"send", "r", "x", "--mode", ""}, `--mode "": not one of a, b`},
		// a value that is not the number or duration the flag takes
		{[]string{"send", "r", "x", "--seed", "1.5"}, `--seed 1.5: not a whole number`},
		{[]string{"send", "r", "x", "--seed", "99999999999999999999"}, `--seed 99999999999999999999: too large: no flag takes a number past 9223372036854775807 (--help says what --seed takes)`},
		{[]string{"send", "r", "x", "--seed=-99999999999999999999"}, `--seed -99999999999999999999: too small: no flag takes a number below -9223372036854775808 (--help says what --seed takes)`},
		{[]string{"send", "r", "x", "--temp", "abc"}, `--temp abc: not a number`},
		{[]string{"send", "r", "x", "--timeout", "5"}, `--timeout 5: not a duration: give it with its unit (30s, 2m, 1h30m)`},
		{[]string{"send", "r", "x", "--timeout", "soon"}, `--timeout soon: not a duration: give it with its unit (30s, 2m, 1h30m)`},
		{[]string{"send", "r", "x", "--timeout", ""}, `--timeout "": not a duration: give it with its unit (30s, 2m, 1h30m)`},
		// a value that begins with "-" is taken for a flag
		{[]string{"send", "r", "x", "--seed", "-3"}, `--seed -3: a value that begins with "-" is taken for a flag: write --seed=-3`},
		{[]string{"send", "r", "x", "--temp", "-0.5"}, `--temp -0.5: a value that begins with "-" is taken for a flag: write --temp=-0.5`},
	} {
		got, path := parse(t, tc.args...)
		if got != tc.want || path != "prog send" {
			t.Errorf("%q: %q (command %q), want %q", tc.args, got, path, tc.want)
		}
	}
	if got, path := parse(t); got != `expected one of "send", "need"` || path != "prog" { // as kong says it
		t.Errorf("no command: %q (command %q)", got, path)
	}
	if got := Explain("prog", "anything", nil); got != "anything" {
		t.Errorf("no context: %q", got)
	}
}

// A value a flag does not take is named with the one it is a typo of, if one is.
func TestNearest(t *testing.T) {
	formats := []string{"json", "text", "table", "markdown", "html", "junit", "jsonl"}
	for _, tc := range []struct{ v, want string }{
		{"JSON", "json"},
		{"jsn", "json"},
		{"tabel", "table"}, // a swap: two edits
		{"tables", "table"},
		{"markdwon", "markdown"},
		{"junt", "junit"},
		{"Html", "html"},
		{"xml", ""},   // two edits from html, and short
		{"yaml", ""},  //
		{"jsonx", ""}, // one edit from json and from jsonl: no guess
		{"", ""},
		{"t", ""},
	} {
		if got := Nearest(tc.v, formats); got != tc.want {
			t.Errorf("Nearest(%q) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

// TestSuggestWord: an arm named by its first word (input for input_schema)
// is suggested when no arm is a typo away, and only when one arm begins so.
func TestSuggestWord(t *testing.T) {
	arms := []string{"no_schema", "minimal_schema", "input_schema"}
	for _, tc := range []struct{ v, want string }{
		{"input", "; did you mean input_schema"},
		{"minimal", "; did you mean minimal_schema"},
		{"imput_schema", "; did you mean input_schema"},
		{"in", ""},     // no whole first word
		{"schema", ""}, // a last word, and of three
		{"", ""},
	} {
		if got := SuggestWord(tc.v, arms); got != tc.want {
			t.Errorf("SuggestWord(%q) = %q, want %q", tc.v, got, tc.want)
		}
	}
	if got := SuggestWord("a", []string{"a_x", "a_y"}); got != "" {
		t.Errorf("two arms of one first word: %q", got)
	}
}

// Flags a command requires are named with how to give them.
func TestMissingFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"need"}, "missing --key and --model: give --key VAR --model STRING"},
		{[]string{"need", "--key", "K"}, "missing --model: give --model STRING"},
	} {
		if got, path := parse(t, tc.args...); got != tc.want || path != "prog need" {
			t.Errorf("%q: %q (command %q), want %q", tc.args, got, path, tc.want)
		}
	}
}

func TestList(t *testing.T) {
	long := "a" + strings.Repeat("é", 30) // 61 bytes: the cut at 40 splits an é, which goes
	for _, tc := range []struct {
		items []string
		max   int
		want  string
	}{
		{nil, 3, ""},
		{[]string{"a"}, 3, "a"},
		{[]string{"a", "b", "c"}, 3, "a, b, c"},
		{[]string{"a", "b", "c", "d", "e"}, 3, "a, b, c and 2 more"},
		{[]string{long, "b"}, 1, "a" + strings.Repeat("é", 19) + "... and 1 more"},
	} {
		if got := List(tc.items, tc.max); got != tc.want {
			t.Errorf("List(%q, %d) = %q, want %q", tc.items, tc.max, got, tc.want)
		}
	}
}

// TestMisspelling: a typo is near a name and no other word built on it.
func TestMisspelling(t *testing.T) {
	names := []string{"type", "required", "x-sum", "complete", "confirmedState", "prompt"}
	for v, want := range map[string]string{
		"typ": "type", "Type": "type", "types": "type", "requried": "required", "x-summ": "x-sum", "completes": "complete", "confirmedstate": "confirmedState",
		"tsType": "", "typeof": "", "dtype": "", "@type": "", "incomplete": "", "unconfirmedState": "", "promptId": "", "unrelated": "",
	} {
		if got := Misspelling(v, names); got != want {
			t.Errorf("Misspelling(%q) = %q, want %q", v, got, want)
		}
	}
}

// Repeated names a flag of one value given twice, which the parser would take
// the last of; a list flag, a switch and a flag given once are no repeat.
func TestRepeated(t *testing.T) {
	type cli struct {
		Output string   `short:"o" help:"Output."`
		Seed   int64    `help:"Seed."`
		Gate   []string `help:"Gates."`
		Fresh  bool     `help:"Fresh."`
		Limit  *int     `help:"Limit."`
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-o", "a.json", "--output", "b.json"}, `-o/--output is given more than once, and takes one value (the last, "b.json", would be used alone): give it once`},
		{[]string{"--seed", "1", "--seed=2"}, `--seed is given more than once, and takes one value (the last, "2", would be used alone): give it once`},
		{[]string{"-o", "a.json", "--gate", "x>=1", "--gate", "y>=1", "--fresh", "--fresh"}, ""},
		{[]string{"--seed", "1"}, ""},
		// a pointer's value, not its address
		{[]string{"--limit", "2", "--limit", "3"}, `--limit is given more than once, and takes one value (the last, "3", would be used alone): give it once`},
	} {
		var c cli
		p, err := kong.New(&c, kong.Name("prog"), kong.Exit(func(int) { t.Fatal("exit") }))
		if err != nil {
			t.Fatal(err)
		}
		ctx, err := p.Parse(tt.args)
		if err != nil {
			t.Fatalf("%q: %v", tt.args, err)
		}
		if got := Repeated(ctx); got != tt.want {
			t.Errorf("Repeated(%q) = %q, want %q", tt.args, got, tt.want)
		}
	}
}
