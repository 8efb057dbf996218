package main

import (
	"os"
	"runtime/pprof"
)

// startProfile writes a CPU profile to path until stop is called.
func startProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, &exitError{code: 2, err: cleanPathError(err)}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, &exitError{code: 2, err: err}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
