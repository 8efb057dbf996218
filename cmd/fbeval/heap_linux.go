package main

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"unsafe"
)

// hugeHeapBytes is how much of the heap main asks huge pages for: more than
// a study-scale score holds for itself (docs/performance.md), less than its
// memory bound.
const hugeHeapBytes = 128 << 20

const (
	hugePageBytes  = 2 << 20 // a transparent huge page on amd64 and arm64 Linux
	heapChunkBytes = 4 << 20 // the runtime's page-allocator chunk
	madvHugePage   = 14      // MADV_HUGEPAGE, which package syscall does not name
)

// growHeapHuge grows the Go heap by about n bytes, asks Linux to back that
// range with transparent huge pages (madvise MADV_HUGEPAGE) and hands it back
// to the runtime, so the run's own allocations, placed in the lowest free
// pages, fault in 2 MiB at a time instead of 4 KiB. The runtime advises no huge
// pages for the heap itself, and where THP is "madvise" (Debian's default) it
// gets none: each first touch of a 4 KiB page is then a fault, which on a
// virtual machine with shadow page tables costs microseconds (a fifth to a
// third of a study-scale score's time, docs/performance.md).
//
// The heap grows a 4 MiB chunk at a time: the runtime clears a block it
// allocates in memory used before, and a chunk bounds what that could ever
// touch (fresh memory is not cleared, so a peak RSS is what the run itself
// uses). GODEBUG=disablethp=1, the runtime's own switch for huge pages in the
// heap, turns this off; a kernel without THP refuses the advice, and that is
// harmless. The collector is off while the chunks are made, and the memory
// limit (GOMEMLIMIT) lifted: each chunk past the goal or the limit would start
// a collection of its own (five in all without a limit, several milliseconds of
// every process's start), and the chunks are live until the end, where the one
// collection frees them all. It returns the bytes advised.
func growHeapHuge(n int) int {
	if n < heapChunkBytes || strings.Contains(os.Getenv("GODEBUG"), "disablethp=1") {
		return 0
	}
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	chunks := make([][]byte, n/heapChunkBytes)
	starts := make([]uintptr, len(chunks))
	for i := range chunks {
		chunks[i] = make([]byte, heapChunkBytes)
		starts[i] = uintptr(unsafe.Pointer(unsafe.SliceData(chunks[i])))
	}
	slices.Sort(starts)
	advised := 0
	// advise each run of adjacent chunks, from its first huge page boundary
	// to its last
	for i := 0; i < len(starts); {
		j := i + 1
		for j < len(starts) && starts[j] == starts[j-1]+heapChunkBytes {
			j++
		}
		beg := (starts[i] + hugePageBytes - 1) &^ (hugePageBytes - 1)
		end := (starts[j-1] + heapChunkBytes) &^ (hugePageBytes - 1)
		if _, _, errno := syscall.Syscall(syscall.SYS_MADVISE, beg, end-beg, madvHugePage); errno == 0 {
			advised += int(end - beg)
		}
		i = j
	}
	runtime.KeepAlive(chunks)
	// free the chunks now, so the run's first allocations reuse their pages
	// rather than grow the heap past them
	runtime.GC()
	return advised
}
