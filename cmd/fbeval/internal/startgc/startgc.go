// Package startgc turns the collector off while the packages fbeval imports are
// initialised; fbeval's main package turns it back on (Restore) in its own init,
// which runs after all of theirs. Go initialises packages in the order of their
// import paths as far as their imports allow, and this one needs only
// runtime/debug, so it comes before jsonschema/v6, whose metaschemas would
// otherwise start the process's first collection (TestNoCollectionBeforeMain).
package startgc

import "runtime/debug"

var percent = debug.SetGCPercent(-1)

// Restore sets the GC percent back to what it was before this package's init.
func Restore() { debug.SetGCPercent(percent) }
