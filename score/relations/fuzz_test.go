package relations

import (
	"strings"
	"testing"
)

func FuzzDecimalExpr(f *testing.F) {
	for _, s := range []string{"{/a} * {/b}", "-(1 + 2.5e-3) / {/x~1y}", "((((1))))", "1 +", "{/a", "1e99999 * 1e99999", "0.1+0.2", "",
		"-----------------0", strings.Repeat("1 + ", 40) + "1", "2 - (3 - 4) / (5 * 6) * -(7 + 8)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := parseExpr(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		// The printed form parses back to itself.
		again, err := parseExpr(e.String())
		if err != nil {
			t.Fatalf("reparse %q: %v", e.String(), err)
		}
		if again.String() != e.String() || treeOf(again) != treeOf(e) {
			t.Fatalf("round trip %q -> %q (%s -> %s)", e.String(), again.String(), treeOf(e), treeOf(again))
		}
		doc := map[string]any{}
		if fr, err := e.eval(doc); err == nil {
			_, _ = fr.round(2, roundings["half_even"])
		}
	})
}

// treeOf writes e with every operation in parentheses: two expressions are the
// same tree when they write the same.
func treeOf(e *expr) string {
	switch e.op {
	case 0:
		return e.lit.String()
	case 'p':
		return "{" + e.ptr.text + "}"
	case '~':
		return "(-" + treeOf(e.left) + ")"
	}
	return "(" + treeOf(e.left) + " " + string(e.op) + " " + treeOf(e.right) + ")"
}

// The printed form of a few trees, with the parentheses it needs.
func TestExprString(t *testing.T) {
	for in, want := range map[string]string{
		"1 - (2 - 3)":        "1 - (2 - 3)",
		"(1 - 2) - 3":        "1 - 2 - 3",
		"1 / (2 * 3)":        "1 / (2 * 3)",
		"(1 + 2) * 3":        "(1 + 2) * 3",
		"1 + 2 * 3":          "1 + 2 * 3",
		"1 * (2 + 3) / 4":    "1 * (2 + 3) / 4",
		"-(1 + 2) * -{/a}":   "-(1 + 2) * -{/a}",
		"-(-(-(1)))":         "---1",
		"((1)) + ((({/b})))": "1 + {/b}",
	} {
		e, err := parseExpr(in)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if got := e.String(); got != want {
			t.Errorf("%q prints %q, want %q", in, got, want)
		}
	}
}

func FuzzParseContract(f *testing.F) {
	f.Add([]byte(`{"schema_version":"fbeval-contract/v1","id":"t","version":"1","schema":{"x-compare":[{"left":"/a","op":"lt","right":"/b"}]}}`))
	f.Add([]byte(`{"schema_version":"fbeval-contract/v1","id":"t","version":"1","schema":{"x-decimal":{"target":"/t","expr":"{/a}/3","scale":2}},"bindings":{"/a":"/b"}}`))
	f.Add([]byte(`{"schema_version":"fbeval-contract/v1","id":"t","version":"1","schema":{"items":{"x-tensor":{"shape":["n",2]}},"x-count":{"target":"/n","of":"/l","where":{"type":"string"}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseContract("f", data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		_ = Lint(c)
		r := c.Check([]byte(`{"a":1,"b":[1,2],"l":[{"a":1}],"t":1}`), nil, CheckOptions{})
		if r.Verdict == "" {
			t.Fatal("no verdict")
		}
	})
}

func BenchmarkCheckInvoice(b *testing.B) {
	c := mustContract(b, `{"type":"object","properties":{"lines":{"type":"array","x-uniqueKeys":[["/sku"]],
		"items":{"type":"object","x-decimal":{"target":"/amount","expr":"{/qty} * {/price}","scale":2}}}},
		"x-sum":{"target":"/total","of":"/lines","field":"/amount"}}`)
	var lines []string
	for i := 0; i < 100; i++ {
		lines = append(lines, `{"sku":"s`+strings.Repeat("x", i%7)+string(rune('a'+i%26))+`-`+itoa(i)+`","qty":3,"price":1.10,"amount":3.30}`)
	}
	out := []byte(`{"lines":[` + strings.Join(lines, ",") + `],"total":330.00}`)
	if r := c.Check(out, nil, CheckOptions{}); r.Verdict != Pass {
		b.Fatalf("%q", codes(r))
	}
	b.ReportAllocs()
	for b.Loop() {
		c.Check(out, nil, CheckOptions{})
	}
}

func itoa(i int) string {
	return strings.TrimSpace(strings.Repeat(" ", 0) + string([]byte{byte('0' + i/10), byte('0' + i%10)}))
}
