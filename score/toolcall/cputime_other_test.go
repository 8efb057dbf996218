//go:build !unix

package toolcall

import "time"

// cpuTime is not measured here; benchmarks then report wall time only.
func cpuTime() time.Duration { return 0 }
