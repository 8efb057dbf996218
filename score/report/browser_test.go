package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/fbeval/fbeval/score/compare"
	"github.com/fbeval/fbeval/score/report"
)

// browserPath finds Chromium. A missing browser skips the browser tests on a
// workstation but fails them under CI, where a skip would pass silently.
func browserPath(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"/usr/bin/chromium", "chromium", "chromium-browser"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium not found and CI is set: install chromium (apt-get install chromium)")
	}
	t.Skip("chromium not found; install it to run the browser tests")
	return ""
}

// browser starts one headless Chromium with no network use and a fresh profile.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := browserPath(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// page is one rendered page to check, with the JSON it was drawn from.
type page struct {
	name string
	html string // file path
	json []byte
	kind string // toolcall, coglang, compare
}

// artifactsDir is where screenshots go: $FBEVAL_ARTIFACTS, else testdata/out.
func artifactsDir(t *testing.T) string {
	dir := os.Getenv("FBEVAL_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("testdata", "out")
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// pages renders the test reports, and adds every NAME.html with a NAME.json
// beside it in $FBEVAL_BROWSER_PAGES (CI renders the study pages there).
func pages(t *testing.T) []page {
	t.Helper()
	dir := t.TempDir()
	var out []page
	add := func(name, kind string, data []byte, render func(*bytes.Buffer) error) {
		var b bytes.Buffer
		if err := render(&b); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		p := filepath.Join(dir, name+".html")
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		out = append(out, page{name: name, html: p, json: data, kind: kind})
	}
	docs := map[string]report.Doc{}
	for _, ex := range []string{"toolcall_small", "toolcall_large", "coglang_failures"} {
		data, err := os.ReadFile(filepath.Join("testdata", ex+".json"))
		if err != nil {
			t.Fatal(err)
		}
		doc, err := report.Load(ex+".json", data)
		if err != nil {
			t.Fatal(err)
		}
		docs[ex] = doc
		if ex == "toolcall_large" {
			continue
		}
		kind := "toolcall"
		if doc.CogLang != nil {
			kind = "coglang"
		}
		add(ex, kind, data, func(b *bytes.Buffer) error { return report.WriteHTML(b, doc) })
	}
	res, err := compare.Compare(docs["toolcall_small"].Toolcall, docs["toolcall_large"].Toolcall, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var cj bytes.Buffer
	if err := compare.WriteJSON(&cj, res); err != nil {
		t.Fatal(err)
	}
	add("compare_small_large", "compare", cj.Bytes(), func(b *bytes.Buffer) error { return compare.WriteHTML(b, res) })

	if extra := os.Getenv("FBEVAL_BROWSER_PAGES"); extra != "" {
		files, _ := filepath.Glob(filepath.Join(extra, "*.html"))
		sort.Strings(files)
		for _, f := range files {
			data, err := os.ReadFile(strings.TrimSuffix(f, ".html") + ".json")
			if err != nil {
				continue
			}
			var head struct {
				SchemaVersion string `json:"schema_version"`
			}
			_ = json.Unmarshal(data, &head)
			kind := map[string]string{"fbeval-report/v1": "toolcall", "coglang-generation-eval-result/v0.1": "coglang", compare.Version: "compare"}[head.SchemaVersion]
			if kind == "" {
				t.Fatalf("%s: unknown schema_version %q", f, head.SchemaVersion)
			}
			out = append(out, page{name: strings.TrimSuffix(filepath.Base(f), ".html"), html: f, json: data, kind: kind})
		}
	}
	return out
}

// TestPagesInChromium loads every page in headless Chromium at 1280 and 390 px:
// no console error or exception, no horizontal scroll of the page, no table cut
// off at 1280 px, no text under 10 px; the figures shown equal the JSON's; the
// sample browser filters and opens a sample. Screenshots go to the artifacts
// directory as NAME-1280.png and NAME-390.png.
func TestPagesInChromium(t *testing.T) {
	ctx := browser(t)
	shots := artifactsDir(t)
	for _, p := range pages(t) {
		t.Run(p.name, func(t *testing.T) {
			for _, width := range []int64{1280, 390} {
				checkPage(t, ctx, p, width, filepath.Join(shots, fmt.Sprintf("%s-%d.png", p.name, width)))
			}
		})
	}
}

func checkPage(t *testing.T, parent context.Context, p page, width int64, shot string) {
	t.Helper()
	var mu sync.Mutex
	var problems []string
	ctx, cancel := chromedp.NewContext(parent, chromedp.WithListener(func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning {
				var args []string
				for _, a := range e.Args {
					args = append(args, string(a.Value))
				}
				problems = append(problems, fmt.Sprintf("console %s: %s", e.Type, strings.Join(args, " ")))
			}
		case *runtime.EventExceptionThrown:
			problems = append(problems, fmt.Sprintf("exception: %s %v", e.ExceptionDetails.Text, e.ExceptionDetails.Exception))
		}
	}))
	defer cancel()
	if err := chromedp.Do(ctx); err != nil {
		t.Fatal(err)
	}
	ctx, cancelTime := context.WithTimeout(ctx, 60*time.Second)
	defer cancelTime()
	var layout layoutResult
	err := chromedp.Do(ctx,
		chromedp.EmulateViewport(width, 900),
		chromedp.Navigate("file://"+p.html),
		chromedp.WaitReady("body"),
	)
	if err != nil {
		t.Fatalf("%d px: %v", width, err)
	}
	layout, err = chromedp.Run(ctx, chromedp.Evaluate[layoutResult](layoutProbe(width)))
	if err != nil {
		t.Fatalf("%d px: %v", width, err)
	}
	checkFigures(t, ctx, p)
	if p.kind == "compare" {
		checkFlipFilter(t, ctx, p, width)
	}
	if p.kind == "toolcall" {
		checkSampleBrowser(t, ctx, p, width)
		after, err := chromedp.Run(ctx, chromedp.Evaluate[layoutResult](layoutProbe(width)))
		if err != nil {
			t.Fatalf("%d px: %v", width, err)
		}
		if after.Overflow > 0 {
			t.Errorf("%d px: with a sample open the page scrolls sideways by %d px", width, after.Overflow)
		}
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("%d px: %v", width, err)
	}
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	if layout.Overflow > 0 {
		t.Errorf("%d px: the page scrolls sideways by %d px", width, layout.Overflow)
	}
	if width >= 1280 && len(layout.Cut) > 0 {
		t.Errorf("%d px: tables cut off: %v", width, layout.Cut)
	}
	if len(layout.Small) > 0 {
		t.Errorf("%d px: text under 10 px: %v", width, layout.Small)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, pr := range problems {
		t.Errorf("%d px: %s", width, pr)
	}
}

type layoutResult struct {
	Overflow int      `json:"overflow"`
	Cut      []string `json:"cut"`
	Small    []string `json:"small"`
}

// layoutProbe measures the page: how far it scrolls sideways, which table boxes
// are wider than their box (cut off), and which visible text is set under 10 px.
func layoutProbe(width int64) string {
	return `(() => {
  const de = document.documentElement;
  const overflow = Math.max(0, de.scrollWidth - de.clientWidth);
  const cut = [];
  for (const el of document.querySelectorAll('.scroll')) {
    if (el.scrollWidth > el.clientWidth + 1) cut.push((el.previousElementSibling && el.previousElementSibling.textContent.slice(0, 40)) || el.className);
  }
  const small = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walk.nextNode()) {
    const n = walk.currentNode;
    if (!n.textContent.trim()) continue;
    const el = n.parentElement;
    if (!el || el.offsetParent === null) continue;
    const size = parseFloat(getComputedStyle(el).fontSize);
    if (size < 10) small.push(n.textContent.trim().slice(0, 30) + ' (' + size + 'px)');
  }
  return {overflow, cut: cut.slice(0, 10), small: small.slice(0, 10)};
})()`
}

type mark struct{ K, F, Text string }

// checkFigures compares every figure the page marks with data-k (a JSON path
// into the report) with the report's own value, formatted as docs/reports.md
// says numbers are shown.
func checkFigures(t *testing.T, ctx context.Context, p page) {
	t.Helper()
	marks, err := chromedp.Run(ctx, chromedp.Evaluate[[]mark](`[...document.querySelectorAll('[data-k]')].map(e => ({K: e.dataset.k, F: e.dataset.f || '', Text: e.textContent.trim()}))`))
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	dec := json.NewDecoder(bytes.NewReader(p.json))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if len(marks) == 0 {
		t.Fatalf("the page marks no figure with data-k")
	}
	for _, m := range marks {
		v, ok := lookup(doc, m.K)
		if !ok {
			t.Errorf("data-k=%q: no such value in the JSON", m.K)
			continue
		}
		want := format(v, m.F)
		if m.Text != want {
			t.Errorf("data-k=%q shows %q, the JSON gives %q", m.K, m.Text, want)
		}
	}
}

// lookup follows a JSON Pointer through a decoded document.
func lookup(doc any, ptr string) (any, bool) {
	if ptr == "" {
		return doc, true
	}
	cur := doc
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[tok]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			var i int
			if _, err := fmt.Sscan(tok, &i); err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// format writes a JSON value as the page must show it: pct "54.0%", pp
// "+1.3 pp", iv "[49.5, 58.4]", p three significant digits, int, or the text.
func format(v any, f string) string {
	if v == nil {
		return "n/a"
	}
	fix := func(x float64) string {
		s := strconv.FormatFloat(x, 'f', 1, 64)
		if s == "-0.0" {
			s = "0.0"
		}
		return s
	}
	num := func(v any) float64 {
		n, _ := v.(json.Number).Float64()
		return n
	}
	switch f {
	case "pct":
		return fix(num(v)) + "%"
	case "rate":
		return fix(100*num(v)) + "%"
	case "pp":
		s := fix(num(v))
		if num(v) > 0 && s != "0.0" {
			s = "+" + s
		}
		return s + " pp"
	case "iv":
		a := v.([]any)
		return "[" + fix(num(a[0])) + ", " + fix(num(a[1])) + "]"
	case "p":
		return strconv.FormatFloat(num(v), 'g', 3, 64)
	}
	return fmt.Sprint(v)
}

// sampleReport is the part of a toolcall report the sample browser shows.
type sampleReport struct {
	Arms map[string]any `json:"arms"`
	Rows []struct {
		CaseID         string   `json:"case_id"`
		Arm            string   `json:"arm"`
		Repeat         int      `json:"repeat"`
		Missing        bool     `json:"missing"`
		FinalCodes     []string `json:"final_codes"`
		Output         *string  `json:"output"`
		AttemptResults []struct {
			Attempt int     `json:"attempt"`
			Output  *string `json:"output"`
			Errors  []struct {
				Code, Path, Message string
			} `json:"errors"`
		} `json:"attempt_results"`
	} `json:"rows"`
}

type browserState struct {
	Count    string   `json:"count"`
	Title    string   `json:"title"`
	Outputs  []string `json:"outputs"`
	Errors   int      `json:"errors"`
	Marked   string   `json:"marked"`
	Expected string   `json:"expected"`
}

// checkSampleBrowser filters the samples to failing requests of the first arm,
// opens the first one and compares what is shown with the report's JSON.
func checkSampleBrowser(t *testing.T, ctx context.Context, p page, width int64) {
	t.Helper()
	var rep sampleReport
	if err := json.Unmarshal(p.json, &rep); err != nil {
		t.Fatal(err)
	}
	// A report from before rows carried their attempts shows each row's last
	// attempt: its final codes and, when it failed, its output.
	for i := range rep.Rows {
		r := &rep.Rows[i]
		if r.AttemptResults == nil && !r.Missing {
			r.AttemptResults = append(r.AttemptResults, struct {
				Attempt int     `json:"attempt"`
				Output  *string `json:"output"`
				Errors  []struct {
					Code, Path, Message string
				} `json:"errors"`
			}{Attempt: 1, Output: r.Output})
			for _, c := range r.FinalCodes {
				r.AttemptResults[0].Errors = append(r.AttemptResults[0].Errors, struct{ Code, Path, Message string }{Code: c})
			}
		}
	}
	all, failing := 0, 0
	type req struct{ row, attempt int }
	var firstFail *req
	var firstArm string
	for i, r := range rep.Rows {
		if i == 0 {
			firstArm = r.Arm
		}
		if len(r.AttemptResults) == 0 {
			all++
			failing++
			continue
		}
		for j, a := range r.AttemptResults {
			all++
			if len(a.Errors) > 0 {
				failing++
				if r.Arm == firstArm && firstFail == nil {
					firstFail = &req{i, j}
				}
			}
		}
	}
	state := func(js string) browserState {
		st, err := chromedp.Run(ctx, chromedp.Evaluate[browserState](js+`;(() => {
  const d = document.querySelector('#samples .sb-detail');
  const pres = d.hidden ? [] : [...d.querySelectorAll('.sb-attempt pre')].map(e => e.textContent);
  const m = d.querySelector('mark');
  const exp = d.querySelectorAll('.sb-grid pre');
  return {count: document.querySelector('#samples .sb-count').textContent, title: d.hidden ? '' : d.querySelector('h3').textContent,
    outputs: pres, errors: d.hidden ? 0 : d.querySelectorAll('.sb-errors li').length, marked: m ? m.textContent : '',
    expected: exp.length > 1 ? exp[1].textContent : ''};
})()`))
		if err != nil {
			t.Fatalf("%d px: sample browser: %v", width, err)
		}
		return st
	}
	if got, want := state("").Count, fmt.Sprintf("%d of %d requests", all, all); got != want {
		t.Errorf("%d px: sample browser shows %q, want %q", width, got, want)
	}
	st := state(`(() => { const f = document.querySelector('#samples form');
  f.outcome.value = 'fail'; f.outcome.dispatchEvent(new Event('change'));
  f.arm.value = '0'; f.arm.dispatchEvent(new Event('change')); })()`)
	armFailing := 0
	for _, r := range rep.Rows {
		if r.Arm != firstArm {
			continue
		}
		if len(r.AttemptResults) == 0 {
			armFailing++
		}
		for _, a := range r.AttemptResults {
			if len(a.Errors) > 0 {
				armFailing++
			}
		}
	}
	if want := fmt.Sprintf("%d of %d requests", armFailing, all); st.Count != want {
		t.Errorf("%d px: filtered to failing %s requests the browser shows %q, want %q", width, firstArm, st.Count, want)
	}
	if firstFail == nil {
		return
	}
	st = state(`document.querySelector('#samples tbody tr').click()`)
	row := rep.Rows[firstFail.row]
	if !strings.HasPrefix(st.Title, row.CaseID+" · "+row.Arm+" · repeat ") {
		t.Errorf("%d px: opened sample %q, want %s/%s", width, st.Title, row.CaseID, row.Arm)
	}
	if len(st.Outputs) != len(row.AttemptResults) {
		t.Fatalf("%d px: the sample shows %d attempts, the JSON has %d", width, len(st.Outputs), len(row.AttemptResults))
	}
	errs := 0
	for i, a := range row.AttemptResults {
		errs += len(a.Errors)
		if a.Output != nil && st.Outputs[i] != *a.Output {
			t.Errorf("%d px: attempt %d shows %q, the JSON output is %q", width, a.Attempt, st.Outputs[i], *a.Output)
		}
	}
	if st.Errors != errs {
		t.Errorf("%d px: the sample lists %d errors, the JSON %d", width, st.Errors, errs)
	}
	t.Logf("%d px: opened %s; highlighted %q", width, st.Title, st.Marked)
}

// TestLargePageOpens times how long Chromium takes to open the HTML page named
// by $FBEVAL_LARGE_PAGE until its sample browser has drawn its first page
// (docs/reports.md gives the figure for a 100,800-request report). It fails
// above 3 s.
func TestLargePageOpens(t *testing.T) {
	path := os.Getenv("FBEVAL_LARGE_PAGE")
	if path == "" {
		t.Skip("set FBEVAL_LARGE_PAGE to an HTML report to time it")
	}
	path, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := browser(t)
	ctx, cancel := chromedp.NewContext(ctx)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+path), chromedp.WaitVisible("#samples tbody tr")); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	count, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('#samples .sb-count').textContent`))
	if err != nil {
		t.Fatal(err)
	}
	timing, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => { const n = performance.getEntriesByType('navigation')[0];
  const m = performance.getEntriesByType('mark').concat(performance.getEntriesByType('paint')).map(e => e.name + '=' + Math.round(e.startTime)).join(' ');
  return 'response end ' + Math.round(n.responseEnd) + ' ms, DOM content loaded ' + Math.round(n.domContentLoadedEventEnd) + ' ms, load ' + Math.round(n.loadEventEnd) + ' ms; ' + m; })()`))
	t.Logf("%s: %.1f MB, %s, opened with its sample browser drawn in %v (%s)", filepath.Base(path), float64(info.Size())/1e6, count, took.Round(10*time.Millisecond), timing)
	if took > 3*time.Second {
		t.Errorf("opening took %v; want under 3 s", took)
	}
}

// checkFlipFilter keeps only the flips right in B alone and compares the count
// shown with the comparison's JSON: its first compare.HTMLFlipLimit flips of
// each arm, which the page lists.
func checkFlipFilter(t *testing.T, ctx context.Context, p page, width int64) {
	t.Helper()
	var cmp struct {
		Flips []struct {
			Arm string `json:"arm"`
			B   bool   `json:"b_first_pass_success"`
		} `json:"flips"`
	}
	if err := json.Unmarshal(p.json, &cmp); err != nil {
		t.Fatal(err)
	}
	if len(cmp.Flips) == 0 {
		return
	}
	onlyB, listed := 0, 0
	perArm := map[string]int{}
	for _, f := range cmp.Flips {
		if perArm[f.Arm] == compare.HTMLFlipLimit {
			continue
		}
		perArm[f.Arm]++
		listed++
		if f.B {
			onlyB++
		}
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => { const f = document.getElementById('flip-filters');
  f.side.value = 'b'; f.side.dispatchEvent(new Event('change', {bubbles: true}));
  return document.getElementById('flip-count').textContent; })()`))
	if err != nil {
		t.Fatalf("%d px: flips filter: %v", width, err)
	}
	if want := fmt.Sprintf("%d of %d flips", onlyB, listed); got != want {
		t.Errorf("%d px: flips right only in B: the page shows %q, want %q", width, got, want)
	}
}

// TestSampleTextPrintable: a model's output with control and bidi characters
// (an OSC 8 link, a screen clear, U+202E, a NUL) is shown escaped in the
// sample browser, as the page's static text and fbeval's other human formats
// show it: it was set raw (textContent), so U+202E reordered what a reviewer
// read. The table's cut of a long output does not split a character (an
// emoji at the cut showed as the escape of a lone surrogate).
func TestSampleTextPrintable(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "toolcall_small.json"))
	if err != nil {
		t.Fatal(err)
	}
	parent := browser(t)
	type shown struct{ Cell, Output, Error string }
	show := func(output string) shown {
		var raw map[string]any
		if err := json.Unmarshal(data, &raw); err != nil {
			t.Fatal(err)
		}
		row := raw["rows"].([]any)[0].(map[string]any)
		row["output"] = output
		row["attempt_results"] = []any{map[string]any{"attempt": 1, "output": output, "errors": []any{
			map[string]any{"code": "STATE_MISMATCH", "path": "/arguments/x", "message": "x is " + output},
		}}}
		doc, err := report.Load("hostile.json", mustJSON(t, raw))
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := report.WriteHTML(&b, doc); err != nil {
			t.Fatal(err)
		}
		page := filepath.Join(t.TempDir(), "hostile.html")
		os.WriteFile(page, b.Bytes(), 0o644)
		ctx, cancel := chromedp.NewContext(parent)
		defer cancel()
		ctx, cancelTime := context.WithTimeout(ctx, 60*time.Second)
		defer cancelTime()
		if err := chromedp.Do(ctx, chromedp.Navigate("file://"+page), chromedp.WaitReady("body")); err != nil {
			t.Fatal(err)
		}
		got, err := chromedp.Run(ctx, chromedp.Evaluate[shown](`(() => {
  const cell = document.querySelector('#samples tbody tr td.sb-out').textContent;
  document.querySelector('#samples tbody tr').click();
  const pre = document.querySelector('#samples .sb-detail .sb-attempt pre');
  const li = document.querySelector('#samples .sb-detail .sb-attempt .sb-errors li');
  return {cell: cell, output: pre ? pre.textContent : '', error: li ? li.textContent : ''};
})()`))
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	got := show("{\"a\": 1}\x1b]8;;http://evil/\x07click\x1b[2J \u202eRTL\x00 done")
	want := `{"a": 1}\x1b]8;;http://evil/\x07click\x1b[2J \u202eRTL\x00 done`
	if got.Output != want || got.Cell != want {
		t.Errorf("shown:\ncell   %q\noutput %q\nwant   %q", got.Cell, got.Output, want)
	}
	// an error's message quotes the output: escaped too (it was set raw)
	if wantErr := "STATE_MISMATCH at /arguments/x: x is " + want; got.Error != wantErr {
		t.Errorf("error shown:\n%q\nwant\n%q", got.Error, wantErr)
	}
	long := strings.Repeat("x", 89) + "\U0001F600 ok"
	if got := show(long); got.Cell != strings.Repeat("x", 89)+"\u2026" || got.Output != long {
		t.Errorf("a cut at an emoji:\ncell   %q\noutput %q", got.Cell, got.Output)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
