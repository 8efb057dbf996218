// Package toolcall scores one generated tool call exactly, the way the toolcall suite
// defines it (HESchema's judge, run offline): strict JSON, the envelope, the fixed
// reference schema of the tool's arguments, the candidate schema under test, the
// confirmed state, the ground truth and the tool's policies, with a code for every
// failure and the public part of them for repair turns. It also runs the model-free
// mutation probes of a candidate schema.
//
// A judge is built once per (tool, candidate schema) and a case once per dataset case;
// both are then used for every output:
//
//	j, err := toolcall.NewJudge(tool, nil) // nil: the candidate is the reference
//	if err != nil { ... }
//	c, err := toolcall.PrepareCase(datasetCase)
//	if err != nil { ... }
//	r := j.Score(`{"action":"refuse","tool":null,"arguments":{},"missingFields":[],"reason":"no"}`, c)
//	if !r.Success {
//		repair := toolcall.FeedbackText(r.PublicFeedback(c))
//		...
//	}
//
// For many outputs, RecordScanner reads plain response records in one pass without
// allocating (contract.DecodeResponse takes the rest) and Judge.ScoreBytes judges an
// output in a buffer the caller reuses; a Judge is safe for concurrent use. Where
// most results are thrown away (later records replace them), Judge.Quick tells a
// clean output from the rest at a fraction of the cost, and Score is needed only for
// the outputs that are kept and not clean:
//
//	r, ok := j.Quick(buf, c)
//	if !ok {
//		r = j.Score(string(buf), c) // errors and messages
//	}
//
// Numbers are read as Python's json module reads them (an integer literal is an exact
// integer of any size, anything else a float64) and compared with typed equality:
// 1 != 1.0, true != 1, 1.50 == 1.5, -0.0 != 0.0. Schemas never reach outside their
// own document.
package toolcall
