package main

import "strings"

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
// flag (or none) is left to kong to refuse. splitJoined gives the files back.
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
		if !ok && a == joinedFlag && i+1 < len(args) && (args[i+1] == "-" || !strings.HasPrefix(args[i+1], "-")) {
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
