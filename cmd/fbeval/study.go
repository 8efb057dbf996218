package main

import (
	"bufio"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/export"
	"github.com/fbeval/fbeval/score/relations"
)

// StudyCmd shows a resolved study or writes a template to edit.
type StudyCmd struct {
	Show StudyShowCmd `cmd:"" help:"Print the resolved study with the sha256 of every input."`
	Init StudyInitCmd `cmd:"" help:"Print a study file to edit (toolcall unless a built-in study is named)."`
}

// StudyShowCmd prints the resolved study.
type StudyShowCmd struct {
	StudyFlags `embed:""`
}

func (c *StudyShowCmd) Run(env *Env) error {
	// before the study is read: after `> study.json` the shell has emptied it
	if err := env.stdoutNotInput(c.Study, c.Fixture, c.Dataset, c.Schema, c.MinimalSchema, c.PromptTemplate); err != nil {
		return err
	}
	s, err := c.resolve()
	if err != nil {
		return err
	}
	inputs := []contract.Object{}
	var selected contract.Object
	switch s.Suite {
	case contract.SuiteCogLang:
		if err := noCogLangGates(c.Study, &s); err != nil {
			return err
		}
		in, err := export.CogLangInput(s.Dataset)
		if err != nil {
			return err
		}
		inputs = append(inputs, inputObject(in))
	default:
		plan, err := export.PlanToolcall(s, relations.Vocabulary)
		if err != nil {
			return c.pathHint(err)
		}
		if err := c.checkGates(plan, nil); err != nil {
			return err
		}
		for _, in := range plan.Inputs {
			inputs = append(inputs, inputObject(in))
		}
		// what the filter keeps and the first round's requests: counts, not inputs
		selected = contract.Object{
			{Key: "cases", Value: len(plan.Cases)},
			{Key: "requests", Value: len(plan.Cases) * len(s.Arms) * s.Repeats},
		}
	}
	shown := contract.Object{{Key: "study", Value: s.Object()}, {Key: "inputs", Value: inputs}}
	if selected != nil {
		shown = append(shown, contract.Member{Key: "selected", Value: selected})
	}
	out, err := contract.Marshal(shown, contract.PythonIndent)
	if err != nil {
		return err
	}
	_, err = env.Stdout.Write(append(out, '\n'))
	return err
}

func inputObject(in export.Input) contract.Object {
	return contract.Object{{Key: "role", Value: in.Role}, {Key: "path", Value: in.Path}, {Key: "sha256", Value: in.SHA256}}
}

// StudyInitCmd prints a study template.
type StudyInitCmd struct {
	Study  string `arg:"" optional:"" help:"Built-in study or study file to start from; toolcall when left out." default:"toolcall"`
	Output string `short:"o" help:"Write to FILE instead of standard output: a file is replaced whole once the output is complete, never left half-written; a pipe or FIFO is written as it goes." placeholder:"FILE"`
}

func (c *StudyInitCmd) Run(env *Env) error {
	env.noteInput(c.Study)
	if c.Output == "" {
		if err := env.stdoutNotInput(c.Study); err != nil {
			return err
		}
	}
	if err := checkOutputs(env, c.Output); err != nil {
		return err
	}
	if err := notOtherKind("-o", c.Output, contract.FileKind(contract.StudyV1), contract.FileKind(contract.StudyV1)); err != nil {
		return err
	}
	s, err := export.LoadStudy(c.Study)
	if err != nil {
		return err
	}
	s, err = export.Resolve(s, export.Overrides{})
	if err != nil {
		return err
	}
	return writeOutput(env, c.Output, func(w *bufio.Writer) error {
		_, err := w.Write(export.StudyTemplate(s))
		return err
	})
}
