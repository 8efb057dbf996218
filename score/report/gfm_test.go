package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/fixtures/fixturetest"
)

// TestMarkdownInGFM: every Markdown fbeval writes renders in GitHub's renderer
// to tables whose every row has its header's cells, with the outputs, parse
// errors and warnings that would break them shown as their text, and no raw
// HTML but the <details> and <code> fbeval writes.
func TestMarkdownInGFM(t *testing.T) {
	hostile := fixturetest.Hostile
	pages := map[string][]byte{}
	for _, name := range []string{"testdata/toolcall_small.md.golden", "testdata/coglang_failures.md.golden"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		pages[filepath.Base(name)] = b
	}
	// the two example reports, their failing rows and cases one per hostile
	// output (and CogLang parse error), their warnings hostile too
	tc := load(t, "testdata/toolcall_small.json").held()
	var failing Row
	for _, r := range tc.Toolcall.Rows {
		if !r.FinalSuccess {
			failing = r
		}
	}
	tc.Toolcall.Rows = nil
	for i := range hostile {
		r := failing
		r.CaseID, r.Output = fmt.Sprintf("hostile-%02d", i), &hostile[i]
		tc.Toolcall.Rows = append(tc.Toolcall.Rows, r)
	}
	tc.Toolcall.Warnings = hostile
	cg := load(t, "testdata/coglang_failures.json").held()
	fc, c := cg.CogLang.FailureCases[0], cg.CogLang.Cases[0]
	cg.CogLang.FailureCases, cg.CogLang.Cases = nil, nil
	for i := range hostile {
		fc.CaseID, c.CaseID = fmt.Sprintf("hostile-%02d", i), fmt.Sprintf("hostile-%02d", i)
		fc.ParseError, c.Output = &hostile[i], &hostile[i]
		cg.CogLang.FailureCases, cg.CogLang.Cases = append(cg.CogLang.FailureCases, fc), append(cg.CogLang.Cases, c)
	}
	if cg.CogLang.ResponseFile != nil {
		cg.CogLang.ResponseFile.Warnings = hostile
	}
	for name, doc := range map[string]Doc{"hostile toolcall": tc, "hostile CogLang": cg} {
		var b bytes.Buffer
		if err := WriteMarkdown(&b, doc); err != nil {
			t.Fatal(err)
		}
		pages[name] = b.Bytes()
	}
	for name, md := range pages {
		page := fixturetest.RenderGFM(t, md)
		fixturetest.CheckGFMTables(t, name, page)
		if m := rawTag.FindString(page); m != "" {
			t.Errorf("%s: raw HTML %q in the rendered page", name, m)
		}
		if strings.HasPrefix(name, "hostile") {
			// a model's answer or a file's name makes no link (GitHub's
			// extended autolinks took http:// and www. text for one)
			if m := link.FindString(page); m != "" {
				t.Errorf("%s: a link %q in the rendered page", name, m)
			}
			text := fixturetest.GFMText(page)
			for _, h := range hostile {
				if w := strings.Join(strings.Fields(h), " "); !strings.Contains(text, w) {
					t.Errorf("%s: %q is not shown", name, w)
				}
			}
		}
	}
}

// rawTag is raw HTML fbeval does not write: a script, a details it did not open.
var rawTag = regexp.MustCompile(`<script|<details><summary>x`)

// link is a link in a rendered page.
var link = regexp.MustCompile(`<a [^>]*>`)
