package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/export"
	"github.com/fbeval/fbeval/fixtures"
	"github.com/fbeval/fbeval/score/toolcall/study"
)

// StudyFlags select a study and override its fields; export and score share them
// so that score rebuilds exactly the requests export wrote.
type StudyFlags struct {
	Study          string   `arg:"" optional:"" help:"Built-in study (coglang, toolcall, toolcall-quick) or a study file; coglang when left out." default:"coglang"`
	Fixture        string   `help:"CogLang fixture file; - reads standard input (default: the embedded fixture)." placeholder:"FILE"`
	Dataset        string   `help:"Toolcall dataset file in HESchema's case format (default: the embedded dataset)." placeholder:"FILE"`
	Domain         []string `help:"Only these domains (repeat or comma-separate)." placeholder:"D"`
	Category       []string `help:"Only these categories." placeholder:"C"`
	Limit          *int     `help:"At most N cases per domain and category." placeholder:"N"`
	Arms           []string `help:"Prompt arms: no_schema, minimal_schema, input_schema." placeholder:"ARM"`
	Repeats        *int     `help:"Repeats per case and arm." placeholder:"N"`
	Seed           *int64   `help:"Study seed." placeholder:"S"`
	Repairs        *int     `help:"Repair rounds after a failed attempt (0-5)." placeholder:"N"`
	Schema         string   `help:"Candidate schema under test: a variant name or a schema file." placeholder:"VARIANT|FILE"`
	MinimalSchema  string   `help:"Schema of the minimal_schema arm: a variant name or a file." placeholder:"VARIANT|FILE"`
	Decoding       string   `help:"prompt_only, native_schema or native_tools." enum:",prompt_only,native_schema,native_tools" default:""`
	PromptTemplate string   `help:"Prompt template file (text/template with system and user blocks)." placeholder:"FILE"`
	Strict         bool     `help:"CogLang: score with the strict profile."`
	// AllowOtherRecipe: see study.Run.CheckJoined
	AllowOtherRecipe bool `help:"Take response records whose run names another recipe than the study's as its own, where they are refused: toolcall requests exported with another dataset, schema, prompt template, decoding, seed, max_tokens or temperature (score names them in the report's warnings, export --repair-from writes their repairs), or CogLang answers to another prompt than the fixture's for their case (named on stderr and in the result's response_file.warnings)."`
}

// claimInputs notes the files the flags name as the command's inputs, claims
// standard input for those that name it, and, when the command writes to
// standard output (output ""), refuses one that is such a file: before they
// are read, as after > they are empty.
func (f *StudyFlags) claimInputs(env *Env, output string) error {
	env.noteInput(f.Study, f.Fixture, f.Dataset, f.Schema, f.MinimalSchema, f.PromptTemplate)
	if err := f.claimStdin(env); err != nil {
		return err
	}
	if output == "" {
		return env.stdoutNotInput()
	}
	return nil
}

// claimStdin claims standard input for the flags that name it ("-"): a
// fixture, a study file, a dataset, a schema or a template piped in.
func (f *StudyFlags) claimStdin(env *Env) error {
	for _, in := range []struct{ flag, path string }{
		{"the study", f.Study}, {"--fixture", f.Fixture}, {"--dataset", f.Dataset}, {"--schema", f.Schema},
		{"--minimal-schema", f.MinimalSchema}, {"--prompt-template", f.PromptTemplate},
	} {
		if err := env.claimStdin(in.flag, in.path); err != nil {
			return err
		}
	}
	return nil
}

// resolve loads and resolves the study the flags name.
func (f *StudyFlags) resolve() (contract.Study, error) {
	if f.Repeats != nil && *f.Repeats < 1 {
		return contract.Study{}, usageError("--repeats must be at least 1, got %d", *f.Repeats)
	}
	s, err := export.LoadStudy(f.Study)
	if err != nil {
		return s, err
	}
	o := export.Overrides{
		Domains: f.Domain, Categories: f.Category, Limit: f.Limit, Arms: f.Arms,
		Repeats: f.Repeats, Seed: f.Seed, Repairs: f.Repairs, Schema: f.Schema,
		MinimalSchema: f.MinimalSchema, Decoding: f.Decoding, PromptTemplate: f.PromptTemplate,
		Strict: f.Strict,
	}
	if err := f.ofSuite(s.Suite); err != nil {
		return s, err
	}
	switch {
	case f.Fixture != "" && s.Suite == contract.SuiteToolcall:
		return s, usageError("--fixture is for coglang studies; use --dataset for toolcall")
	case f.Dataset != "" && s.Suite == contract.SuiteCogLang:
		return s, usageError("--dataset is for toolcall studies; use --fixture for coglang")
	case f.Fixture != "":
		o.Dataset = f.Fixture
	case f.Dataset != "":
		o.Dataset = f.Dataset
	}
	return export.Resolve(s, o)
}

// ofSuite refuses the flags of the other suite's studies, which would be left
// unused: a CogLang study selected with --domain or --repeats scored all its
// cases, once, and said nothing.
func (f *StudyFlags) ofSuite(suite string) error {
	if suite == contract.SuiteToolcall {
		if f.Strict {
			return usageError("--strict is for coglang studies (the strict CogLang profile); toolcall scoring is strict already")
		}
		return nil
	}
	var given []string
	for _, fl := range []struct {
		name string
		set  bool
	}{
		{"--domain", len(f.Domain) > 0}, {"--category", len(f.Category) > 0}, {"--limit", f.Limit != nil},
		{"--arms", len(f.Arms) > 0}, {"--repeats", f.Repeats != nil}, {"--seed", f.Seed != nil},
		{"--repairs", f.Repairs != nil}, {"--schema", f.Schema != ""}, {"--minimal-schema", f.MinimalSchema != ""},
		{"--decoding", f.Decoding != ""}, {"--prompt-template", f.PromptTemplate != ""},
	} {
		if fl.set {
			given = append(given, fl.name)
		}
	}
	if len(given) > 0 {
		return usageError("%s %s for toolcall studies: a CogLang study is its fixture's cases, each asked once (--fixture, --strict)", contract.JoinWords(given), contract.Pick(len(given), "is", "are"))
	}
	return nil
}

// given says which of the study's repeats and repair rounds the flags set, and
// whether records of another recipe are allowed.
func (f *StudyFlags) given() study.Given {
	return study.Given{Repeats: f.Repeats != nil, Repairs: f.Repairs != nil, OtherRecipe: f.AllowOtherRecipe}
}

// pathHint adds to err, a file a study names that cannot be read, where
// the file is when it lies beside the study file: paths in a study file are
// read from the current directory (as the same paths given as flags are), and
// a study run from elsewhere names files that are not there.
func (f *StudyFlags) pathHint(err error) error {
	var ie *contract.InputError
	if !errors.As(err, &ie) || !errors.Is(ie.Kind, contract.ErrRead) || ie.File == "" || filepath.IsAbs(ie.File) {
		return err
	}
	if _, builtin := fixtures.BuiltinStudy(f.Study); builtin || f.Study == "-" {
		return err
	}
	dir := filepath.Dir(f.Study)
	beside := filepath.Join(dir, ie.File)
	if dir == "." || !fileExists(beside) || fileExists(ie.File) {
		return err
	}
	ie.Msg += fmt.Sprintf(" (paths in a study file are read from the current directory, and %s is beside the study: give that path, or run from %s)", beside, dir)
	return err
}

func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}
