package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fbeval/fbeval/contract"
)

// joinedFlags are the repeatable flags whose values joinRepeated gathers, each
// a file: a thousand response shards are a thousand --responses.
var joinedFlags = []string{"--responses", "--repair-from"}

// joinSep joins the gathered values: no command-line argument can hold a NUL.
const joinSep = "\x00"

// joinRepeated gathers every --responses FILE and --responses=FILE before a
// "--" into one --responses=FILE\x00FILE... where the first stood, for kong to
// parse as one flag, and every --repair-from so: kong's scanner copies the
// arguments left at each flag and keeps each copy, so N flags cost time and
// memory in N² (10,000 shards: 10 s and 2.4 GB before a file was read). A
// flag whose next argument is a flag, or none, leaves args as given, for kong
// to refuse. splitJoined gives the files back.
func joinRepeated(args []string) []string {
	values := make([][]string, len(joinedFlags))
	first := make([]int, len(joinedFlags)) // where each flag's joined value goes in out
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			out = append(out, args[i:]...)
			break
		}
		k, value, ok := -1, "", false
		for j, flag := range joinedFlags {
			if value, ok = strings.CutPrefix(a, flag+"="); ok {
				k = j
				break
			}
			if a == flag {
				if i+1 == len(args) || args[i+1] != "-" && strings.HasPrefix(args[i+1], "-") {
					return args // no value: kong's to refuse, as given
				}
				k, value, ok = j, args[i+1], true
				i++
				break
			}
		}
		if !ok {
			out = append(out, a)
			continue
		}
		if len(values[k]) == 0 {
			first[k] = len(out)
			out = append(out, "")
		}
		values[k] = append(values[k], value)
	}
	joined := false
	for k, vs := range values {
		if len(vs) > 0 {
			out[first[k]] = joinedFlags[k] + "=" + strings.Join(vs, joinSep)
			joined = joined || len(vs) > 1
		}
	}
	if !joined {
		return args
	}
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

// expandPatterns gives each file of flag (or each file argument, flag "")
// that names no file and holds a pattern (*, ?, [...]) as the files it
// matches, in byte order: a thousand shards are --responses 'shards/*.jsonl',
// quoted so that fbeval, not the shell, expands it. A pattern that matches
// nothing is exit 2, never an empty score.
func expandPatterns(flag string, paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		given := p
		if flag != "" {
			given = flag + " " + p
		}
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
			return nil, usageError("%s: ** (any depth) is not read as a pattern here, where * matches within one folder: give one pattern a folder depth ('out/*/*.jsonl')", given)
		}
		matches, err := filepath.Glob(p)
		if err != nil {
			return nil, usageError("%s: no such file, and not a pattern either (%v)", given, err)
		}
		matches = slices.DeleteFunc(matches, func(m string) bool { return hiddenMatch(p, m) })
		if len(matches) == 0 {
			return nil, usageError("%s: no file matches the pattern", given)
		}
		out = append(out, matches...)
	}
	return out, nil
}

// hiddenMatch reports whether match, which pattern matched, names a hidden
// file or folder (a name that starts with a dot) where the pattern's part does
// not start with one: as a shell's * and ? leave them, so 'out/*' is not
// also the .tmp files of an interrupted write beside them.
func hiddenMatch(pattern, match string) bool {
	ps := strings.Split(filepath.Clean(pattern), string(filepath.Separator))
	ms := strings.Split(filepath.Clean(match), string(filepath.Separator))
	if len(ps) != len(ms) {
		return false
	}
	for i, m := range ms {
		if strings.HasPrefix(m, ".") && !strings.HasPrefix(ps[i], ".") && strings.ContainsAny(ps[i], "*?[") {
			return true
		}
	}
	return false
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
