// Package score is fbeval's scoring engine: it joins response files to the request
// set a study rebuilds, judges every response with the suite's scorer
// (score/coglang, score/toolcall), and sums the results into reports: per-arm and
// per-subset metrics, paired effects (score/stats), probes, classification and
// gates. Reports are ordered JSON objects, identical byte for byte for the same
// study and response files.
//
//	plan, _ := export.PlanToolcall(study)
//	rep, _ := score.Toolcall(plan, []score.Source{{Name: "responses.jsonl", R: f}}, score.Options{})
//	out, _ := contract.Marshal(rep.Object(), contract.PythonIndent)
package score
