package main

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
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

func TestGrowHeapHuge(t *testing.T) {
	if !thpAvailable() {
		t.Skip("this kernel offers no transparent huge pages")
	}
	const n = 64 << 20
	rss := residentBytes(t)
	advised := growHeapHuge(n)
	// the chunks need not all be adjacent: each run of them loses at most a
	// huge page at either end
	if advised < n/2 || advised > n {
		t.Fatalf("growHeapHuge(%d) advised %d bytes", n, advised)
	}
	if got := hugeAdvised(t); got < advised {
		t.Errorf("mappings flagged hg hold %d bytes, want at least the %d advised", got, advised)
	}
	// fresh memory is not cleared: the heap grew without being touched
	if grew := residentBytes(t) - rss; grew > n/4 {
		t.Errorf("resident set grew by %d bytes for a %d-byte heap", grew, n)
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
