package toolcall

import (
	"slices"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/contract/strictjson"
	"github.com/fbeval/fbeval/schemas"
)

// ProbeStats are the mutation-probe figures of a candidate schema (spec section 7).
// A percentage is nil when its denominator is zero.
type ProbeStats struct {
	ValidProbeCount   int // gold arguments probed
	FalseRejections   int // gold arguments the candidate rejects
	InvalidProbeCount int // mutations the reference rejects
	InvalidRejected   int // of those, mutations the candidate rejects too

	InvalidRejectionPercent *float64 // IRR
	FalseRejectionPercent   *float64 // FR
}

// unexpectedProbeValue is the value of the property an invalid probe adds.
const unexpectedProbeValue = "unexpected"

// Probes runs the mutation probes of j's candidate schema over the cases that expect
// a call (cases of another domain than the judge's tool are skipped when both name
// one). Each case's gold arguments are a valid probe; the invalid probes delete each
// required field, set each property to [] (7 when the gold value is an array), set
// each property with a numeric minimum to minimum-1, and add one unexpected property.
// Only invalid probes the reference schema rejects count.
func Probes(j *Judge, cases []*Case) ProbeStats {
	var st ProbeStats
	required, props, minimums := schemaShape(j.reference.doc)
	for _, c := range cases {
		if c == nil || c.action != contract.ActionCallTool {
			continue
		}
		if c.Domain != "" && j.tool.Domain != "" && c.Domain != j.tool.Domain {
			continue
		}
		gold := c.args
		st.ValidProbeCount++
		if !j.candidate.Valid(gold) {
			st.FalseRejections++
		}
		names := props
		if len(names) == 0 {
			for _, m := range gold.Members() {
				names = append(names, m.Key)
			}
		}
		probe := func(v strictjson.Value) {
			if j.reference.Valid(v) {
				return
			}
			st.InvalidProbeCount++
			if !j.candidate.Valid(v) {
				st.InvalidRejected++
			}
		}
		for _, f := range required {
			probe(without(gold, f))
		}
		for _, f := range names {
			bad := strictjson.ArrayValue()
			if g, ok := gold.Get(f); ok && g.Kind() == strictjson.Array {
				bad = strictjson.IntValue(7)
			}
			probe(with(gold, f, bad))
		}
		for _, m := range minimums {
			probe(with(gold, m.Key, m.Value))
		}
		extra := "unexpectedProbeField"
		for inUse(gold, props, extra) {
			extra += "_"
		}
		probe(with(gold, extra, strictjson.StringValue(unexpectedProbeValue)))
	}
	st.InvalidRejectionPercent = percent(st.InvalidRejected, st.InvalidProbeCount)
	st.FalseRejectionPercent = percent(st.FalseRejections, st.ValidProbeCount)
	return st
}

// schemaShape reads a schema's required list, property names (in schema order) and,
// for each property with a numeric minimum, the value minimum-1: of the
// document, or of the definition its top-level $ref names (schemas.FieldsAt).
func schemaShape(doc strictjson.Value) (required, props []string, belowMin []strictjson.Member) {
	_, doc = schemas.FieldsAt(doc)
	if r, ok := doc.Get("required"); ok {
		for i := range r.Len() {
			if it := r.Index(i); it.Kind() == strictjson.String {
				required = append(required, it.Str())
			}
		}
	}
	p, _ := doc.Get("properties")
	for _, m := range p.Members() {
		props = append(props, m.Key)
		lo, ok := m.Value.Get("minimum")
		if !ok {
			continue
		}
		switch lo.Kind() {
		case strictjson.Int:
			if lo.Int() > -1<<63 {
				belowMin = append(belowMin, strictjson.Member{Key: m.Key, Value: strictjson.IntValue(lo.Int() - 1)})
			}
		case strictjson.Float:
			belowMin = append(belowMin, strictjson.Member{Key: m.Key, Value: strictjson.FloatValue(lo.Float() - 1)})
		}
	}
	return required, props, belowMin
}

// inUse reports whether name is a property of the schema or of the gold arguments.
func inUse(gold strictjson.Value, props []string, name string) bool {
	_, ok := gold.Get(name)
	return ok || slices.Contains(props, name)
}

// without returns obj minus key.
func without(obj strictjson.Value, key string) strictjson.Value {
	kids := make([]strictjson.Member, 0, obj.Len())
	for _, m := range obj.Members() {
		if m.Key != key {
			kids = append(kids, m)
		}
	}
	return strictjson.ObjectValue(kids...)
}

// with returns obj with key set to v (replaced in place or appended).
func with(obj strictjson.Value, key string, v strictjson.Value) strictjson.Value {
	kids := slices.Clone(obj.Members())
	for i := range kids {
		if kids[i].Key == key {
			kids[i].Value = v
			return strictjson.ObjectValue(kids...)
		}
	}
	return strictjson.ObjectValue(append(kids, strictjson.Member{Key: key, Value: v})...)
}

func percent(n, d int) *float64 {
	if d == 0 {
		return nil
	}
	p := 100 * float64(n) / float64(d)
	return &p
}
