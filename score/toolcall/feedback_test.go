package toolcall

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/fixtures/fixturetest"
)

func codesOf(errs []Error) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Code)
	}
	return out
}

func TestPublicFeedback(t *testing.T) {
	j := mustJudge(t, hotelsTool(), "")
	badCall := call("search_hotels", `{"city":"Goa","checkIn":"2027-01-13","checkOut":"2027-01-11","guests":9,"maxNightlyPrice":6000}`)
	tests := []struct {
		name     string
		expected string
		context  string
		output   string
		public   []string
	}{
		{"json", call("search_hotels", hotelArgs), `{}`, "```json\n{}\n```", []string{CodeJSONInvalid}},
		{"envelope", call("search_hotels", hotelArgs), `{}`, `{"action":"call_tool"}`,
			[]string{CodeSchemaInvalid, CodeSchemaInvalid, CodeSchemaInvalid, CodeSchemaInvalid}},
		{"with confirmed state", call("search_hotels", hotelArgs), hotelState, badCall,
			[]string{CodeSchemaInvalid, CodeCandidateSchemaInvalid, CodeStateMismatch, CodeStateMismatch, CodeStateMismatch, CodeStateMismatch}},
		{"without confirmed state", call("search_hotels", hotelArgs), `{}`, badCall,
			[]string{CodeSchemaInvalid, CodeCandidateSchemaInvalid}},
		{"wrong action hidden", askCity, `{}`, call("search_hotels", hotelArgs), nil},
		{"control hidden", askTwo, `{}`, askCity, nil},
	}
	for _, tt := range tests {
		c := mustCase(t, "", tt.expected, tt.context)
		r := j.Score(tt.output, c)
		got := r.PublicFeedback(c)
		if !slices.Equal(codesOf(got), tt.public) {
			t.Errorf("%s: public codes %v (of %v), want %v", tt.name, codesOf(got), codesOf(r.Errors), tt.public)
		}
		text := FeedbackText(got)
		for _, hidden := range []string{"GROUND_TRUTH", "WRONG_ACTION", "CONTROL", "POLICY"} {
			if strings.Contains(text, hidden) {
				t.Errorf("%s: feedback shows %s:\n%s", tt.name, hidden, text)
			}
		}
		if codesOf(got) != nil && strings.Contains(text, CodeCandidateSchemaInvalid) {
			// The candidate is the reference here: its errors are all said already.
			t.Errorf("%s: feedback repeats the reference errors as candidate errors:\n%s", tt.name, text)
		}
		if tt.context == `{}` && strings.Contains(text, "Delhi") {
			t.Errorf("%s: feedback leaks the hidden answer:\n%s", tt.name, text)
		}
	}
	if FeedbackText(nil) != "" {
		t.Error("FeedbackText(nil) is not empty")
	}
}

func TestFeedbackTextGolden(t *testing.T) {
	j := mustJudge(t, hotelsTool(), strings.Replace(hotelsSchema, `"minLength": 1`, `"minLength": 4`, 1))
	c := mustCase(t, "", call("search_hotels", hotelArgs), hotelState)
	outputs := []string{
		"Sure:\n" + call("search_hotels", hotelArgs),
		`{"action":"call_tool","tool":"search_hotels","arguments":[],"reason":1,"extra":true}`,
		call("search_hotels", `{"city":"Goa","checkIn":"2027-02-30","checkOut":"2027-01-11","guests":9,"hotel/name":"x"}`),
	}
	var sb strings.Builder
	for _, out := range outputs {
		r := j.Score(out, c)
		sb.WriteString("## output\n")
		sb.WriteString(out)
		sb.WriteString("\n## feedback\n")
		sb.WriteString(FeedbackText(r.PublicFeedback(c)))
	}
	fixturetest.Golden(t, filepath.Join("testdata", "feedback.golden"), []byte(sb.String()))
}
