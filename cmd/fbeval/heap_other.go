//go:build !linux

package main

const hugeHeapBytes = 0

// growHeapHuge does nothing where there are no transparent huge pages to ask
// for (see heap_linux.go).
func growHeapHuge(n int) int { return 0 }
