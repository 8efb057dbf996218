package main

import (
	"path/filepath"
	"slices"
	"strings"
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
