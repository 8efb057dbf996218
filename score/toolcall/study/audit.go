package study

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/contract/strictjson"
	"github.com/fbeval/fbeval/contract/usage"
	"github.com/fbeval/fbeval/fixtures"
	"github.com/fbeval/fbeval/schemas"
	tc "github.com/fbeval/fbeval/score/toolcall"
	"github.com/go-json-experiment/json/jsontext"
)

// OracleFailure is a dataset case whose own expected answer does not pass its
// contract.
type OracleFailure struct {
	CaseID string
	Reason string
}

// AuditOracle scores every case's expected envelope as if a model had answered it,
// under the case's own reference contract: every gold answer must succeed.
func AuditOracle(cases []contract.Case) []OracleFailure {
	judges := map[string]*tc.Judge{}
	var out []OracleFailure
	for i := range cases {
		c := &cases[i]
		j, ok := judges[c.Domain]
		if !ok {
			tool, err := fixtures.ToolForCase(c)
			if err == nil {
				j, err = tc.NewJudge(tool, nil)
			}
			if err != nil {
				out = append(out, OracleFailure{c.ID, err.Error()})
				continue
			}
			judges[c.Domain] = j
		}
		pc, err := tc.PrepareCase(*c)
		if err != nil {
			out = append(out, OracleFailure{c.ID, err.Error()})
			continue
		}
		gold := jsontext.Value(slices.Clone([]byte(c.Expected)))
		gold.Compact()
		res := j.Score(string(gold), pc)
		if !res.Success {
			// each error as check says it, so the field at fault is named
			whys := make([]string, 0, len(res.Errors))
			for _, e := range res.Errors {
				if e.Code == tc.CodeCandidateSchemaInvalid {
					continue // the candidate is the reference: its SCHEMA_INVALID again
				}
				why := e.Code
				if e.Path != "" {
					why += " at " + e.Path
				}
				if e.Message != "" {
					why += ": " + e.Message
				}
				whys = append(whys, why)
			}
			out = append(out, OracleFailure{c.ID, "gold answer fails: " + strings.Join(whys, "; ")})
		}
	}
	return out
}

// GoldError is the first gold answer of the dataset at path (its cases read)
// that fails its own contract, as one line at its case's line, with how many do
// and what to do; nil when every one passes, or the dataset is the built-in
// one (whose every gold answer passes: a test holds it). A case whose gold
// answer fails (arguments its reference schema refuses, a policy they break,
// a policy no value can keep) fails every answer, the right one too.
func GoldError(path string, cases []contract.Case) error {
	if path == fixtures.ToolcallDatasetPath {
		return nil
	}
	fails := AuditOracle(cases)
	if len(fails) == 0 {
		return nil
	}
	f := fails[0]
	more := ""
	if len(fails) > 1 {
		more = fmt.Sprintf(" (and %s)", contract.Plural(len(fails)-1, "more case", "more cases"))
	}
	audit, file := "fbeval fixtures audit --dataset "+path, path
	if contract.Stdin(path) {
		audit, file = "fbeval fixtures audit --dataset FILE", contract.StdinName
	}
	return &contract.InputError{Kind: contract.ErrUsage, File: file, Line: fixtures.CaseLine(path, f.CaseID), Col: 1,
		Msg: fmt.Sprintf("case %s: its %s%s, so every answer to it fails, the right one too: mend the case (%s lists each)", f.CaseID, f.Reason, more, audit)}
}

// ProbeReport runs the mutation probes of a candidate schema per domain.
type ProbeReport struct {
	Domain string
	Stats  tc.ProbeStats
}

// RunProbes probes a candidate schema (per domain) against the expected calls of
// the cases, domain by domain in the given order, plus a total.
func RunProbes(cases []contract.Case, domains []string, candidate func(domain string) ([]byte, error)) ([]ProbeReport, error) {
	var out []ProbeReport
	var total tc.ProbeStats
	for _, d := range domains {
		var prepared []*tc.Case
		var tool contract.Tool
		found := false
		for i := range cases {
			if cases[i].Domain != d {
				continue
			}
			if !found {
				t, err := fixtures.ToolForCase(&cases[i])
				if err != nil {
					return nil, err
				}
				tool, found = t, true
			}
			pc, err := tc.PrepareCase(cases[i])
			if err != nil {
				return nil, err
			}
			prepared = append(prepared, pc)
		}
		if !found {
			continue
		}
		schema, err := candidate(d)
		if err != nil {
			return nil, err
		}
		j, err := tc.NewJudge(tool, schema)
		if err != nil {
			return nil, &contract.InputError{Msg: fmt.Sprintf("domain %s: %v", d, err)}
		}
		p := tc.Probes(j, prepared)
		out = append(out, ProbeReport{d, p})
		total.ValidProbeCount += p.ValidProbeCount
		total.FalseRejections += p.FalseRejections
		total.InvalidProbeCount += p.InvalidProbeCount
		total.InvalidRejected += p.InvalidRejected
	}
	total.InvalidRejectionPercent = pct(total.InvalidRejected, total.InvalidProbeCount)
	total.FalseRejectionPercent = pct(total.FalseRejections, total.ValidProbeCount)
	return append(out, ProbeReport{"total", total}), nil
}

// CheckCase judges output as scoring judges it for the dataset case c (its
// domain's tool, with the candidate schema when given): against the case's
// expected envelope and context, so a refusal or a clarification the case
// expects passes, and the answer is taken as written (bare arguments are no
// envelope).
func CheckCase(tool contract.Tool, candidate, output []byte, c contract.Case) (tc.Result, error) {
	pc, err := tc.PrepareCase(c)
	if err != nil {
		return tc.Result{}, err
	}
	j, err := tc.NewJudge(tool, candidate)
	if err != nil {
		return tc.Result{}, &contract.InputError{Msg: err.Error()}
	}
	return j.Score(string(output), pc), nil
}

// CheckOne judges one output for a tool without a dataset case (HESchema's
// single-argument workflow): the output may be a whole envelope or just the
// arguments (a tool call in another form, contract.ToolCallForm, is neither).
// There is no hidden answer, so the checks are the envelope, the
// reference and candidate schemas, the tool name, the confirmed state (when given:
// an object of confirmed values, or a context {"confirmedState": {...}}) and the
// tool's policies. stateName names the state's file in its errors.
func CheckOne(tool contract.Tool, candidate, output, state []byte, stateName string) (tc.Result, error) {
	v, err := strictjson.Parse(string(output))
	if err != nil {
		return tc.Result{Errors: []tc.Error{{Code: tc.CodeJSONInvalid, Message: err.Error()}}}, nil
	}
	text := string(output)
	var args strictjson.Value
	switch a, ok := v.Get("action"); {
	case ok && a.Kind() == strictjson.String:
		args, _ = v.Get("arguments")
	case OtherForm(tool, v, output):
		// a tool call in another form, an answer encoded twice or an API's
		// message around it: judged as the answer it is, as scoring judges
		// it, not taken for bare arguments
	default:
		args = v
		text = `{"action":"call_tool","tool":` + strictjson.Canonical(strictjson.StringValue(tool.Name)) + `,"arguments":` + string(output) + `,"missingFields":[],"reason":""}`
	}
	expectedArgs := "{}"
	if args.Kind() == strictjson.Object {
		expectedArgs = strictjson.Canonical(args)
	}
	ctx := "{}"
	if stateName != "" && len(bytes.TrimSpace(state)) == 0 {
		// nothing to compare would pass every output
		return tc.Result{}, &contract.InputError{File: stateName, Msg: "the file is empty: give the confirmed values (a JSON object), or leave --state out"}
	}
	if len(state) > 0 {
		if kind, v := contract.KindOf(state); kind != "" {
			return tc.Result{}, &contract.InputError{Kind: contract.ErrWrongFile, File: stateName, Line: 1, Col: 1, Msg: fmt.Sprintf("this is %s (%s), not confirmed state: --state takes the confirmed values (a JSON object), or a context with confirmedState", kind, v)}
		}
		sv, err := strictjson.Parse(string(state))
		if se := (*strictjson.SyntaxError)(nil); errors.As(err, &se) {
			msg := se.Msg
			if hint := contract.NotJSON(state, int64(se.Offset)); hint != "" {
				msg = hint // what an editor did (a byte order mark), said
			}
			// at its place in the file, a column in bytes as every file's
			// (se.Col counts characters, for a message about an output)
			rec := &contract.Record{File: stateName, Line: 1, Col: 1, Raw: state}
			return tc.Result{}, rec.Errorf(int64(se.Offset), "invalid JSON: %s", msg)
		} else if err != nil {
			return tc.Result{}, &contract.InputError{File: stateName, Msg: err.Error()}
		}
		if sv.Kind() != strictjson.Object {
			return tc.Result{}, &contract.InputError{File: stateName, Line: 1, Col: 1, Msg: "the confirmed state must be a JSON object: its confirmed values, or a context with confirmedState"}
		}
		if what, way := contract.Foreign(state); what != "" {
			// a schema given as --state rather than --schema would be checked
			// as the values confirmed
			return tc.Result{}, &contract.InputError{Kind: contract.ErrWrongFile, File: stateName, Line: 1, Col: 1, Msg: "this is " + what + ", not confirmed state: " + way}
		}
		confirmed := sv
		_, hasState := sv.Get("confirmedState")
		_, hasVersion := sv.Get("stateVersion")
		if hasState || hasVersion {
			// a context (HESchema's), its confirmed values in confirmedState
			ctx = string(state)
			confirmed, _ = sv.Get("confirmedState")
		} else {
			ctx = `{"confirmedState":` + string(state) + `}`
		}
		if fields, closed := toolFields(tool); len(fields) > 0 && closed {
			// a value confirmed for no field of a tool that takes no other
			// is compared with nothing the output can hold: a typo, or
			// another tool's state
			for _, m := range confirmed.Members() {
				if !slices.Contains(fields, m.Key) {
					return tc.Result{}, &contract.InputError{File: stateName, Line: 1, Col: 1, Msg: fmt.Sprintf("confirmed value %q is no field of %s (%s)%s", m.Key, tool.Name, strings.Join(fields, ", "), usage.Suggest(m.Key, fields))}
				}
			}
		}
	}
	c := contract.Case{ID: "check", Domain: tool.Domain, Context: []byte(ctx),
		Expected: []byte(`{"action":"call_tool","tool":` + strictjson.Canonical(strictjson.StringValue(tool.Name)) + `,"arguments":` + expectedArgs + `,"missingFields":[],"reason":""}`)}
	return CheckCase(tool, candidate, []byte(text), c)
}

// OtherForm reports whether output (v, read) is an answer in another form
// than the envelope, which check judges as scoring does: a tool call in
// another form, an answer encoded twice, an API's message around the text.
// An object whose members are all arguments of the tool is the tool's
// arguments, whatever it looks like ({"text": ...} of a tool that takes a
// text).
func OtherForm(tool contract.Tool, v strictjson.Value, output []byte) bool {
	if contract.EncodedTwice(output) {
		return true
	}
	if contract.ToolCallForm(output) == "" && contract.WrappedAnswer(output) == "" {
		return false
	}
	if v.Kind() != strictjson.Object {
		return true
	}
	fields, _ := toolFields(tool)
	if len(fields) == 0 {
		return true
	}
	for _, m := range v.Members() {
		if !slices.Contains(fields, m.Key) {
			return true
		}
	}
	return false
}

// toolFields reads a tool's schema once: its fields (schemas.PropertiesOf),
// and whether it takes no argument but them (additionalProperties false), so
// that a value confirmed for another name is no argument of it.
func toolFields(tool contract.Tool) (fields []string, closed bool) {
	doc, err := strictjson.Parse(string(tool.ReferenceSchema))
	if err != nil {
		return nil, false
	}
	_, at := schemas.FieldsAt(doc)
	ap, ok := at.Get("additionalProperties")
	return schemas.PropertiesOf(doc), ok && ap.Kind() == strictjson.Bool && !ap.Bool()
}
