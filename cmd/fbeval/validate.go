package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/contract/usage"
	"github.com/fbeval/fbeval/export"
	"github.com/fbeval/fbeval/fixtures"
	"github.com/fbeval/fbeval/schemas"
	"github.com/fbeval/fbeval/score"
	"github.com/fbeval/fbeval/score/coglang"
	"github.com/fbeval/fbeval/score/relations"
	"github.com/fbeval/fbeval/score/report"
	"github.com/fbeval/fbeval/score/toolcall/study"
)

// ValidateCmd checks contract files against the published JSON Schemas.
type ValidateCmd struct {
	Files        []string `arg:"" help:"Files to check (JSONL, a JSON list or a JSON document; - for standard input), or a pattern in quotes ('shards/*.jsonl')." placeholder:"FILE"`
	Schema       string   `help:"Check every record against this schema (see 'fbeval schema'), whatever its schema_version says." placeholder:"NAME"`
	MaxLineBytes int      `help:"Longest JSONL line, or JSON document read whole, in bytes (default 256 MiB, as fbeval report reads a report's rows: a report quotes an answer more than once, so one scored from a 64 MiB response line is longer than it)." default:"268435456" placeholder:"BYTES"`
}

func (c *ValidateCmd) Run(env *Env) error {
	if c.MaxLineBytes <= 0 {
		return usageError("--max-line-bytes must be positive")
	}
	if c.Schema != "" {
		if _, ok := schemas.Get(c.Schema); !ok {
			return unknownSchema(c.Schema)
		}
	}
	files, err := contract.ExpandPatterns("", c.Files)
	if err != nil {
		return err
	}
	c.Files = files
	v, err := schemas.NewValidator()
	if err != nil {
		return err
	}
	bad, records := 0, 0
	out := bufio.NewWriterSize(env.Stdout, 64<<10) // a file of a million bad records is a million lines
	for _, f := range c.Files {
		if err := env.claimStdin("file", f); err != nil {
			return err // read once: the second - held no records
		}
	}
	for _, f := range c.Files {
		r, done, err := openInput(env, f, true)
		if err != nil {
			return err
		}
		st := v.Validate(f, r, schemas.Options{Schema: c.Schema, MaxLineBytes: c.MaxLineBytes, TextHint: notAContractFile, Workers: score.Workers(0), Document: loadsAsRead}, func(p schemas.Problem) {
			out.WriteString(contract.PrintableLine(p.String()))
			out.WriteByte('\n')
		})
		done()
		if err := out.Flush(); err != nil { // before the file's line on stderr
			return &exitError{code: 2, err: outputWriteError("standard output", err)}
		}
		if st.Schema == "fbeval-toolcall-case" && st.Invalid == 0 {
			// a dataset is read whole by export and score, which refuse
			// more than its cases' schema does: so does validate
			if msg := datasetProblem(f); msg != "" {
				out.WriteString(contract.PrintableLine(msg))
				out.WriteByte('\n')
				if err := out.Flush(); err != nil {
					return &exitError{code: 2, err: outputWriteError("standard output", err)}
				}
				st.Invalid = 1
			}
		}
		bad += st.Invalid
		records += st.Records
		env.warnf("%s: %s, %d invalid", f, contract.Plural(st.Records, "record", "records"), st.Invalid)
	}
	if len(c.Files) > 1 {
		// shards' lines run off a screen: the last line counts them all
		env.warnf("%d files: %s, %d invalid", len(c.Files), contract.Plural(records, "record", "records"), bad)
	}
	if bad > 0 {
		return &exitError{code: 1}
	}
	return nil
}

// SchemaCmd prints the published JSON Schemas.
type SchemaCmd struct {
	Name   string `arg:"" optional:"" help:"Schema to print; without it, the list of names." placeholder:"NAME"`
	Output string `short:"o" help:"Write to FILE instead of standard output: a file is replaced whole once the output is complete, never left half-written; a pipe or FIFO is written as it goes." placeholder:"FILE"`
}

func (c *SchemaCmd) Run(env *Env) error {
	// a schema this command printed before (of this fbeval or an older
	// one: its $id is under fbeval's schema URL) is written again
	env.rewrites = printedSchema
	if err := checkOutputs(env, c.Output); err != nil {
		return err
	}
	// a schema is no file of fbeval's kinds: it replaces none of them
	if err := notOtherKind("-o", c.Output, "a JSON Schema"); err != nil {
		return err
	}
	if c.Name == "" {
		return writeOutput(env, c.Output, func(w *bufio.Writer) error {
			for _, n := range schemas.Names() {
				fmt.Fprintf(w, "%s\t%s\n", n, schemas.URL(n))
			}
			return nil
		})
	}
	data, ok := schemas.Get(strings.TrimSuffix(c.Name, ".schema.json"))
	if !ok {
		return unknownSchema(c.Name)
	}
	return writeOutput(env, c.Output, func(w *bufio.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// printedSchema reports whether the file at path is a JSON Schema fbeval
// printed (of this fbeval or an older one): an object whose own "$id", not a
// subschema's, is under fbeval's schema URL.
func printedSchema(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	d := jsontext.NewDecoder(bufio.NewReader(f))
	if tok, err := d.ReadToken(); err != nil || tok.Kind() != '{' {
		return false
	}
	for d.PeekKind() == '"' {
		name, err := d.ReadToken()
		if err != nil {
			return false
		}
		if name.String() != "$id" {
			if d.SkipValue() != nil {
				return false
			}
			continue
		}
		id, err := d.ReadToken()
		return err == nil && id.Kind() == '"' && strings.HasPrefix(id.String(), schemas.BaseURL)
	}
	return false
}

// notAContractFile names one of fbeval's outputs other than JSON given to
// validate (schemas.Options.TextHint).
func notAContractFile(head []byte) string {
	if what := report.WrittenName(head); what != "" {
		return "this is " + what + ", not a contract file: fbeval validate checks the JSON files fbeval reads and writes"
	}
	return ""
}

// unknownSchema is the one line of a schema name fbeval does not publish: the
// one meant, when it is a typo of one, and the names.
func unknownSchema(name string) error {
	if near := usage.Suggest(name, schemas.Names()); near != "" {
		return usageError("unknown schema %q%s (the schemas: %s)", name, near, strings.Join(schemas.Names(), ", "))
	}
	return usageError("unknown schema %q: schemas are %s", name, strings.Join(schemas.Names(), ", "))
}

// datasetProblem is what export and score refuse in the toolcall dataset
// file (beyond each case's schema: an id given twice, a reference schema that
// does not compile, a policy on a field the tool lacks, a domain's tool given
// two ways, a gold answer that fails its own contract), as the one line they
// give, or "". A file that cannot be read again (standard input, a pipe) is
// left at its schema.
func datasetProblem(file string) string {
	if st, err := os.Stat(file); err != nil || !st.Mode().IsRegular() {
		return ""
	}
	cases, err := export.LoadDataset(file, relations.Vocabulary)
	if err != nil {
		return err.Error()
	}
	if err := study.GoldError(file, cases); err != nil {
		return err.Error()
	}
	return ""
}

// loadsAsRead checks a file of one JSON object as the command that reads it
// does, beyond its schema: a study as export reads it, a contract as check and
// contract lint load it (a misspelt keyword checks nothing, and they refuse
// it), a CogLang fixture as export and score read it, its own reference
// answers scored.
func loadsAsRead(file string, raw []byte) error {
	switch _, version := contract.KindOf(raw); version {
	case contract.StudyV1:
		// what export and study show refuse beyond the schema: a count
		// written 1.0, a negative seed, a number past its type
		s, err := export.ParseStudy(file, raw)
		if err != nil {
			return err
		}
		_, err = export.Resolve(s, export.Overrides{})
		return err
	case contract.ContractV1:
		_, err := relations.ParseContract(file, raw)
		return err
	case contract.CogLangFixture:
		// a member that misspells one the reader takes, a case's heads
		// null: what export and score refuse beyond the schema
		fx, err := fixtures.ParseCogLangFixture(file, raw)
		if err != nil {
			return err
		}
		return referenceFailures(file, fx)
	}
	return nil
}

// referenceFailures names the cases of a CogLang fixture that fail with their
// own reference answers, scored as --reference-answers scores them (a
// reference_expr that does not parse, a head the case does not expect, an
// operator the language lacks): the fixture contradicts itself there, which
// export and score read without a word.
func referenceFailures(file string, fx *fixtures.CogLangFixture) error {
	res := coglang.Score(fx, nil, coglang.Options{})
	var first *coglang.CaseResult
	firstAt, failing := 0, 0
	for i := range res.Cases {
		if c := &res.Cases[i]; c.Failures != 0 {
			if first == nil {
				first, firstAt = c, i
			}
			failing++
		}
	}
	if first == nil {
		return nil
	}
	why := strings.Join(first.Failures.Categories(), ", ")
	switch {
	case first.ParseError != "":
		why += ": " + first.ParseError
	case len(first.Hallucinated) > 0:
		why += ": " + strings.Join(first.Hallucinated, ", ")
	}
	which := fmt.Sprintf("case %q (case %d of the fixture) fails with its own reference_expr (%s)", first.CaseID, firstAt+1, why)
	if failing > 1 {
		which = fmt.Sprintf("%d cases fail with their own reference_expr, the first %q (case %d of the fixture) with %s", failing, first.CaseID, firstAt+1, why)
	}
	return &contract.InputError{File: file, Msg: fmt.Sprintf("%s: the fixture contradicts itself there; mend the case (fbeval score coglang --fixture %s --reference-answers lists each failing case)", which, file)}
}
