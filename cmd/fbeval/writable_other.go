//go:build !unix

package main

import "os"

// cannotWrite reports whether the existing file at path is read-only, which a
// rename over it would replace all the same.
func cannotWrite(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().Perm()&0o200 == 0
}
