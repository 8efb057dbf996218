package contract

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ExpandPatterns gives each file of flag (or each file argument, flag "")
// that names no file and holds a pattern (*, ?, [...]) as the files it
// matches, in byte order: a thousand shards are --responses 'shards/*.jsonl',
// quoted so that fbeval, not the shell, expands it. A pattern that matches
// nothing is exit 2, never an empty score.
func ExpandPatterns(flag string, paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		given := p
		if flag != "" {
			given = flag + " " + p
		}
		if Stdin(p) || !strings.ContainsAny(p, "*?[") {
			out = append(out, p)
			continue
		}
		if _, err := os.Lstat(p); err == nil {
			out = append(out, p) // a file of that name
			continue
		}
		if strings.Contains(p, "**") {
			// Glob reads ** as *, one folder deep: files deeper would be left out
			return nil, usageErr("%s: ** (any depth) is not read as a pattern here, where * matches within one folder: give one pattern a folder depth ('out/*/*.jsonl')", given)
		}
		matches, err := filepath.Glob(p)
		if err != nil {
			return nil, usageErr("%s: no such file, and not a pattern either (%v)", given, err)
		}
		matches = slices.DeleteFunc(matches, func(m string) bool { return hiddenMatch(p, m) })
		if len(matches) == 0 {
			return nil, usageErr("%s: no file matches the pattern", given)
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

// CommaList refuses a path that does not exist and is files joined by commas
// (--responses a.jsonl,b.jsonl), which the flag (or, flag "", an argument)
// takes as one name: each file is given with a flag of its own (or apart).
func CommaList(flag, path string) error {
	if !strings.Contains(path, ",") {
		return nil
	}
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	parts := strings.Split(path, ",")
	var fixed []string
	for _, p := range parts {
		if _, err := os.Stat(p); err != nil {
			return nil // a name with a comma that is missing: the read says so
		}
		fixed = append(fixed, strings.TrimSpace(flag+" "+p))
	}
	if flag == "" {
		return usageErr("%s: no such file; an argument is one file, so give each apart: %s", path, strings.Join(fixed, " "))
	}
	return usageErr("%s %s: no such file; %s takes one file, so give each its own: %s", flag, path, flag, strings.Join(fixed, " "))
}

// usageErr is bad usage, said as format says.
func usageErr(format string, args ...any) error {
	return &InputError{Kind: ErrUsage, Msg: fmt.Sprintf(format, args...)}
}
