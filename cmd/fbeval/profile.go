package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startProfile writes a CPU profile to path until stop is called. Like every
// output, path must be a regular file (or a new one) that the command does not read.
func startProfile(env *Env, path string) (stop func(), err error) {
	if path == "-" {
		// not a file named "-", nor binary amid the report on standard output
		return nil, usageError("--profile -: a CPU profile is binary, not for standard output: name a file (go tool pprof FILE reads it)")
	}
	if f := env.descriptors[path]; f != nil {
		// the file the shell opened for it (3>prof.out)
		if err := descriptorCheck(env, path, f); err != nil {
			return nil, err
		}
		delete(env.descriptors, path)
		return profileTo(f.File)
	}
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		// not as -o: no standard output to leave it to
		return nil, &exitError{code: 2, err: fmt.Errorf("--profile %s: not a regular file (%s): name a regular file (go tool pprof FILE reads it)", path, kindOf(st.Mode()))}
	}
	target, _, err := resolveOutput(env, path)
	if err != nil {
		return nil, err
	}
	f, err := os.Create(target)
	if err != nil {
		return nil, &exitError{code: 2, err: cleanPathError(err)}
	}
	return profileTo(f)
}

// profileTo writes a CPU profile to f until stop is called, which closes f.
func profileTo(f *os.File) (stop func(), err error) {
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, &exitError{code: 2, err: err}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
