package runner

import (
	"bytes"
	"strconv"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/contract/strictjson"
	"github.com/go-json-experiment/json/jsontext"
)

// quickReader decodes a request record as contract.DecodeRequest's decoding
// does (its fields, before the rules of the family), in one pass over the bytes,
// for records shaped as fbeval export writes them. It reports false for
// anything else: null, a number with a fraction or an exponent, a member name
// with an escape, a member of a message, response format or tool it does not
// know, anything malformed. DecodeRequest then reads the record and gives the
// error, if there is one. What it reads, DecodeRequest reads the same
// (FuzzQuickRequest). It decodes fbeval's request records about three times as
// fast as DecodeRequest (BenchmarkDecodeRequests), and a runner reads every
// request twice.
//
// Values it keeps whole (a tool's parameters, a response format's schema, a
// member no request has) are checked as jsontext checks them: a valid value
// with no member name twice in any object. Schemas repeat from request to
// request, so each one checked is remembered, up to quickSeenBytes in all.
type quickReader struct {
	buf   []byte   // a string's unescaped text
	names [][]byte // the names of the record's unknown members
	// the record's instructions and prompt as written (quotes included) and as
	// read: its messages hold them again, read once
	texts [2]struct {
		raw []byte
		s   string
	}
	seen     map[string]struct{} // values with objects that were checked
	seenSize int
}

// quickSeenBytes bounds the values a quickReader remembers as checked; past
// it, others are checked each time.
const quickSeenBytes = 8 << 20

// quickDepth is the deepest nesting the quick reader checks; deeper values
// are left to DecodeRequest.
const quickDepth = 256

// the members of a request record the quick reader knows
var requestMembers = map[string]int{
	"schema_version": 0, "request_id": 1, "case_id": 2, "suite": 3, "study": 4,
	"arm": 5, "repeat": 6, "attempt": 7, "seed": 8, "instructions": 9,
	"prompt": 10, "messages": 11, "response_format": 12, "tools": 13,
	"reference_output": 14, "reference_expr": 15, "recipe": 16,
	"max_tokens": 17, "temperature": 18,
}

// read decodes the record d into w and reports whether it could.
func (q *quickReader) read(d []byte, w *contract.RequestFields) bool {
	*w = contract.RequestFields{}
	q.names = q.names[:0]
	q.texts[0].raw, q.texts[1].raw = nil, nil
	var seen uint32
	return strictjson.Members(d, 0, func(name []byte, i int) (int, bool) {
		k, known := requestMembers[string(name)]
		if !known {
			for _, n := range q.names {
				if bytes.Equal(n, name) {
					return i, false
				}
			}
			q.names = append(q.names, name)
			return q.value(d, i)
		}
		if seen&(1<<k) != 0 {
			return i, false
		}
		seen |= 1 << k
		r := &w.Request
		switch k {
		case 0:
			return q.str(d, i, &r.SchemaVersion)
		case 1:
			return q.str(d, i, &r.RequestID)
		case 2:
			return q.str(d, i, &r.CaseID)
		case 3:
			return q.str(d, i, &r.Suite)
		case 4:
			return q.str(d, i, &r.Study)
		case 5:
			return q.str(d, i, &r.Arm)
		case 6:
			return integer(d, i, &r.Repeat)
		case 7:
			return integer(d, i, &r.Attempt)
		case 8:
			return integer(d, i, &r.Seed)
		case 9:
			return q.text(d, i, 0, &r.Instructions)
		case 10:
			return q.text(d, i, 1, &r.Prompt)
		case 11:
			return q.messages(d, i, r)
		case 12:
			return q.responseFormat(d, i, r)
		case 13:
			return q.tools(d, i, r)
		case 14:
			return q.optStr(d, i, &r.ReferenceOutput)
		case 15:
			return q.optStr(d, i, &w.ReferenceExpr)
		case 17:
			r.MaxTokens = new(int)
			return integer(d, i, r.MaxTokens)
		case 18:
			r.Temperature = new(float64)
			return number(d, i, r.Temperature)
		default:
			return q.str(d, i, &r.Recipe)
		}
	}) == len(d)
}

// str reads the string at d[i] into s.
func (q *quickReader) str(d []byte, i int, s *string) (int, bool) {
	if i >= len(d) || d[i] != '"' {
		return i, false
	}
	end, buf, escaped, err := strictjson.ReadString(d, i, q.buf[:0], strictjson.RejectSurrogates)
	q.buf = buf
	if err != strictjson.LexOK {
		return i, false
	}
	if escaped {
		*s = string(buf)
	} else {
		*s = string(d[i+1 : end-1])
	}
	return end, true
}

// text reads the string at d[i] into s and keeps it as the k-th text.
func (q *quickReader) text(d []byte, i, k int, s *string) (int, bool) {
	end, ok := q.str(d, i, s)
	if ok {
		q.texts[k].raw, q.texts[k].s = d[i:end], *s
	}
	return end, ok
}

// content reads the string at d[i] into s: one of the texts, when it is
// written as that text is.
func (q *quickReader) content(d []byte, i int, s *string) (int, bool) {
	for _, t := range q.texts {
		if len(t.raw) > 0 && bytes.HasPrefix(d[i:], t.raw) {
			// the bytes of a string up to its closing quote: the string at
			// d[i] ends there too
			*s = t.s
			return i + len(t.raw), true
		}
	}
	return q.str(d, i, s)
}

// optStr reads the string or null at d[i] into p (nil for null).
func (q *quickReader) optStr(d []byte, i int, p **string) (int, bool) {
	if end, err := strictjson.ScanLiteral(d, i, "null"); err == strictjson.LexOK {
		return end, true
	}
	var s string
	end, ok := q.str(d, i, &s)
	if ok {
		*p = &s
	}
	return end, ok
}

// integer reads the integer literal at d[i] (no fraction, no exponent, at most
// 18 bytes) into n.
func integer[T int | int64](d []byte, i int, n *T) (int, bool) {
	end, isInt, err := strictjson.ScanNumber(d, i)
	if err != strictjson.LexOK || !isInt {
		return i, false
	}
	v, ok := strictjson.SmallInt(d[i:end])
	if !ok || int64(T(v)) != v {
		return i, false
	}
	*n = T(v)
	return end, true
}

// number reads the number literal at d[i] into f, as encoding/json reads it
// into a float64 (one that overflows is left to it).
func number(d []byte, i int, f *float64) (int, bool) {
	end, _, err := strictjson.ScanNumber(d, i)
	if err != strictjson.LexOK {
		return i, false
	}
	v, perr := strconv.ParseFloat(string(d[i:end]), 64)
	if perr != nil {
		return i, false
	}
	*f = v
	return end, true
}

// boolean reads true or false at d[i] into b.
func boolean(d []byte, i int, b *bool) (int, bool) {
	if end, err := strictjson.ScanLiteral(d, i, "true"); err == strictjson.LexOK {
		*b = true
		return end, true
	}
	end, err := strictjson.ScanLiteral(d, i, "false")
	*b = false
	return end, err == strictjson.LexOK
}

// value checks the value at d[i] as jsontext does (valid, no member name twice
// in an object) and returns the offset past it.
func (q *quickReader) value(d []byte, i int) (int, bool) {
	end, err := strictjson.SkipValue(d, i, quickDepth, strictjson.RejectSurrogates)
	if err != strictjson.LexOK {
		return i, false
	}
	v := d[i:end]
	if bytes.IndexByte(v, '{') < 0 {
		return end, true // no object, so no name twice
	}
	if _, ok := q.seen[string(v)]; ok {
		return end, true
	}
	// Parse refuses a name twice at any depth (and more than jsontext does,
	// which only sends more records to DecodeRequest)
	if _, err := strictjson.ParseDepth(string(v), quickDepth); err != nil {
		return i, false
	}
	if q.seenSize+len(v) <= quickSeenBytes {
		if q.seen == nil {
			q.seen = map[string]struct{}{}
		}
		q.seen[string(v)] = struct{}{}
		q.seenSize += len(v)
	}
	return end, true
}

// raw reads the value at d[i] as value does into v, a copy of its bytes.
func (q *quickReader) raw(d []byte, i int, v *jsontext.Value) (int, bool) {
	end, ok := q.value(d, i)
	if ok {
		*v = jsontext.Value(bytes.Clone(d[i:end]))
	}
	return end, ok
}

// messages reads the list of messages at d[i].
func (q *quickReader) messages(d []byte, i int, r *contract.Request) (int, bool) {
	r.Messages = []contract.Message{}
	end := strictjson.Items(d, i, func(i int) (int, bool) {
		var m contract.Message
		var seen uint8
		end := strictjson.Members(d, i, func(name []byte, i int) (int, bool) {
			switch string(name) {
			case "role":
				return once(&seen, 1, func() (int, bool) { return q.str(d, i, &m.Role) })
			case "content":
				return once(&seen, 2, func() (int, bool) { return q.content(d, i, &m.Content) })
			}
			return i, false
		})
		r.Messages = append(r.Messages, m)
		return end, end >= 0
	})
	return end, end >= 0
}

// responseFormat reads the response format object at d[i].
func (q *quickReader) responseFormat(d []byte, i int, r *contract.Request) (int, bool) {
	rf := &contract.ResponseFormat{}
	var seen uint8
	end := strictjson.Members(d, i, func(name []byte, i int) (int, bool) {
		switch string(name) {
		case "type":
			return once(&seen, 1, func() (int, bool) { return q.str(d, i, &rf.Type) })
		case "json_schema":
			return once(&seen, 2, func() (int, bool) {
				var inner uint8
				s := &rf.JSONSchema
				end := strictjson.Members(d, i, func(name []byte, i int) (int, bool) {
					switch string(name) {
					case "name":
						return once(&inner, 1, func() (int, bool) { return q.str(d, i, &s.Name) })
					case "schema":
						return once(&inner, 2, func() (int, bool) { return q.raw(d, i, &s.Schema) })
					case "strict":
						return once(&inner, 4, func() (int, bool) { return boolean(d, i, &s.Strict) })
					}
					return i, false
				})
				return end, end >= 0
			})
		}
		return i, false
	})
	r.ResponseFormat = rf
	return end, end >= 0
}

// tools reads the list of tool definitions at d[i].
func (q *quickReader) tools(d []byte, i int, r *contract.Request) (int, bool) {
	r.Tools = []contract.ToolDefinition{}
	end := strictjson.Items(d, i, func(i int) (int, bool) {
		var t contract.ToolDefinition
		var seen uint8
		end := strictjson.Members(d, i, func(name []byte, i int) (int, bool) {
			switch string(name) {
			case "name":
				return once(&seen, 1, func() (int, bool) { return q.str(d, i, &t.Name) })
			case "description":
				return once(&seen, 2, func() (int, bool) { return q.str(d, i, &t.Description) })
			case "parameters":
				return once(&seen, 4, func() (int, bool) { return q.raw(d, i, &t.Parameters) })
			case "strict":
				return once(&seen, 8, func() (int, bool) { return boolean(d, i, &t.Strict) })
			}
			return i, false
		})
		r.Tools = append(r.Tools, t)
		return end, end >= 0
	})
	return end, end >= 0
}

// once runs read for a member whose bit is not yet in seen, and sets it: a
// member named twice is refused.
func once(seen *uint8, bit uint8, read func() (int, bool)) (int, bool) {
	if *seen&bit != 0 {
		return 0, false
	}
	*seen |= bit
	return read()
}
