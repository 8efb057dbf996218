package relations

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Error codes of the relation keywords.
const (
	CodeCompare       = "COMPARE_FAILED"
	CodeDuplicateKey  = "DUPLICATE_KEY"
	CodeCount         = "COUNT_MISMATCH"
	CodeSum           = "SUM_MISMATCH"
	CodeProduct       = "PRODUCT_MISMATCH"
	CodeDangling      = "DANGLING_REFERENCE"
	CodeOrder         = "ORDER_VIOLATION"
	CodeOverlap       = "INTERVAL_OVERLAP"
	CodeDecimal       = "DECIMAL_MISMATCH"
	CodeTensor        = "TENSOR_SHAPE"
	CodeSchema        = "SCHEMA_VIOLATION"
	CodeStateMismatch = "STATE_MISMATCH"
	CodeStaleContext  = "STALE_CONTEXT"
	CodeInvalidJSON   = "INVALID_JSON"
	CodeAssembly      = "ASSEMBLY_FAILED"
)

// vocab compiles the keywords of one schema object; st is shared by every
// extension a contract compiles.
type vocab struct{ st *runState }

// root is the schema document the vocabulary compiles, for a local $ref
// (subschemaAt); nil where it is not known (a tool's schema).
func (vb *vocab) root() map[string]any {
	if vb.st == nil {
		return nil
	}
	return vb.st.schema
}

// check is one compiled keyword entry.
type check interface {
	validate(r *run, v any)
}

// ext is the compiled form of the relation keywords in one schema object.
type ext struct {
	st     *runState
	checks []check
}

// run is one application of ext to a value: it knows where the value is, so errors
// carry absolute pointers.
type run struct {
	ctx  *jsonschema.ValidatorContext
	st   *runState
	base string
}

func (r *run) abs(p pointer) string { return r.base + p.text }

func (r *run) fail(kw, code string, ptrs []string, expected, actual any, format string, args ...any) {
	r.ctx.AddError(&relKind{kw: kw, e: Error{
		Code: code, Pointers: ptrs, Expected: expected, Actual: actual,
		Message: fmt.Sprintf(format, args...),
	}})
}

// computed records a value the application computes for a missing target. It is
// only recorded while assembling; a plain check leaves a missing target alone.
func (r *run) computed(target string, d *apd.Decimal) {
	if r.st != nil && r.st.assembling {
		r.st.inserts = append(r.st.inserts, Insertion{Pointer: target, Value: json.Number(d.Text('G'))})
	}
}

func (e *ext) Validate(ctx *jsonschema.ValidatorContext, v any) {
	r := &run{ctx: ctx, st: e.st, base: locationPointer(ctx.ValueLocation())}
	for _, c := range e.checks {
		c.validate(r, v)
	}
}

// compileError names the keyword and schema location of a bad keyword value.
type compileError struct {
	kw, loc, msg string
}

func (e *compileError) Error() string {
	return fmt.Sprintf("%s at %s: %s", e.kw, e.loc, e.msg)
}

// SchemaPointer and Reason place the mistake for schemas.CompileError, so that
// a schema file's is named at its line and column as a contract's is.
func (e *compileError) SchemaPointer() string { return strings.TrimPrefix(e.loc, "#") }

// Reason is the mistake, without its place.
func (e *compileError) Reason() string { return e.kw + ": " + e.msg }

func (vb *vocab) compile(ctx *jsonschema.CompilerContext, obj map[string]any) (jsonschema.SchemaExt, error) {
	var present []string
	for _, kw := range Keywords {
		if _, ok := obj[kw]; ok {
			present = append(present, kw)
		}
	}
	if len(present) == 0 {
		return nil, nil
	}
	loc := schemaLocation(ctx.Enqueue(nil).Location)
	e := &ext{st: vb.st}
	for _, kw := range present {
		// a keyword on the other kind of value checks nothing there (a
		// relation whose operand is absent is skipped)
		on := "object"
		if slices.Contains(arrayKeywords, kw) {
			on = "array"
		}
		if kind := schemaKind(obj); kind != "" && kind != on && !(kw == "x-tensor" && kind != "object") {
			return nil, &compileError{kw: kw, loc: loc + "/" + kw, msg: fmt.Sprintf("applies to %s, and this schema is %s's: put it on the schema of the %s it checks", withArticle(on), withArticle(kind), on)}
		}
		items := asList(obj[kw])
		for i, item := range items {
			where := loc + "/" + kw
			if _, isList := obj[kw].([]any); isList {
				where += "/" + strconv.Itoa(i)
			}
			c, err := vb.compileOne(ctx, obj, kw, item, i, where)
			if err != nil {
				return nil, &compileError{kw: kw, loc: where, msg: err.Error()}
			}
			e.checks = append(e.checks, c)
		}
	}
	return e, nil
}

// withArticle is a kind of value with its article: an object, a string.
func withArticle(kind string) string {
	if strings.IndexByte("aeiou", kind[0]) >= 0 {
		return "an " + kind
	}
	return "a " + kind
}

// arrayKeywords are the relation keywords that apply to an array (their
// pointers are into each item); the others apply to an object.
var arrayKeywords = []string{"x-uniqueKeys", "x-ordered", "x-nonOverlapping", "x-tensor"}

// schemaKind is the one kind of value a schema says its value is (its type,
// alone or with null; else "object" for properties or "array" for items), or
// "" when it says none or several. x-tensor's shape [] is a number.
func schemaKind(obj map[string]any) string {
	kinds := map[string]bool{}
	switch t := obj["type"].(type) {
	case string:
		kinds[t] = true
	case []any:
		for _, v := range t {
			if s, ok := v.(string); ok && s != "null" {
				kinds[s] = true
			}
		}
	}
	if len(kinds) == 0 {
		_, props := obj["properties"]
		_, items := obj["items"]
		switch {
		case props && !items:
			return "object"
		case items && !props:
			return "array"
		}
		return ""
	}
	if len(kinds) == 1 {
		for k := range kinds {
			return k
		}
	}
	return ""
}

// asList turns a keyword value that may be one object or a list into a list.
func asList(v any) []any {
	if l, ok := v.([]any); ok {
		return l
	}
	return []any{v}
}

func fieldPointer(m map[string]any, key string, wild bool) (pointer, bool, error) {
	raw, ok := m[key]
	if !ok {
		return pointer{}, false, nil
	}
	s, ok := raw.(string)
	if !ok {
		return pointer{}, false, fmt.Errorf("%s must be a JSON Pointer string", key)
	}
	p, err := parsePointer(s, wild)
	if err != nil {
		return pointer{}, false, fmt.Errorf("%s: %v", key, err)
	}
	return p, true, nil
}

func needPointer(m map[string]any, key string, wild bool) (pointer, error) {
	p, ok, err := fieldPointer(m, key, wild)
	if err != nil {
		return pointer{}, err
	}
	if !ok {
		return pointer{}, fmt.Errorf("%s is required", key)
	}
	return p, nil
}

func boolField(m map[string]any, key string) bool {
	b, _ := m[key].(bool)
	return b
}

func stringField(m map[string]any, key, def string) string {
	if s, ok := m[key].(string); ok {
		return s
	}
	return def
}

// declaredFormat finds the format the schema object declares for the value at toks
// below it, following properties and items only.
func declaredFormat(root, obj map[string]any, toks []string) string {
	s := subschemaAt(root, obj, toks)
	if s == nil {
		return ""
	}
	f, _ := s["format"].(string)
	if f == "date" || f == "date-time" {
		return f
	}
	if isDecimalSchema(s) {
		return "decimal"
	}
	return ""
}

// markDecimal sets p.decimal when the schema object declares a decimal string at
// the path prefix followed by p's tokens.
func markDecimal(root, obj map[string]any, p *pointer, prefix ...string) {
	if s := subschemaAt(root, obj, append(slices.Clone(prefix), p.tokens...)); s != nil && isDecimalSchema(s) {
		p.decimal = true
	}
}

// subschemaAt walks properties and items of a schema object along toks,
// through a local $ref ("#/$defs/Meeting") of root, the schema document, where
// a schema on the way is one (nil root: none is followed): a format declared
// in $defs is the value's as one declared in place is.
func subschemaAt(root, obj map[string]any, toks []string) map[string]any {
	cur := deref(root, obj)
	for _, t := range toks {
		if props, ok := cur["properties"].(map[string]any); ok {
			if next, ok := props[t].(map[string]any); ok {
				cur = deref(root, next)
				continue
			}
		}
		if _, err := strconv.Atoi(t); err == nil || t == "*" {
			if next, ok := cur["items"].(map[string]any); ok {
				cur = deref(root, next)
				continue
			}
		}
		return nil
	}
	return cur
}

// deref is the schema obj's local $ref names in root ("#/$defs/X", a chain
// of them followed a few links deep), or obj where it has none, or declares
// what a walk reads (properties, items, format) beside it, or the $ref
// names no schema of root.
func deref(root, obj map[string]any) map[string]any {
	for range 8 {
		ref, ok := obj["$ref"].(string)
		if !ok || root == nil || !strings.HasPrefix(ref, "#/") {
			return obj
		}
		for _, own := range []string{"properties", "items", "format"} {
			if _, ok := obj[own]; ok {
				return obj
			}
		}
		p, err := parsePointer(ref[1:], false)
		if err != nil {
			return obj
		}
		var at any = root
		for _, t := range p.tokens {
			switch v := at.(type) {
			case map[string]any:
				at = v[t]
			case []any:
				i, err := strconv.Atoi(t)
				if err != nil || i < 0 || i >= len(v) {
					return obj
				}
				at = v[i]
			default:
				return obj
			}
		}
		next, ok := at.(map[string]any)
		if !ok {
			return obj
		}
		obj = next
	}
	return obj
}

func (vb *vocab) compileOne(ctx *jsonschema.CompilerContext, obj map[string]any, kw string, item any, idx int, where string) (check, error) {
	if kw == "x-uniqueKeys" {
		keys, ok := item.([]any)
		if !ok || len(keys) == 0 {
			return nil, fmt.Errorf("each entry must be a non-empty list of pointers")
		}
		c := &uniqueCheck{}
		for _, k := range keys {
			s, ok := k.(string)
			if !ok {
				return nil, fmt.Errorf("key %v is not a pointer string", k)
			}
			p, err := parsePointer(s, false)
			if err != nil {
				return nil, err
			}
			c.keys = append(c.keys, p)
		}
		return c, nil
	}
	m, ok := item.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("entry must be an object")
	}
	itemSchema, _ := obj["items"].(map[string]any)
	switch kw {
	case "x-compare":
		return compileCompare(vb.root(), obj, m)
	case "x-count":
		c := &countCheck{compute: m["compute"] == "application"}
		var err error
		if c.target, err = needPointer(m, "target", false); err != nil {
			return nil, err
		}
		if c.of, err = needPointer(m, "of", false); err != nil {
			return nil, err
		}
		if _, ok := m["where"]; ok {
			path := []string{kw, "where"}
			if _, isList := obj[kw].([]any); isList {
				path = []string{kw, strconv.Itoa(idx), "where"}
			}
			c.where = ctx.Enqueue(path)
		}
		markDecimal(vb.root(), obj, &c.target)
		return c, nil
	case "x-sum":
		c := &sumCheck{compute: m["compute"] == "application"}
		var err error
		if c.target, err = needPointer(m, "target", false); err != nil {
			return nil, err
		}
		if c.of, err = needPointer(m, "of", false); err != nil {
			return nil, err
		}
		if c.field, err = needPointer(m, "field", false); err != nil {
			return nil, err
		}
		markDecimal(vb.root(), obj, &c.target)
		markDecimal(vb.root(), obj, &c.field, append(slices.Clone(c.of.tokens), "*")...)
		return c, nil
	case "x-product":
		c := &productCheck{compute: m["compute"] == "application"}
		var err error
		if c.target, err = needPointer(m, "target", false); err != nil {
			return nil, err
		}
		fs, _ := m["factors"].([]any)
		if len(fs) == 0 {
			return nil, fmt.Errorf("factors must be a non-empty list of pointers")
		}
		for _, f := range fs {
			s, ok := f.(string)
			if !ok {
				return nil, fmt.Errorf("factor %v is not a pointer string", f)
			}
			p, err := parsePointer(s, false)
			if err != nil {
				return nil, err
			}
			markDecimal(vb.root(), obj, &p)
			c.factors = append(c.factors, p)
		}
		markDecimal(vb.root(), obj, &c.target)
		return c, nil
	case "x-references":
		c := &referencesCheck{}
		var err error
		if c.from, err = needPointer(m, "from", true); err != nil {
			return nil, err
		}
		if c.to, err = needPointer(m, "to", true); err != nil {
			return nil, err
		}
		return c, nil
	case "x-ordered":
		c := &orderedCheck{strict: boolField(m, "strict"), desc: stringField(m, "direction", "asc") == "desc"}
		if d := stringField(m, "direction", "asc"); d != "asc" && d != "desc" {
			return nil, fmt.Errorf("direction %q is not asc or desc", d)
		}
		var err error
		if c.by, err = needPointer(m, "by", false); err != nil {
			return nil, err
		}
		c.as = stringField(m, "as", declaredFormat(vb.root(), itemSchema, c.by.tokens))
		return c, nil
	case "x-nonOverlapping":
		c := &overlapCheck{closed: boolField(m, "closed")}
		var err error
		if c.start, err = needPointer(m, "start", false); err != nil {
			return nil, err
		}
		if c.end, err = needPointer(m, "end", false); err != nil {
			return nil, err
		}
		c.as = stringField(m, "as", declaredFormat(vb.root(), itemSchema, c.start.tokens))
		return c, nil
	case "x-decimal":
		return compileDecimal(vb.root(), obj, m)
	case "x-tensor":
		return vb.compileTensor(m)
	}
	return nil, fmt.Errorf("unknown keyword")
}

// --- x-compare

var compareOps = map[string]func(int) bool{
	"lt": func(c int) bool { return c < 0 },
	"le": func(c int) bool { return c <= 0 },
	"eq": func(c int) bool { return c == 0 },
	"ne": func(c int) bool { return c != 0 },
	"ge": func(c int) bool { return c >= 0 },
	"gt": func(c int) bool { return c > 0 },
}

var opSymbols = map[string]string{"lt": "<", "le": "<=", "eq": "==", "ne": "!=", "ge": ">=", "gt": ">"}

// operand is a pointer or a constant.
type operand struct {
	ptr     pointer
	isConst bool
	value   any
}

func compileOperand(v any, side string) (operand, error) {
	switch x := v.(type) {
	case string:
		p, err := parsePointer(x, false)
		if err != nil {
			return operand{}, fmt.Errorf("%s: %v", side, err)
		}
		return operand{ptr: p}, nil
	case map[string]any:
		c, ok := x["const"]
		if !ok || len(x) != 1 {
			return operand{}, fmt.Errorf("%s must be a pointer or {\"const\": value}", side)
		}
		return operand{isConst: true, value: c}, nil
	}
	return operand{}, fmt.Errorf("%s must be a pointer or {\"const\": value}", side)
}

func (o operand) text() string {
	if o.isConst {
		return describe(o.value)
	}
	return o.ptr.text
}

type compareCheck struct {
	left, right operand
	op          string
	as          string
}

func compileCompare(root, obj map[string]any, m map[string]any) (check, error) {
	c := &compareCheck{}
	var err error
	if c.left, err = compileOperand(m["left"], "left"); err != nil {
		return nil, err
	}
	if c.right, err = compileOperand(m["right"], "right"); err != nil {
		return nil, err
	}
	c.op, _ = m["op"].(string)
	if compareOps[c.op] == nil {
		return nil, fmt.Errorf("unknown op %q (want lt, le, eq, ne, ge or gt)", c.op)
	}
	c.as = stringField(m, "as", "")
	if c.as == "" {
		for _, o := range []operand{c.left, c.right} {
			if !o.isConst {
				if f := declaredFormat(root, obj, o.ptr.tokens); f != "" {
					c.as = f
				}
			}
		}
	}
	// a constant the comparison reads as a date or a decimal must be one: a
	// bad one failed every output, the message blaming the output's value
	for i, o := range []operand{c.left, c.right} {
		str, isStr := o.value.(string)
		if !o.isConst || !isStr {
			continue
		}
		side := []string{"left", "right"}[i]
		switch c.as {
		case "date", "date-time":
			if _, ok := parseInstant(str); !ok {
				return nil, fmt.Errorf("%s: the constant %q is no %s, which the comparison reads it as (YYYY-MM-DD, or an RFC 3339 date-time such as 2024-06-01T09:00:00Z)", side, str, c.as)
			}
		case "decimal":
			if _, err := numberOf(str, pointer{decimal: true}); err != nil {
				return nil, fmt.Errorf("%s: the constant %q is no decimal literal, which the comparison reads it as (\"12.50\")", side, str)
			}
		}
	}
	return c, nil
}

func (c *compareCheck) value(r *run, o operand, v any) (any, string, bool) {
	if o.isConst {
		return o.value, "", true
	}
	x, ok := o.ptr.resolve(v)
	return x, r.abs(o.ptr), ok
}

func (c *compareCheck) validate(r *run, v any) {
	lv, lp, lok := c.value(r, c.left, v)
	rv, rp, rok := c.value(r, c.right, v)
	if !lok || !rok {
		return // an absent operand is for required to catch
	}
	var ptrs []string
	if !c.left.isConst {
		ptrs = append(ptrs, lp)
	}
	if !c.right.isConst {
		ptrs = append(ptrs, rp)
	}
	expected := c.left.text() + " " + opSymbols[c.op] + " " + c.right.text()
	actual := []any{lv, rv}
	cmp, err := compareValues(lv, rv, c.as)
	if err != nil && (c.op == "eq" || c.op == "ne") && jsonType(lv) == jsonType(rv) {
		// Unordered types (booleans, null, arrays, objects) still have equality.
		cmp, err = 1, nil
		if equalJSON(lv, rv) {
			cmp = 0
		}
	}
	if err != nil {
		r.fail("x-compare", CodeCompare, ptrs, expected, actual, "%s: %v", expected, err)
		return
	}
	if !compareOps[c.op](cmp) {
		r.fail("x-compare", CodeCompare, ptrs, expected, actual, "%s does not hold: %s vs %s", expected, describe(lv), describe(rv))
	}
}

// --- x-uniqueKeys

type uniqueCheck struct{ keys []pointer }

// canonicalKey renders a value so that equal JSON values (1 and 1.0 included) give
// equal strings.
func canonicalKey(v any, b *strings.Builder) {
	switch x := v.(type) {
	case json.Number:
		d, err := decimalOf(x)
		if err != nil {
			b.WriteString(string(x))
			return
		}
		d.Reduce(d)
		b.WriteString("n" + d.Text('E'))
	case string:
		b.WriteString(strconv.Quote(x))
	case []any:
		b.WriteByte('[')
		for _, e := range x {
			canonicalKey(e, b)
			b.WriteByte(',')
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for _, k := range keys {
			b.WriteString(strconv.Quote(k) + ":")
			canonicalKey(x[k], b)
			b.WriteByte(',')
		}
		b.WriteByte('}')
	default:
		fmt.Fprint(b, x)
	}
}

func keyString(vals []any) string {
	var b strings.Builder
	canonicalKey(vals, &b)
	return b.String()
}

func (c *uniqueCheck) validate(r *run, v any) {
	arr, ok := v.([]any)
	if !ok {
		return
	}
	names := make([]string, len(c.keys))
	for i, k := range c.keys {
		names[i] = k.text
	}
	seen := map[string]int{}
	for i, item := range arr {
		vals := make([]any, len(c.keys))
		complete := true
		for j, k := range c.keys {
			x, ok := k.resolve(item)
			if !ok {
				complete = false // items without the whole key take no part
				break
			}
			vals[j] = x
		}
		if !complete {
			continue
		}
		ks := keyString(vals)
		if first, dup := seen[ks]; dup {
			r.fail("x-uniqueKeys", CodeDuplicateKey,
				[]string{r.base + "/" + strconv.Itoa(first), r.base + "/" + strconv.Itoa(i)},
				"unique ("+strings.Join(names, ", ")+")", vals,
				"items %d and %d share the key (%s)", first, i, strings.Join(names, ", "))
			continue
		}
		seen[ks] = i
	}
}

// --- x-count

type countCheck struct {
	target, of pointer
	where      *jsonschema.Schema
	compute    bool
}

func (c *countCheck) validate(r *run, v any) {
	ofv, ok := c.of.resolve(v)
	if !ok {
		return
	}
	arr, ok := ofv.([]any)
	if !ok {
		r.fail("x-count", CodeCount, []string{r.abs(c.of)}, "array", jsonType(ofv), "%s is %s, not an array", r.abs(c.of), jsonType(ofv))
		return
	}
	n := 0
	for i, item := range arr {
		if c.where != nil {
			path := append(slices.Clone(c.of.tokens), strconv.Itoa(i))
			if r.ctx.Validate(c.where, item, path) != nil {
				continue
			}
		}
		n++
	}
	want := apd.New(int64(n), 0)
	checkTarget(r, "x-count", CodeCount, c.target, c.compute, v, want, []string{r.abs(c.target), r.abs(c.of)},
		"count of "+c.of.text)
}

// checkTarget compares the number at target with want, or records want for a
// missing target the application computes.
func checkTarget(r *run, kw, code string, target pointer, compute bool, v any, want *apd.Decimal, ptrs []string, what string) {
	tv, ok := target.resolve(v)
	if !ok {
		if compute {
			r.computed(r.abs(target), want)
		}
		return
	}
	got, err := numberOf(tv, target)
	expected := json.Number(want.Text('G'))
	if err != nil {
		r.fail(kw, code, ptrs, expected, tv, "%s: %v", r.abs(target), err)
		return
	}
	if got.Cmp(want) != 0 {
		r.fail(kw, code, ptrs, expected, tv, "%s is %s, %s is %s", r.abs(target), describe(tv), what, expected)
	}
}

// --- x-sum

type sumCheck struct {
	target, of, field pointer
	compute           bool
}

func (c *sumCheck) validate(r *run, v any) {
	ofv, ok := c.of.resolve(v)
	if !ok {
		return
	}
	arr, ok := ofv.([]any)
	if !ok {
		r.fail("x-sum", CodeSum, []string{r.abs(c.of)}, "array", jsonType(ofv), "%s is %s, not an array", r.abs(c.of), jsonType(ofv))
		return
	}
	total := apd.New(0, 0)
	for i, item := range arr {
		at := r.abs(c.of) + "/" + strconv.Itoa(i) + c.field.text
		x, ok := c.field.resolve(item)
		if !ok {
			r.fail("x-sum", CodeSum, []string{at}, "number", nil, "%s is missing, so the sum cannot be computed", at)
			return
		}
		d, err := numberOf(x, c.field)
		if err == nil {
			_, err = exact.Add(total, total, d)
		}
		if err == nil {
			err = checkDigits(total)
		}
		if err != nil {
			r.fail("x-sum", CodeSum, []string{at}, "number", x, "%s: %v", at, err)
			return
		}
	}
	checkTarget(r, "x-sum", CodeSum, c.target, c.compute, v, total, []string{r.abs(c.target), r.abs(c.of)},
		"the sum of "+c.of.text+"/*"+c.field.text)
}

// --- x-product

type productCheck struct {
	target  pointer
	factors []pointer
	compute bool
}

func (c *productCheck) validate(r *run, v any) {
	prod := apd.New(1, 0)
	ptrs := []string{r.abs(c.target)}
	names := make([]string, len(c.factors))
	for i, f := range c.factors {
		names[i] = f.text
		ptrs = append(ptrs, r.abs(f))
		x, ok := f.resolve(v)
		if !ok {
			return
		}
		d, err := numberOf(x, f)
		if err == nil {
			_, err = exact.Mul(prod, prod, d)
		}
		if err == nil {
			err = checkDigits(prod)
		}
		if err != nil {
			r.fail("x-product", CodeProduct, []string{r.abs(f)}, "number", x, "%s: %v", r.abs(f), err)
			return
		}
	}
	checkTarget(r, "x-product", CodeProduct, c.target, c.compute, v, prod, ptrs,
		"the product "+strings.Join(names, " * "))
}

// --- x-references

type referencesCheck struct{ from, to pointer }

func (c *referencesCheck) validate(r *run, v any) {
	targets := map[string]bool{}
	for _, l := range c.to.resolveAll(v) {
		targets[keyString([]any{l.val})] = true
	}
	for _, l := range c.from.resolveAll(v) {
		if !targets[keyString([]any{l.val})] {
			r.fail("x-references", CodeDangling, []string{r.base + l.ptr}, "a value at "+r.abs(c.to), l.val,
				"%s is %s, which no value at %s has", r.base+l.ptr, describe(l.val), r.abs(c.to))
		}
	}
}

// --- x-ordered

type orderedCheck struct {
	by           pointer
	desc, strict bool
	as           string
}

func (c *orderedCheck) validate(r *run, v any) {
	arr, ok := v.([]any)
	if !ok {
		return
	}
	prev, prevIdx := any(nil), -1
	for i, item := range arr {
		x, ok := c.by.resolve(item)
		if !ok {
			continue
		}
		if prevIdx >= 0 {
			ptrs := []string{r.base + "/" + strconv.Itoa(prevIdx) + c.by.text, r.base + "/" + strconv.Itoa(i) + c.by.text}
			cmp, err := compareValues(prev, x, c.as)
			want := "ascending"
			if c.desc {
				want = "descending"
				cmp = -cmp
			}
			if c.strict {
				want = "strictly " + want
			}
			switch {
			case err != nil:
				r.fail("x-ordered", CodeOrder, ptrs, want, []any{prev, x}, "items %d and %d: %v", prevIdx, i, err)
			case cmp > 0 || (c.strict && cmp == 0):
				r.fail("x-ordered", CodeOrder, ptrs, want, []any{prev, x}, "items %d and %d are not %s by %s: %s then %s",
					prevIdx, i, want, c.by.text, describe(prev), describe(x))
			}
		}
		prev, prevIdx = x, i
	}
}

// --- x-nonOverlapping

type overlapCheck struct {
	start, end pointer
	closed     bool
	as         string
}

func (c *overlapCheck) validate(r *run, v any) {
	arr, ok := v.([]any)
	if !ok {
		return
	}
	type iv struct {
		idx        int
		start, end any
	}
	var ivs []iv
	at := func(i int, p pointer) string { return r.base + "/" + strconv.Itoa(i) + p.text }
	for i, item := range arr {
		s, ok1 := c.start.resolve(item)
		e, ok2 := c.end.resolve(item)
		if !ok1 || !ok2 {
			continue
		}
		cmp, err := compareValues(s, e, c.as)
		if err != nil {
			r.fail("x-nonOverlapping", CodeOverlap, []string{at(i, c.start), at(i, c.end)}, "start <= end", []any{s, e}, "item %d: %v", i, err)
			return
		}
		if cmp > 0 {
			r.fail("x-nonOverlapping", CodeOverlap, []string{at(i, c.start), at(i, c.end)}, "start <= end", []any{s, e}, "item %d ends before it starts", i)
			continue
		}
		ivs = append(ivs, iv{i, s, e})
	}
	// bounds of two items that cannot be compared (a number and a string)
	// are said at the two items' starts, not at the array
	for k := 1; k < len(ivs); k++ {
		if _, err := compareValues(ivs[0].start, ivs[k].start, c.as); err != nil {
			a, b := ivs[0], ivs[k]
			r.fail("x-nonOverlapping", CodeOverlap, []string{at(a.idx, c.start), at(b.idx, c.start)}, "comparable bounds", []any{a.start, b.start}, "items %d and %d: %v", a.idx, b.idx, err)
			return
		}
	}
	// Sweep in order of start, keeping the interval that reaches furthest: each
	// interval that starts before that one ends overlaps it. O(n log n).
	var cmpErr error
	cmpv := func(a, b any) int {
		n, err := compareValues(a, b, c.as)
		if err != nil && cmpErr == nil {
			cmpErr = err
		}
		return n
	}
	sort.SliceStable(ivs, func(a, b int) bool { return cmpv(ivs[a].start, ivs[b].start) < 0 })
	if cmpErr != nil {
		r.fail("x-nonOverlapping", CodeOverlap, []string{r.base}, "comparable bounds", nil, "%v", cmpErr)
		return
	}
	var reach *iv
	for k := range ivs {
		cur := &ivs[k]
		if reach != nil {
			n := cmpv(cur.start, reach.end)
			if n < 0 || (c.closed && n == 0) {
				a, b := reach, cur
				if a.idx > b.idx {
					a, b = b, a
				}
				r.fail("x-nonOverlapping", CodeOverlap,
					[]string{r.base + "/" + strconv.Itoa(a.idx), r.base + "/" + strconv.Itoa(b.idx)},
					"no overlap", []any{[]any{a.start, a.end}, []any{b.start, b.end}},
					"items %d and %d overlap", a.idx, b.idx)
			}
		}
		if reach == nil || cmpv(cur.end, reach.end) > 0 {
			reach = cur
		}
	}
}
