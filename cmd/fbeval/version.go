package main

import (
	"fmt"
	"runtime/debug"

	"github.com/fbeval/fbeval/contract"
)

// version is set at build time with -ldflags "-X main.version=..."; otherwise it is
// read from the module build information.
var version = ""

// VersionCmd prints the toolkit version and the contract versions it speaks.
type VersionCmd struct{}

func (VersionCmd) Run(env *Env) error {
	v := version
	if v == "" {
		v = "devel"
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
	}
	fmt.Fprintf(env.Stdout, "fbeval %s\n", v)
	fmt.Fprintf(env.Stdout, "contract: %s %s %s %s %s %s %s\n", contract.StudyV1, contract.RequestV1, contract.RequestBatchV1,
		contract.ResponseV1, contract.ResponseBatchV1, contract.CaseResultV1, contract.ReportV1)
	fmt.Fprintf(env.Stdout, "coglang: %s %s\n", contract.CogLangRequest, contract.CogLangResult)
	return nil
}
