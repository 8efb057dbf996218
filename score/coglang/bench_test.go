package coglang

import (
	"fmt"
	"testing"

	"github.com/fbeval/fbeval/fixtures"
)

// BenchmarkCheckOutput measures the per-output hot path: parse, canonical text,
// validation and preflight.
func BenchmarkCheckOutput(b *testing.B) {
	fx := fixtures.DefaultCogLangFixture()
	outputs := make([]string, len(fx.Cases))
	bytes := 0
	for i, c := range fx.Cases {
		outputs[i] = c.ReferenceExpr
		bytes += len(c.ReferenceExpr)
	}
	var p Parser
	var c Checker
	var buf []byte
	b.SetBytes(int64(bytes / len(outputs)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e := p.Parse(outputs[i%len(outputs)])
		buf = e.AppendCanonical(buf[:0])
		c.Check(e)
	}
}

// BenchmarkScore100k scores 100,000 responses against a fixture of 100,000 cases
// built from the default fixture's references.
func BenchmarkScore100k(b *testing.B) {
	base := fixtures.DefaultCogLangFixture()
	const n = 100000
	fx := &fixtures.CogLangFixture{SchemaVersion: base.SchemaVersion, DefinedLevels: base.DefinedLevels}
	responses := make([]Response, n)
	for i := 0; i < n; i++ {
		c := base.Cases[i%len(base.Cases)]
		c.CaseID = fmt.Sprintf("%s-%06d", c.CaseID, i)
		fx.Cases = append(fx.Cases, c)
		out := c.ReferenceExpr
		responses[i] = Response{CaseID: c.CaseID, Output: &out}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res := Score(fx, responses, Options{AnswerSource: "bench"})
		if !res.OK() {
			b.Fatal("not ok")
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "responses/s")
}
