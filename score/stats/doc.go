// Package stats holds the statistics behind fbeval's toolcall reports: Wilson score
// intervals for success rates, linear-interpolation quantiles for latency and
// bootstrap intervals, the paired clustered bootstrap and exact McNemar test that
// compare two prompt arms, and the classification, custom-fitness and cross-model
// rules that summarise a schema.
//
// Everything here is deterministic: clusters are visited in sorted order and the
// bootstrap draws from a seeded PCG generator whose seeds are recorded in the result,
// so the same pairs and seed always give the same bytes.
//
// A paired effect from per-(case, repeat) first-pass outcomes:
//
//	pairs := []stats.Pair{
//		{Cluster: "flights-complete-0", Baseline: false, Treatment: true},
//		{Cluster: "flights-complete-1", Baseline: true, Treatment: true},
//	}
//	e := stats.Paired(pairs, stats.Options{Name: "input_schema vs no_schema", Seed: 7})
//	out, _ := contract.Marshal(e, contract.PythonIndent) // the report's keys, in its order
//
// A caller that already knows each case's cluster counts its pairs into Counts
// (a Tally per cluster, Counts.Add for each pair) and calls PairedCounts, with
// the same result and no pair held.
//
// docs/statistics.md explains every number in plain language.
package stats
