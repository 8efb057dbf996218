//go:build !unix

package main

import "os"

// openDescriptor: no path names a descriptor where there is no /dev/fd.
func openDescriptor(flag, path string) (*os.File, error) { return nil, nil }
