package main

import (
	"bufio"
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/contract/strictjson"
	"github.com/fbeval/fbeval/contract/usage"
	"github.com/fbeval/fbeval/export"
	"github.com/fbeval/fbeval/fixtures"
	"github.com/fbeval/fbeval/score"
	"github.com/fbeval/fbeval/score/relations"
	"github.com/fbeval/fbeval/score/report"
	tc "github.com/fbeval/fbeval/score/toolcall"
	"github.com/fbeval/fbeval/score/toolcall/study"
)

// CheckCmd checks one output: against a toolcall domain's tool contract (with an
// optional confirmed state and candidate schema), or against an fbeval contract
// (with an optional approved context).
type CheckCmd struct {
	File           string `arg:"" optional:"" help:"The output to check (a JSON file; - for standard input)." placeholder:"OUTPUT"`
	ModelOutput    string `help:"The output to check (same as the argument)." placeholder:"FILE"`
	OldOutput      string `name:"output" hidden:"" help:"Deprecated: --model-output (elsewhere -o/--output names the file written)." placeholder:"FILE"`
	Domain         string `help:"Toolcall domain whose tool contract applies (flights, hotels, calendar, payments, inventory, search, or one of --dataset's)." placeholder:"D"`
	Case           string `help:"Toolcall: judge the output as fbeval score judges this case of the dataset (--dataset's, else the built-in one): against its expected answer and context, so a refusal or a clarification the case expects passes; the output is taken as written (an envelope). Its domain's tool applies; no --domain or --state is needed." placeholder:"ID"`
	Dataset        string `help:"Toolcall: a dataset of your own (HESchema's case format) whose domain's tool applies (default: the built-in one)." placeholder:"FILE"`
	State          string `help:"Toolcall: confirmed state, an object of confirmed values or a context with confirmedState." placeholder:"FILE"`
	Schema         string `help:"Toolcall: candidate schema to check as well (a variant name or a file)." placeholder:"VARIANT|FILE"`
	Contract       string `help:"An fbeval-contract/v1 file." placeholder:"FILE"`
	Context        string `help:"Contract: the approved context file ({version, approved, facts})." placeholder:"FILE"`
	ContextVersion *int   `help:"Contract: the context version the output was made with; another version is STALE_CONTEXT." placeholder:"N"`
	Assemble       bool   `help:"Contract: compute the values marked compute: application, insert them, check again and print the completed document."`
	Format         string `help:"text or json." enum:"text,json" default:"text"`
}

func (c *CheckCmd) Run(env *Env) error {
	path := c.File
	if c.OldOutput != "" {
		env.warnf("check --output is deprecated: give the file as the argument or with --model-output")
		if c.ModelOutput == "" {
			c.ModelOutput = c.OldOutput
		}
	}
	if c.ModelOutput != "" {
		if path != "" && path != c.ModelOutput {
			return usageError("give the output once: as the argument or with --model-output")
		}
		path = c.ModelOutput
	}
	if path == "" {
		return usageError("name the output to check (a file, or - for standard input)")
	}
	if (c.Domain == "" && c.Case == "") == (c.Contract == "") {
		return usageError("give either --domain (a tool contract), --case (a dataset case) or --contract (an fbeval contract)")
	}
	if c.Case != "" && c.State != "" {
		return usageError("--case judges the output with the case's own context: --state goes with --domain, which judges it without a case")
	}
	// every file it reads: standard input once, and none of them standard
	// output (> empties it before fbeval starts, >> appends the verdict)
	inputs := [][2]string{{"the output", path}, {"--contract", c.Contract}, {"--context", c.Context}, {"--state", c.State}, {"--dataset", c.Dataset}}
	if contract.IsSchemaFile(c.Schema) {
		inputs = append(inputs, [2]string{"--schema", c.Schema})
	}
	for _, in := range inputs {
		if in[1] == "" {
			continue
		}
		if err := env.claimStdin(in[0], in[1]); err != nil {
			return err
		}
		if !contract.Stdin(in[1]) {
			env.noteInput(in[1])
		}
	}
	if err := env.stdoutNotInput(); err != nil {
		return err
	}
	r, done, err := openInput(env, path, false)
	if err != nil {
		return err
	}
	data, err := contract.ReadAll(path, r)
	done()
	if err != nil {
		return &exitError{code: 2, err: cleanPathError(err)}
	}
	if kind, v := contract.KindOf(data); kind != "" {
		// one of fbeval's own files, not what a model wrote
		advice := ""
		if kind == "a response file" {
			advice = "; score response files with fbeval score"
		}
		return &contract.InputError{Kind: contract.ErrWrongFile, File: path, Line: 1, Col: 1, Msg: fmt.Sprintf("this is %s (%s), not one model output: fbeval check checks the text one answer holds%s", kind, v, advice)}
	}
	if what, _ := contract.Foreign(data); what == contract.AJSONSchema {
		// a schema to check with, given as the output to check
		return &contract.InputError{Kind: contract.ErrWrongFile, File: path, Line: 1, Col: 1, Msg: "this is a JSON Schema, not one model output: a candidate schema goes to --schema " + path + ", beside the output to check"}
	}
	if c.Contract != "" {
		return c.runContract(env, data)
	}
	if c.Context != "" || c.ContextVersion != nil || c.Assemble {
		return usageError("--context, --context-version and --assemble go with --contract")
	}
	if c.Dataset != "" && c.Domain == "" && c.Case == "" {
		return usageError("--dataset goes with --domain: name the dataset's domain whose tool applies (or --case, one of its cases)")
	}
	return c.runTool(env, data)
}

// checkCase finds the case c.Case names in the dataset, with its domain's
// tool and the candidate schema (--schema), as a study of the dataset makes
// them.
func (c *CheckCmd) checkCase() (contract.Case, contract.Tool, []byte, error) {
	var domains []string
	if contract.IsSchemaFile(c.Schema) {
		// a schema file applies to one domain: the case's (a plan of every
		// domain refused it, --domain given or not)
		dataset := c.Dataset
		if dataset == "" {
			dataset = fixtures.ToolcallDatasetPath
		}
		cases, err := export.LoadDataset(dataset, relations.Vocabulary)
		if err != nil {
			return contract.Case{}, contract.Tool{}, nil, err
		}
		if i := slices.IndexFunc(cases, func(k contract.Case) bool { return k.ID == c.Case }); i >= 0 {
			domains = []string{cases[i].Domain}
		}
	}
	plan, err := c.plan(domains)
	if err != nil {
		return contract.Case{}, contract.Tool{}, nil, err
	}
	ids := make([]string, len(plan.Cases))
	for i, k := range plan.Cases {
		if k.ID == c.Case {
			if c.Domain != "" && c.Domain != k.Domain {
				return contract.Case{}, contract.Tool{}, nil, usageError("--case %s is a case of domain %s, not %s: leave --domain out", k.ID, k.Domain, c.Domain)
			}
			var candidate []byte
			if c.Schema != "" {
				candidate = plan.Candidate[k.Domain]
			}
			return k, plan.Tools[k.Domain], candidate, nil
		}
		ids[i] = k.ID
	}
	return contract.Case{}, contract.Tool{}, nil, usageError("--case %s: no case of %s has that id (its ids run %s to %s)%s", c.Case, plan.Study.Dataset, ids[0], ids[len(ids)-1], usage.Suggest(c.Case, ids))
}

// plan is the plan of the built-in toolcall study over --dataset (of the
// domains named, all when none are), with --schema the candidate: the tools
// and candidates a study of the dataset judges with.
func (c *CheckCmd) plan(domains []string) (*export.ToolcallPlan, error) {
	s, _ := fixtures.BuiltinStudy(fixtures.StudyToolcall)
	s, err := export.Resolve(s, export.Overrides{Dataset: c.Dataset, Schema: c.Schema, Domains: domains})
	if err != nil {
		return nil, err
	}
	return export.PlanToolcall(s, relations.Vocabulary)
}

func (c *CheckCmd) runTool(env *Env, output []byte) error {
	if c.Case != "" {
		k, tool, candidate, err := c.checkCase()
		if err != nil {
			return err
		}
		res, err := study.CheckCase(tool, candidate, output, k)
		if err != nil {
			return err
		}
		c.Domain = k.Domain
		return c.writeVerdict(env, tool, output, res, k.ID)
	}
	tool, ok := fixtures.ToolcallTool(c.Domain)
	if !ok && c.Dataset == "" {
		hint := usage.Suggest(c.Domain, fixtures.ToolcallDomains())
		if hint == "" {
			hint = " (a domain of a dataset of your own: give --dataset FILE)"
		}
		return usageError("unknown domain %q; domains: %s%s", c.Domain, strings.Join(fixtures.ToolcallDomains(), ", "), hint)
	}
	var candidate, state []byte
	if c.Schema != "" || c.Dataset != "" {
		// the tool and candidate as a study of the dataset makes them: its
		// domain's tool (a dataset's own, policy and all), the schema compiled
		plan, err := c.plan([]string{c.Domain})
		if err != nil {
			return err
		}
		tool, candidate = plan.Tools[c.Domain], plan.Candidate[c.Domain]
		if c.Schema == "" {
			candidate = nil // no candidate given: the reference alone
		}
	}
	if c.State != "" {
		var err error
		if state, err = contract.ReadFile(c.State); err != nil {
			return &exitError{code: 2, err: cleanPathError(err)}
		}
	}
	res, err := study.CheckOne(tool, candidate, output, state, c.State)
	if err != nil {
		return err
	}
	return c.writeVerdict(env, tool, output, res, "")
}

// writeVerdict writes the verdict res of output, judged with tool (for the
// dataset case caseID, when one was named).
func (c *CheckCmd) writeVerdict(env *Env, tool contract.Tool, output []byte, res tc.Result, caseID string) error {
	verdict := "PASS"
	if !res.Success {
		verdict = "FAIL"
	}
	formNote := ""
	outputValue, _ := strictjson.Parse(string(output))
	_, hasAction := outputValue.Get("action")
	switch form := contract.ToolCallForm(output); {
	case caseID != "" && outputValue.Kind() == strictjson.Object && !hasAction && !study.OtherForm(tool, outputValue, output):
		// judged as written, as score judges a response
		formNote = "this is the tool's arguments alone, not the envelope a model answers with ({\"action\":\"call_tool\",\"tool\":NAME,\"arguments\":{...},\"missingFields\":[],\"reason\":\"\"}): --case judges it as score does, as a failure; --domain checks arguments alone"
	case !study.OtherForm(tool, outputValue, output):
		// the tool's arguments, whatever they look like
	case form != "":
		formNote = "this is " + form + ", not the envelope: in a response file it scores as a failure too; the envelope is {\"action\":\"call_tool\",\"tool\":NAME,\"arguments\":{...},\"missingFields\":[],\"reason\":\"\"}"
		if caseID == "" {
			formNote += ", or give the arguments alone to check them"
		}
	case contract.EncodedTwice(output):
		// as score names it
		formNote = "this is a JSON string that holds JSON (" + score.EncodedTwice + "): in a response file it scores as a failure too; give the JSON it holds to check it"
	case contract.WrappedAnswer(output) != "":
		formNote = "this is " + contract.WrappedAnswer(output) + ", an API's message around the model's text, not the text: in a response file it scores as a failure too; give the text it holds to check it"
	}
	fileNote := ""
	if bytes.HasPrefix(output, []byte("\ufeff")) {
		// an editor's, not the model's: the output is checked as written
		fileNote = "the file starts with a UTF-8 byte order mark, as Notepad and PowerShell's UTF8 encoding save one, and it is checked as part of the output; a model's answer seldom holds one: save the file as UTF-8 without it to check the answer alone"
	}
	note := passNote
	if caseID != "" {
		note = casePassNote
	}
	w := bufio.NewWriter(env.Stdout)
	if c.Format == "json" {
		errs := []report.ErrorInfo{}
		for i := range res.Errors {
			errs = append(errs, study.ErrorInfo(&res.Errors[i]))
		}
		doc := contract.Object{
			{Key: "verdict", Value: verdict},
			{Key: "domain", Value: c.Domain},
		}
		if caseID != "" {
			doc = append(doc, contract.Member{Key: "case", Value: caseID})
		}
		doc = append(doc, contract.Object{
			{Key: "tool", Value: tool.Name},
			{Key: "reference_valid", Value: res.ReferenceValid},
			{Key: "candidate_valid", Value: res.CandidateValid},
			{Key: "policy_valid", Value: res.PolicyValid},
			{Key: "errors", Value: errs},
		}...)
		if formNote != "" {
			doc = append(doc, contract.Member{Key: "form", Value: formNote})
		}
		if fileNote != "" {
			doc = append(doc, contract.Member{Key: "file", Value: fileNote})
		}
		out, _ := contract.Marshal(append(doc, contract.Member{Key: "note", Value: note}), contract.PythonIndent)
		w.Write(append(out, '\n'))
	} else {
		candidateNote := ""
		switch {
		case c.Schema == "":
		case res.Success && !res.CandidateValid:
			candidateNote = "; the candidate schema rejects it, a right output (as FR counts a valid probe it rejects)"
		case !res.Success && res.CandidateValid:
			candidateNote = "; the candidate schema accepts it, a wrong output"
		}
		what := c.Domain
		if caseID != "" {
			what = caseID + " of " + c.Domain
		}
		fmt.Fprintf(w, "%s %s (%s)%s\n", verdict, what, tool.Name, candidateNote)
		for _, e := range res.Errors {
			fmt.Fprintf(w, "  %s\n", describeError(e))
			for _, d := range e.Details {
				fmt.Fprintf(w, "    %s\n", describeError(d))
			}
		}
		for _, n := range []string{formNote, fileNote} {
			if n != "" {
				fmt.Fprintf(w, "note: %s\n", n)
			}
		}
		fmt.Fprintf(w, "note: %s\n", note)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if !res.Success {
		return &exitError{code: 1}
	}
	return nil
}

// passNote says what the verdict covers: the candidate schema is judged
// apart (candidate_valid), as a study judges it, since it is the schema
// under test, not the output's.
const passNote = "PASS means the implemented checks passed (envelope, reference schema, tool, confirmed state, policies); nothing more. A candidate schema (--schema) is judged apart: whether it accepts the output is candidate_valid, not the verdict."

// casePassNote is passNote for --case, whose checks are scoring's.
const casePassNote = "PASS means the output succeeds as fbeval score judges it for this case (envelope, expected action and missing fields, reference schema, tool, the case's confirmed state, policies); nothing more. A candidate schema (--schema) is judged apart: whether it accepts the output is candidate_valid, not the verdict."

func describeError(e tc.Error) string {
	s := e.Code
	if e.Path != "" {
		s += " at " + e.Path
	}
	if e.Keyword != "" {
		s += " (" + e.Keyword + ")"
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

func (c *CheckCmd) runContract(env *Env, output []byte) error {
	if c.State != "" || c.Schema != "" || c.Dataset != "" {
		return usageError("--state, --schema and --dataset go with --domain")
	}
	ct, err := relations.LoadContract(c.Contract)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	// what lint finds (a pointer that resolves nowhere: its relation is
	// skipped whenever the operand is absent) is said, not left to a PASS:
	// on stderr, and in the result
	lint := relations.Lint(ct)
	for _, fd := range lint {
		why := ""
		if fd.Code == "UNRESOLVED_POINTER" {
			why = " (a relation whose operand is absent is skipped, or counts nothing from it)"
		}
		env.warnf("%s: contract lint: %s %s at %s: %s%s", c.Contract, fd.Severity, fd.Code, fd.Location, fd.Message, why)
	}
	if c.ContextVersion != nil && *c.ContextVersion < 0 {
		return usageError("--context-version %d: a context's version is 0 or more", *c.ContextVersion)
	}
	if c.ContextVersion != nil && c.Context == "" {
		return usageError("--context-version %d goes with --context FILE: the version is the context's", *c.ContextVersion)
	}
	var ctx *relations.Context
	if c.Context != "" {
		if ctx, err = relations.LoadContext(c.Context); err != nil {
			return &exitError{code: 2, err: err}
		}
	}
	opts := relations.CheckOptions{ContextVersion: c.ContextVersion}
	var res *relations.Result
	if c.Assemble {
		assembled, r, err := ct.AssembleContext(output, ctx, opts)
		if err != nil && r == nil {
			return &exitError{code: 2, err: err}
		}
		// an output that is no JSON is the result's INVALID_JSON, a FAIL
		// (exit 1) as check gives it without --assemble
		res = r
		res.Lint = lint
		if c.Format == "json" {
			// the result (the raw output's, what was inserted, the verdict
			// for the assembled document) with the document it completed
			doc := res.Object()
			if len(assembled) > 0 {
				doc = append(doc, contract.Member{Key: "document", Value: contract.Raw(assembled)})
			}
			out, err := contract.Marshal(doc, contract.PythonIndent)
			if err != nil {
				return err
			}
			if _, err := env.Stdout.Write(append(out, '\n')); err != nil {
				return err
			}
		} else {
			if res.Verdict == "PASS" || len(assembled) > 0 {
				if _, err := env.Stdout.Write(append(assembled, '\n')); err != nil {
					return err
				}
			}
			// the verdict goes to stderr so stdout stays the completed document
			if err := res.WriteText(env.Stderr); err != nil {
				return err
			}
		}
	} else {
		res = ct.Check(output, ctx, opts)
		res.Lint = lint
		w := bufio.NewWriter(env.Stdout)
		if c.Format == "json" {
			err = res.WriteJSON(w)
		} else {
			err = res.WriteText(w)
		}
		if err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
	if res.Verdict != "PASS" {
		return &exitError{code: 1}
	}
	return nil
}

// ContractCmd groups contract tools.
type ContractCmd struct {
	Lint ContractLintCmd `cmd:"" help:"Static checks of a contract: pointers that cannot resolve, incompatible comparisons, unknown keywords."`
}

// ContractLintCmd lints contract files.
type ContractLintCmd struct {
	Files []string `arg:"" help:"fbeval-contract/v1 files."`
}

func (c *ContractLintCmd) Run(env *Env) error {
	env.noteInput(c.Files...)
	if err := env.stdoutNotInput(); err != nil {
		return err // before a byte is read: after > the contract is empty
	}
	errorsFound := false
	for _, f := range c.Files {
		ct, err := relations.LoadContract(f)
		if err != nil {
			return &exitError{code: 2, err: err}
		}
		findings := relations.Lint(ct)
		for _, fd := range findings {
			fmt.Fprintf(env.Stdout, "%s: %s %s at %s: %s\n", f, fd.Severity, fd.Code, fd.Location, fd.Message)
			if fd.Severity == "error" {
				errorsFound = true
			}
		}
		if len(findings) == 0 {
			fmt.Fprintf(env.Stdout, "%s: ok (%s %s, sha256 %s)\n", f, ct.ID, ct.Version, ct.Hash)
		}
	}
	if errorsFound {
		return &exitError{code: 1}
	}
	return nil
}
