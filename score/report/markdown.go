package report

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/fbeval/fbeval/contract"
)

// MarkdownListLimit caps each list in Markdown (failing cases, warnings,
// response files, case ids), so that a report of any size fits a pull-request
// comment or $GITHUB_STEP_SUMMARY (GitHub takes 1 MiB a step, and drops a
// larger summary whole); the JSON report holds every one, and the HTML report
// lists every failing case.
const MarkdownListLimit = 50

// WriteMarkdown writes doc as GitHub-flavoured Markdown: the headline tables first,
// details collapsed in <details> blocks. It suits a pull-request comment or
// $GITHUB_STEP_SUMMARY.
func WriteMarkdown(w io.Writer, doc Doc) error {
	var b bytes.Buffer
	switch doc.Kind {
	case KindToolcall:
		markdownToolcall(&b, doc.Name, doc.Toolcall)
	case KindCogLang:
		markdownCogLang(&b, doc.Name, doc.CogLang)
	default:
		return errNoKind
	}
	_, err := w.Write(b.Bytes())
	return err
}

// MarkdownText is text made safe for fbeval's Markdown, in a table cell or a
// line of a list (mdCell): every Markdown writer's one escaper.
func MarkdownText(s string) string { return mdCell(s) }

// mdCell makes text safe inside a Markdown table cell: HTML is escaped so GitHub
// shows it as text, pipes are escaped, line breaks flattened and the
// characters of inline syntax (code, emphasis, links, strikethrough) escaped.
func mdCell(s string) string {
	var b strings.Builder
	for i, r := range s {
		if r == '_' && inWord(s, i) {
			b.WriteByte('_') // no_schema: an underscore within a word is no emphasis
			continue
		}
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '|':
			b.WriteString("\\|")
		case '`':
			b.WriteString("&#96;")
		case '\\':
			b.WriteString("\\\\")
		case '*', '_', '~', '[', ']':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n', '\r', '\t':
			b.WriteByte(' ')
		case ':', '.':
			if autolinks(s, i) {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		default:
			b.WriteString(runeAt(s, i))
		}
	}
	return b.String()
}

// autolinks reports whether the ':' or '.' at s[i] makes GitHub's extended
// autolinks of the text a link: the ':' of "http://" (any scheme, any case),
// the '.' of "www.". Escaped (\: and \.), it shows as itself and links
// nowhere: a model's answer or a file's name makes no link in a summary.
func autolinks(s string, i int) bool {
	if s[i] == ':' {
		return strings.HasPrefix(s[i+1:], "//")
	}
	return i >= 3 && strings.EqualFold(s[i-3:i], "www")
}

// mdCode writes text as inline code inside a table cell; <code> is used rather than
// backticks so pipes and backticks in the text cannot end it. What is between
// the tags is still Markdown to GitHub, so the characters of its inline syntax
// are escaped too: a backtick would open a code span (in which nothing is
// unescaped), asterisks and underscores emphasis, brackets a link, tildes
// strikethrough.
func mdCode(s string) string {
	if s == "" {
		return ""
	}
	var b strings.Builder
	for i, r := range s {
		if r == '_' && inWord(s, i) {
			b.WriteByte('_')
			continue
		}
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '|':
			b.WriteString("&#124;")
		case '`', '\\', '*', '_', '~', '[', ']':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n', '\r', '\t':
			b.WriteByte(' ')
		case ':', '.':
			if autolinks(s, i) {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		default:
			b.WriteString(runeAt(s, i))
		}
	}
	return "<code>" + b.String() + "</code>"
}

// inWord reports whether the byte at i of s has an ASCII letter or digit on
// each side: an underscore there can neither open nor close emphasis
// (CommonMark's flanking rules), so it needs no escape.
func inWord(s string, i int) bool {
	alnum := func(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
	return i > 0 && i+1 < len(s) && alnum(s[i-1]) && alnum(s[i+1])
}

func mdTable(b *bytes.Buffer, header []string, align string, rows [][]string) {
	b.WriteString("| " + strings.Join(header, " | ") + " |\n|")
	for i := range header {
		if i < len(align) && align[i] == 'r' {
			b.WriteString("---:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteByte('\n')
	for _, r := range rows {
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
	b.WriteByte('\n')
}

func detailsOpen(b *bytes.Buffer, summary string) {
	fmt.Fprintf(b, "<details><summary>%s</summary>\n\n", mdCell(summary))
}

func detailsClose(b *bytes.Buffer) { b.WriteString("</details>\n\n") }

func yesNo(v bool) string {
	if v {
		return "yes"
	}
	return "no"
}

func passFail(v bool) string {
	if v {
		return "pass"
	}
	return "**FAIL**"
}

func markdownToolcall(b *bytes.Buffer, name string, r *ToolcallReport) {
	fmt.Fprintf(b, "## fbeval toolcall report: %s\n\n", mdCell(r.title()))
	fmt.Fprintf(b, "**%s** · complete: %s · expected rows: %d · dataset %s · seed %d · repeats %d · repairs %d · decoding %s",
		r.gateLine(), yesNo(r.Complete), r.ExpectedRows, mdCode(r.Study.Dataset),
		r.Study.Seed, r.Study.Repeats, r.Study.Repairs, mdCell(r.Study.Decoding))
	if m := ModelsPhrase(r.Models(), " "); m != "" {
		b.WriteString(" · " + mdCell(m))
	}
	b.WriteString("\n\n")
	for _, f := range findings(r) {
		e := f.E
		p := pvalue(e.McNemarP)
		fmt.Fprintf(b, "- **%s** %s: uplift %s, 95%% CI %s (first pass, mean over clusters, %s → %s), McNemar p %s, %d wins / %d losses\n",
			f.Verdict, mdCell(f.Name), points(e.AbsoluteUplift), interval(e.CI95), pct(e.BaselineSuccess), pct(e.TreatmentSuccess), p,
			e.DiscordantWins, e.DiscordantLosses)
	}
	if len(r.Effects) > 0 {
		b.WriteByte('\n')
	}

	var rows [][]string
	for _, a := range r.Arms {
		m := a.Value
		rows = append(rows, []string{mdCell(a.Key), strconv.Itoa(m.Runs), pct(m.FirstPassSuccess), interval(m.FirstPassWilson95),
			pct(m.FinalSuccess), pct(m.SemanticAccuracy), pct(m.CallSchemaValidity), pct(m.SemanticPrecision),
			pct(m.RetryRate), strconv.Itoa(m.ProviderErrors + m.MissingResponses), usd(m.CostPerSuccessUSD), ms(m.LatencyP50Ms)})
	}
	mdTable(b, []string{"arm", "runs", "first pass", "Wilson 95%", "final", "semantic", "call validity", "SPV", "retry", "errors + missing", "cost / success", "p50"},
		"lrrrrrrrrrrr", rows)

	if len(r.Effects) > 0 {
		b.WriteString("### Paired effects (first pass, clustered bootstrap 95%)\n\n")
		rows = rows[:0]
		for _, e := range r.Effects {
			v := e.Value
			rows = append(rows, []string{mdCell(e.Key), pct(v.BaselineSuccess), pct(v.TreatmentSuccess), points(v.AbsoluteUplift),
				interval(v.CI95), pvalue(v.McNemarP), fmt.Sprintf("%d/%d", v.DiscordantWins, v.DiscordantLosses), mdCell(v.Label)})
		}
		mdTable(b, []string{"comparison", "baseline", "treatment", "uplift", "95% CI", "McNemar p", "wins/losses", "effect"}, "lrrrrrrl", rows)
	}

	if len(r.Gates) > 0 {
		b.WriteString("### Gates\n\n")
		rows = rows[:0]
		for _, g := range r.Gates {
			rows = append(rows, []string{mdCode(g.Gate), g.ActualText(), passFail(g.Passed)})
		}
		mdTable(b, []string{"gate", "actual", "result"}, "lrl", rows)
	}

	fitness := num(r.CustomFitness, 1)
	if r.CustomFitness == nil {
		fitness = "n/a (needs a second model: fbeval compare)"
	}
	fmt.Fprintf(b, "Classification: %s · custom fitness: %s\n\n", mdCell(list(r.Classification)), fitness)

	if len(r.Warnings) > 0 {
		b.WriteString("### Warnings\n\n")
		mdWarnings(b, r.Warnings, "report")
	}

	arms := r.Arms.Keys()
	for _, sub := range []struct {
		title string
		set   Ordered[Ordered[Metrics]]
	}{{"domain", r.Subsets.Domain}, {"category", r.Subsets.Category}} {
		if len(sub.set) == 0 {
			continue
		}
		detailsOpen(b, "First-pass success by "+sub.title)
		rows = rows[:0]
		for _, s := range sub.set {
			row := []string{mdCell(s.Key)}
			for _, arm := range arms {
				m, _ := s.Value.Get(arm)
				row = append(row, pct(m.FirstPassSuccess))
			}
			rows = append(rows, row)
		}
		mdTable(b, append([]string{sub.title}, mdCells(arms)...), "l"+strings.Repeat("r", len(arms)), rows)
		detailsClose(b)
	}

	if codes := r.errorCodes(); len(codes) > 0 {
		detailsOpen(b, "Error codes (first attempt)")
		rows = rows[:0]
		for _, c := range codes {
			row := []string{mdCode(c)}
			for _, a := range r.Arms {
				n, _ := a.Value.ErrorCounts.Get(c)
				row = append(row, strconv.Itoa(n))
			}
			rows = append(rows, row)
		}
		mdTable(b, append([]string{"code"}, mdCells(arms)...), "l"+strings.Repeat("r", len(arms)), rows)
		detailsClose(b)
	}

	detailsOpen(b, "Probes, cost and latency")
	if p := r.Probes; p != nil {
		fmt.Fprintf(b, "Probes: %d valid, %d invalid · invalid rejected %s · valid falsely rejected %s\n\n",
			p.ValidProbeCount, p.InvalidProbeCount, pct(p.InvalidRejectionPercent), pct(p.FalseRejectionPercent))
	} else {
		b.WriteString("Probes: not run\n\n")
	}
	rows = rows[:0]
	for _, a := range r.Arms {
		m := a.Value
		without := na
		if m.RecordsWithoutTokens != nil {
			without = strconv.Itoa(*m.RecordsWithoutTokens)
		}
		rows = append(rows, []string{mdCell(a.Key), count(m.InputTokens), count(m.OutputTokens), without, usd(m.TotalCostUSD), usd(m.CostPerSuccessUSD),
			ms(m.LatencyP50Ms), ms(m.LatencyP95Ms), pct(m.RecoveryRate), num(m.MeanRepairAttempts, 2)})
	}
	mdTable(b, []string{"arm", "input tokens", "output tokens", "records without tokens", "cost", "cost / success", "p50", "p95", "recovery", "mean repairs"}, "lrrrrrrrrr", rows)
	detailsClose(b)

	fails, total := r.failingRows(MarkdownListLimit)
	if total > 0 {
		detailsOpen(b, fmt.Sprintf("Failing cases (%d, by final success)", total))
		rows = rows[:0]
		for _, f := range fails {
			rows = append(rows, []string{mdCell(caseName(f.CaseID, f.Repeat)), mdCell(f.Arm), rowStatus(f),
				mdCell(strings.Join(f.Codes, ", ")), mdCell(strings.Join(f.FinalCodes, ", ")), mdCode(clip(strOr(f.Output, ""), maxCellRunes))})
		}
		mdTable(b, []string{"case", "arm", "status", "first codes", "final codes", "output"}, "llllll", rows)
		if total > MarkdownListLimit {
			fmt.Fprintf(b, "… and %d more; the HTML report's sample browser holds every row, as do --format json and --cases-out.\n\n", total-MarkdownListLimit)
		}
		detailsClose(b)
	}

	detailsOpen(b, "Inputs")
	rows = rows[:0]
	responses := 0
	for _, in := range r.Inputs {
		if in.Role == "responses" {
			if responses++; responses > MarkdownListLimit {
				continue
			}
		}
		rows = append(rows, []string{mdCell(in.Role), mdCode(in.Path), mdCode(in.SHA256)})
	}
	mdTable(b, []string{"role", "path", "sha256"}, "lll", rows)
	if more := responses - MarkdownListLimit; more > 0 {
		fmt.Fprintf(b, "… and %d more response files; the JSON report lists every one with its sha256.\n\n", more)
	}
	detailsClose(b)
}

// rowStatus says why a row failed.
func rowStatus(r Row) string {
	switch {
	case r.Missing:
		return "missing response"
	case r.ProviderError:
		return "provider error"
	case r.FinalSuccess:
		return "passed"
	}
	return "failed after " + contract.Plural(r.Attempts, "attempt", "attempts")
}

func mdCells(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = mdCell(x)
	}
	return out
}

func markdownCogLang(b *bytes.Buffer, name string, c *CogLangResult) {
	m := c.Maturity
	fmt.Fprintf(b, "## CogLang generation-eval: %s\n\n", mdCell(c.title()))
	fmt.Fprintf(b, "**ok: %s** · cases: %d · failing: %d · highest contiguous level: %s · blocked level: %s · next unevaluated: %s",
		yesNo(c.OK), c.CaseCount, c.FailureCaseCount, mdCell(m.HighestContiguousLevel),
		mdCell(strOr(m.BlockedLevel, "none")), mdCell(strOr(m.NextUnevaluatedLevel, "none")))
	if c.ScoringProfile != "" {
		fmt.Fprintf(b, " · profile: %s", mdCell(c.ScoringProfile))
	}
	if m := ModelsPhrase(c.models(), " "); m != "" {
		b.WriteString(" · " + mdCell(m))
	}
	b.WriteString("\n\n")

	s := c.Summary
	var rows [][]string
	rows = append(rows, cogRow("all", "ok: "+yesNo(s.OK), s))
	for _, l := range c.ladder() {
		if l.Summary == nil {
			rows = append(rows, []string{mdCell(l.Level), l.Status, "", "", "", "", "", "", ""})
			continue
		}
		rows = append(rows, cogRow(l.Level, l.Status, l.Summary))
	}
	mdTable(b, []string{"level", "status", "cases", "missing", "parse ok", "canonical ok", "valid", "head ok", "hallucinated"}, "llrrrrrrr", rows)
	fmt.Fprintf(b, "Maturity claim scope: %s · evaluation complete: %s\n\n", mdCell(m.MaturityClaimScope), yesNo(m.EvaluationComplete))

	if len(s.FailureCategoryCounts) > 0 {
		rows = rows[:0]
		for _, e := range s.FailureCategoryCounts {
			rows = append(rows, []string{mdCode(e.Key), strconv.Itoa(e.Value)})
		}
		mdTable(b, []string{"failure category", "cases"}, "lr", rows)
	}

	if len(c.PreflightSummary) > 0 {
		detailsOpen(b, "Preflight decisions")
		rows = rows[:0]
		for _, e := range c.PreflightSummary {
			rows = append(rows, []string{mdCode(e.Key), strconv.Itoa(e.Value)})
		}
		mdTable(b, []string{"decision", "cases"}, "lr", rows)
		detailsClose(b)
	}

	if fails, total := c.firstFailures(MarkdownListLimit); total > 0 {
		detailsOpen(b, fmt.Sprintf("Failing cases (%d)", total))
		rows = rows[:0]
		for _, f := range fails {
			out := ""
			if f.Case != nil {
				out = mdCode(clip(strOr(f.Case.Output, ""), maxCellRunes))
			}
			rows = append(rows, []string{mdCell(f.CaseID), mdCell(f.Level), mdCell(strings.Join(f.FailureCategories, ", ")),
				mdCell(clip(strings.Join(f.HallucinatedHeads, ", "), maxCellRunes)), mdCode(clip(strOr(f.ParseError, ""), maxCellRunes)), out})
		}
		mdTable(b, []string{"case", "level", "categories", "hallucinated heads", "parse error", "output"}, "llllll", rows)
		if total > MarkdownListLimit {
			fmt.Fprintf(b, "… and %d more; every one is in the JSON result and --format text.\n\n", total-MarkdownListLimit)
		}
		detailsClose(b)
	}

	if rf := c.ResponseFile; rf != nil {
		files := rf.AllFiles()
		detailsOpen(b, contract.Pick(len(files), "Response file", "Response files"))
		var rows [][]string
		for _, f := range files[:min(len(files), MarkdownListLimit)] {
			rows = append(rows, []string{mdCode(f.Path), mdCell(f.Shape), strconv.Itoa(f.Records), mdCode(f.SHA256)})
		}
		if len(rows) > 0 {
			mdTable(b, []string{"path", "shape", "records", "sha256"}, "llrl", rows)
		}
		if more := len(files) - MarkdownListLimit; more > 0 {
			fmt.Fprintf(b, "… and %d more response files; the JSON result lists every one with its sha256.\n\n", more)
		}
		fmt.Fprintf(b, "records read %d, accepted %d · duplicate ids: %s · unknown ids: %s\n\n",
			rf.RecordsRead, rf.RecordsAccepted, mdCell(someOf(rf.DuplicateCaseIDs)), mdCell(someOf(rf.UnknownCaseIDs)))
		if len(rf.Warnings) > 0 {
			mdWarnings(b, rf.Warnings, "result")
		}
		detailsClose(b)
	}
}

// mdWarnings lists warnings, each cut at 300 characters, the first
// MarkdownListLimit of them and how many more the JSON document (a report or
// a result) holds.
func mdWarnings(b *bytes.Buffer, ws []string, document string) {
	for i, w := range ws {
		if i == MarkdownListLimit {
			fmt.Fprintf(b, "- … and %d more warnings; the JSON %s holds them all.\n", len(ws)-MarkdownListLimit, document)
			break
		}
		b.WriteString("- " + mdCell(clip(w, 300)) + "\n")
	}
	b.WriteByte('\n')
}

// someOf lists ids as list does, the first MarkdownListLimit of them (in
// Markdown and in a CogLang JUnit suite's system-out).
func someOf(ids []string) string {
	if len(ids) <= MarkdownListLimit {
		return list(ids)
	}
	return fmt.Sprintf("%s and %d more in the JSON result", strings.Join(ids[:MarkdownListLimit], ", "), len(ids)-MarkdownListLimit)
}

func cogRow(level, status string, s *CogLangSummary) []string {
	return []string{mdCell(level), status, strconv.Itoa(s.CaseCount), strconv.Itoa(s.MissingOutputCount),
		ratio(s.ParseOKCount, s.CaseCount), ratio(s.CanonicalizeOKCount, s.CaseCount), ratio(s.ValidateOKCount, s.CaseCount),
		ratio(s.ExpectedTopLevelHeadOKCount, s.CaseCount), strconv.Itoa(s.HallucinatedOperatorCount)}
}
