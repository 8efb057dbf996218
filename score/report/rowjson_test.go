package report

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/fbeval/fbeval/contract"
)

// randValues builds random values of every type with a hand-written AppendJSON
// method: nil, empty and full lists, nil and set pointers, and strings that need
// every kind of escaping.
type randValues struct{ r *rand.Rand }

var stringPieces = []string{"", "a", "case_01", "\"", "\\", "\n", "\r\t\b\f", "\x00", "\x1f", "\x7f", "é", "日本",
	"\xff", "\xed\xa0\x80", "\xed\xbf\xbf", "\u2028", "<>&", "/", "😀", "\xf0\x9f"}

func (g randValues) str() string {
	var b []byte
	for range g.r.IntN(4) {
		b = append(b, stringPieces[g.r.IntN(len(stringPieces))]...)
	}
	return string(b)
}

func (g randValues) strPtr() *string {
	if g.r.IntN(3) == 0 {
		return nil
	}
	s := g.str()
	return &s
}

func (g randValues) strs() []string {
	switch g.r.IntN(4) {
	case 0:
		return nil
	case 1:
		return []string{}
	}
	out := make([]string, 1+g.r.IntN(3))
	for i := range out {
		out[i] = g.str()
	}
	return out
}

func (g randValues) num() int { return g.r.IntN(2001) - 1000 }

func (g randValues) text() jsontext.Value {
	switch g.r.IntN(4) {
	case 0:
		return nil
	case 1:
		return jsontext.Value{}
	case 2:
		return jsontext.Value(`{"a": [1, "é"],  "b":null}`)
	}
	return jsontext.Value("null")
}

func randList[T any](g randValues, item func() T) []T {
	switch g.r.IntN(4) {
	case 0:
		return nil
	case 1:
		return []T{}
	}
	out := make([]T, 1+g.r.IntN(3))
	for i := range out {
		out[i] = item()
	}
	return out
}

func (g randValues) errorInfo(depth int) ErrorInfo {
	e := ErrorInfo{Code: g.str(), Path: g.strPtr(), Keyword: g.strPtr(), Message: g.str(), Expected: g.text(), Actual: g.text()}
	if depth < 2 {
		e.Details = randList(g, func() ErrorInfo { return g.errorInfo(depth + 1) })
	}
	return e
}

// row is a random row; often its attempts quote its final output again, as
// a failing row's last attempt does (the writer quotes it once).
func (g randValues) row() Row {
	r := g.randRow()
	if r.Output != nil {
		for i := range r.AttemptResults {
			switch g.r.IntN(3) {
			case 0:
				r.AttemptResults[i].Output = r.Output
			case 1:
				out := *r.Output
				r.AttemptResults[i].Output = &out
			}
		}
	}
	return r
}

func (g randValues) randRow() Row {
	return Row{CaseID: g.str(), Domain: g.str(), Category: g.str(), Cluster: g.str(), Arm: g.str(), Repeat: g.num(),
		FirstPassSuccess: g.r.IntN(2) == 0, FinalSuccess: g.r.IntN(2) == 0, Attempts: g.num(), ProviderError: g.r.IntN(2) == 0,
		Missing: g.r.IntN(2) == 0, Codes: g.strs(), FinalCodes: g.strs(), Output: g.strPtr(),
		AttemptResults: randList(g, func() AttemptResult {
			return AttemptResult{Attempt: g.num(), Output: g.strPtr(), Errors: randList(g, func() AttemptError {
				return AttemptError{Code: g.str(), Path: g.str(), Message: g.str()}
			})}
		})}
}

func (g randValues) caseResult() CaseResult {
	return CaseResult{SchemaVersion: g.str(), CaseID: g.str(), Domain: g.str(), Category: g.str(), Arm: g.str(), Repeat: g.num(),
		RequestIDs: g.strs(), FirstPassSuccess: g.r.IntN(2) == 0, FinalSuccess: g.r.IntN(2) == 0, ProviderError: g.r.IntN(2) == 0,
		Missing: g.r.IntN(2) == 0, MissingRequestID: g.str(), Attempts: randList(g, func() CaseAttempt {
			return CaseAttempt{Attempt: g.num(), Success: g.r.IntN(2) == 0, Codes: g.strs(),
				Errors: randList(g, func() ErrorInfo { return g.errorInfo(0) })}
		})}
}

func (g randValues) cogLangCase() CogLangCase {
	return CogLangCase{CaseID: g.str(), Level: g.str(), Prompt: g.str(), Output: g.strPtr(), ParseOK: g.r.IntN(2) == 0,
		CanonicalizeOK: g.r.IntN(2) == 0, ValidateOK: g.r.IntN(2) == 0, ExpectedTopLevelHeadOK: g.r.IntN(2) == 0,
		HallucinatedHeads: g.strs(), FailureCategories: g.strs(), PreflightDecision: g.strPtr(), Canonical: g.strPtr(), ParseError: g.strPtr()}
}

func (g randValues) failureCase() FailureCase {
	return FailureCase{CaseID: g.str(), Level: g.str(), FailureCategories: g.strs(), HallucinatedHeads: g.strs(), ParseError: g.strPtr()}
}

// checkSameAsReflection writes one random value of each type by its AppendJSON
// method and by the reflection writer, in every style and at several depths, and
// reports the first difference.
func checkSameAsReflection(t *testing.T, seed uint64) {
	g := randValues{rand.New(rand.NewPCG(seed, 0))}
	row, cr, cc, fc := g.row(), g.caseResult(), g.cogLangCase(), g.failureCase()
	values := []any{&row, &row.AttemptResults, &cr, &cr.Attempts, &cc, &fc, []Row{row, row}, []CaseResult{cr}, []CogLangCase{cc}, []FailureCase{fc}}
	if len(row.AttemptResults) > 0 {
		values = append(values, &row.AttemptResults[0], &row.AttemptResults[0].Errors)
	}
	ei := g.errorInfo(0)
	values = append(values, &ei, []ErrorInfo{ei})
	for _, s := range []contract.Style{contract.Compact, contract.PythonLine, contract.PythonIndent} {
		for _, depth := range []int{0, 1, 3} {
			for _, v := range values {
				got, err := contract.AppendJSON([]byte("x"), v, s, depth)
				if err != nil {
					t.Fatal(err)
				}
				want, err := contract.AppendJSONReflect([]byte("x"), v, s, depth)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("seed %d, %T, style %q, depth %d:\n got %s\nwant %s", seed, v, s.Indent+s.Sep, depth, got, want)
				}
			}
		}
	}
}

// TestAppendJSONMatchesReflection holds the hand-written writers to the bytes of
// the reflection writer over many random values.
func TestAppendJSONMatchesReflection(t *testing.T) {
	for seed := range uint64(500) {
		checkSameAsReflection(t, seed)
	}
}

func FuzzAppendJSONMatchesReflection(f *testing.F) {
	for _, seed := range []uint64{0, 1, 7, 1 << 40} {
		f.Add(seed)
	}
	f.Fuzz(checkSameAsReflection)
}

// benchRow and benchResult are a failing row and its case result as a garbled
// answer gives them.
func benchValues() (*Row, *CaseResult) {
	out := `{"action":"call_tool","tool":"search_flights","arguments":{"origin":"DEL","destination":"BOM","departureDate":"2025-03-14","travellers":1}}`
	path, kw := "/arguments/travellers", "required"
	row := &Row{CaseID: "flights-missing-004", Domain: "flights", Category: "missing", Cluster: "flights-k02", Arm: "no_schema", Repeat: 7,
		Attempts: 1, Codes: []string{"WRONG_ACTION", "GROUND_TRUTH_MISMATCH"}, FinalCodes: []string{"WRONG_ACTION", "GROUND_TRUTH_MISMATCH"}, Output: &out,
		AttemptResults: []AttemptResult{{Attempt: 1, Output: &out, Errors: []AttemptError{
			{Code: "WRONG_ACTION", Path: "/action", Message: "expected ask_user, got call_tool"},
			{Code: "GROUND_TRUTH_MISMATCH", Path: "/arguments/travellers", Message: "expected 2, got 1"}}}}}
	cr := &CaseResult{SchemaVersion: "fbeval-case-result/v1", CaseID: row.CaseID, Domain: row.Domain, Category: row.Category, Arm: row.Arm,
		Repeat: row.Repeat, RequestIDs: []string{"toolcall/flights-missing-004/no_schema/r7/a0"},
		Attempts: []CaseAttempt{{Attempt: 1, Codes: row.Codes, Errors: []ErrorInfo{
			{Code: "WRONG_ACTION", Path: &path, Keyword: &kw, Message: "expected ask_user, got call_tool", Expected: jsontext.Value(`"ask_user"`), Actual: jsontext.Value(`"call_tool"`)},
			{Code: "GROUND_TRUTH_MISMATCH", Path: &path, Message: "expected 2, got 1", Expected: jsontext.Value(`2`), Actual: jsontext.Value(`1`)}}}}}
	return row, cr
}

// BenchmarkAppendRow writes one row indented (as a report's rows are) and one
// case result compact (as --cases-out writes them), by the hand-written methods
// and by the reflection writer they replace.
func BenchmarkAppendRow(b *testing.B) {
	row, cr := benchValues()
	for _, w := range []struct {
		name   string
		append func([]byte, any, contract.Style, int) ([]byte, error)
	}{{"method", contract.AppendJSON}, {"reflect", contract.AppendJSONReflect}} {
		b.Run("v=row/writer="+w.name, func(b *testing.B) {
			var buf []byte
			for b.Loop() {
				buf, _ = w.append(buf[:0], row, contract.PythonIndent, 2)
			}
			b.SetBytes(int64(len(buf)))
		})
		b.Run("v=caseresult/writer="+w.name, func(b *testing.B) {
			var buf []byte
			for b.Loop() {
				buf, _ = w.append(buf[:0], cr, contract.Compact, 0)
			}
			b.SetBytes(int64(len(buf)))
		})
	}
}
