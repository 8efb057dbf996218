// Package runner holds what the fbeval runner binaries share: reading request files,
// writing response records of either family, the command-line parsing convention,
// and the engine that asks a provider for every request with bounded concurrency,
// a rate limit, retries with backoff, timeouts, a request budget and resume.
//
// A runner reads requests, asks, and appends records:
//
//	items, err := runner.ReadRequests("requests.jsonl", f)
//	// ...
//	rec, err := runner.AppendRecord(nil, &items[0].Req, &runner.Result{Output: &text})
//	os.Stdout.Write(rec) // one JSON object and a newline
//
// Output is deterministic for a given set of answers: records are written in request
// order, each flushed as soon as every earlier request has its record.
package runner
