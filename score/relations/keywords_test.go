package relations

import (
	"reflect"
	"strings"
	"testing"
)

// mustContract wraps a schema in a contract.
func mustContract(t testing.TB, schema string) *Contract {
	t.Helper()
	c, err := ParseContract("test.json", []byte(`{"schema_version":"fbeval-contract/v1","id":"t","version":"1","schema":`+schema+`}`))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return c
}

func codes(r *Result) []string {
	out := []string{}
	for _, e := range r.Errors {
		out = append(out, e.Code+" "+strings.Join(e.Pointers, ","))
	}
	return out
}

type kwCase struct {
	name   string
	output string
	want   []string // "CODE pointers" per error; empty means PASS
}

func runCases(t *testing.T, schema string, cases []kwCase) {
	t.Helper()
	c := mustContract(t, schema)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := c.Check([]byte(tc.output), nil, CheckOptions{})
			got := codes(r)
			want := tc.want
			if want == nil {
				want = []string{}
			}
			if !reflect.DeepEqual(got, want) {
				var b strings.Builder
				r.WriteText(&b)
				t.Fatalf("got %q, want %q\n%s", got, want, b.String())
			}
			wantVerdict := Pass
			if len(want) > 0 {
				wantVerdict = Fail
			}
			if r.Verdict != wantVerdict {
				t.Fatalf("verdict %s, want %s", r.Verdict, wantVerdict)
			}
		})
	}
}

func TestCompare(t *testing.T) {
	runCases(t, `{"properties":{"a":{},"b":{},"d1":{"format":"date-time"},"d2":{"format":"date-time"}},
		"x-compare":[{"left":"/a","op":"lt","right":"/b"},{"left":"/d1","op":"le","right":"/d2"}]}`, []kwCase{
		{"numbers ok", `{"a":1,"b":2}`, nil},
		{"equal endpoints fail lt", `{"a":2,"b":2.0}`, []string{"COMPARE_FAILED /a,/b"}},
		{"exact beyond float", `{"a":0.30000000000000000001,"b":0.3}`, []string{"COMPARE_FAILED /a,/b"}},
		{"huge decimals", `{"a":123456789012345678901234567890.1,"b":123456789012345678901234567890.2}`, nil},
		{"tiny scale", `{"a":1e-30,"b":2e-30}`, nil},
		{"strings by code point", `{"a":"Z","b":"a"}`, nil},
		{"strings reversed", `{"a":"é","b":"z"}`, []string{"COMPARE_FAILED /a,/b"}},
		{"mixed types fail", `{"a":1,"b":"2"}`, []string{"COMPARE_FAILED /a,/b"}},
		{"missing operand skipped", `{"a":1}`, nil},
		{"booleans have no order", `{"a":true,"b":false}`, []string{"COMPARE_FAILED /a,/b"}},
		{"instants across offsets", `{"d1":"2024-05-01T10:00:00+02:00","d2":"2024-05-01T08:30:00Z"}`, nil},
		{"instants reversed", `{"d1":"2024-05-01T10:00:00Z","d2":"2024-05-01T10:00:00+02:00"}`, []string{"COMPARE_FAILED /d1,/d2"}},
		{"equal instants le", `{"d1":"2024-05-01T10:00:00Z","d2":"2024-05-01T12:00:00+02:00"}`, nil},
		{"bad date-time", `{"d1":"soon","d2":"2024-05-01T10:00:00Z"}`, []string{"SCHEMA_VIOLATION /d1", "COMPARE_FAILED /d1,/d2"}},
	})
	runCases(t, `{"x-compare":[{"left":"/a","op":"ne","right":{"const":13}},{"left":{"const":"x"},"op":"eq","right":"/s"}]}`, []kwCase{
		{"const ne holds", `{"a":12}`, nil},
		{"const ne fails exactly", `{"a":13.0}`, []string{"COMPARE_FAILED /a"}},
		{"const eq on left", `{"s":"y"}`, []string{"COMPARE_FAILED /s"}},
		{"const type differs", `{"a":"13"}`, []string{"COMPARE_FAILED /a"}},
	})
}

func TestUniqueKeys(t *testing.T) {
	runCases(t, `{"x-uniqueKeys":[["/id"],["/room","/night"]]}`, []kwCase{
		{"empty array", `[]`, nil},
		{"distinct", `[{"id":1},{"id":2}]`, nil},
		{"duplicate exact number", `[{"id":1},{"id":1.0}]`, []string{"DUPLICATE_KEY /0,/1"}},
		{"strings differ from numbers", `[{"id":1},{"id":"1"}]`, nil},
		{"composite key", `[{"room":"a","night":1},{"room":"a","night":2},{"room":"a","night":1}]`, []string{"DUPLICATE_KEY /0,/2"}},
		{"missing key part ignored", `[{"room":"a"},{"room":"a"}]`, nil},
		{"object keys", `[{"id":{"x":1,"y":[1]}},{"id":{"y":[1.00],"x":1}}]`, []string{"DUPLICATE_KEY /0,/1"}},
	})
}

func TestCount(t *testing.T) {
	runCases(t, `{"x-count":[{"target":"/n","of":"/items"},{"target":"/paid","of":"/items","where":{"properties":{"paid":{"const":true}},"required":["paid"]}}]}`, []kwCase{
		{"empty", `{"n":0,"paid":0,"items":[]}`, nil},
		{"matches", `{"n":3,"paid":1,"items":[{"paid":true},{"paid":false},{}]}`, nil},
		{"wrong total", `{"n":2,"paid":1,"items":[{"paid":true},{"paid":false},{}]}`, []string{"COUNT_MISMATCH /n,/items"}},
		{"wrong filtered", `{"n":3,"paid":3,"items":[{"paid":true},{"paid":false},{}]}`, []string{"COUNT_MISMATCH /paid,/items"}},
		{"3.0 is 3", `{"n":3.0,"paid":0,"items":[{},{},{}]}`, nil},
		{"not an array", `{"n":1,"items":{}}`, []string{"COUNT_MISMATCH /items"}}, // both entries report it once
		{"string target", `{"n":"1","paid":0,"items":[{}]}`, []string{"COUNT_MISMATCH /n,/items"}},
	})
}

func TestSum(t *testing.T) {
	runCases(t, `{"x-sum":{"target":"/total","of":"/lines","field":"/amount"}}`, []kwCase{
		{"0.1 + 0.2 is 0.3", `{"total":0.3,"lines":[{"amount":0.1},{"amount":0.2}]}`, nil},
		{"float result rejected", `{"total":0.30000000000000004,"lines":[{"amount":0.1},{"amount":0.2}]}`, []string{"SUM_MISMATCH /total,/lines"}},
		{"empty sums to zero", `{"total":0,"lines":[]}`, nil},
		{"empty nonzero", `{"total":0.00,"lines":[]}`, nil},
		{"1e-30 scales", `{"total":3e-30,"lines":[{"amount":1e-30},{"amount":2E-30}]}`, nil},
		{"1e-30 lost by float", `{"total":1,"lines":[{"amount":1},{"amount":1e-30}]}`, []string{"SUM_MISMATCH /total,/lines"}},
		{"huge", `{"total":100000000000000000000000000000.02,"lines":[{"amount":99999999999999999999999999999.01},{"amount":1.01}]}`, nil},
		{"missing field", `{"total":1,"lines":[{"amount":1},{}]}`, []string{"SUM_MISMATCH /lines/1/amount"}},
		{"non number field", `{"total":1,"lines":[{"amount":"1"}]}`, []string{"SUM_MISMATCH /lines/0/amount"}},
		{"target absent skipped", `{"lines":[{"amount":1}]}`, nil},
	})
}

func TestProduct(t *testing.T) {
	runCases(t, `{"x-product":{"target":"/total","factors":["/qty","/price","/rate"]}}`, []kwCase{
		{"exact", `{"qty":3,"price":0.1,"rate":1.1,"total":0.33}`, nil},
		{"float value rejected", `{"qty":3,"price":0.1,"rate":1.1,"total":0.33000000000000007}`, []string{"PRODUCT_MISMATCH /total,/qty,/price,/rate"}},
		{"tiny", `{"qty":1e-30,"price":1e-30,"rate":1,"total":1e-60}`, nil},
		{"huge", `{"qty":12345678901234567890,"price":10,"rate":1,"total":123456789012345678900}`, nil},
		{"factor missing skipped", `{"qty":3,"price":0.1,"total":5}`, nil},
		{"factor not a number", `{"qty":"3","price":0.1,"rate":1,"total":5}`, []string{"PRODUCT_MISMATCH /qty"}},
	})
}

func TestReferences(t *testing.T) {
	runCases(t, `{"x-references":{"from":"/lines/*/product","to":"/products/*/id"}}`, []kwCase{
		{"all found", `{"products":[{"id":"a"},{"id":"b"}],"lines":[{"product":"a"},{"product":"b"},{"product":"a"}]}`, nil},
		{"dangling", `{"products":[{"id":"a"}],"lines":[{"product":"a"},{"product":"c"}]}`, []string{"DANGLING_REFERENCE /lines/1/product"}},
		{"empty from", `{"products":[],"lines":[]}`, nil},
		{"no targets", `{"lines":[{"product":"a"}]}`, []string{"DANGLING_REFERENCE /lines/0/product"}},
		{"typed: 1 is not \"1\"", `{"products":[{"id":"1"}],"lines":[{"product":1}]}`, []string{"DANGLING_REFERENCE /lines/0/product"}},
		{"numbers exact", `{"products":[{"id":1.50}],"lines":[{"product":1.5}]}`, nil},
	})
}

func TestOrdered(t *testing.T) {
	runCases(t, `{"properties":{"asc":{"x-ordered":{"by":"/t"}},"strict":{"x-ordered":{"by":"/t","strict":true}},
		"desc":{"x-ordered":{"by":"","direction":"desc"}},"dates":{"items":{"properties":{"at":{"format":"date-time"}}},"x-ordered":{"by":"/at"}}}}`, []kwCase{
		{"empty", `{"asc":[],"strict":[],"desc":[]}`, nil},
		{"equal allowed", `{"asc":[{"t":1},{"t":1},{"t":2}]}`, nil},
		{"equal not strict", `{"strict":[{"t":1},{"t":1}]}`, []string{"ORDER_VIOLATION /strict/0/t,/strict/1/t"}},
		{"descending", `{"desc":[3,2.5,2.50,-1]}`, nil},
		{"descending broken", `{"desc":[3,4]}`, []string{"ORDER_VIOLATION /desc/0,/desc/1"}},
		{"mixed types", `{"asc":[{"t":1},{"t":"2"}]}`, []string{"ORDER_VIOLATION /asc/0/t,/asc/1/t"}},
		{"missing skipped", `{"asc":[{"t":1},{},{"t":2}]}`, nil},
		{"dates as instants", `{"dates":[{"at":"2024-01-01T10:00:00+05:00"},{"at":"2024-01-01T06:00:00Z"}]}`, nil},
		{"dates broken", `{"dates":[{"at":"2024-01-01T06:00:00Z"},{"at":"2024-01-01T10:00:00+05:00"}]}`, []string{"ORDER_VIOLATION /dates/0/at,/dates/1/at"}},
	})
}

func TestNonOverlapping(t *testing.T) {
	runCases(t, `{"properties":{"open":{"x-nonOverlapping":{"start":"/s","end":"/e"}},"closed":{"x-nonOverlapping":{"start":"/s","end":"/e","closed":true}},
		"dates":{"items":{"properties":{"s":{"format":"date"},"e":{"format":"date"}}},"x-nonOverlapping":{"start":"/s","end":"/e"}}}}`, []kwCase{
		{"empty", `{"open":[]}`, nil},
		{"touching half-open", `{"open":[{"s":1,"e":2},{"s":2,"e":3}]}`, nil},
		{"touching closed", `{"closed":[{"s":1,"e":2},{"s":2,"e":3}]}`, []string{"INTERVAL_OVERLAP /closed/0,/closed/1"}},
		{"overlap unsorted", `{"open":[{"s":5,"e":9},{"s":1,"e":2},{"s":8,"e":10}]}`, []string{"INTERVAL_OVERLAP /open/0,/open/2"}},
		{"contained", `{"open":[{"s":0,"e":100},{"s":10,"e":20},{"s":30,"e":40}]}`, []string{"INTERVAL_OVERLAP /open/0,/open/1", "INTERVAL_OVERLAP /open/0,/open/2"}},
		{"inverted", `{"open":[{"s":3,"e":1}]}`, []string{"INTERVAL_OVERLAP /open/0/s,/open/0/e"}},
		{"dates", `{"dates":[{"s":"2024-05-01","e":"2024-05-03"},{"s":"2024-05-03","e":"2024-05-04"}]}`, nil},
		{"dates overlap", `{"dates":[{"s":"2024-05-01","e":"2024-05-03"},{"s":"2024-05-02","e":"2024-05-04"}]}`, []string{"INTERVAL_OVERLAP /dates/0,/dates/1"}},
		// said at the two items' starts (it was at the array)
		{"mixed types", `{"open":[{"s":1,"e":2},{"s":"a","e":"b"}]}`, []string{"INTERVAL_OVERLAP /open/0/s,/open/1/s"}},
	})
}

func TestDecimal(t *testing.T) {
	runCases(t, `{"x-decimal":[{"target":"/total","expr":"{/qty} * {/price} * (1 + {/tax})","scale":2,"rounding":"half_even"},
		{"target":"/third","expr":"{/qty} / 3","scale":4,"rounding":"down"},
		{"target":"/exact","expr":"{/qty} / 4"}]}`, []kwCase{
		{"rounded", `{"qty":3,"price":19.99,"tax":0.2,"total":71.96}`, nil},
		{"unrounded rejected", `{"qty":3,"price":19.99,"tax":0.2,"total":71.964}`, []string{"DECIMAL_MISMATCH /total,/qty,/price,/tax"}},
		{"half even down", `{"qty":1,"price":0.125,"tax":0,"total":0.12}`, nil},
		{"half even up", `{"qty":1,"price":0.135,"tax":0,"total":0.14}`, nil},
		{"division exact rounding", `{"qty":2,"third":0.6666}`, nil},
		{"division rounding down not half", `{"qty":2,"third":0.6667}`, []string{"DECIMAL_MISMATCH /third,/qty"}},
		{"exact without scale", `{"qty":1,"exact":0.25}`, nil},
		{"inexact without scale", `{"qty":1,"exact":0.3}`, []string{"DECIMAL_MISMATCH /exact,/qty"}},
		{"1e-30", `{"qty":1e-30,"price":1,"tax":0,"total":0.00}`, nil},
		{"operand missing skipped", `{"total":5}`, nil},
		{"operand not number", `{"qty":"3","price":1,"tax":0,"total":3}`, []string{"DECIMAL_MISMATCH /total,/qty,/price,/tax"}},
	})
	runCases(t, `{"x-decimal":{"target":"/r","expr":"{/a} / {/b}","scale":2}}`, []kwCase{
		{"division by zero", `{"a":1,"b":0,"r":0}`, []string{"DECIMAL_MISMATCH /r,/a,/b"}},
		{"one third times three", `{"a":1,"b":0.333333333333333333333333333333,"r":3.00}`, nil},
	})
	runCases(t, `{"x-decimal":{"target":"/r","expr":"({/a} / 3) * 3","scale":2,"rounding":"down"}}`, []kwCase{
		{"exact rationals", `{"a":1,"r":1}`, nil},
	})
}

func TestTensor(t *testing.T) {
	runCases(t, `{"properties":{"x":{"x-tensor":{"shape":["batch","seq",2],"dtype":"integer","dims":{"batch":"/batch_size"}}},
		"sq":{"x-tensor":{"shape":["n","n"],"dtype":"boolean"}}}}`, []kwCase{
		{"ok", `{"batch_size":2,"x":[[[1,2],[3,4],[5,6]],[[1,2],[3,4],[5,6]]]}`, nil},
		{"ragged", `{"x":[[[1,2],[3,4]],[[1,2]]]}`, []string{"TENSOR_SHAPE /x/0,/x/1"}},
		{"fixed axis", `{"x":[[[1,2,3]]]}`, []string{"TENSOR_SHAPE /x/0/0"}},
		{"dtype", `{"x":[[[1,2.5]]]}`, []string{"TENSOR_SHAPE /x/0/0/1"}},
		{"integer 2.0 ok", `{"x":[[[1,2.0]]]}`, nil},
		{"bound dim", `{"batch_size":3,"x":[[[1,2]]]}`, []string{"TENSOR_SHAPE /batch_size,/x"}},
		{"empty batch", `{"batch_size":0,"x":[]}`, nil},
		{"square", `{"sq":[[true,false],[false,true]]}`, nil},
		{"not square", `{"sq":[[true,false,true],[false,true,true]]}`, []string{"TENSOR_SHAPE /sq,/sq/0"}},
		{"not array", `{"sq":[1]}`, []string{"TENSOR_SHAPE /sq/0"}},
	})
}

// Decimal strings ("type": "string", "format": "decimal") are read exactly wherever
// a keyword reads a number; other strings stay "not a number".
func TestDecimalStrings(t *testing.T) {
	schema := `{"type": "object", "properties": {
		"lines": {"type": "array", "items": {"type": "object", "properties": {
			"qty": {"type": "integer"}, "price": {"type": "string", "format": "decimal"},
			"amount": {"type": ["string", "null"], "format": "decimal"}},
			"x-decimal": {"target": "/amount", "expr": "{/qty} * {/price}", "scale": 2}}},
		"subtotal": {"type": "string", "format": "decimal"},
		"rate": {"type": "string", "format": "decimal"},
		"tax": {"type": "string", "format": "decimal"},
		"cap": {"type": "number"},
		"note": {"type": "string"}},
		"x-sum": {"target": "/subtotal", "of": "/lines", "field": "/amount"},
		"x-product": {"target": "/tax", "factors": ["/subtotal", "/rate"]},
		"x-compare": [{"left": "/subtotal", "op": "le", "right": "/cap"}, {"left": "/rate", "op": "lt", "right": {"const": "1"}}]}`
	doc := func(amount0, subtotal, tax, rate string) string {
		return `{"lines": [{"qty": 3, "price": "0.10", "amount": ` + amount0 + `}, {"qty": 1, "price": "19.99", "amount": "19.99"}],
			"subtotal": ` + subtotal + `, "rate": ` + rate + `, "tax": ` + tax + `, "cap": 100}`
	}
	runCases(t, schema, []kwCase{
		{"exact", doc(`"0.30"`, `"20.29"`, `"4.058"`, `"0.2"`), nil},
		{"trailing zeros equal", doc(`"0.300"`, `"20.2900"`, `"4.0580"`, `"0.20"`), nil},
		// numbers break the declared type, but every relation still holds
		{"numbers still read", doc(`0.30`, `20.29`, `4.058`, `0.2`), []string{
			"SCHEMA_VIOLATION /lines/0/amount", "SCHEMA_VIOLATION /rate", "SCHEMA_VIOLATION /subtotal", "SCHEMA_VIOLATION /tax"}},
		{"float noise", doc(`"0.30000000000000004"`, `"20.29"`, `"4.058"`, `"0.2"`), []string{
			"DECIMAL_MISMATCH /lines/0/amount,/lines/0/qty,/lines/0/price",
			"SUM_MISMATCH /subtotal,/lines"}},
		{"not a literal", doc(`"0.30"`, `"20.29"`, `"4.058"`, `"2e-1 "`), []string{
			"COMPARE_FAILED /rate", "PRODUCT_MISMATCH /rate"}},
		{"decimal compared by value", doc(`"0.30"`, `"20.29"`, `"4.058"`, `"1.0"`), []string{
			"COMPARE_FAILED /rate", "PRODUCT_MISMATCH /tax,/subtotal,/rate"}},
	})
	// without the declaration a string is not a number
	runCases(t, `{"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string", "format": "decimal"}},
		"x-product": {"target": "/b", "factors": ["/a"]}}`, []kwCase{
		{"undeclared", `{"a": "2", "b": "2"}`, []string{"PRODUCT_MISMATCH /a"}},
	})
}

// TestFormatThroughRef: a format declared in $defs, reached through a local
// $ref (the usual way to share a type), is the value's as one declared in
// place is: dates compare as instants and decimal strings as numbers (they
// compared as text: a start after its end passed, overlapping meetings passed).
func TestFormatThroughRef(t *testing.T) {
	runCases(t, `{"$defs":{"at":{"type":"string","format":"date-time"},"meeting":{"type":"object","properties":{"s":{"$ref":"#/$defs/at"},"e":{"$ref":"#/$defs/at"}}},
		"money":{"type":"string","format":"decimal"}},
		"properties":{"s":{"$ref":"#/$defs/at"},"e":{"$ref":"#/$defs/at"},"low":{"$ref":"#/$defs/money"},"high":{"$ref":"#/$defs/money"},
		"meetings":{"type":"array","items":{"$ref":"#/$defs/meeting"},"x-ordered":{"by":"/s"},"x-nonOverlapping":{"start":"/s","end":"/e"}}},
		"x-compare":[{"left":"/s","op":"lt","right":"/e"},{"left":"/low","op":"le","right":"/high"}]}`, []kwCase{
		{"instants in order", `{"s":"2024-06-01T09:00:00+02:00","e":"2024-06-01T07:30:00Z"}`, nil},
		{"start after end", `{"s":"2024-06-01T07:30:00Z","e":"2024-06-01T09:00:00+02:00"}`, []string{"COMPARE_FAILED /s,/e"}},
		{"decimals by value", `{"low":"5.00","high":"20.29"}`, nil},
		{"meetings apart", `{"meetings":[{"s":"2024-06-01T09:00:00+02:00","e":"2024-06-01T07:20:00Z"},{"s":"2024-06-01T07:30:00Z","e":"2024-06-01T08:00:00Z"}]}`, nil},
		{"meetings overlap", `{"meetings":[{"s":"2024-06-01T07:30:00Z","e":"2024-06-01T08:30:00Z"},{"s":"2024-06-01T07:45:00Z","e":"2024-06-01T08:00:00Z"}]}`, []string{"INTERVAL_OVERLAP /meetings/0,/meetings/1"}},
	})
	if l := Lint(mustContract(t, `{"$defs":{"m":{"type":"object","properties":{"s":{"type":"string"}}}},"properties":{"ms":{"type":"array","items":{"$ref":"#/$defs/m"},"x-ordered":{"by":"/s"}}}}`)); len(l) != 0 {
		t.Errorf("lint of a pointer through $ref: %+v", l)
	}
}

// TestInstantForms: RFC 3339's lower-case t and z and a leap second, which
// the format check takes, compare as instants (they failed the relation as no
// date-time); a constant a comparison reads as a date or a decimal is refused
// when the contract loads if it is none (every output failed, blamed).
func TestInstantForms(t *testing.T) {
	runCases(t, `{"properties":{"s":{"type":"string","format":"date-time"},"e":{"type":"string","format":"date-time"}},"x-compare":[{"left":"/s","op":"lt","right":"/e"}]}`, []kwCase{
		{"lower case", `{"s":"2024-06-01t07:30:00z","e":"2024-06-01T09:00:00Z"}`, nil},
		{"leap second", `{"s":"2016-12-31T23:59:60Z","e":"2017-01-01T00:00:01Z"}`, nil},
		{"leap second after", `{"s":"2016-12-31T23:59:60Z","e":"2016-12-31T23:59:59Z"}`, []string{"COMPARE_FAILED /s,/e"}},
	})
	for _, tc := range []struct{ schema, want string }{
		{`{"properties":{"d":{"type":"string","format":"date"}},"x-compare":[{"left":"/d","op":"ge","right":{"const":"2024-1-1"}}]}`, `right: the constant "2024-1-1" is no date`},
		{`{"properties":{"p":{"type":"string"}},"x-compare":[{"left":"/p","op":"le","right":{"const":"1,50"},"as":"decimal"}]}`, `right: the constant "1,50" is no decimal literal`},
	} {
		_, err := ParseContract("c.json", []byte(`{"schema_version":"fbeval-contract/v1","id":"t","version":"1","schema":`+tc.schema+`}`))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.schema, err, tc.want)
		}
	}
}
