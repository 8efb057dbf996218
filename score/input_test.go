package score

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"go.uber.org/goleak"
)

// A hashing reader passes every byte on, in order, and hashes all of them, for
// inputs around its chunk size and readers that return a byte at a time.
func TestHashingReader(t *testing.T) {
	for _, n := range []int{0, 1, readAhead - 1, readAhead, 3*readAhead + 5} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(i * 7)
		}
		sum := sha256.Sum256(data)
		want := hex.EncodeToString(sum[:])
		for name, wrap := range map[string]func(io.Reader) io.Reader{
			"whole":       func(r io.Reader) io.Reader { return r },
			"byte a time": iotest.OneByteReader,
			"half":        iotest.HalfReader,
		} {
			h := NewHashingReader(wrap(bytes.NewReader(data)))
			// the consumer reads a part, as a record reader might, then Finish the rest
			part := make([]byte, n/2)
			if _, err := io.ReadFull(iotest.OneByteReader(h), part); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(part, data[:n/2]) {
				t.Fatalf("%d bytes, %s: the first half read differs", n, name)
			}
			if got := h.Finish(); got != want {
				t.Fatalf("%d bytes, %s: hash %s, want %s", n, name, got, want)
			}
			h.Close()
		}
	}
}

// An error of the reader reaches the consumer after the bytes before it.
func TestHashingReaderError(t *testing.T) {
	boom := errors.New("disk on fire")
	h := NewHashingReader(io.MultiReader(bytes.NewReader([]byte("abc")), iotest.ErrReader(boom)))
	defer h.Close()
	got, err := io.ReadAll(h)
	if string(got) != "abc" || !errors.Is(err, boom) {
		t.Fatalf("read %q, %v; want abc then the reader's error", got, err)
	}
}

// Close stops the reading goroutine of a reader left half read.
func TestHashingReaderClose(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for range 10 {
		h := NewHashingReader(bytes.NewReader(make([]byte, 10*readAhead)))
		if _, err := h.Read(make([]byte, 10)); err != nil {
			t.Fatal(err)
		}
		h.Close()
		h.Close()
	}
}

// A reader of an input that fits one chunk (a batch engine's small shard)
// starts no goroutine; a longer one reads the rest ahead on one. A reader
// closed before it was read ends.
func TestHashingReaderGoroutine(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	// the readers' goroutines, counted by what started them (running or
	// not yet): the count of all goroutines moves with those of earlier
	// tests still ending
	readers := func() int {
		buf := make([]byte, 1<<20)
		return strings.Count(string(buf[:runtime.Stack(buf, true)]), "created by github.com/fbeval/fbeval/score.(*HashingReader).Read in goroutine")
	}
	h := NewHashingReader(bytes.NewReader(make([]byte, readAhead-1)))
	if _, err := h.Read(make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	if n := readers(); n != 0 {
		t.Errorf("a one-chunk input: %d reading goroutines", n)
	}
	h.Finish()
	h.Close()
	h = NewHashingReader(bytes.NewReader(make([]byte, 10*readAhead))) // more than the chunks it may hold: it waits
	if _, err := h.Read(make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	if n := readers(); n != 1 {
		t.Errorf("a longer input: %d reading goroutines, want 1", n)
	}
	h.Close()
	NewHashingReader(bytes.NewReader(make([]byte, 10))).Close() // never read
}

// TestFileWarnings: the warnings of the first MaxFilesWarned files with any,
// each of them, then one line that counts the rest; files with none take no
// place.
func TestFileWarnings(t *testing.T) {
	var w FileWarnings
	w.Add() // a file with nothing to say
	for i := range MaxFilesWarned + 3 {
		w.Add(fmt.Sprintf("f%d: one", i), fmt.Sprintf("f%d: two", i))
		w.Add()
	}
	got := w.Lines("the report's inputs")
	if len(got) != 2*MaxFilesWarned+1 || got[0] != "f0: one" || got[2*MaxFilesWarned-1] != fmt.Sprintf("f%d: two", MaxFilesWarned-1) {
		t.Fatalf("%d lines: %q", len(got), got)
	}
	if want := "3 more response files with warnings like these, not named here (each file's lines are accounted for in the report's inputs)"; got[len(got)-1] != want {
		t.Errorf("last line %q, want %q", got[len(got)-1], want)
	}
	var none FileWarnings
	none.Add()
	if got := none.Lines("x"); len(got) != 0 {
		t.Errorf("no warnings: %q", got)
	}
}

// TestWorkers: the workers asked for, else one per core up to
// MaxDefaultWorkers, so that a machine of many cores keeps the memory bounds.
func TestWorkers(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, tt := range []struct{ procs, asked, want int }{
		{2, 0, 2}, {2, 5, 5}, {64, 0, MaxDefaultWorkers}, {64, 64, 64}, {1, 0, 1},
	} {
		runtime.GOMAXPROCS(tt.procs)
		if got := Workers(tt.asked); got != tt.want {
			t.Errorf("%d cores, %d asked: %d workers, want %d", tt.procs, tt.asked, got, tt.want)
		}
	}
}

// BenchmarkHashingReaderShard: a batch engine's small shard (thirty records,
// about 5 KB) read through a hashing reader to its end, as scoring reads
// each of its files.
func BenchmarkHashingReaderShard(b *testing.B) {
	data := bytes.Repeat([]byte(`{"schema_version":"fbeval-response/v1","request_id":"flights-000.no_schema.r1.a1","output":"{\"action\":\"refuse\",\"arguments\":{},\"missingFields\":[],\"reason\":\"\",\"tool\":null}"}`+"\n"), 30)
	buf := make([]byte, 4096)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		h := NewHashingReader(bytes.NewReader(data))
		for {
			if _, err := h.Read(buf); err != nil {
				break
			}
		}
		h.Finish()
		h.Close()
	}
}

// TestMixWarningsCapped: a mix of models or runs names the ten of the most
// answers and counts the rest, where it listed every one (a runner that writes
// a model name a record made a 74 MB report of one warning).
func TestMixWarningsCapped(t *testing.T) {
	two := map[string]int{"b": 1, "a": 1}
	if got, want := MixedModels(two), "the responses mix 2 models: a (1 answer), b (1 answer); the figures mix runs: score each model's responses apart"; got != want {
		t.Errorf("two:\n got %s\nwant %s", got, want)
	}
	many := map[string]int{}
	for i := range 100000 {
		many[fmt.Sprintf("m-%06d", i)] = 1
	}
	many["m-top"] = 9
	want := "the responses mix 100001 models: m-top (9 answers), m-000000 (1 answer), m-000001 (1 answer), m-000002 (1 answer), m-000003 (1 answer), m-000004 (1 answer), m-000005 (1 answer), m-000006 (1 answer), m-000007 (1 answer), m-000008 (1 answer), and 99991 other models; the figures mix runs: score each model's responses apart"
	if got := MixedModels(many); got != want {
		t.Errorf("many:\n got %s\nwant %s", got, want)
	}
	runs := map[string]int{"x seed=1": 2, "x seed=2": 3}
	if got, want := MixedRuns("m", runs), `the answers of m mix 2 runs of other settings (run.runner and run.settings): "x seed=2" (3 answers), "x seed=1" (2 answers); the figures mix runs: score each run's responses apart`; got != want {
		t.Errorf("runs:\n got %s\nwant %s", got, want)
	}
}
