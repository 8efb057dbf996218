package report

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/fbeval/fbeval/contract"
)

// Kind says which saved report a Doc holds.
type Kind int

// The kinds of saved report fbeval renders.
const (
	KindToolcall Kind = iota + 1 // fbeval-report/v1, suite toolcall
	KindCogLang                  // coglang-generation-eval-result/v0.1
)

// Doc is one saved report, decoded. Exactly one of Toolcall and CogLang is set,
// as Kind says.
type Doc struct {
	Name     string // the file name it was read from, shown in titles
	Kind     Kind
	Toolcall *ToolcallReport
	CogLang  *CogLangResult
}

// Load decodes a saved report, detecting its kind from schema_version. Unknown keys
// are skipped so newer reports still render, but a known key holding the wrong JSON
// type, a duplicate key or invalid UTF-8 is an error. name is used in errors and
// titles.
func Load(name string, data []byte) (Doc, error) {
	var head struct {
		SchemaVersion string `json:"schema_version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return Doc{}, notAReport(name, data, err)
	}
	doc := Doc{Name: name}
	switch head.SchemaVersion {
	case contract.ReportV1:
		var r ToolcallReport
		if err := json.Unmarshal(data, &r); err != nil {
			return Doc{}, notAReport(name, data, err)
		}
		if r.Suite != contract.SuiteToolcall {
			return Doc{}, fmt.Errorf("%s: suite %q is not rendered from an %s report; want %q", at(name, data, "/suite"), r.Suite, contract.ReportV1, contract.SuiteToolcall)
		}
		if ptr, msg := r.check(); msg != "" {
			return Doc{}, fmt.Errorf("%s: %s", at(name, data, ptr), msg)
		}
		doc.Kind, doc.Toolcall = KindToolcall, &r
	case contract.CogLangResult:
		var r CogLangResult
		if err := json.Unmarshal(data, &r); err != nil {
			return Doc{}, notAReport(name, data, err)
		}
		if r.Summary == nil || r.Maturity == nil {
			return Doc{}, fmt.Errorf("%s:1:1: result has no summary or maturity block", name)
		}
		doc.Kind, doc.CogLang = KindCogLang, &r
	case "":
		return Doc{}, fmt.Errorf("%s:1:1: expected an fbeval report (%s or %s), found no schema_version: write one with fbeval score --format json", name, contract.ReportV1, contract.CogLangResult)
	default:
		return Doc{}, fmt.Errorf("%s:1:1: expected an fbeval report, found %s%s", name, head.SchemaVersion, whatToDo(head.SchemaVersion))
	}
	return doc, nil
}

// whatToDo says what to do with a contract file that is not a report.
func whatToDo(version string) string {
	switch version {
	case contract.RequestV1, contract.RequestBatchV1, contract.CogLangRequest, contract.CogLangRequestBatch:
		return ": this is a request file: run it through a runner, score the responses with fbeval score --format json, and render that report"
	case contract.ResponseV1, contract.ResponseBatchV1, contract.CogLangResponse, contract.CogLangResponseBatch:
		return ": this is a response file: score it with fbeval score --format json, and render that report"
	}
	return fmt.Sprintf(" (want %s or %s): write one with fbeval score --format json", contract.ReportV1, contract.CogLangResult)
}

// notAReport turns a decoding error into one line at the file:line:col of the
// problem that says the file is not a report, and what it looks like.
func notAReport(name string, data []byte, err error) error {
	off := int64(-1)
	var se *jsontext.SyntacticError
	var me *json.SemanticError
	switch {
	case errors.As(err, &se):
		off = se.ByteOffset
	case errors.As(err, &me):
		off = me.ByteOffset
	}
	line, col := 1, 1
	if off >= 0 && off <= int64(len(data)) {
		line = 1 + bytes.Count(data[:off], []byte("\n"))
		col = 1 + int(off) - (bytes.LastIndexByte(data[:off], '\n') + 1)
	}
	// JSON lines: the first value is a record of some contract file
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	first, derr := dec.ReadValue()
	first = first.Clone() // PeekKind may reuse the buffer
	if derr == nil && dec.PeekKind() != 0 {
		var rec struct {
			SchemaVersion string `json:"schema_version"`
		}
		json.Unmarshal(first, &rec)
		if rec.SchemaVersion != "" {
			return fmt.Errorf("%s:%d:%d: expected an fbeval report (one JSON document), found JSON lines of %s%s", name, line, col, rec.SchemaVersion, whatToDo(rec.SchemaVersion))
		}
		return fmt.Errorf("%s:%d:%d: expected an fbeval report (one JSON document), found JSON lines: write a report with fbeval score --format json", name, line, col)
	}
	if derr == nil && first.Kind() != '{' {
		return fmt.Errorf("%s:1:1: expected an fbeval report (a JSON object), found %s: write a report with fbeval score --format json", name, kindName(first.Kind()))
	}
	if me != nil && me.JSONPointer != "" {
		p := string(me.JSONPointer)
		return fmt.Errorf("%s:%d:%d: expected an fbeval report: %q must be %s", name, line, col, p[strings.LastIndexByte(p, '/')+1:], kindWord(me))
	}
	return fmt.Errorf("%s:%d:%d: expected an fbeval report: %s", name, line, col, oneLine(err))
}

func kindName(k jsontext.Kind) string {
	switch k {
	case '[':
		return "a JSON list"
	case '"':
		return "a JSON string"
	case '0':
		return "a JSON number"
	case '{':
		return "a JSON object"
	}
	return "a JSON literal"
}

// kindWord names what a report field holds, from a decoding error.
func kindWord(me *json.SemanticError) string {
	msg := me.Error()
	if i := strings.Index(msg, ": want "); i >= 0 {
		want, got, _ := strings.Cut(msg[i+len(": want "):], ", got ")
		switch {
		case me.JSONKind != 0:
			return want + ", not " + kindName(me.JSONKind)
		case len(got) == 1:
			return want + ", not " + kindName(jsontext.Kind(got[0]))
		case got != "":
			return want + ", not a JSON " + got
		}
		return want
	}
	return "of another type (" + oneLine(me) + ")"
}

// oneLine keeps decoder errors to one line, as every fbeval error is.
func oneLine(err error) string {
	return string(bytes.ReplaceAll([]byte(err.Error()), []byte("\n"), []byte(" ")))
}

// Entry is one member of an Ordered object.
type Entry[T any] struct {
	Key   string
	Value T
}

// Ordered is a JSON object decoded with its member order kept, because reports
// write arms, domains and effects in a meaningful order.
type Ordered[T any] []Entry[T]

// Get returns the value under key and whether it is there.
func (o Ordered[T]) Get(key string) (T, bool) {
	for _, e := range o {
		if e.Key == key {
			return e.Value, true
		}
	}
	var zero T
	return zero, false
}

// Keys returns the keys in document order.
func (o Ordered[T]) Keys() []string {
	keys := make([]string, len(o))
	for i, e := range o {
		keys[i] = e.Key
	}
	return keys
}

// UnmarshalJSONFrom decodes an object member by member; null is an empty object.
func (o *Ordered[T]) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	*o = nil
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	switch tok.Kind() {
	case 'n':
		return nil
	case '{':
	default:
		return fmt.Errorf("want an object, got %s", tok.Kind())
	}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		// A token is valid only until the next read, so the key is copied first.
		key := tok.String()
		var v T
		if err := json.UnmarshalDecode(dec, &v); err != nil {
			return err
		}
		*o = append(*o, Entry[T]{Key: key, Value: v})
	}
	_, err = dec.ReadToken()
	return err
}

// ToolcallReport is an fbeval-report/v1 report of the toolcall suite.
type ToolcallReport struct {
	SchemaVersion  string           `json:"schema_version"`
	Suite          string           `json:"suite"`
	Study          contract.Study   `json:"study"`
	Inputs         []Input          `json:"inputs"`
	Complete       bool             `json:"complete"`
	ExpectedRows   int              `json:"expected_rows"`
	Arms           Ordered[Metrics] `json:"arms"`
	Subsets        Subsets          `json:"subsets"`
	Effects        Ordered[Effect]  `json:"effects"`
	Probes         *Probes          `json:"probes"`
	Classification []string         `json:"classification"`
	CustomFitness  *float64         `json:"custom_fitness_percent"`
	Gates          []Gate           `json:"gates"`
	Warnings       []string         `json:"warnings"`
	Rows           []Row            `json:"rows"`
	// Cases holds each case's prompt and expected answer; reports written before
	// it existed have none.
	Cases []CaseInfo `json:"cases"`
}

// CaseInfo is what a case asked and what it expected.
type CaseInfo struct {
	CaseID   string         `json:"case_id"`
	Prompt   string         `json:"prompt"`
	Expected jsontext.Value `json:"expected"`
}

// AttemptResult is one answered attempt of a row.
type AttemptResult struct {
	Attempt int            `json:"attempt"`
	Output  *string        `json:"output"`
	Errors  []AttemptError `json:"errors"`
}

// AttemptError is one reason an attempt failed.
type AttemptError struct {
	Code    string `json:"code"`
	Path    string `json:"path"`
	Message string `json:"message"`
}

// check rejects reports whose parts contradict each other in ways a renderer
// would otherwise show as nonsense. It returns the JSON Pointer of the value at
// fault and what is wrong, or "" when nothing is.
func (r *ToolcallReport) check() (ptr, msg string) {
	if len(r.Arms) == 0 {
		return "/arms", "report has no arms; want at least one of no_schema, minimal_schema, input_schema"
	}
	for i, row := range r.Rows {
		if _, ok := r.Arms.Get(row.Arm); !ok {
			return fmt.Sprintf("/rows/%d/arm", i), fmt.Sprintf("row %d: arm %q is not among the report's arms", i+1, row.Arm)
		}
		if row.CaseID == "" {
			return fmt.Sprintf("/rows/%d", i), fmt.Sprintf("row %d: no case_id", i+1)
		}
	}
	return "", ""
}

// at returns "name:line:col" of the value a JSON Pointer names in data.
func at(name string, data []byte, ptr string) string {
	off := contract.PointerOffset(data, ptr)
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := 1 + int(off) - (bytes.LastIndexByte(data[:off], '\n') + 1)
	return fmt.Sprintf("%s:%d:%d", name, line, col)
}

// Input is one input file of a report with its hash.
type Input struct {
	Role       string     `json:"role"`
	Path       string     `json:"path"`
	SHA256     string     `json:"sha256"`
	Lines      *int       `json:"lines"`
	Records    *int       `json:"records"`
	Accepted   *int       `json:"accepted"`
	Duplicates *int       `json:"duplicates"`
	Unknown    *int       `json:"unknown"`
	Rejected   []Rejected `json:"rejected"`
	// RejectedNotListed counts rejected records the list leaves out.
	RejectedNotListed int `json:"rejected_not_listed,omitempty"`
}

// Rejected is an input line that was not scored, and why.
type Rejected struct {
	Line   int    `json:"line"`
	Reason string `json:"reason"`
}

// Metrics are one arm's figures, for all rows or a subset. Rates are percent; a nil
// pointer is a figure that does not exist (zero denominator, unknown tokens).
type Metrics struct {
	Decoding           string      `json:"decoding,omitempty"` // arms only, not subsets
	Models             []string    `json:"models,omitempty"`   // arms only: the models the answers name
	Runs               int         `json:"runs"`
	ProviderErrors     int         `json:"provider_errors"`
	MissingResponses   int         `json:"missing_responses"`
	FirstPassSuccess   *float64    `json:"first_pass_success_percent"`
	FirstPassWilson95  *[2]float64 `json:"first_pass_wilson95"`
	FinalSuccess       *float64    `json:"final_success_percent"`
	SemanticAccuracy   *float64    `json:"semantic_accuracy_percent"`
	CallSchemaValidity *float64    `json:"call_schema_validity_percent"`
	SemanticPrecision  *float64    `json:"semantic_precision_among_valid_calls_percent"`
	RetryRate          *float64    `json:"retry_rate_percent"`
	RecoveryRate       *float64    `json:"recovery_rate_percent"`
	MeanRepairAttempts *float64    `json:"mean_repair_attempts"`
	InputTokens        *float64    `json:"input_tokens"`
	OutputTokens       *float64    `json:"output_tokens"`
	// RecordsWithoutTokens is absent from reports written before it existed.
	RecordsWithoutTokens *int         `json:"records_without_tokens"`
	TotalCostUSD         *float64     `json:"total_cost_usd"`
	CostPerSuccessUSD    *float64     `json:"cost_per_successful_task_usd"`
	LatencyP50Ms         *float64     `json:"latency_p50_ms"`
	LatencyP95Ms         *float64     `json:"latency_p95_ms"`
	ErrorCounts          Ordered[int] `json:"error_counts"`
}

// Subsets are the per-domain and per-category metrics of every arm.
type Subsets struct {
	Domain   Ordered[Ordered[Metrics]] `json:"domain"`
	Category Ordered[Ordered[Metrics]] `json:"category"`
}

// Effect is a paired comparison of two arms as the report writes it.
type Effect struct {
	PairedRuns          int          `json:"paired_runs"`
	IndependentClusters int          `json:"independent_clusters"`
	BaselineSuccess     *float64     `json:"baseline_success_percent"`
	TreatmentSuccess    *float64     `json:"treatment_success_percent"`
	AbsoluteUplift      *float64     `json:"absolute_uplift_points"`
	RelativeImprovement *float64     `json:"relative_improvement_percent"`
	ErrorReduction      *float64     `json:"error_reduction_percent"`
	CI95                *[2]float64  `json:"ci95"`
	McNemarP            *float64     `json:"mcnemar_exact_p"`
	DiscordantWins      int          `json:"discordant_wins"`
	DiscordantLosses    int          `json:"discordant_losses"`
	Label               string       `json:"effect"`
	Bootstrap           BootstrapRun `json:"bootstrap"`
}

// BootstrapRun records how an effect's interval was drawn.
type BootstrapRun struct {
	Resamples int     `json:"resamples"`
	Seed      uint64  `json:"seed"`
	Stream    *uint64 `json:"stream"`
	Algorithm string  `json:"algorithm"`
}

// Probes are the mutation-probe figures of the candidate schema.
type Probes struct {
	ValidProbeCount         int      `json:"valid_probe_count"`
	InvalidProbeCount       int      `json:"invalid_probe_count"`
	InvalidRejectionPercent *float64 `json:"invalid_rejection_percent"`
	FalseRejectionPercent   *float64 `json:"false_rejection_percent"`
}

// Gate is one study gate and whether it held.
type Gate struct {
	Gate   string   `json:"gate"`
	Actual *float64 `json:"actual"`
	Passed bool     `json:"passed"`
}

// Row is one (case, arm, repeat) run.
type Row struct {
	CaseID           string   `json:"case_id"`
	Domain           string   `json:"domain"`
	Category         string   `json:"category"`
	Cluster          string   `json:"cluster"`
	Arm              string   `json:"arm"`
	Repeat           int      `json:"repeat"`
	FirstPassSuccess bool     `json:"first_pass_success"`
	FinalSuccess     bool     `json:"final_success"`
	Attempts         int      `json:"attempts"`
	ProviderError    bool     `json:"provider_error"`
	Missing          bool     `json:"missing"`
	Codes            []string `json:"codes"`
	FinalCodes       []string `json:"final_codes"`
	Output           *string  `json:"output"`
	// AttemptResults lists every answered attempt; older reports have none.
	AttemptResults []AttemptResult `json:"attempt_results"`
}

// CogLangResult is a coglang-generation-eval-result/v0.1 result with fbeval's
// optional additions.
type CogLangResult struct {
	SchemaVersion        string                  `json:"schema_version"`
	Tool                 string                  `json:"tool"`
	FixtureSchemaVersion string                  `json:"fixture_schema_version"`
	AnswerSource         string                  `json:"answer_source"`
	OK                   bool                    `json:"ok"`
	CaseCount            int                     `json:"case_count"`
	Summary              *CogLangSummary         `json:"summary"`
	LevelSummary         Ordered[CogLangSummary] `json:"level_summary"`
	Maturity             *Maturity               `json:"maturity"`
	FailureCaseCount     int                     `json:"failure_case_count"`
	FailureCases         []FailureCase           `json:"failure_cases"`
	// Cases is nil for a summary-only result and holds only failing cases for a
	// failures-only one.
	Cases            []CogLangCase `json:"cases"`
	FixturePath      string        `json:"fixture_path"`
	ScoringProfile   string        `json:"scoring_profile"`
	PreflightSummary Ordered[int]  `json:"preflight_summary"`
	ResponseFile     *ResponseFile `json:"response_file"`
}

// CogLangSummary holds the counts and rates of all cases or of one level.
// FailureCategoryCounts is only in the overall summary.
type CogLangSummary struct {
	CaseCount                   int          `json:"case_count"`
	MissingOutputCount          int          `json:"missing_output_count"`
	ParseOKCount                int          `json:"parse_ok_count"`
	ParseOKRate                 float64      `json:"parse_ok_rate"`
	CanonicalizeOKCount         int          `json:"canonicalize_ok_count"`
	CanonicalizeOKRate          float64      `json:"canonicalize_ok_rate"`
	ValidateOKCount             int          `json:"validate_ok_count"`
	ValidateOKRate              float64      `json:"validate_ok_rate"`
	ExpectedTopLevelHeadOKCount int          `json:"expected_top_level_head_ok_count"`
	ExpectedTopLevelHeadOKRate  float64      `json:"expected_top_level_head_ok_rate"`
	HallucinatedOperatorCount   int          `json:"hallucinated_operator_count"`
	OK                          bool         `json:"ok"`
	FailureCategoryCounts       Ordered[int] `json:"failure_category_counts"`
}

// Maturity is the level ladder of a CogLang result.
type Maturity struct {
	DefinedLevels                   []string `json:"defined_levels"`
	EvaluatedLevels                 []string `json:"evaluated_levels"`
	UnevaluatedLevels               []string `json:"unevaluated_levels"`
	PassedLevels                    []string `json:"passed_levels"`
	ContiguousPassedLevels          []string `json:"contiguous_passed_levels"`
	HighestContiguousLevel          string   `json:"highest_contiguous_level"`
	HighestContiguousEvaluatedLevel string   `json:"highest_contiguous_evaluated_level"`
	NextUnevaluatedLevel            *string  `json:"next_unevaluated_level"`
	BlockedLevel                    *string  `json:"blocked_level"`
	EvaluationComplete              bool     `json:"evaluation_complete"`
	MaturityClaimScope              string   `json:"maturity_claim_scope"`
}

// FailureCase is one failing case as the result's failure_cases lists it.
type FailureCase struct {
	CaseID            string   `json:"case_id"`
	Level             string   `json:"level"`
	FailureCategories []string `json:"failure_categories"`
	HallucinatedHeads []string `json:"hallucinated_heads"`
	ParseError        *string  `json:"parse_error"`
}

// CogLangCase is one scored case.
type CogLangCase struct {
	CaseID                 string   `json:"case_id"`
	Level                  string   `json:"level"`
	Prompt                 string   `json:"prompt"`
	Output                 *string  `json:"output"`
	ParseOK                bool     `json:"parse_ok"`
	CanonicalizeOK         bool     `json:"canonicalize_ok"`
	ValidateOK             bool     `json:"validate_ok"`
	ExpectedTopLevelHeadOK bool     `json:"expected_top_level_head_ok"`
	HallucinatedHeads      []string `json:"hallucinated_heads"`
	FailureCategories      []string `json:"failure_categories"`
	PreflightDecision      *string  `json:"preflight_decision"`
	Canonical              *string  `json:"canonical"`
	ParseError             *string  `json:"parse_error"`
}

// ResponseFile describes the response file a CogLang result was scored from.
type ResponseFile struct {
	Path             string   `json:"path"`
	SHA256           string   `json:"sha256"`
	Shape            string   `json:"shape"`
	RecordsRead      int      `json:"records_read"`
	RecordsAccepted  int      `json:"records_accepted"`
	DuplicateCaseIDs []string `json:"duplicate_case_ids"`
	UnknownCaseIDs   []string `json:"unknown_case_ids"`
	Warnings         []string `json:"warnings"`
}

var errNoKind = errors.New("report: document has no kind; build it with Load")
