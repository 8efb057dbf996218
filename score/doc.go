// Package score holds what fbeval's two suites share when they score response
// files: sources and input accounting (every line read is accepted or rejected
// with its reason, every file hashed), recognising a file that is not the study's
// responses, and gates (thresholds on report fields that decide the exit code);
// records are judged on several goroutines by contract/pipeline, which applies
// their results in input order. Each suite owns its judge, driver and
// metrics: score/toolcall/study for the toolcall suite (with the judge in
// score/toolcall), and score/coglang.
package score
