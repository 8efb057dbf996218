package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fbeval/fbeval/contract"
)

// joinedFlag is the repeatable flag whose values joinRepeated gathers: a
// thousand response shards are a thousand --responses.
const joinedFlag = "--responses"

// joinSep joins the gathered values: no command-line argument can hold a NUL.
const joinSep = "\x00"

// joinRepeated gathers every --responses FILE and --responses=FILE before a
// "--" into one --responses=FILE\x00FILE... where the first stood, for kong to
// parse as one flag: its scanner copies the arguments left at each flag and
// keeps each copy, so N flags cost time and memory in N² (10,000 shards: 10 s
// and 2.4 GB before a file was read). A --responses whose next argument is a
// flag, or none, leaves args as given, for kong to refuse. splitJoined gives
// the files back.
func joinRepeated(args []string) []string {
	var values []string
	first := -1
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			out = append(out, args[i:]...)
			break
		}
		value, ok := strings.CutPrefix(a, joinedFlag+"=")
		if !ok && a == joinedFlag {
			if i+1 == len(args) || args[i+1] != "-" && strings.HasPrefix(args[i+1], "-") {
				return args // no value: kong's to refuse, as given
			}
			value, ok = args[i+1], true
			i++
		}
		if !ok {
			out = append(out, a)
			continue
		}
		if first < 0 {
			first = len(out)
			out = append(out, "")
		}
		values = append(values, value)
	}
	if len(values) < 2 {
		return args
	}
	out[first] = joinedFlag + "=" + strings.Join(values, joinSep)
	return out
}

// splitJoined gives back the files joinRepeated joined, in the order given.
func splitJoined(values []string) []string {
	var out []string
	for _, v := range values {
		out = append(out, strings.Split(v, joinSep)...)
	}
	return out
}

// expandPatterns gives each file of flag that names no file and holds a
// pattern (*, ?, [...]) as the files it matches, in byte order: a thousand
// shards are --responses 'shards/*.jsonl', quoted so that fbeval, not the
// shell, expands it. A pattern that matches nothing is exit 2, never an empty
// score.
func expandPatterns(flag string, paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		if contract.Stdin(p) || !strings.ContainsAny(p, "*?[") {
			out = append(out, p)
			continue
		}
		if _, err := os.Lstat(p); err == nil {
			out = append(out, p) // a file of that name
			continue
		}
		if strings.Contains(p, "**") {
			// Glob reads ** as *, one folder deep: files deeper would be left out
			return nil, usageError("%s %s: ** (any depth) is not read as a pattern here, where * matches within one folder: give one pattern a folder depth (--responses 'out/*/*.jsonl')", flag, p)
		}
		matches, err := filepath.Glob(p)
		if err != nil {
			return nil, usageError("%s %s: no such file, and not a pattern either (%v)", flag, p, err)
		}
		if len(matches) == 0 {
			return nil, usageError("%s %s: no file matches the pattern", flag, p)
		}
		out = append(out, matches...)
	}
	return out, nil
}

// patternOf is the quoted pattern that matches exactly files, more than
// three (fewer read as well listed), all in one folder with one extension
// ('shards/*.jsonl'), in the order given (a shell's expansion of it), or "".
func patternOf(files []string) string {
	if len(files) <= 3 {
		return ""
	}
	dir, ext := filepath.Dir(files[0]), filepath.Ext(files[0])
	pattern := filepath.Join(dir, "*"+ext)
	if strings.ContainsAny(dir+ext, "*?[]'\\") {
		return ""
	}
	matches, err := filepath.Glob(pattern)
	if err != nil || !slices.Equal(matches, files) {
		return ""
	}
	return "'" + pattern + "'"
}
