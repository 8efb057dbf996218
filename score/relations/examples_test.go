package relations

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/fbeval/fbeval/fixtures/fixturetest"
)

// golden compares got with testdata file path, or rewrites it with -update.
var exampleNames = []string{"invoice", "hotel-stay", "meeting-calendar", "tensor-batch"}

func TestExamples(t *testing.T) {
	for _, name := range exampleNames {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join("testdata", "examples", name)
			read := func(f string) []byte {
				b, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
			c, err := LoadContract(filepath.Join(dir, "contract.json"))
			if err != nil {
				t.Fatal(err)
			}
			if f := Lint(c); len(f) != 0 {
				t.Errorf("lint findings: %+v", f)
			}
			ctx, err := LoadContext(filepath.Join(dir, "context.json"))
			if err != nil {
				t.Fatal(err)
			}
			unapproved, err := LoadContext(filepath.Join(dir, "context-unapproved.json"))
			if err != nil {
				t.Fatal(err)
			}
			current, stale := ctx.Version, ctx.Version+1
			var text bytes.Buffer
			check := func(label, file string, cx *Context, opts CheckOptions, verdict, semantic string) {
				r := c.Check(read(file), cx, opts)
				if r.Verdict != verdict || r.Semantic != semantic {
					var b bytes.Buffer
					r.WriteText(&b)
					t.Errorf("%s: verdict %s/%s, want %s/%s\n%s", label, r.Verdict, r.Semantic, verdict, semantic, b.String())
				}
				text.WriteString("== " + label + "\n")
				r.WriteText(&text)
			}
			check("allowed", "allowed.json", ctx, CheckOptions{ContextVersion: &current}, Pass, Pass)
			check("rejected", "rejected.json", ctx, CheckOptions{}, Fail, Fail)
			check("unapproved", "allowed.json", unapproved, CheckOptions{}, NotChecked, NotChecked)
			check("stale", "allowed.json", ctx, CheckOptions{ContextVersion: &stale}, Fail, NotChecked)

			out, r, err := c.AssembleContext(read("assemble-input.json"), ctx, CheckOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Verdict != Pass || r.Raw == nil || r.Raw.Verdict != Pass || len(r.Inserted) == 0 {
				var b bytes.Buffer
				r.WriteText(&b)
				t.Errorf("assembled: %s, raw %v, %d inserted\n%s", r.Verdict, r.Raw != nil && r.Raw.Verdict == Pass, len(r.Inserted), b.String())
			}
			text.WriteString("== assembled\n")
			r.WriteText(&text)
			text.Write(append(out, '\n'))
			fixturetest.Golden(t, filepath.Join(dir, "results.golden"), text.Bytes())

			var js bytes.Buffer
			if err := r.WriteJSON(&js); err != nil {
				t.Fatal(err)
			}
			fixturetest.Golden(t, filepath.Join(dir, "assembled-result.golden"), js.Bytes())
		})
	}
}
