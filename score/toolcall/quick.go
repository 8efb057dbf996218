package toolcall

import (
	"math"
	"strconv"
	"unsafe"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/contract/strictjson"
)

// The quick check: Judge.Quick tells an output Score finds nothing wrong with from
// the rest without naming errors. It first walks the output against the one shape
// a clean answer to the case can have (match), building nothing; only what that
// walk cannot decide (escapes in strings, big or odd numbers, deep values) is
// parsed and checked by clean.

// Quick is the verdict of Score when output has nothing wrong with it: it returns
// Score's Result and true for a clean output (a success with no errors at all), and
// false for any other, without building a message or a canonical text. A caller
// that judges many outputs and keeps few results calls Score only for the outputs
// it keeps that Quick did not pass; the Results are the same. output is not kept.
func (j *Judge) Quick(output []byte, c *Case) (Result, bool) {
	out := unsafe.String(unsafe.SliceData(output), len(output))
	switch j.match(out, c) {
	case matchNo:
		return Result{}, false
	case matchUnsure:
		if !j.clean(out, c) {
			return Result{}, false
		}
	}
	return Result{Success: true, ReferenceValid: true, CandidateValid: true,
		SemanticallyRight: true, PolicyValid: true, Action: c.action}, true
}

// clean reports whether Score would find no error in output. Every check is
// Score's own, in a form that only says yes or no; where a check could say "valid"
// while Score's names an error (it cannot: Schema.Valid passes only what
// Schema.validate passes), clean would be wrong, so the checks only err on the
// side of "not clean", which costs a Score call and nothing else.
func (j *Judge) clean(output string, c *Case) bool {
	v, p, err := strictjson.ParseScratch(output)
	defer p.Release()
	if err != nil || !envelopeOK(v) {
		return false
	}
	e := splitEnvelope(v)
	if e.action != c.action {
		return false
	}
	if e.action != contract.ActionCallTool {
		want := c.missing
		if e.action != contract.ActionAsk {
			want = nil
		}
		return e.tool.Kind() == strictjson.Null && e.arguments.Len() == 0 && sameStringSet(e.missing, want)
	}
	if e.missing.Len() > 0 || !strictjson.Equal(e.tool, c.tool) || !strictjson.Equal(e.arguments, c.args) {
		return false
	}
	// Equal arguments are the same instance to every later check (schemas,
	// formats, patterns, policies, bindings), so a clean call's arguments pass
	// exactly when the expected ones do: found once per case.
	return j.expectedPass(c)
}

// expectedPass reports whether c's expected arguments pass the bindings, the
// policies and both schemas of j. The answer is kept in c for the judge that
// asked last: a case is judged by its domain's judge.
func (j *Judge) expectedPass(c *Case) bool {
	if m := c.pass.Load(); m != nil && m.judge == j {
		return m.ok
	}
	ok := j.argsPass(c.args, c)
	c.pass.Store(&casePass{judge: j, ok: ok})
	return ok
}

// argsPass reports whether scoreCall finds no binding, policy or schema error in
// args.
func (j *Judge) argsPass(args strictjson.Value, c *Case) bool {
	for i := range c.bindings {
		got, ok := args.Get(c.bindings[i].Key)
		if !ok || !strictjson.Equal(got, c.bindings[i].Value) {
			return false
		}
	}
	if !j.policiesOK(args) || !j.reference.Valid(args) {
		return false
	}
	return j.candidate == j.reference || j.candidate.Valid(args)
}

// casePass is Judge.expectedPass's answer for one judge.
type casePass struct {
	judge *Judge
	ok    bool
}

// policiesOK reports whether checkPolicies finds nothing wrong with args.
func (j *Judge) policiesOK(args strictjson.Value) bool {
	for _, rule := range j.maxRules {
		got, ok := args.Get(rule.field)
		if !ok || !got.IsNumber() || strictjson.CompareNumbers(got, rule.ceiling) > 0 {
			return false
		}
	}
	for _, pair := range j.ordered {
		first, _ := args.Get(pair[0])
		second, _ := args.Get(pair[1])
		if first.Kind() != strictjson.String || second.Kind() != strictjson.String || first.Str() >= second.Str() {
			return false
		}
	}
	return true
}

// matchVerdict is what match found.
type matchVerdict uint8

const (
	matchNo     matchVerdict = iota // the output is not clean
	matchYes                        // clean, or so far as walked
	matchUnsure                     // the walk cannot tell: ask clean
)

// maxMatchDepth bounds match's recursion, which follows the expected value; past
// it the walk gives up (matchUnsure).
const maxMatchDepth = 32

// match walks output against what a clean answer to c must be: a strict JSON
// object with exactly the five envelope members, in any order and with any JSON
// whitespace, holding c's action; for a call, c's tool, arguments Equal to c's and
// no missing fields; else a null tool, empty arguments and c's missing fields (in
// any order) for a clarification, none for a refusal; and a reason that is any
// string. matchYes is given only when all of that holds and every string is plain
// (no escape) valid UTF-8 and every number reads as the parser reads it: then the
// parser accepts the output and every check of Score passes but the schemas and
// policies, which depend on the arguments alone (see expectedPass). Anything that
// differs is matchNo whether or not the output is valid JSON, as either way Score
// finds an error; what the walk does not read itself is matchUnsure.
func (j *Judge) match(output string, c *Case) matchVerdict {
	m := matcher{d: output}
	m.space()
	if !m.take('{') {
		return matchNo
	}
	call := c.action == contract.ActionCallTool
	var seen uint8
	for first := true; ; first = false {
		m.space()
		if first && m.take('}') {
			return matchNo
		}
		key, v := m.str()
		if v != matchYes {
			return v
		}
		m.space()
		if !m.take(':') {
			return matchNo
		}
		m.space()
		var bit uint8
		switch key {
		case "action":
			bit = 1
			var s string
			if s, v = m.str(); v == matchYes && s != c.action {
				v = matchNo
			}
		case "tool":
			bit = 2
			if call {
				v = m.equal(c.tool, 0)
			} else {
				v = m.literal("null")
			}
		case "arguments":
			bit = 4
			if call {
				v = m.equal(c.args, 0)
			} else {
				v = m.empty('{', '}')
			}
		case "missingFields":
			bit = 8
			if c.action == contract.ActionAsk {
				v = m.stringSet(c.missing)
			} else {
				v = m.empty('[', ']')
			}
		case "reason":
			bit = 16
			v = m.anyStr()
		default:
			return matchNo // not an envelope member
		}
		if v != matchYes {
			return v
		}
		if seen&bit != 0 {
			return matchNo // a duplicate key
		}
		seen |= bit
		m.space()
		if m.take(',') {
			continue
		}
		if !m.take('}') {
			return matchNo
		}
		m.space()
		if seen != 31 || m.pos != len(m.d) {
			return matchNo
		}
		if call && !j.expectedPass(c) {
			return matchNo
		}
		return matchYes
	}
}

// matcher reads an output as match walks it.
type matcher struct {
	d   string
	pos int
}

func (m *matcher) space() { m.pos = strictjson.SkipSpace(m.d, m.pos) }

// take consumes byte b if it is next.
func (m *matcher) take(b byte) bool {
	if m.pos < len(m.d) && m.d[m.pos] == b {
		m.pos++
		return true
	}
	return false
}

func (m *matcher) literal(word string) matchVerdict {
	if len(m.d)-m.pos >= len(word) && m.d[m.pos:m.pos+len(word)] == word {
		m.pos += len(word)
		return matchYes
	}
	return matchNo
}

// empty reads an empty object or array.
func (m *matcher) empty(open, close byte) matchVerdict {
	if !m.take(open) {
		return matchNo
	}
	m.space()
	if !m.take(close) {
		return matchNo
	}
	return matchYes
}

// str reads a string without escapes; the result is part of the output. A
// string with an escape is matchUnsure; a string the parser refuses (a control
// character, invalid UTF-8, a bad escape, no closing quote) is matchNo.
func (m *matcher) str() (string, matchVerdict) {
	if m.pos >= len(m.d) || m.d[m.pos] != '"' {
		return "", matchNo
	}
	end, escaped, err := strictjson.ScanString(m.d, m.pos, strictjson.KeepSurrogates)
	if err != strictjson.LexOK {
		return "", matchNo
	}
	if escaped {
		return "", matchUnsure
	}
	s := m.d[m.pos+1 : end-1]
	m.pos = end
	return s, matchYes
}

// anyStr reads a string whose value does not matter (a reason): checked as the
// parser checks it (a lone surrogate is read too), not decoded.
func (m *matcher) anyStr() matchVerdict {
	if m.pos >= len(m.d) || m.d[m.pos] != '"' {
		return matchNo
	}
	end, _, err := strictjson.ScanString(m.d, m.pos, strictjson.KeepSurrogates)
	if err != strictjson.LexOK {
		return matchNo
	}
	m.pos = end
	return matchYes
}

// stringSet reads an array of strings that holds each of want once, in any order.
func (m *matcher) stringSet(want []string) matchVerdict {
	if len(want) > 64 {
		return matchUnsure
	}
	if !m.take('[') {
		return matchNo
	}
	var found uint64
	n := 0
	for first := true; ; first = false {
		m.space()
		if first && m.take(']') {
			break
		}
		s, v := m.str()
		if v != matchYes {
			return v
		}
		k := index(want, s)
		if k < 0 || found&(1<<k) != 0 {
			return matchNo
		}
		found |= 1 << k
		n++
		m.space()
		if m.take(',') {
			continue
		}
		if !m.take(']') {
			return matchNo
		}
		break
	}
	if n != len(want) {
		return matchNo
	}
	return matchYes
}

func index(ss []string, s string) int {
	for i := range ss {
		if ss[i] == s {
			return i
		}
	}
	return -1
}

// equal reads a value Equal to want.
func (m *matcher) equal(want strictjson.Value, depth int) matchVerdict {
	if depth > maxMatchDepth {
		return matchUnsure
	}
	switch want.Kind() {
	case strictjson.Null:
		return m.literal("null")
	case strictjson.Bool:
		if want.Bool() {
			return m.literal("true")
		}
		return m.literal("false")
	case strictjson.String:
		s, v := m.str()
		if v == matchYes && s != want.Str() {
			return matchNo
		}
		return v
	case strictjson.Int, strictjson.Float:
		return m.number(want)
	case strictjson.Array:
		return m.array(want, depth)
	case strictjson.Object:
		return m.object(want, depth)
	}
	return matchUnsure // BigInt
}

// number reads a number literal as the parser does and compares it with want
// (an Int or a Float) as Equal does.
func (m *matcher) number(want strictjson.Value) matchVerdict {
	start := m.pos
	i, isInt, err := strictjson.ScanNumber(m.d, start)
	if err != strictjson.LexOK {
		return matchNo
	}
	lit := m.d[start:i]
	m.pos = i
	if isInt != (want.Kind() == strictjson.Int) {
		return matchNo // 1 != 1.0
	}
	if isInt {
		n, ok := strictjson.SmallInt(lit)
		if !ok {
			return matchUnsure
		}
		if n != want.Int() {
			return matchNo
		}
		return matchYes
	}
	f, ferr := strconv.ParseFloat(lit, 64)
	if ferr != nil {
		return matchUnsure
	}
	if math.Float64bits(f) != math.Float64bits(want.Float()) {
		return matchNo
	}
	return matchYes
}

func (m *matcher) array(want strictjson.Value, depth int) matchVerdict {
	if !m.take('[') {
		return matchNo
	}
	m.space()
	if want.Len() == 0 {
		if !m.take(']') {
			return matchNo
		}
		return matchYes
	}
	for i := range want.Len() {
		if i > 0 {
			m.space()
			if !m.take(',') {
				return matchNo
			}
			m.space()
		}
		if v := m.equal(want.Index(i), depth+1); v != matchYes {
			return v
		}
	}
	m.space()
	if !m.take(']') {
		return matchNo
	}
	return matchYes
}

func (m *matcher) object(want strictjson.Value, depth int) matchVerdict {
	if want.Len() > 64 {
		return matchUnsure
	}
	if !m.take('{') {
		return matchNo
	}
	var found uint64
	n := 0
	for first := true; ; first = false {
		m.space()
		if first && m.take('}') {
			break
		}
		key, v := m.str()
		if v != matchYes {
			return v
		}
		k := -1
		for i := range want.Len() {
			if want.Members()[i].Key == key {
				k = i
				break
			}
		}
		if k < 0 || found&(1<<k) != 0 {
			return matchNo // a member want lacks, or a duplicate key
		}
		found |= 1 << k
		n++
		m.space()
		if !m.take(':') {
			return matchNo
		}
		m.space()
		if v := m.equal(want.Index(k), depth+1); v != matchYes {
			return v
		}
		m.space()
		if m.take(',') {
			continue
		}
		if !m.take('}') {
			return matchNo
		}
		break
	}
	if n != want.Len() {
		return matchNo
	}
	return matchYes
}
