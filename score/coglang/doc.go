// Package coglang scores CogLang generation-eval outputs: it tokenizes and parses
// M-expressions with the reference scorer's leniency, writes canonical text, checks
// the 49-head vocabulary and arities, finds hallucinated heads, makes the static
// preflight decision, and builds the per-case results, summaries and maturity block
// of a coglang-generation-eval-result/v0.1 document, byte-compatible with the
// reference Python scorer, followed by fbeval's additions (scoring_profile,
// preflight_summary, response_file).
//
// Scoring a fixture's own reference expressions:
//
//	fx := fixtures.DefaultCogLangFixture()
//	res := coglang.Score(fx, nil, coglang.Options{FixturePath: fixtures.CogLangDefaultPath})
//	res.WriteJSON(os.Stdout, coglang.ModeFull)
//	if !res.OK() {
//		os.Exit(1)
//	}
//
// Scoring response files, as `fbeval score coglang` does: ScoreFiles reads the
// fixture once, keeping a small slot per case, then reads the response files
// (JSONL, a JSON list or a batch object, as the reference's Python reads text),
// scores every record as it arrives on several goroutines, and keeps the last
// record per case id; the cases are read back from temporary files as the result
// is written, so memory stays flat in the number of cases:
//
//	src := fixtures.CogLangSource{Name: "fixture.json"}
//	res, files, err := coglang.ScoreFiles(src, []score.Source{{Name: "r.jsonl", R: f}}, score.Options{}, coglang.Options{})
//	if err != nil {
//		return err
//	}
//	defer res.Close()
//	if err := res.WriteJSON(os.Stdout, coglang.ModeFull); err != nil {
//		return err
//	}
//	if err := res.Err(); err != nil { // the cases could not be read back
//		return err
//	}
//
// A single expression:
//
//	var p coglang.Parser
//	e := p.Parse(`Equal[1, 1]`)
//	fmt.Println(e.Canonical()) // Equal[1, 1]
//
// Nothing here recurses on input: the parser, the canonical writer and the checks
// walk the tree with explicit stacks, and nesting deeper than ParseOptions.MaxDepth
// is a ParseError["nesting_too_deep", position] (an fbeval addition: the reference
// runs out of Python stack at about a thousand levels).
package coglang
