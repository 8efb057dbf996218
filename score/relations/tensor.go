package relations

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"

	"github.com/cockroachdb/apd/v3"
)

// --- x-decimal

type decimalCheck struct {
	target   pointer
	src      string
	e        *expr
	scale    int // -1: no rounding, the result must be an exact decimal
	rounding string
}

func compileDecimal(root, obj, m map[string]any) (check, error) {
	c := &decimalCheck{scale: -1, rounding: stringField(m, "rounding", "half_even")}
	var err error
	if c.target, err = needPointer(m, "target", false); err != nil {
		return nil, err
	}
	c.src, _ = m["expr"].(string)
	if c.e, err = parseExpr(c.src); err != nil {
		return nil, fmt.Errorf("bad expr %q: %v", c.src, err)
	}
	if raw, ok := m["scale"]; ok {
		n, ok := raw.(json.Number)
		i, err := strconv.Atoi(string(n))
		if !ok || err != nil || i < 0 || i > maxScale {
			return nil, fmt.Errorf("scale must be an integer from 0 to %d", maxScale)
		}
		c.scale = i
	}
	if _, ok := roundings[c.rounding]; !ok {
		return nil, fmt.Errorf("unknown rounding %q", c.rounding)
	}
	markDecimal(root, obj, &c.target)
	c.e.markDecimal(root, obj)
	return c, nil
}

func (c *decimalCheck) validate(r *run, v any) {
	tv, ok := c.target.resolve(v)
	if !ok {
		return
	}
	ptrs := []string{r.abs(c.target)}
	for _, p := range c.e.pointers(nil) {
		if _, ok := p.resolve(v); !ok {
			return // an absent operand is for required to catch
		}
		ptrs = append(ptrs, r.abs(p))
	}
	f, err := c.e.eval(v)
	var want *apd.Decimal
	if err == nil {
		want, err = f.round(c.scale, roundings[c.rounding])
	}
	if err != nil {
		r.fail("x-decimal", CodeDecimal, ptrs, c.src, tv, "%s = %s: %v", r.abs(c.target), c.src, err)
		return
	}
	expected := json.Number(want.Text('G'))
	got, err := numberOf(tv, c.target)
	if err != nil {
		r.fail("x-decimal", CodeDecimal, ptrs, expected, tv, "%s: %v", r.abs(c.target), err)
		return
	}
	if got.Cmp(want) != 0 {
		r.fail("x-decimal", CodeDecimal, ptrs, expected, tv, "%s is %s, %s gives %s", r.abs(c.target), describe(tv), c.src, expected)
	}
}

// --- x-tensor

// maxTensorRank bounds shape length; the keyword schema says the same.
const maxTensorRank = 32

type tensorCheck struct {
	st    *runState
	shape []any // int or string per axis
	dtype string
	dims  map[string]pointer
	names []string // sorted names of dims
}

func (vb *vocab) compileTensor(m map[string]any) (check, error) {
	c := &tensorCheck{st: vb.st, dtype: stringField(m, "dtype", ""), dims: map[string]pointer{}}
	shape, _ := m["shape"].([]any)
	if len(shape) == 0 || len(shape) > maxTensorRank {
		return nil, fmt.Errorf("shape must list 1 to %d dimensions", maxTensorRank)
	}
	declared := map[string]bool{}
	for _, s := range shape {
		switch x := s.(type) {
		case json.Number:
			n, err := strconv.Atoi(string(x))
			if err != nil || n < 0 {
				return nil, fmt.Errorf("dimension %s is not a non-negative integer", x)
			}
			c.shape = append(c.shape, n)
		case string:
			if x == "" {
				return nil, fmt.Errorf("a dimension name may not be empty")
			}
			declared[x] = true
			c.shape = append(c.shape, x)
		default:
			return nil, fmt.Errorf("dimension %v is neither an integer nor a name", s)
		}
	}
	switch c.dtype {
	case "", "number", "integer", "boolean":
	default:
		return nil, fmt.Errorf("unknown dtype %q", c.dtype)
	}
	dims, _ := m["dims"].(map[string]any)
	for name, raw := range dims {
		if !declared[name] {
			return nil, fmt.Errorf("dims names %q, which shape does not use", name)
		}
		s, ok := raw.(string)
		if !ok {
			return nil, fmt.Errorf("dims %q must be a pointer string", name)
		}
		p, err := parsePointer(s, false)
		if err != nil {
			return nil, fmt.Errorf("dims %q: %v", name, err)
		}
		c.dims[name] = p
		c.names = append(c.names, name)
	}
	sort.Strings(c.names)
	if len(c.dims) > 0 && vb.st == nil {
		return nil, fmt.Errorf("dims bindings read the whole document: check through a contract")
	}
	return c, nil
}

func (c *tensorCheck) validate(r *run, v any) {
	type node struct {
		ptr string
		val any
	}
	level := []node{{r.base, v}}
	sizes := map[string]int{}
	where := map[string]string{}
	for axis, dim := range c.shape {
		var next []node
		for _, n := range level {
			arr, ok := n.val.([]any)
			if !ok {
				r.fail("x-tensor", CodeTensor, []string{n.ptr}, "array", jsonType(n.val),
					"%s is %s, but axis %d needs an array", n.ptr, jsonType(n.val), axis)
				return
			}
			switch d := dim.(type) {
			case int:
				if len(arr) != d {
					r.fail("x-tensor", CodeTensor, []string{n.ptr}, d, len(arr),
						"%s has %d items, axis %d needs %d", n.ptr, len(arr), axis, d)
					return
				}
			case string:
				if want, seen := sizes[d]; seen && want != len(arr) {
					r.fail("x-tensor", CodeTensor, []string{where[d], n.ptr}, want, len(arr),
						"%s has %d items but dimension %s is %d at %s", n.ptr, len(arr), d, want, where[d])
					return
				} else if !seen {
					sizes[d], where[d] = len(arr), n.ptr
				}
			}
			for i, item := range arr {
				next = append(next, node{n.ptr + "/" + strconv.Itoa(i), item})
			}
		}
		level = next
	}
	for _, n := range level {
		if !dtypeOK(c.dtype, n.val) {
			r.fail("x-tensor", CodeTensor, []string{n.ptr}, c.dtype, jsonType(n.val),
				"%s is %s, dtype is %s", n.ptr, describe(n.val), c.dtype)
			return
		}
	}
	if c.st == nil || c.st.root == nil {
		return
	}
	for _, name := range c.names {
		size, seen := sizes[name]
		if !seen {
			continue // an empty outer axis leaves inner sizes unknown
		}
		p := c.dims[name]
		bound, ok := p.resolve(c.st.root)
		if !ok {
			continue
		}
		d, err := decimalOf(bound)
		if err != nil || d.Cmp(apd.New(int64(size), 0)) != 0 {
			r.fail("x-tensor", CodeTensor, []string{p.text, where[name]}, bound, size,
				"dimension %s is %d at %s, but %s is %s", name, size, where[name], p.text, describe(bound))
		}
	}
}

func dtypeOK(dtype string, v any) bool {
	switch dtype {
	case "":
		return true
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "number":
		_, ok := v.(json.Number)
		return ok
	case "integer":
		d, err := decimalOf(v)
		if err != nil {
			return false
		}
		var frac apd.Decimal
		d.Modf(nil, &frac)
		return frac.IsZero()
	}
	return false
}
