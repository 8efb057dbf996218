package relations

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/schemas"
)

// Verdicts.
const (
	Pass       = "PASS"
	Fail       = "FAIL"
	NotChecked = "NOT_CHECKED"
)

// Scope says what a PASS means; results carry it so that nobody reads more into it.
const Scope = "the implemented checks passed (JSON Schema, relation keywords, bound context facts); nothing more is claimed"

// maxAssemblyRounds bounds how often Assemble recomputes: a computed value may feed
// another (a count inside a sum), but never without end.
const maxAssemblyRounds = 8

// CheckOptions tune Check.
type CheckOptions struct {
	// ContextVersion, when set, is the context version the caller expects; a context
	// file with another version is stale.
	ContextVersion *int
}

// Error is one reason an output failed.
type Error struct {
	Code     string   // e.g. COMPARE_FAILED, SCHEMA_VIOLATION, STATE_MISMATCH
	Pointers []string // JSON Pointers into the output, absolute
	Expected any      // a JSON value or a description; nil when there is none
	Actual   any      // the JSON value found; nil when there is none
	Message  string   // one line
}

// Insertion is a value the application computed and inserted while assembling.
type Insertion struct {
	Pointer string
	Value   any // json.Number
}

// Result is the outcome of checking one output against a contract.
type Result struct {
	Contract        string // contract id
	ContractVersion string
	ContractHash    string
	Stage           string // "raw" or "assembled"
	Verdict         string // PASS, FAIL or NOT_CHECKED
	Semantic        string // bound facts: PASS, FAIL, NOT_CHECKED; empty without bindings
	Note            string // why the semantic check did not run
	Errors          []Error
	Inserted        []Insertion // assembled stage: values the application computed
	Raw             *Result     // assembled stage: the result for the raw output
	// Lint is what Lint finds in the contract (a relation whose pointer
	// resolves nowhere is skipped): shown with the verdict, so a PASS read
	// from the JSON is not taken for the relations' having been checked
	Lint []LintFinding
}

// Check validates output against the contract's schema and relation keywords and,
// when the contract has bindings, its bound values against ctx's facts. ctx may be
// nil. Bound facts are only compared when ctx is approved and not stale; otherwise
// the verdict is at best NOT_CHECKED, never PASS.
func (c *Contract) Check(output []byte, ctx *Context, opts CheckOptions) *Result {
	doc, err := decodeJSON(output)
	if err != nil {
		r := c.newResult("raw")
		r.Errors = []Error{{Code: CodeInvalidJSON, Pointers: []string{""}, Message: err.Error()}}
		r.finish()
		return r
	}
	return c.checkDoc(doc, ctx, opts, "raw")
}

// Assemble is AssembleContext without a context.
func (c *Contract) Assemble(output []byte) ([]byte, *Result, error) {
	return c.AssembleContext(output, nil, CheckOptions{})
}

// AssembleContext fills in the targets of x-count, x-sum and x-product keywords
// that say "compute": "application" and that the output left out, computing each
// exactly, then checks the assembled document again. The result is for the
// assembled document; its Raw field is the result for the output as given, and
// Inserted lists what the application added. It returns the assembled document as
// compact JSON with sorted keys, or an error when output is not JSON.
func (c *Contract) AssembleContext(output []byte, ctx *Context, opts CheckOptions) ([]byte, *Result, error) {
	doc, err := decodeJSON(output)
	if err != nil {
		r := c.newResult("assembled")
		r.Errors = []Error{{Code: CodeInvalidJSON, Pointers: []string{""}, Message: err.Error()}}
		r.finish()
		return nil, r, err
	}
	raw := c.checkDoc(doc, ctx, opts, "raw")
	var inserted []Insertion
	var problems []Error
	done := false
	for round := 0; round < maxAssemblyRounds && !done && len(problems) == 0; round++ {
		ins := c.computeInserts(doc)
		if len(ins) == 0 {
			done = true
			break
		}
		seen := map[string]any{}
		for _, in := range ins {
			if prev, ok := seen[in.Pointer]; ok {
				if !equalJSON(prev, in.Value) {
					problems = append(problems, Error{Code: CodeAssembly, Pointers: []string{in.Pointer}, Expected: prev, Actual: in.Value,
						Message: fmt.Sprintf("two keywords compute different values for %s", in.Pointer)})
				}
				continue
			}
			seen[in.Pointer] = in.Value
			if err := insertAt(doc, in.Pointer, in.Value); err != nil {
				problems = append(problems, Error{Code: CodeAssembly, Pointers: []string{in.Pointer}, Message: err.Error()})
				continue
			}
			inserted = append(inserted, in)
		}
	}
	if !done && len(problems) == 0 {
		problems = append(problems, Error{Code: CodeAssembly, Pointers: []string{""},
			Message: fmt.Sprintf("computed values still missing after %d rounds", maxAssemblyRounds)})
	}
	res := c.checkDoc(doc, ctx, opts, "assembled")
	res.Raw = raw
	res.Inserted = inserted
	sort.Slice(res.Inserted, func(i, j int) bool { return res.Inserted[i].Pointer < res.Inserted[j].Pointer })
	res.Errors = append(res.Errors, problems...)
	res.finish()
	out, err := contract.Marshal(doc, contract.Compact)
	if err != nil {
		return nil, res, fmt.Errorf("write assembled output: %v", err)
	}
	return out, res, nil
}

// insertAt sets the member named by ptr; its parent must be an object.
func insertAt(doc any, ptr string, v any) error {
	p, err := parsePointer(ptr, false)
	if err != nil || len(p.tokens) == 0 {
		return fmt.Errorf("cannot insert a computed value at %q", ptr)
	}
	up := pointer{tokens: p.tokens[:len(p.tokens)-1]}
	parent, ok := up.resolve(doc)
	if !ok {
		return fmt.Errorf("cannot insert at %s: the object it goes in, %s, is absent from the output (the application computes the value, not the object that holds it)", ptr, string(schemas.Pointer(up.tokens)))
	}
	obj, isObj := parent.(map[string]any)
	if !isObj {
		return fmt.Errorf("cannot insert at %s: %s is %s, not an object", ptr, string(schemas.Pointer(up.tokens)), describe(parent))
	}
	obj[p.tokens[len(p.tokens)-1]] = v
	return nil
}

// validate runs the compiled schema on doc and returns its failures as Errors.
func (c *Contract) validate(doc any, assembling bool) ([]Error, []Insertion) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.st.root, c.st.assembling, c.st.inserts = doc, assembling, nil
	err := c.sch.Validate(doc)
	ins := c.st.inserts
	c.st.root, c.st.assembling, c.st.inserts = nil, false, nil
	if err == nil {
		return nil, ins
	}
	var out []Error
	if vErr, isVE := asValidationError(err); isVE {
		for _, l := range flatten(vErr, nil) {
			if rk, ok := l.kind.(*relKind); ok {
				out = append(out, rk.e)
				continue
			}
			out = append(out, Error{Code: CodeSchema, Pointers: []string{l.loc}, Message: l.keyword + ": " + l.msg})
		}
	} else {
		out = append(out, Error{Code: CodeSchema, Pointers: []string{""}, Message: oneLine(err.Error())})
	}
	return out, ins
}

func (c *Contract) computeInserts(doc any) []Insertion {
	_, ins := c.validate(doc, true)
	return ins
}

func (c *Contract) newResult(stage string) *Result {
	return &Result{Contract: c.ID, ContractVersion: c.Version, ContractHash: c.Hash, Stage: stage}
}

func (c *Contract) checkDoc(doc any, ctx *Context, opts CheckOptions, stage string) *Result {
	r := c.newResult(stage)
	r.Errors, _ = c.validate(doc, false)
	if len(c.bindings) > 0 {
		r.Semantic = c.checkBindings(doc, ctx, opts, r)
	}
	r.finish()
	return r
}

// checkBindings compares bound output values with the context's facts.
func (c *Contract) checkBindings(doc any, ctx *Context, opts CheckOptions, r *Result) string {
	if ctx == nil {
		r.Note = "no context given: bound facts were not compared"
		return NotChecked
	}
	if opts.ContextVersion != nil && *opts.ContextVersion != ctx.Version {
		r.Note = "stale context: bound facts were not compared"
		r.Errors = append(r.Errors, Error{Code: CodeStaleContext, Expected: *opts.ContextVersion, Actual: ctx.Version,
			Message: fmt.Sprintf("context version is %d, expected %d", ctx.Version, *opts.ContextVersion)})
		return NotChecked
	}
	if !ctx.Approved {
		r.Note = "context not approved: bound facts were not compared"
		return NotChecked
	}
	verdict := Pass
	facts := any(ctx.Facts)
	for _, b := range c.bindings {
		want, okFact := b.fact.resolve(facts)
		got, okOut := b.out.resolve(doc)
		switch {
		case !okFact:
			verdict = Fail
			r.Errors = append(r.Errors, Error{Code: CodeStateMismatch, Pointers: []string{b.out.text}, Actual: got,
				Message: fmt.Sprintf("the context has no fact at %s", b.fact.text)})
		case !okOut:
			verdict = Fail
			r.Errors = append(r.Errors, Error{Code: CodeStateMismatch, Pointers: []string{b.out.text}, Expected: want,
				Message: fmt.Sprintf("%s is missing; the fact at %s is %s", pointerName(b.out.text, "the output"), pointerName(b.fact.text, "the facts"), describe(want))})
		case jsonType(want) != jsonType(got) || !equalJSON(want, got):
			verdict = Fail
			r.Errors = append(r.Errors, Error{Code: CodeStateMismatch, Pointers: []string{b.out.text}, Expected: want, Actual: got,
				Message: mismatchText(b.out.text, got, b.fact.text, want)})
		}
	}
	return verdict
}

// finish sorts and de-duplicates the errors and sets the verdict.
func (r *Result) finish() {
	sort.SliceStable(r.Errors, func(i, j int) bool { return errorKey(r.Errors[i]) < errorKey(r.Errors[j]) })
	out := r.Errors[:0]
	for i, e := range r.Errors {
		if i > 0 && errorKey(e) == errorKey(r.Errors[i-1]) {
			continue
		}
		out = append(out, e)
	}
	r.Errors = out
	switch {
	case len(r.Errors) > 0:
		r.Verdict = Fail
	case r.Semantic == NotChecked:
		r.Verdict = NotChecked
	default:
		r.Verdict = Pass
	}
}

func errorKey(e Error) string {
	return strings.Join(e.Pointers, "\x01") + "\x00" + e.Code + "\x00" + e.Message
}

// WriteText writes the verdict on one line, then one reason per line.
func (r *Result) WriteText(w io.Writer) error {
	var b strings.Builder
	head := r.Verdict
	switch r.Verdict {
	case Pass:
		head += ": " + Scope
	case NotChecked:
		head += ": " + r.Note
	}
	if r.Stage == "assembled" {
		head += fmt.Sprintf(" [assembled: %d value(s) computed by the application]", len(r.Inserted))
	}
	b.WriteString(head + "\n")
	if r.Verdict == Fail && r.Note != "" {
		// a FAIL of the schema or the relations, the facts not compared:
		// said, as the JSON's note says it (a PASS there is NOT_CHECKED)
		b.WriteString("note: " + r.Note + "\n")
	}
	for _, in := range r.Inserted {
		fmt.Fprintf(&b, "computed %s = %v\n", in.Pointer, in.Value)
	}
	for _, e := range r.Errors {
		ptrs := strings.Join(quotePointers(e.Pointers), ", ")
		if ptrs != "" {
			ptrs = " " + ptrs
		}
		fmt.Fprintf(&b, "%s%s: %s\n", e.Code, ptrs, e.Message)
	}
	for _, f := range r.Lint {
		fmt.Fprintf(&b, "lint: %s %s at %s: %s\n", f.Severity, f.Code, f.Location, f.Message)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func quotePointers(ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		if p == "" {
			p = "(root)"
		}
		out[i] = p
	}
	return out
}

// Object returns r as an ordered JSON object (the form WriteJSON writes).
func (r *Result) Object() contract.Object {
	errs := make([]any, len(r.Errors))
	for i, e := range r.Errors {
		ptrs := make([]any, len(e.Pointers))
		for j, p := range e.Pointers {
			ptrs[j] = p
		}
		o := contract.Object{{Key: "code", Value: e.Code}, {Key: "pointers", Value: ptrs}}
		if e.Expected != nil {
			o = append(o, contract.Member{Key: "expected", Value: e.Expected})
		}
		if e.Actual != nil {
			o = append(o, contract.Member{Key: "actual", Value: e.Actual})
		}
		o = append(o, contract.Member{Key: "message", Value: e.Message})
		errs[i] = o
	}
	o := contract.Object{
		{Key: "contract", Value: r.Contract},
		{Key: "contract_version", Value: r.ContractVersion},
		{Key: "contract_sha256", Value: r.ContractHash},
		{Key: "stage", Value: r.Stage},
		{Key: "verdict", Value: r.Verdict},
		{Key: "scope", Value: Scope},
	}
	if r.Semantic != "" {
		o = append(o, contract.Member{Key: "semantic", Value: r.Semantic})
	}
	if r.Note != "" {
		o = append(o, contract.Member{Key: "note", Value: r.Note})
	}
	o = append(o, contract.Member{Key: "errors", Value: errs})
	if len(r.Lint) > 0 {
		lint := make([]any, len(r.Lint))
		for i, f := range r.Lint {
			lint[i] = contract.Object{{Key: "severity", Value: f.Severity}, {Key: "code", Value: f.Code}, {Key: "location", Value: f.Location}, {Key: "message", Value: f.Message}}
		}
		o = append(o, contract.Member{Key: "lint", Value: lint})
	}
	if r.Stage == "assembled" {
		ins := make([]any, len(r.Inserted))
		for i, in := range r.Inserted {
			ins[i] = contract.Object{{Key: "pointer", Value: in.Pointer}, {Key: "value", Value: in.Value}}
		}
		o = append(o, contract.Member{Key: "inserted", Value: ins})
	}
	if r.Raw != nil {
		o = append(o, contract.Member{Key: "raw", Value: r.Raw.Object()})
	}
	return o
}

// WriteJSON writes r as indented JSON with a fixed key order and a final newline.
func (r *Result) WriteJSON(w io.Writer) error {
	b, err := contract.Marshal(r.Object(), contract.PythonIndent)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
