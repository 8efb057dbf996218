//go:build !unix

package main

import "errors"

// mkfifo says there are no named pipes here: the tests that need one skip.
func mkfifo(path string) error { return errors.New("no named pipes on this system") }
