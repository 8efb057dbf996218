//go:build unix

package toolcall

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user and system, every thread) the process has used:
// on a shared machine a benchmark's wall time includes waiting for a core, its CPU
// time much less so.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
