// Package study scores a toolcall study: it lays out the rows a plan yields
// (case x arm x repeat, with an attempt per repair round), joins response files to
// them, judges every response with the toolcall judge (score/toolcall), and sums
// the rows into a report: per-arm and per-subset metrics, paired effects
// (score/stats), probes, classification and gates. Reports are identical byte for
// byte for the same study and response files, whatever the number of workers.
//
//	plan, _ := export.PlanToolcall(study, relations.Vocabulary) // the relation keywords a dataset's schemas may use
//	run, _ := study.New(plan)
//	_, err := run.Read(score.Source{Name: "responses.jsonl", R: f}, score.Options{})
//	rep, _ := run.Report()
//	err = report.WriteJSON(os.Stdout, rep.Doc()) // the typed report model, rows written one at a time
package study
