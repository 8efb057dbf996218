// Package runner holds what the fbeval runner binaries share: reading request files,
// writing response records of either family, the command-line parsing convention,
// and the engine that asks a provider for every request with bounded concurrency,
// a rate limit, retries with backoff, timeouts, a request budget and resume.
//
// A runner checks the whole request file once, then reads it again one request at a
// time, asks, and appends records, so its memory does not grow with the file:
//
//	reqs, err := runner.OpenRequests("requests.jsonl", f, nil) // checks every record
//	defer reqs.Close()
//	err = reqs.Each(func(it *runner.Item) error {
//		rec, err := runner.AppendRecord(nil, &it.Req, &runner.Result{Output: &text})
//		os.Stdout.Write(rec) // one JSON object and a newline
//		return err
//	})
//
// Output is deterministic for a given set of answers: records are written in request
// order, each flushed as soon as every earlier request has its record.
package runner
