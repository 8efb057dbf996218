package toolcall

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"unsafe"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/contract/strictjson"
	"github.com/fbeval/fbeval/score/relations"
	"github.com/go-json-experiment/json/jsontext"
)

// Error codes, one per kind of failure (spec section 4).
const (
	CodeJSONInvalid             = "JSON_INVALID"
	CodeSchemaInvalid           = "SCHEMA_INVALID"
	CodeCandidateSchemaInvalid  = "CANDIDATE_SCHEMA_INVALID"
	CodeStateMismatch           = "STATE_MISMATCH"
	CodeGroundTruthMismatch     = "GROUND_TRUTH_MISMATCH"
	CodeWrongTool               = "WRONG_TOOL"
	CodeUnexpectedMissingFields = "UNEXPECTED_MISSING_FIELDS"
	CodePolicyLimit             = "POLICY_LIMIT"
	CodePolicyOrder             = "POLICY_ORDER"
	CodeControlMismatch         = "CONTROL_MISMATCH"
	CodeWrongAction             = "WRONG_ACTION"
)

// Error is one reason an output failed a check. Path is an RFC 6901 JSON Pointer
// into the output ("" is the whole output). Expected and Actual are nil or JSONText
// holding canonical JSON; Actual is nil when the output lacks the value. Details holds
// the schema errors a CANDIDATE_SCHEMA_INVALID summarises.
type Error struct {
	Code     string
	Path     string
	Keyword  string
	Message  string
	Expected any
	Actual   any
	Details  []Error
}

// Result is the verdict on one output. Action is the action the output chose (its
// "action" member when the output is a JSON object with a string there, even if the
// envelope is otherwise invalid), "" when there is none.
type Result struct {
	Success           bool
	ReferenceValid    bool
	CandidateValid    bool
	SemanticallyRight bool
	PolicyValid       bool
	Action            string
	Errors            []Error
}

// Judge scores outputs for one tool against its fixed reference schema and one
// candidate schema. It is safe for concurrent use.
type Judge struct {
	tool      contract.Tool
	reference *Schema
	candidate *Schema // == reference when no candidate was given
	maxRules  []maxRule
	ordered   [][2]string
}

type maxRule struct {
	field   string
	ceiling strictjson.Value
	text    strictjson.JSONText // the ceiling's canonical text
	path    string              // the field's JSON Pointer in an output
}

// NewJudge compiles tool's reference schema and the candidate schema (nil: the
// reference) once, for every output scored with the judge.
func NewJudge(tool contract.Tool, candidateSchema []byte) (*Judge, error) {
	if len(tool.ReferenceSchema) == 0 {
		return nil, fmt.Errorf("tool %q: no reference schema", tool.Name)
	}
	ref, err := CompileSchema(tool.ReferenceSchema)
	if err != nil {
		return nil, fmt.Errorf("tool %q: reference %w", tool.Name, err)
	}
	j := &Judge{tool: tool, reference: ref, candidate: ref}
	if candidateSchema != nil && !sameDocument(ref, candidateSchema) {
		if j.candidate, err = CompileSchema(candidateSchema); err != nil {
			return nil, fmt.Errorf("tool %q: candidate %w", tool.Name, err)
		}
	}
	fields := make([]string, 0, len(tool.Policy.Max))
	for f := range tool.Policy.Max {
		fields = append(fields, f)
	}
	slices.Sort(fields)
	for _, f := range fields {
		c, err := strictjson.Parse(string(tool.Policy.Max[f]))
		if err != nil || !c.IsNumber() {
			return nil, fmt.Errorf("tool %q: policy max %q: ceiling %q is not a number", tool.Name, f, tool.Policy.Max[f])
		}
		j.maxRules = append(j.maxRules, maxRule{field: f, ceiling: c, text: strictjson.CanonicalText(c),
			path: string(jsontext.Pointer("/arguments").AppendToken(f))})
	}
	j.ordered = slices.Clone(tool.Policy.Ordered)
	return j, nil
}

// sameDocument reports whether data is a JSON document equal to s's (the same
// value, whatever its layout and member order): a candidate schema that is the
// reference schema validates as the reference does, so it is validated once.
func sameDocument(s *Schema, data []byte) bool {
	doc, err := strictjson.Parse(string(data))
	return err == nil && strictjson.Equal(doc, s.doc)
}

// Tool returns the judge's tool contract.
func (j *Judge) Tool() contract.Tool { return j.tool }

// Reference returns the compiled reference schema.
func (j *Judge) Reference() *Schema { return j.reference }

// Candidate returns the compiled candidate schema (the reference when none was given).
func (j *Judge) Candidate() *Schema { return j.candidate }

// Case is a dataset case prepared for scoring: its expected envelope and context
// parsed once, with exact numbers.
type Case struct {
	ID       string
	Cluster  string
	Domain   string
	Category string

	action   string
	tool     strictjson.Value // string or null
	args     strictjson.Value // object
	missing  []string
	state    strictjson.Value // object when hasState
	hasState bool
	version  strictjson.Value    // stateVersion, null when absent
	bindings []strictjson.Member // the state, else the expected arguments, sorted by key

	// canonical texts of the expected values, for the errors that quote them
	argsText, toolText, actionText, missingText strictjson.JSONText
	bindingTexts                                []strictjson.JSONText

	pass atomic.Pointer[casePass] // see Judge.expectedPass
}

// ExpectedAction returns the action the case expects.
func (c *Case) ExpectedAction() string { return c.action }

// ExpectedArguments returns the arguments the case expects ({} unless a call).
func (c *Case) ExpectedArguments() strictjson.Value { return c.args }

// HasState reports whether the case's context holds a confirmed state.
func (c *Case) HasState() bool { return c.hasState }

// State returns the confirmed state (null when there is none).
func (c *Case) State() strictjson.Value { return c.state }

// StateVersion returns the context's stateVersion (null when absent).
func (c *Case) StateVersion() strictjson.Value { return c.version }

// PrepareCase parses a case's expected envelope and context.
func PrepareCase(c contract.Case) (*Case, error) {
	pc := &Case{ID: c.ID, Cluster: c.Cluster, Domain: c.Domain, Category: c.Category}
	exp, err := strictjson.Parse(string(c.Expected))
	if err != nil {
		return nil, fmt.Errorf("case %q: expected: %w", c.ID, err)
	}
	if errs := ValidateEnvelope(exp); len(errs) > 0 {
		return nil, fmt.Errorf("case %q: expected is not an envelope: at %q: %s", c.ID, errs[0].Path, errs[0].Message)
	}
	e := splitEnvelope(exp)
	pc.action, pc.tool, pc.args = e.action, e.tool, e.arguments
	for _, m := range e.missing.Items() {
		pc.missing = append(pc.missing, m.Value.Str())
	}
	pc.version = strictjson.NullValue()
	pc.state = strictjson.NullValue()
	if ctx := strings.TrimSpace(string(c.Context)); ctx != "" && ctx != "null" {
		cv, err := strictjson.Parse(ctx)
		if err != nil {
			return nil, fmt.Errorf("case %q: context: %w", c.ID, err)
		}
		if cv.Kind() != strictjson.Object {
			return nil, fmt.Errorf("case %q: context must be an object, got %s", c.ID, cv.Kind())
		}
		if st, ok := cv.Get("confirmedState"); ok {
			if st.Kind() != strictjson.Object {
				return nil, fmt.Errorf("case %q: context confirmedState must be an object, got %s", c.ID, st.Kind())
			}
			pc.state, pc.hasState = st, true
		}
		if ver, ok := cv.Get("stateVersion"); ok {
			pc.version = ver
		}
	}
	pc.bindings = sortedMembers(pc.args)
	if pc.hasState {
		pc.bindings = sortedMembers(pc.state)
	}
	pc.argsText, pc.toolText = strictjson.CanonicalText(pc.args), strictjson.CanonicalText(pc.tool)
	pc.actionText = strictjson.CanonicalText(strictjson.StringValue(pc.action))
	pc.missingText = strictjson.CanonicalText(stringsValue(pc.missing))
	for _, b := range pc.bindings {
		pc.bindingTexts = append(pc.bindingTexts, strictjson.CanonicalText(b.Value))
	}
	return pc, nil
}

// Score judges one output for case c.
//
// Where the spec is silent: reference-schema errors do not stop the semantic and
// policy checks of a call (every code is reported, as HESchema does); non-empty
// missingFields in a call breaks semantic rightness; a policy field that is absent is
// a policy error as well as a schema error; errors come in check order: schema,
// candidate, state (by field), ground truth, tool, missing fields, policies (limits by
// field, then orders in policy order), control, action.
func (j *Judge) Score(output string, c *Case) Result {
	var r Result
	// Nothing of v outlives the call (errors carry canonical text, not values), so
	// its containers come from the parser's arena.
	v, p, err := strictjson.ParseScratch(output)
	defer p.Release()
	if err != nil {
		r.Errors = []Error{{Code: CodeJSONInvalid, Message: err.Error()}}
		return r
	}
	if a, ok := v.Get("action"); ok && a.Kind() == strictjson.String {
		r.Action = a.Str()
	}
	if envErrs := ValidateEnvelope(v); envErrs != nil {
		r.Errors = make([]Error, len(envErrs))
		for i, se := range envErrs {
			r.Errors[i] = Error{Code: CodeSchemaInvalid, Path: se.Path, Keyword: se.Keyword, Message: se.Message}
		}
		return r
	}
	e := splitEnvelope(v)
	semantic := e.action == c.action
	if e.action == contract.ActionCallTool {
		r.Errors, semantic, r.ReferenceValid, r.CandidateValid, r.PolicyValid = j.scoreCall(e, c, semantic)
	} else {
		ok := j.scoreControl(e, c, &r.Errors)
		r.ReferenceValid, r.CandidateValid, r.PolicyValid = ok, ok, ok
		semantic = semantic && ok
	}
	if e.action != c.action {
		r.Errors = append(r.Errors, Error{
			Code: CodeWrongAction, Path: "/action",
			Message:  "action " + strconv.Quote(e.action) + ", expected " + strconv.Quote(c.action),
			Expected: c.actionText, Actual: actionText(e.action),
		})
	}
	r.SemanticallyRight = semantic
	r.Success = r.ReferenceValid && r.SemanticallyRight && r.PolicyValid
	return r
}

// ScoreBytes is Score on output held in a buffer the caller reuses: the output is
// not copied, and nothing in the Result refers to it.
func (j *Judge) ScoreBytes(output []byte, c *Case) Result {
	r := j.Score(unsafe.String(unsafe.SliceData(output), len(output)), c)
	// Action is the one member of a Result taken from the output as is (the
	// parser hands back unescaped strings as parts of its input); messages,
	// paths and canonical texts are all built anew.
	switch r.Action {
	case "":
	case contract.ActionCallTool:
		r.Action = contract.ActionCallTool
	case contract.ActionAsk:
		r.Action = contract.ActionAsk
	case contract.ActionRefuse:
		r.Action = contract.ActionRefuse
	default:
		r.Action = strings.Clone(r.Action)
	}
	return r
}

func (j *Judge) scoreCall(e envelopeParts, c *Case, semantic bool) (errs []Error, sem, refValid, candValid, polValid bool) {
	refErrs := j.reference.validate(e.arguments, "/arguments")
	if len(refErrs) > 0 {
		// room for the schema errors, the candidate's and the most the checks
		// below add (a success keeps Errors nil)
		errs = make([]Error, 0, len(refErrs)+len(c.bindings)+4+len(j.maxRules)+len(j.ordered))
	}
	for _, se := range refErrs {
		errs = append(errs, Error{Code: schemaCode(se.Keyword), Path: se.Path, Keyword: se.Keyword, Message: se.Message})
	}
	refValid = len(refErrs) == 0
	candErrs := refErrs
	if j.candidate != j.reference {
		candErrs = j.candidate.validate(e.arguments, "/arguments")
	}
	candValid = len(candErrs) == 0
	if !candValid {
		var details []Error
		if j.candidate == j.reference {
			// the same errors as the reference's, which open errs: shared, capped so
			// that nothing appended to one reaches the other
			details = errs[:len(refErrs):len(refErrs)]
		} else {
			details = make([]Error, len(candErrs))
			for i, se := range candErrs {
				details[i] = Error{Code: schemaCode(se.Keyword), Path: se.Path, Keyword: se.Keyword, Message: se.Message}
			}
		}
		errs = append(errs, Error{
			Code: CodeCandidateSchemaInvalid, Path: "/arguments",
			Message: "arguments fail the candidate schema (" + contract.Plural(len(candErrs), "error", "errors") +
				"; first at " + strconv.Quote(candErrs[0].Path) + ": " + candErrs[0].Message + ")",
			Details: details,
		})
	}

	// Bindings: confirmed state beats the expected arguments.
	for i, b := range c.bindings {
		got, ok := e.arguments.Get(b.Key)
		if ok && strictjson.Equal(got, b.Value) {
			continue
		}
		semantic = false
		me := Error{Code: CodeStateMismatch, Path: string(jsontext.Pointer("/arguments").AppendToken(b.Key)), Expected: c.bindingTexts[i]}
		if ok {
			actual := strictjson.CanonicalText(got)
			me.Actual = actual
			me.Message = b.Key + " is " + string(actual) + ", expected " + string(c.bindingTexts[i])
		} else {
			me.Message = b.Key + " is missing, expected " + string(c.bindingTexts[i])
		}
		errs = append(errs, me)
	}
	if !strictjson.Equal(e.arguments, c.args) {
		semantic = false
		errs = append(errs, Error{
			Code: CodeGroundTruthMismatch, Path: "/arguments", Message: "arguments differ from the expected arguments",
			Expected: c.argsText, Actual: strictjson.CanonicalText(e.arguments),
		})
	}
	if !strictjson.Equal(e.tool, c.tool) {
		semantic = false
		actual := strictjson.CanonicalText(e.tool)
		errs = append(errs, Error{
			Code: CodeWrongTool, Path: "/tool",
			Message:  "tool " + string(actual) + ", expected " + string(c.toolText),
			Expected: c.toolText, Actual: actual,
		})
	}
	if e.missing.Len() > 0 {
		semantic = false
		errs = append(errs, Error{
			Code: CodeUnexpectedMissingFields, Path: "/missingFields",
			Message:  "a tool call must not list missing fields",
			Expected: strictjson.JSONText("[]"), Actual: strictjson.CanonicalText(e.missing),
		})
	}
	n := len(errs)
	errs = j.checkPolicies(e.arguments, errs)
	return errs, semantic, refValid, candValid, len(errs) == n
}

// checkPolicies appends POLICY_LIMIT and POLICY_ORDER errors for args.
func (j *Judge) checkPolicies(args strictjson.Value, errs []Error) []Error {
	// An absent field is not a number (nor a string), so it fails its policy as
	// HESchema's does, beside the schema's required error.
	for _, rule := range j.maxRules {
		got, ok := args.Get(rule.field)
		if ok && got.IsNumber() && strictjson.CompareNumbers(got, rule.ceiling) <= 0 {
			continue
		}
		e := Error{
			Code: CodePolicyLimit, Path: rule.path, Keyword: "max",
			Message:  rule.field + " must be a number at most " + string(rule.text),
			Expected: rule.text,
		}
		if ok {
			e.Actual = strictjson.CanonicalText(got)
		} else {
			e.Message = rule.field + " is missing; it must be a number at most " + string(rule.text)
		}
		errs = append(errs, e)
	}
	for _, pair := range j.ordered {
		first, _ := args.Get(pair[0])
		second, _ := args.Get(pair[1])
		if first.Kind() == strictjson.String && second.Kind() == strictjson.String && first.Str() < second.Str() {
			continue
		}
		errs = append(errs, Error{
			Code: CodePolicyOrder, Path: string(jsontext.Pointer("/arguments").AppendToken(pair[1])), Keyword: "ordered",
			Message: pair[1] + " must be a string after " + pair[0] + " (" + strictjson.Canonical(first) + ", " + strictjson.Canonical(second) + ")",
			Actual:  strictjson.CanonicalText(strictjson.ObjectValue(strictjson.Member{Key: pair[0], Value: first}, strictjson.Member{Key: pair[1], Value: second})),
		})
	}
	return errs
}

// scoreControl checks a clarification or refusal: no tool, no arguments, and the
// expected missing fields (order free) or none for a refusal.
func (j *Judge) scoreControl(e envelopeParts, c *Case, errs *[]Error) bool {
	ok := true
	if e.tool.Kind() != strictjson.Null {
		ok = false
		*errs = append(*errs, Error{Code: CodeControlMismatch, Path: "/tool",
			Message:  e.action + " must have tool null",
			Expected: strictjson.JSONText("null"), Actual: strictjson.CanonicalText(e.tool)})
	}
	if e.arguments.Len() != 0 {
		ok = false
		*errs = append(*errs, Error{Code: CodeControlMismatch, Path: "/arguments",
			Message:  e.action + " must have empty arguments",
			Expected: strictjson.JSONText("{}"), Actual: strictjson.CanonicalText(e.arguments)})
	}
	var want []string
	wantText := strictjson.JSONText("[]")
	if e.action == contract.ActionAsk {
		want, wantText = c.missing, c.missingText
	}
	if !sameStringSet(e.missing, want) {
		ok = false
		msg := "missingFields differ from the expected fields"
		if e.action == contract.ActionRefuse {
			msg = "a refusal must not list missing fields"
		}
		*errs = append(*errs, Error{Code: CodeControlMismatch, Path: "/missingFields", Message: msg,
			Expected: wantText, Actual: strictjson.CanonicalText(e.missing)})
	}
	return ok
}

// actionTexts are the canonical texts of the three actions, which every
// envelope's action is one of.
var actionTexts = map[string]strictjson.JSONText{
	contract.ActionCallTool: strictjson.CanonicalText(strictjson.StringValue(contract.ActionCallTool)),
	contract.ActionAsk:      strictjson.CanonicalText(strictjson.StringValue(contract.ActionAsk)),
	contract.ActionRefuse:   strictjson.CanonicalText(strictjson.StringValue(contract.ActionRefuse)),
}

// actionText is the canonical text of an action.
func actionText(a string) strictjson.JSONText {
	if t, ok := actionTexts[a]; ok {
		return t
	}
	return strictjson.CanonicalText(strictjson.StringValue(a))
}

// stringsValue returns a JSON array of strings.
func stringsValue(ss []string) strictjson.Value {
	vs := make([]strictjson.Value, len(ss))
	for i, s := range ss {
		vs[i] = strictjson.StringValue(s)
	}
	return strictjson.ArrayValue(vs...)
}

// sameStringSet compares an array of unique strings with a set, order free.
func sameStringSet(arr strictjson.Value, want []string) bool {
	if arr.Len() != len(want) {
		return false
	}
	items := arr.Items()
	for i := range items {
		if !slices.Contains(want, items[i].Value.Str()) {
			return false
		}
	}
	return true
}

// sortedMembers returns an object's members sorted by key.
func sortedMembers(v strictjson.Value) []strictjson.Member {
	ms := slices.Clone(v.Members())
	slices.SortFunc(ms, func(a, b strictjson.Member) int { return strings.Compare(a.Key, b.Key) })
	return ms
}

// schemaCode is the code of a schema error: SCHEMA_INVALID, or for fbeval's relation
// keywords their own code (x-sum -> SUM_MISMATCH). Either way reference validity is
// lost.
func schemaCode(keyword string) string {
	if c, ok := relations.CodeFor(keyword); ok {
		return c
	}
	return CodeSchemaInvalid
}

// Codes returns every code an error of the judge can have: its own in the
// order of the checks, then the relation keywords' in theirs.
func Codes() []string {
	out := []string{CodeJSONInvalid, CodeSchemaInvalid, CodeCandidateSchemaInvalid, CodeStateMismatch,
		CodeGroundTruthMismatch, CodeWrongTool, CodeUnexpectedMissingFields, CodePolicyLimit,
		CodePolicyOrder, CodeControlMismatch, CodeWrongAction}
	for _, k := range relations.Keywords {
		if c, ok := relations.CodeFor(k); ok && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// relationCodes are the codes of fbeval's relation keywords.
var relationCodes = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range relations.Keywords {
		if c, ok := relations.CodeFor(k); ok {
			m[c] = true
		}
	}
	return m
}()
