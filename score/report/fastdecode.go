package report

import (
	"strconv"

	"github.com/fbeval/fbeval/contract/strictjson"
)

// The streamed lists of a saved report (a toolcall report's rows, a CogLang
// result's cases and failure cases) are decoded here, without reflection, in
// the common case: the members and types fbeval writes. The input is one value
// that jsontext has already read, so it is valid JSON free of duplicate names
// (its strings may hold lone surrogate escapes, or bytes that are not UTF-8,
// which the report readers let through for strictjson to keep or refuse: see
// wtf8.go). Anything else (a member fbeval does not write, null where it
// writes none, a number that is not a plain integer, an escaped name) makes the
// fast decoder give up, and json.Unmarshal decodes the value instead, with the
// options of every report reader (wtf8.go): the result, and any error, is
// always json.Unmarshal's. Strings are unquoted by strictjson, as those options
// unquote them.

// fastDecoder reads one valid JSON value; ok turns false, for good, when the
// value holds something it leaves to json.Unmarshal.
type fastDecoder struct {
	b     []byte
	i     int
	ok    bool
	names *strCache
}

// strCache is what decoding a list keeps from one element to the next: the
// short strings decoded so far, so that the names a list repeats in every
// element (arms, domains, codes) are allocated once, and the buffer an escaped
// string is unquoted into.
type strCache struct {
	m   map[string]string
	buf []byte
}

// strCacheLen bounds a strCache: the entries, and the length of each.
const strCacheLen, strCacheMax = 4096, 32

func (c *strCache) get(b []byte) string {
	if c == nil || len(b) > strCacheMax {
		return string(b)
	}
	if c.m == nil {
		c.m = map[string]string{}
	}
	if s, ok := c.m[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(c.m) < strCacheLen {
		c.m[s] = s
	}
	return s
}

func (d *fastDecoder) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\r', '\n':
			d.i++
		default:
			return
		}
	}
}

// peek returns the next byte past white space, or 0 at the end.
func (d *fastDecoder) peek() byte {
	d.space()
	if d.i < len(d.b) {
		return d.b[d.i]
	}
	return 0
}

// want consumes c, the next byte past white space.
func (d *fastDecoder) want(c byte) {
	if d.peek() != c {
		d.ok = false
		return
	}
	d.i++
}

// object calls member with each member's name, which it must consume the value
// of, or give up on. A name is valid only until member returns.
func (d *fastDecoder) object(member func(name []byte)) {
	d.want('{')
	if d.peek() == '}' {
		d.i++
		return
	}
	for d.ok {
		if d.peek() != '"' {
			d.ok = false
			return
		}
		start := d.i + 1
		end := start
		for end < len(d.b) && d.b[end] != '"' && d.b[end] != '\\' {
			end++
		}
		if end >= len(d.b) || d.b[end] != '"' {
			d.ok = false // an escaped name
			return
		}
		d.i = end + 1
		d.want(':')
		if !d.ok {
			return
		}
		member(d.b[start:end])
		switch d.peek() {
		case ',':
			d.i++
		case '}':
			d.i++
			return
		default:
			d.ok = false
		}
	}
}

// isNull consumes a null, if that is what comes next.
func (d *fastDecoder) isNull() bool {
	if d.peek() == 'n' && d.i+4 <= len(d.b) && string(d.b[d.i:d.i+4]) == "null" {
		d.i += 4
		return true
	}
	return false
}

// str reads a string, unquoted by strictjson as every fbeval reader unquotes
// (a lone surrogate escape kept as WTF-8, as unquoteString keeps it).
func (d *fastDecoder) str() string {
	if d.peek() != '"' {
		d.ok = false
		return ""
	}
	var buf []byte
	if d.names != nil {
		buf = d.names.buf[:0]
	}
	end, out, escaped, err := strictjson.ReadString(d.b, d.i, buf, strictjson.KeepSurrogates)
	if err != strictjson.LexOK {
		d.ok = false
		return ""
	}
	text := d.b[d.i+1 : end-1]
	if escaped {
		text = out
		if d.names != nil {
			d.names.buf = out
		}
	}
	d.i = end
	return d.names.get(text) // a copy, or a string decoded before
}

// optStr reads a string or null (nil).
func (d *fastDecoder) optStr() *string {
	if d.isNull() {
		return nil
	}
	s := d.str()
	return &s
}

func (d *fastDecoder) boolean() bool {
	switch d.peek() {
	case 't':
		if d.i+4 <= len(d.b) && string(d.b[d.i:d.i+4]) == "true" {
			d.i += 4
			return true
		}
	case 'f':
		if d.i+5 <= len(d.b) && string(d.b[d.i:d.i+5]) == "false" {
			d.i += 5
			return false
		}
	}
	d.ok = false
	return false
}

// integer reads a number without a fraction or an exponent that fits an int.
func (d *fastDecoder) integer() int {
	d.space()
	start := d.i
	if d.i < len(d.b) && d.b[d.i] == '-' {
		d.i++
	}
	for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
		d.i++
	}
	n, err := strconv.Atoi(string(d.b[start:d.i]))
	if err != nil || (d.i < len(d.b) && (d.b[d.i] == '.' || d.b[d.i] == 'e' || d.b[d.i] == 'E')) {
		d.ok = false
	}
	return n
}

// array calls elem for each element, which it must consume.
func (d *fastDecoder) array(elem func()) {
	d.want('[')
	if d.peek() == ']' {
		d.i++
		return
	}
	for d.ok {
		elem()
		switch d.peek() {
		case ',':
			d.i++
		case ']':
			d.i++
			return
		default:
			d.ok = false
		}
	}
}

// strs reads a list of strings: empty, not nil, for [], as json.Unmarshal does.
func (d *fastDecoder) strs() []string {
	out := []string{}
	d.array(func() { out = append(out, d.str()) })
	return out
}

// end reports whether the value was decoded whole.
func (d *fastDecoder) end() bool {
	d.space()
	return d.ok && d.i == len(d.b)
}

// skip consumes one value without decoding it.
func (d *fastDecoder) skip() {
	d.space()
	end, err := strictjson.SkipValue(d.b, d.i, strictjson.DefaultMaxDepth, strictjson.KeepSurrogates)
	if err != strictjson.LexOK {
		d.ok = false
		return
	}
	d.i = end
}

// fastDecode decodes val into v as json.Unmarshal would, or reports false (and
// leaves v to be reset): for the types it knows. names may be nil. A brief
// row is decoded without its attempt results (AttemptResults nil), a brief
// CogLang case with only its CaseID, Level and FailureCategories.
func fastDecode(val []byte, v any, names *strCache, brief bool) bool {
	switch v := v.(type) {
	case *Row:
		if brief {
			return decodeBriefRow(val, v, names)
		}
		return decodeRow(val, v, names)
	case *CogLangCase:
		return decodeCogLangCase(val, v, names, brief)
	case *FailureCase:
		return decodeFailureCase(val, v, names)
	}
	return false
}

// decodeRow decodes a row as json.Unmarshal would, or reports false. names may
// be nil.
func decodeRow(val []byte, r *Row, names *strCache) bool {
	return decodeRowOf(val, r, names, false)
}

// decodeBriefRow decodes a row as decodeRow does but skips its attempt
// results: AttemptResults stays nil.
func decodeBriefRow(val []byte, r *Row, names *strCache) bool {
	return decodeRowOf(val, r, names, true)
}

func decodeRowOf(val []byte, r *Row, names *strCache, brief bool) bool {
	d := &fastDecoder{b: val, ok: true, names: names}
	d.object(func(name []byte) {
		switch string(name) {
		case "case_id":
			r.CaseID = d.str()
		case "domain":
			r.Domain = d.str()
		case "category":
			r.Category = d.str()
		case "cluster":
			r.Cluster = d.str()
		case "arm":
			r.Arm = d.str()
		case "repeat":
			r.Repeat = d.integer()
		case "first_pass_success":
			r.FirstPassSuccess = d.boolean()
		case "final_success":
			r.FinalSuccess = d.boolean()
		case "attempts":
			r.Attempts = d.integer()
		case "provider_error":
			r.ProviderError = d.boolean()
		case "missing":
			r.Missing = d.boolean()
		case "codes":
			r.Codes = d.strs()
		case "final_codes":
			r.FinalCodes = d.strs()
		case "output":
			r.Output = d.optStr()
		case "attempt_results":
			if brief {
				d.skip()
				return
			}
			r.AttemptResults = []AttemptResult{}
			d.array(func() {
				var a AttemptResult
				d.object(func(name []byte) {
					switch string(name) {
					case "attempt":
						a.Attempt = d.integer()
					case "output":
						a.Output = d.optStr()
					case "errors":
						a.Errors = []AttemptError{}
						d.array(func() {
							var e AttemptError
							d.object(func(name []byte) {
								switch string(name) {
								case "code":
									e.Code = d.str()
								case "path":
									e.Path = d.str()
								case "message":
									e.Message = d.str()
								default:
									d.ok = false
								}
							})
							a.Errors = append(a.Errors, e)
						})
					default:
						d.ok = false
					}
				})
				r.AttemptResults = append(r.AttemptResults, a)
			})
		default:
			d.ok = false
		}
	})
	return d.end()
}

// decodeCogLangCase decodes a CogLang case as json.Unmarshal would, or reports
// false. names may be nil. A brief case keeps only its CaseID, Level and
// FailureCategories, the other members skipped (see
// CogLangResult.BriefCaseSource).
func decodeCogLangCase(val []byte, c *CogLangCase, names *strCache, brief bool) bool {
	d := &fastDecoder{b: val, ok: true, names: names}
	d.object(func(name []byte) {
		switch string(name) {
		case "case_id":
			c.CaseID = d.str()
			return
		case "level":
			c.Level = d.str()
			return
		case "failure_categories":
			c.FailureCategories = d.strs()
			return
		}
		if brief {
			switch string(name) {
			case "prompt", "output", "parse_ok", "canonicalize_ok", "validate_ok", "expected_top_level_head_ok",
				"hallucinated_heads", "preflight_decision", "canonical", "parse_error":
				d.skip()
			default:
				d.ok = false
			}
			return
		}
		switch string(name) {
		case "prompt":
			c.Prompt = d.str()
		case "output":
			c.Output = d.optStr()
		case "parse_ok":
			c.ParseOK = d.boolean()
		case "canonicalize_ok":
			c.CanonicalizeOK = d.boolean()
		case "validate_ok":
			c.ValidateOK = d.boolean()
		case "expected_top_level_head_ok":
			c.ExpectedTopLevelHeadOK = d.boolean()
		case "hallucinated_heads":
			c.HallucinatedHeads = d.strs()
		case "preflight_decision":
			c.PreflightDecision = d.optStr()
		case "canonical":
			c.Canonical = d.optStr()
		case "parse_error":
			c.ParseError = d.optStr()
		default:
			d.ok = false
		}
	})
	return d.end()
}

// caseIDOf returns the case_id of a CogLang case without decoding the rest:
// the members before it are skipped, and none after it is read, which holds
// because the first reading of a report refused a repeated member name. An
// escaped id is unquoted into buf, which it returns for reuse. ok is false
// where it cannot tell (decode the case whole then).
func caseIDOf(val, buf []byte) (id, out []byte, ok bool) {
	d := &fastDecoder{b: val, ok: true}
	d.want('{')
	for d.ok && d.peek() == '"' {
		start := d.i + 1
		end := start
		for end < len(d.b) && d.b[end] != '"' && d.b[end] != '\\' {
			end++
		}
		if end >= len(d.b) || d.b[end] != '"' {
			return nil, buf, false // an escaped name
		}
		d.i = end + 1
		d.want(':')
		if !d.ok {
			break
		}
		if string(d.b[start:end]) != "case_id" {
			d.skip()
			if d.peek() != ',' {
				break
			}
			d.i++
			continue
		}
		if d.peek() != '"' {
			break
		}
		e, out, escaped, err := strictjson.ReadString(d.b, d.i, buf[:0], strictjson.KeepSurrogates)
		if err != strictjson.LexOK {
			break
		}
		if escaped {
			return out, out, true
		}
		return d.b[d.i+1 : e-1], out, true
	}
	return nil, buf, false
}

// decodeFailureCase decodes a CogLang failure case as json.Unmarshal would, or
// reports false. names may be nil.
func decodeFailureCase(val []byte, c *FailureCase, names *strCache) bool {
	d := &fastDecoder{b: val, ok: true, names: names}
	d.object(func(name []byte) {
		switch string(name) {
		case "case_id":
			c.CaseID = d.str()
		case "level":
			c.Level = d.str()
		case "failure_categories":
			c.FailureCategories = d.strs()
		case "hallucinated_heads":
			c.HallucinatedHeads = d.strs()
		case "parse_error":
			c.ParseError = d.optStr()
		default:
			d.ok = false
		}
	})
	return d.end()
}
