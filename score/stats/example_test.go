package stats_test

import (
	"fmt"

	"github.com/fbeval/fbeval/score/stats"
)

func ExampleWilson() {
	lo, hi, ok := stats.Wilson(5, 10)
	fmt.Printf("%.6f %.6f %v\n", lo, hi, ok)
	_, _, ok = stats.Wilson(0, 0)
	fmt.Println(ok)
	// Output:
	// 23.659309 76.340691 true
	// false
}

func ExamplePaired() {
	var pairs []stats.Pair
	for i := range 40 {
		pairs = append(pairs, stats.Pair{
			Cluster:   fmt.Sprintf("case-%02d", i),
			Baseline:  i%2 == 0, // half the cases succeed without the schema
			Treatment: i%5 != 0, // four in five with it
		})
	}
	e := stats.Paired(pairs, stats.Options{Name: "input_schema vs no_schema", Seed: 1})
	fmt.Printf("B=%.1f S=%.1f uplift=%.1f ci=[%.1f, %.1f] %s\n", *e.BaselineSuccess,
		*e.TreatmentSuccess, *e.AbsoluteUplift, e.CI95[0], e.CI95[1], e.Label)
	fmt.Printf("wins=%d losses=%d p=%.4f\n", e.DiscordantWins, e.DiscordantLosses, *e.McNemarP)
	// Output:
	// B=50.0 S=80.0 uplift=30.0 ci=[10.0, 50.0] improvement
	// wins=16 losses=4 p=0.0118
}

func ExampleClassify() {
	v, spv, fps, fr, irr := 98.0, 95.0, 92.0, 0.0, 79.0
	fmt.Println(stats.Classify(stats.ClassifyInput{CallValidity: &v, SPV: &spv, FPS: &fps, FR: &fr, IRR: &irr}))
	// Output:
	// [LLM-friendly under-constrained-on-probes]
}
