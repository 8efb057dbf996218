package main

import (
	"bufio"
	"bytes"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// thpAvailable reports whether the kernel has transparent huge pages that a
// process may ask for.
func thpAvailable() bool {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	return err == nil && !bytes.Contains(b, []byte("[never]"))
}

// hugeAdvised returns the bytes of this process's mappings that carry the hg
// flag (MADV_HUGEPAGE), from /proc/self/smaps.
func hugeAdvised(t *testing.T) int {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	defer f.Close()
	total, size := 0, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "Size:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			size = kb << 10
		}
		if rest, ok := strings.CutPrefix(line, "VmFlags:"); ok && strings.Contains(" "+rest+" ", " hg ") {
			total += size
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return total
}

// residentBytes is this process's resident set, from /proc/self/statm.
func residentBytes(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skipf("no /proc/self/statm: %v", err)
	}
	f := strings.Fields(string(b))
	pages, err := strconv.Atoi(f[1])
	if err != nil {
		t.Fatal(err)
	}
	return pages * os.Getpagesize()
}

// heapGrown records that a test of this process has grown the heap.
var heapGrown bool

func grow(n int) int {
	heapGrown = true
	return growHeapHuge(n)
}

func TestGrowHeapHuge(t *testing.T) {
	if !thpAvailable() {
		t.Skip("this kernel offers no transparent huge pages")
	}
	const n = 64 << 20
	rss := residentBytes(t)
	fresh := !heapGrown
	advised := grow(n)
	// the chunks need not all be adjacent: each run of them loses at most a
	// huge page at either end
	if advised < n/2 || advised > n {
		t.Fatalf("growHeapHuge(%d) advised %d bytes", n, advised)
	}
	if got := hugeAdvised(t); got < advised {
		t.Errorf("mappings flagged hg hold %d bytes, want at least the %d advised", got, advised)
	}
	// fresh memory is not cleared: the heap grew without being touched (main
	// grows it once; grown again, it reuses memory it used, which the runtime
	// clears, as under go test -count 2)
	if grew := residentBytes(t) - rss; fresh && grew > n/4 {
		t.Errorf("resident set grew by %d bytes for a %d-byte heap", grew, n)
	}
}

// TestGrowHeapHugeCollectsOnce: growing the heap in chunks starts no collection
// of its own (each chunk past the goal or a memory limit would start one,
// several milliseconds at every start of the process); the one it asks for at
// the end frees them, and the collector's pace and limit are as they were.
func TestGrowHeapHugeCollectsOnce(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	// a limit below what the chunks hold, as GOMEMLIMIT may set
	const limit = 32 << 20
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(limit))
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	grow(64 << 20)
	runtime.ReadMemStats(&after)
	if n := after.NumGC - before.NumGC; n != 1 {
		t.Errorf("growHeapHuge of 64 MiB ran %d collections, want the 1 that frees its chunks", n)
	}
	if pct := debug.SetGCPercent(100); pct != 100 {
		t.Errorf("after growHeapHuge the GC percent is %d, want 100 as before", pct)
	}
	if got := debug.SetMemoryLimit(-1); got != limit {
		t.Errorf("after growHeapHuge the memory limit is %d, want %d as before", got, limit)
	}
}

func TestGrowHeapHugeOff(t *testing.T) {
	t.Setenv("GODEBUG", "disablethp=1")
	if got := growHeapHuge(64 << 20); got != 0 {
		t.Errorf("with GODEBUG=disablethp=1, growHeapHuge advised %d bytes", got)
	}
	t.Setenv("GODEBUG", "")
	if got := growHeapHuge(1 << 20); got != 0 {
		t.Errorf("growHeapHuge of less than a chunk advised %d bytes", got)
	}
}

// BenchmarkFreshPages is what growHeapHuge is for: the first touch of each page
// of 64 MiB the process has not used before, in 4 KiB pages and in the 2 MiB
// pages MADV_HUGEPAGE asks for (where the kernel has them). On a machine whose
// kernel keeps shadow page tables the first costs microseconds a page
// (docs/performance.md, "Fresh memory on this machine").
func BenchmarkFreshPages(b *testing.B) {
	const n = 64 << 20
	for _, huge := range []bool{false, true} {
		name := "4KiB"
		if huge {
			name = "huge"
			if !thpAvailable() {
				b.Skip("this kernel offers no transparent huge pages")
			}
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(n)
			for b.Loop() {
				b.StopTimer()
				m, err := syscall.Mmap(-1, 0, n+hugePageBytes, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
				if err != nil {
					b.Fatal(err)
				}
				// from the first huge page boundary, so every 2 MiB of it can be one page
				base := (uintptr(unsafe.Pointer(&m[0])) + hugePageBytes - 1) &^ (hugePageBytes - 1)
				off := int(base - uintptr(unsafe.Pointer(&m[0])))
				if huge {
					if _, _, errno := syscall.Syscall(syscall.SYS_MADVISE, base, n, madvHugePage); errno != 0 {
						b.Fatal(errno)
					}
				}
				b.StartTimer()
				for i := off; i < off+n; i += 4096 {
					m[i] = 1
				}
				b.StopTimer()
				syscall.Munmap(m)
				b.StartTimer()
			}
		})
	}
}
