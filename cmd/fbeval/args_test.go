package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestJoinRepeated(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{"none", []string{"score", "coglang"}, []string{"score", "coglang"}},
		{"one, left as given", []string{"score", "coglang", "--responses", "a"}, []string{"score", "coglang", "--responses", "a"}},
		{"two", []string{"score", "x", "--responses", "a", "--workers", "2", "--responses", "b"}, []string{"score", "x", "--responses=a\x00b", "--workers", "2"}},
		{"with =, stdin, order kept", []string{"score", "x", "--responses=b", "--responses", "-", "--responses", "a"}, []string{"score", "x", "--responses=b\x00-\x00a"}},
		{"a value that is a flag is kong's to refuse", []string{"score", "x", "--responses", "a", "--responses", "--fresh", "--responses", "b"}, []string{"score", "x", "--responses", "a", "--responses", "--fresh", "--responses", "b"}},
		{"last with no value", []string{"score", "x", "--responses", "a", "--responses", "b", "--responses"}, []string{"score", "x", "--responses", "a", "--responses", "b", "--responses"}},
		{"each flag its own", []string{"export", "x", "--repair-from", "r1", "--responses", "a", "--repair-from=r2", "--responses", "b"}, []string{"export", "x", "--repair-from=r1\x00r2", "--responses=a\x00b"}},
		{"one joined, one left one", []string{"x", "--repair-from", "r1", "--responses", "a", "--responses", "b"}, []string{"x", "--repair-from=r1", "--responses=a\x00b"}},
		{"after --, arguments", []string{"score", "x", "--responses", "a", "--responses", "b", "--", "--responses", "c"}, []string{"score", "x", "--responses=a\x00b", "--", "--responses", "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := joinRepeated(tt.in)
			if !slices.Equal(got, tt.want) {
				t.Errorf("joinRepeated(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
	if got := splitJoined([]string{"a\x00b\x00-", "c"}); !slices.Equal(got, []string{"a", "b", "-", "c"}) {
		t.Errorf("splitJoined = %q", got)
	}
}

// TestManyResponseFlagsParsedInLinearMemory: the command line of 5,000
// shards is parsed in a few megabytes. Each --responses parsed as a flag of
// its own kept a copy of the arguments left: 5,000 cost over a gigabyte
// (10,000: 10 s and 2.4 GB) before a file was opened.
func TestManyResponseFlagsParsedInLinearMemory(t *testing.T) {
	dir := t.TempDir()
	args := []string{"score", "toolcall-quick"}
	for i := range 5000 {
		args = append(args, "--responses", filepath.Join(dir, fmt.Sprintf("shard-%04d.jsonl", i)))
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var stdout, stderr bytes.Buffer
	code := Main(args, strings.NewReader(""), &stdout, &stderr)
	runtime.ReadMemStats(&after)
	// the first shard does not exist: read after the command line was parsed
	if want := "fbeval: " + filepath.Join(dir, "shard-0000.jsonl") + ": no such file or directory\n"; code != 2 || stderr.String() != want {
		t.Fatalf("exit %d, stderr %q; want 2, %q", code, stderr.String(), want)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Errorf("parsing 5,000 --responses allocated %d MB", grew>>20)
	}
}

// FuzzJoinRepeated: the arguments joinRepeated gives hold every --responses
// value in the order given, once, and the other arguments as they were.
func FuzzJoinRepeated(f *testing.F) {
	f.Add("score\nx\n--responses\na\n--responses=b\n--workers\n2\n--responses\n-\n--\n--responses\nc")
	f.Add("--responses\n--responses\n--responses")
	f.Add("export\n--repair-from\na\n--responses\nb\n--repair-from=c\n--responses\n-")
	f.Fuzz(func(t *testing.T, s string) {
		if strings.Contains(s, "\x00") {
			return // no argument holds a NUL
		}
		args := strings.Split(s, "\n")
		values, others, ok := responsesOf(args)
		got := joinRepeated(args)
		if !ok {
			if !slices.Equal(got, args) {
				t.Errorf("joinRepeated(%q) = %q, want them as given (a --responses with no value)", args, got)
			}
			return
		}
		gotValues, gotOthers, _ := responsesOf(got)
		for k := range gotValues {
			gotValues[k] = splitJoined(gotValues[k])
		}
		if !slices.EqualFunc(gotValues, values, slices.Equal) || !slices.Equal(gotOthers, others) {
			t.Errorf("joinRepeated(%q) = %q: values %q, others %q; want %q, %q", args, got, gotValues, gotOthers, values, others)
		}
	})
}

// responsesOf reads args as kong would: the values of each joined flag
// (--responses, --repair-from), flag by flag, and the rest; not ok when one
// of them has no value.
func responsesOf(args []string) (values [][]string, others []string, ok bool) {
	values = make([][]string, len(joinedFlags))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return values, append(others, args[i:]...), true
		}
		k := slices.IndexFunc(joinedFlags, func(f string) bool { return a == f || strings.HasPrefix(a, f+"=") })
		if k < 0 {
			others = append(others, a)
			continue
		}
		if v, ok := strings.CutPrefix(a, joinedFlags[k]+"="); ok {
			values[k] = append(values[k], v)
			continue
		}
		if i+1 == len(args) || args[i+1] != "-" && strings.HasPrefix(args[i+1], "-") {
			return nil, nil, false
		}
		values[k] = append(values[k], args[i+1])
		i++
	}
	return values, others, true
}

// TestDirHint: a folder given for several files gets the pattern of its files
// (by their one extension, hidden files and folders aside), or says it holds
// none; for one file, a file in it is asked for.
func TestDirHint(t *testing.T) {
	root := t.TempDir()
	write := func(names ...string) string {
		dir, err := os.MkdirTemp(root, "d")
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			if strings.HasSuffix(n, "/") {
				err = os.Mkdir(filepath.Join(dir, n), 0o755)
			} else {
				err = os.WriteFile(filepath.Join(dir, n), nil, 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	for _, tc := range []struct {
		names []string
		many  bool
		want  string // with D for the folder
	}{
		{[]string{"a.jsonl", "b.jsonl"}, true, "give its files as a pattern, quoted for fbeval to expand ('D/*.jsonl')"},
		{[]string{"a.jsonl", "b.json"}, true, "give its files as a pattern, quoted for fbeval to expand ('D/*')"},
		{[]string{"a.jsonl", ".a.jsonl.tmp", "sub/"}, true, "give its files as a pattern, quoted for fbeval to expand ('D/*.jsonl')"},
		{[]string{"README"}, true, "give its files as a pattern, quoted for fbeval to expand ('D/*')"},
		{[]string{".hidden", "sub/"}, true, "it holds no files"},
		{nil, true, "it holds no files"},
		{[]string{"a.jsonl"}, false, "name a file in it"},
	} {
		dir := write(tc.names...)
		if got, want := dirHint(dir, tc.many), strings.ReplaceAll(tc.want, "D", dir); got != want {
			t.Errorf("%v, many %v: %q, want %q", tc.names, tc.many, got, want)
		}
	}
}

// TestFileNameNotUTF8: a file name that is not UTF-8 (a Latin-1 system's)
// reaches the file byte for byte: the parser read it as text, and the file
// was "no such file or directory".
func TestFileNameNotUTF8(t *testing.T) {
	dir := t.TempDir()
	_, requests, _ := runMain(t, nil, "export", "toolcall-quick", "--include-reference", "--limit", "1", "--domain", "flights")
	name := filepath.Join(dir, "caf\xe9.jsonl")
	if err := os.WriteFile(name, []byte(requests), 0o644); err != nil {
		t.Skipf("this file system takes no such name: %v", err)
	}
	if code, _, stderr := runMain(t, nil, "validate", name); code != 0 {
		t.Errorf("validate: exit %d: %s", code, stderr)
	}
}
