package export

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"text/template"
	"text/template/parse"
	"time"
	"unicode"

	"github.com/fbeval/fbeval/contract/strictjson"
)

// Prompt templates come from study files, so their work is bounded: a template
// must finish within templateTimeout and write at most maxPromptBytes per text,
// and the loops and widths that could not (a range over a billion, a printf
// padded to a gigabyte) are refused when the template is read.
const (
	maxRangeCount  = 100000
	maxPrintfWidth = 100000
	maxPromptBytes = 1 << 20
)

// templateTimeout bounds one execution of a prompt template.
var templateTimeout = 5 * time.Second

var printfVerbWidth = regexp.MustCompile(`%[-+# 0]*(\*|[0-9]+)?(?:\.(\*|[0-9]+))?`)

// checkTemplate refuses the constructs of t that no prompt needs and that would
// run for hours or fill memory.
func checkTemplate(t *template.Template) error {
	for _, tt := range t.Templates() {
		if tt.Tree == nil || tt.Tree.Root == nil {
			continue
		}
		if err := checkNode(tt.Tree, tt.Tree.Root); err != nil {
			return err
		}
	}
	return nil
}

func checkNode(tree *parse.Tree, n parse.Node) error {
	fail := func(n parse.Node, format string, args ...any) error {
		e := &templateError{msg: fmt.Sprintf(format, args...)}
		loc, _ := tree.ErrorContext(n) // name:line:col
		parts := strings.Split(loc, ":")
		if len(parts) >= 3 {
			e.line, _ = strconv.Atoi(parts[len(parts)-2])
			e.col, _ = strconv.Atoi(parts[len(parts)-1])
		}
		return e
	}
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return nil
		}
		for _, c := range n.Nodes {
			if err := checkNode(tree, c); err != nil {
				return err
			}
		}
	case *parse.RangeNode:
		if cmds := n.Pipe.Cmds; len(cmds) > 0 {
			last := cmds[len(cmds)-1]
			if len(last.Args) == 1 {
				if num, ok := last.Args[0].(*parse.NumberNode); ok && (!num.IsInt || num.Int64 > maxRangeCount) {
					return fail(n, "range over %s: a prompt template may loop at most %d times", num.Text, maxRangeCount)
				}
			}
		}
		if err := checkNode(tree, n.Pipe); err != nil {
			return err
		}
		if err := checkNode(tree, n.List); err != nil {
			return err
		}
		return checkNode(tree, n.ElseList)
	case *parse.IfNode:
		if err := checkNode(tree, n.Pipe); err != nil {
			return err
		}
		if err := checkNode(tree, n.List); err != nil {
			return err
		}
		return checkNode(tree, n.ElseList)
	case *parse.WithNode:
		if err := checkNode(tree, n.Pipe); err != nil {
			return err
		}
		if err := checkNode(tree, n.List); err != nil {
			return err
		}
		return checkNode(tree, n.ElseList)
	case *parse.ActionNode:
		return checkNode(tree, n.Pipe)
	case *parse.TemplateNode:
		return checkNode(tree, n.Pipe)
	case *parse.PipeNode:
		if n == nil {
			return nil
		}
		for _, c := range n.Cmds {
			if err := checkNode(tree, c); err != nil {
				return err
			}
		}
	case *parse.CommandNode:
		for i, a := range n.Args {
			if id, ok := a.(*parse.IdentifierNode); ok && strings.HasPrefix(id.Ident, "print") && i+1 < len(n.Args) {
				if s, ok := n.Args[i+1].(*parse.StringNode); ok {
					for _, m := range printfVerbWidth.FindAllStringSubmatch(s.Text, -1) {
						for _, w := range m[1:] {
							if w == "*" {
								return fail(n, "printf width or precision from an argument (*) is not allowed in a prompt template")
							}
							if w != "" {
								if k, err := strconv.Atoi(w); err != nil || k > maxPrintfWidth {
									return fail(n, "printf width or precision %s: at most %d", w, maxPrintfWidth)
								}
							}
						}
					}
				}
			}
			if err := checkNode(tree, a); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkPlacement refuses what a template (named t.Name(), parsed from text)
// holds outside the prompts: text or actions outside its {{define}} blocks, and
// a block that neither "system" nor "user" runs ({{template "x" .}}). A request
// carries a system and a user message, so both would be left out of every
// prompt, said nowhere (an assistant prefill, a rule written between blocks).
func checkPlacement(t *template.Template, text string) error {
	if t.Tree != nil && t.Tree.Root != nil {
		for _, n := range t.Tree.Root.Nodes {
			off := int(n.Position())
			switch n := n.(type) {
			case *parse.CommentNode:
				continue
			case *parse.TemplateNode:
				// a {{block}} at the top defines its block right there (its
				// text begins after the action's one close): the prompts
				// run it by name; a {{template}} at the top runs in no prompt
				if b := t.Lookup(n.Name); b != nil && b.Tree != nil && b.Tree.Root != nil {
					if start := int(b.Tree.Root.Position()); start >= off && start <= len(text) && strings.Count(text[off:start], "}}") == 1 {
						continue
					}
				}
			case *parse.TextNode:
				trimmed := strings.TrimLeftFunc(string(n.Text), unicode.IsSpace)
				if trimmed == "" {
					continue
				}
				off += len(n.Text) - len(trimmed)
				line, col := strictjson.LineCol(text, off)
				return &templateError{line: line, col: col, msg: fmt.Sprintf(`text outside the {{define}} blocks is in no prompt (%s): move it into the "system" or "user" block, or make it a comment {{/* ... */}}`, quoteHead(strings.TrimSpace(trimmed)))}
			}
			line, col := strictjson.LineCol(text, off)
			return &templateError{line: line, col: col, msg: `an action outside the {{define}} blocks is in no prompt: move it into the "system" or "user" block`}
		}
	}
	used := map[string]bool{}
	var visit func(name string)
	visit = func(name string) {
		if used[name] {
			return
		}
		used[name] = true
		if b := t.Lookup(name); b != nil && b.Tree != nil {
			templateRefs(b.Tree.Root, visit)
		}
	}
	visit("system")
	visit("user")
	for _, name := range blockNames(t, t.Name()) {
		if !used[name] {
			at := blockAt(text, t.Lookup(name))
			return &templateError{line: at[0], col: at[1], msg: fmt.Sprintf(`block %q is in no prompt: a request carries the "system" and "user" blocks and the blocks they run ({{template %q .}}); move its text into one of them, or remove it`, name, name)}
		}
	}
	return nil
}

// templateRefs calls ref with the name of each template node n runs.
func templateRefs(n parse.Node, ref func(string)) {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return
		}
		for _, c := range n.Nodes {
			templateRefs(c, ref)
		}
	case *parse.TemplateNode:
		ref(n.Name)
	case *parse.IfNode:
		templateRefs(n.List, ref)
		templateRefs(n.ElseList, ref)
	case *parse.RangeNode:
		templateRefs(n.List, ref)
		templateRefs(n.ElseList, ref)
	case *parse.WithNode:
		templateRefs(n.List, ref)
		templateRefs(n.ElseList, ref)
	}
}

// quoteHead is s quoted, its first 40 characters where it is longer.
func quoteHead(s string) string {
	if r := []rune(s); len(r) > 40 {
		return strconv.Quote(string(r[:40])) + "..."
	}
	return strconv.Quote(s)
}

// templateError is a construct of a template refused at its line and column.
type templateError struct {
	line, col int
	msg       string
}

func (e *templateError) Error() string { return e.msg }

// errPromptTooLong ends a template execution that writes too much.
var errPromptTooLong = fmt.Errorf("the text passes %d bytes", maxPromptBytes)

// boundedBuilder is a strings.Builder that refuses to grow past maxPromptBytes.
type boundedBuilder struct{ strings.Builder }

func (b *boundedBuilder) Write(p []byte) (int, error) {
	if b.Len()+len(p) > maxPromptBytes {
		return 0, errPromptTooLong
	}
	return b.Builder.Write(p)
}

// executeBounded runs one template of t within templateTimeout and
// maxPromptBytes. A run that does not finish in time is left behind (a template
// cannot be stopped); the command then ends with the error.
func executeBounded(t *template.Template, name string, data any) (string, error) {
	type result struct {
		s   string
		err error
	}
	done := make(chan result, 1)
	go func() {
		var b boundedBuilder
		err := t.ExecuteTemplate(&b, name, data)
		if errors.Is(err, errPromptTooLong) {
			err = errPromptTooLong
		}
		done <- result{b.String(), err}
	}()
	timer := time.NewTimer(templateTimeout)
	defer timer.Stop()
	select {
	case r := <-done:
		return r.s, r.err
	case <-timer.C:
		return "", fmt.Errorf("the %q template ran for more than %v", name, templateTimeout)
	}
}
