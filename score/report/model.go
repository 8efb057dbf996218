package report

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"iter"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/fbeval/fbeval/contract"
)

// The report model: one set of types for what fbeval scores, writes and reads back.
// Scoring fills them, contract's writer writes them (struct order is key order;
// floats are written as Python writes them, as the CogLang reference needs), Load
// reads saved files back into them with go-json-experiment/json, and every
// renderer takes them. A field's json tag is its one definition: omitzero marks a
// member that is left out when it has nothing to say (a nil slice, a nil
// pointer), while an empty non-nil slice is written as [].

// Entry is one member of an Ordered object.
type Entry[T any] struct {
	Key   string
	Value T
}

// Ordered is a JSON object with its member order kept, because reports write arms,
// domains and effects in a meaningful order. A nil Ordered is a missing object
// (left out under omitzero, else written as {}).
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

// AppendJSON writes the members in order (contract.JSONAppender).
func (o Ordered[T]) AppendJSON(dst []byte, s contract.Style, depth int) ([]byte, error) {
	obj := make(contract.Object, len(o))
	for i, e := range o {
		obj[i] = contract.Member{Key: e.Key, Value: e.Value}
	}
	return contract.AppendJSON(dst, obj, s, depth)
}

// UnmarshalJSONFrom decodes an object member by member; null is a nil Ordered, {}
// an empty one.
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
	*o = Ordered[T]{}
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
	Study          contract.Study   `json:"study"` // written in its published order (contract.Study.Object)
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
	// Unmeasured is set when every answer read is empty, an API's message
	// around the text or encoded twice, or every record read is a provider
	// error: the figures measure the runner, not
	// the model, and the run was not ok (a warning says which). Reports
	// written before it existed have none.
	Unmeasured bool `json:"unmeasured,omitzero"`
	// Rows are the report's rows. When RowSource is set it yields them instead,
	// one at a time as they are written, and Rows is nil: a report need not hold
	// its rows.
	Rows      []Row          `json:"rows"`
	RowSource iter.Seq[*Row] `json:"-"`
	// RowRanges, when set beside RowSource, yields the same rows a range at a
	// time on several goroutines at once; the JSON report is written from it.
	RowRanges *Ranges[Row] `json:"-"`
	// BriefRowSource, when set beside RowSource, yields the same rows without
	// their attempt results (AttemptResults nil), more quickly: what a reader
	// of the rows' ids, verdicts, codes and last outputs walks (EachBriefRow).
	// Whoever sets RowSource sets this one to yield the same rows, or nil.
	BriefRowSource iter.Seq[*Row] `json:"-"`
	// Cases holds each case's prompt and expected answer; reports written before
	// it existed have none.
	Cases []CaseInfo `json:"cases"`
	// junitCounts, when set beside RowSource, are each arm's JUnit counts of
	// the rows it reads, kept by Open from the reading that checked them
	// (OpenOptions.JUnitCounts).
	junitCounts map[string]*JUnitSuite
}

// Input is one input file of a report with its hash; a response file also has
// the accounting of its lines (nil for other inputs): read = accepted + rejected,
// and how many accepted records repeated an earlier id or named none.
type Input struct {
	Role       string     `json:"role"`
	Path       string     `json:"path"`
	SHA256     string     `json:"sha256"`
	Shape      string     `json:"shape,omitzero"`
	Lines      *int       `json:"lines,omitzero"`
	Records    *int       `json:"records,omitzero"`
	Accepted   *int       `json:"accepted,omitzero"`
	Duplicates *int       `json:"duplicates,omitzero"`
	Unknown    *int       `json:"unknown,omitzero"`
	Rejected   []Rejected `json:"rejected,omitzero"`
	// RejectedNotListed counts rejected records the list leaves out.
	RejectedNotListed int `json:"rejected_not_listed,omitzero"`
}

// Rejected is an input line that was not scored, and why.
type Rejected struct {
	Line   int    `json:"line"`
	Reason string `json:"reason"` // the whole one-line error, with file:line:col
}

// Metrics are one arm's figures, for all rows or a subset. Rates are percent; a nil
// pointer is a figure that does not exist (zero denominator, unknown tokens).
type Metrics struct {
	Decoding           string      `json:"decoding,omitzero"` // arms only, not subsets
	Models             []string    `json:"models,omitzero"`   // arms only: the models the answers name
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
	InputTokens        *int64      `json:"input_tokens"`
	OutputTokens       *int64      `json:"output_tokens"`
	// RecordsWithoutTokens is nil in reports written before it existed.
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

// Bootstrap records how an interval was drawn, so it can be reproduced.
type Bootstrap struct {
	Resamples int    `json:"resamples"`
	Seed      uint64 `json:"seed"`      // first PCG seed: the study seed
	Stream    uint64 `json:"-"`         // second PCG seed: FNV-1a 64 of the comparison's name (named by Algorithm)
	Algorithm string `json:"algorithm"` // names the generator and both seeds
}

// Effect is the paired comparison of a treatment arm with a baseline arm, as
// score/stats.Paired computes it. Rates are in percent, differences in percentage
// points; a nil pointer is a value that does not exist for these pairs (written as
// null).
type Effect struct {
	PairedRuns          int `json:"paired_runs"`
	IndependentClusters int `json:"independent_clusters"`
	// BaselineSuccess and TreatmentSuccess are 100 B and 100 S, where B and S are
	// the means over clusters of each cluster's success rate.
	BaselineSuccess  *float64 `json:"baseline_success_percent"`
	TreatmentSuccess *float64 `json:"treatment_success_percent"`
	// AbsoluteUplift is 100 (S - B) points.
	AbsoluteUplift *float64 `json:"absolute_uplift_points"`
	// RelativeImprovement is 100 (S - B) / B; nil when B = 0.
	RelativeImprovement *float64 `json:"relative_improvement_percent"`
	// ErrorReduction is 100 (S - B) / (1 - B), the share of baseline failures
	// removed; nil when B = 1.
	ErrorReduction *float64 `json:"error_reduction_percent"`
	// CI95 is the percentile bootstrap 95% interval of AbsoluteUplift.
	CI95 *[2]float64 `json:"ci95"`
	// McNemarP is the exact two-sided McNemar p-value; nil unless every cluster
	// holds exactly one pair.
	McNemarP *float64 `json:"mcnemar_exact_p"`
	// DiscordantWins counts pairs the treatment got right and the baseline wrong;
	// DiscordantLosses the reverse.
	DiscordantWins   int `json:"discordant_wins"`
	DiscordantLosses int `json:"discordant_losses"`
	// Label is LabelImprovement when the interval lies above 0, LabelHarm when it
	// lies below 0, else LabelInconclusive.
	Label     string    `json:"effect"`
	Bootstrap Bootstrap `json:"bootstrap"`
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
	// Output is the last answered attempt's output of a row that did not finally
	// succeed; nil otherwise.
	Output *string `json:"output,omitzero"`
	// AttemptResults lists every answered attempt; older reports have none.
	AttemptResults []AttemptResult `json:"attempt_results"`
}

// AttemptResult is one answered attempt of a row.
type AttemptResult struct {
	Attempt int            `json:"attempt"`
	Output  *string        `json:"output"` // nil for a provider error
	Errors  []AttemptError `json:"errors"`
}

// AttemptError is one reason an attempt failed.
type AttemptError struct {
	Code    string `json:"code"`
	Path    string `json:"path"`
	Message string `json:"message"`
}

// CaseInfo is what a case asked and what it expected.
type CaseInfo struct {
	CaseID   string         `json:"case_id"`
	Prompt   string         `json:"prompt"`
	Expected jsontext.Value `json:"expected"` // compact JSON text, written as it is; nil is null
}

// CaseResult is one fbeval-case-result/v1 record: a (case, arm, repeat) with every
// attempt's verdict and errors in full, as --cases-out and --format jsonl write it.
type CaseResult struct {
	SchemaVersion    string   `json:"schema_version"`
	CaseID           string   `json:"case_id"`
	Domain           string   `json:"domain"`
	Category         string   `json:"category"`
	Cluster          string   `json:"cluster"` // the case's cluster, the unit of the paired statistics
	Arm              string   `json:"arm"`
	Repeat           int      `json:"repeat"`
	RequestIDs       []string `json:"request_ids"`
	FirstPassSuccess bool     `json:"first_pass_success"`
	FinalSuccess     bool     `json:"final_success"`
	ProviderError    bool     `json:"provider_error"`
	Missing          bool     `json:"missing"`
	// MissingRequestID is, in a missing row, the id of the first-attempt
	// request no response answers: the one to ask again.
	MissingRequestID string        `json:"missing_request_id,omitzero"`
	Attempts         []CaseAttempt `json:"attempts"`
}

// CaseAttempt is one answered attempt of a case result.
type CaseAttempt struct {
	Attempt int         `json:"attempt"`
	Success bool        `json:"success"`
	Codes   []string    `json:"codes"`
	Errors  []ErrorInfo `json:"errors"`
}

// ErrorInfo is one error in full: a judge error has every member (expected and
// actual are JSON text, "null" when there is none); a provider error has only a
// code and a message.
type ErrorInfo struct {
	Code     string         `json:"code"`
	Path     *string        `json:"path,omitzero"`
	Keyword  *string        `json:"keyword,omitzero"`
	Message  string         `json:"message"`
	Expected jsontext.Value `json:"expected,omitzero"`
	Actual   jsontext.Value `json:"actual,omitzero"`
	Details  []ErrorInfo    `json:"details,omitzero"`
}

// CogLangResult is a coglang-generation-eval-result/v0.1 result with fbeval's
// additions (scoring_profile, preflight_summary, response_file).
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
	Cases []CogLangCase `json:"cases,omitzero"`
	// CaseSource and FailureSource, when set, yield the cases and the failure
	// cases one at a time as they are written, in place of Cases and
	// FailureCases (which are then nil), so a result need not hold them.
	CaseSource    iter.Seq[*CogLangCase] `json:"-"`
	FailureSource iter.Seq[*FailureCase] `json:"-"`
	// CaseRanges and FailureRanges, when set beside CaseSource and
	// FailureSource, yield the same lists a range at a time on several
	// goroutines at once; the JSON result is written from them.
	CaseRanges    *Ranges[CogLangCase] `json:"-"`
	FailureRanges *Ranges[FailureCase] `json:"-"`
	// BriefCaseSource, when set beside CaseSource, yields the same cases with
	// only their CaseID, Level and FailureCategories (the rest zero), more
	// quickly: what a reader of the cases' ids, levels and verdicts walks (a
	// JUnit report's count of its tests). Whoever sets CaseSource sets this
	// one to yield the same cases, or nil.
	BriefCaseSource  iter.Seq[*CogLangCase] `json:"-"`
	FixturePath      string                 `json:"fixture_path"`
	ScoringProfile   string                 `json:"scoring_profile"`
	PreflightSummary Ordered[int]           `json:"preflight_summary"`
	ResponseFile     *ResponseFile          `json:"response_file,omitzero"`
	// casesOf, when set beside CaseSource, yields the same cases, each whole
	// whose id want accepts (or whose id cannot be read alone) and the others
	// with only their CaseID, read without decoding the rest.
	casesOf func(want func(id []byte) bool) iter.Seq[*CogLangCase]
	// junitKept, when set beside the sources, is what Open kept of the lists
	// they read for a JUnit report's count of its tests (see counted).
	junitKept *junitKept
}

// CogLangSummary holds the counts and rates of all cases or of one level.
// FailureCategoryCounts is only in the overall summary (nil in a level's).
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
	FailureCategoryCounts       Ordered[int] `json:"failure_category_counts,omitzero"`
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

// brief is the case as BriefCaseSource yields it.
func (c *CogLangCase) brief() CogLangCase {
	return CogLangCase{CaseID: c.CaseID, Level: c.Level, FailureCategories: c.FailureCategories}
}

// ResponseFile describes the response files a CogLang result was scored from.
type ResponseFile struct {
	// Path, SHA256 and Shape name the one file of results written before Files.
	Path   string             `json:"path,omitzero"`
	SHA256 string             `json:"sha256,omitzero"`
	Shape  string             `json:"shape,omitzero"`
	Files  []ResponseFileInfo `json:"files,omitzero"`
	// Models are the models whose records scored a case (their "model"),
	// sorted; results written before it existed have none.
	Models               []string `json:"models,omitzero"`
	RecordsRead          int      `json:"records_read"`
	RecordsAccepted      int      `json:"records_accepted"`
	ProviderErrorRecords int      `json:"provider_error_records"`
	DuplicateCaseIDs     []string `json:"duplicate_case_ids"`
	UnknownCaseIDs       []string `json:"unknown_case_ids"`
	ProviderErrorCaseIDs []string `json:"provider_error_case_ids"`
	// UnknownNotListed counts records whose unknown case id the list leaves out.
	UnknownNotListed int      `json:"unknown_records_not_listed,omitzero"`
	Warnings         []string `json:"warnings"`
}

// AllFiles lists the response files: Files, or the one file a result written
// before Files names.
func (rf *ResponseFile) AllFiles() []ResponseFileInfo {
	if len(rf.Files) > 0 || rf.Path == "" {
		return rf.Files
	}
	return []ResponseFileInfo{{Path: rf.Path, SHA256: rf.SHA256, Shape: rf.Shape, Records: rf.RecordsRead}}
}

// ResponseFileInfo is one response file of a CogLang result.
type ResponseFileInfo struct {
	Path    string `json:"path"`
	SHA256  string `json:"sha256"`
	Shape   string `json:"shape"`
	Lines   int    `json:"lines"`
	Records int    `json:"records"`
}

// WriteJSON writes the report held by doc as its saved JSON: indented as Python's
// json.dumps(indent=2), with a trailing newline, but for a toolcall report's rows,
// each of which is compact JSON on a line of its own (grep finds a row whole, and a
// diff of two reports shows the rows that changed). Rows and case lists are
// written one element at a time, from their sources when they are set, so the
// output is never held whole.
func WriteJSON(w io.Writer, doc Doc) error {
	bw := bufioWriter(w)
	var err error
	switch doc.Kind {
	case KindToolcall:
		r := doc.Toolcall
		head := *r
		head.Rows, head.RowSource, head.RowRanges, head.BriefRowSource = nil, nil, nil, nil
		err = writeSpliced(bw, &head, splice{key: "rows", each: r.EachRow(), write: rangesWrite(r.RowRanges, true), line: true})
	case KindCogLang:
		r := doc.CogLang
		head := *r
		head.FailureCases, head.FailureSource, head.FailureRanges = nil, nil, nil
		lists := []splice{{key: "failure_cases", each: r.EachFailure(), write: rangesWrite(r.FailureRanges, false)}}
		if r.Cases != nil || r.CaseSource != nil {
			head.Cases, head.CaseSource, head.CaseRanges, head.BriefCaseSource, head.casesOf = []CogLangCase{}, nil, nil, nil, nil
			lists = append(lists, splice{key: "cases", each: r.EachCase(), write: rangesWrite(r.CaseRanges, false)})
		}
		err = writeSpliced(bw, &head, lists...)
	default:
		return errNoKind
	}
	if err != nil {
		return err
	}
	if err := bw.WriteByte('\n'); err != nil {
		return err
	}
	return bw.Flush()
}

// WriteSplicedJSON writes head as WriteJSON writes a report, with the items of
// the top-level list member key written one at a time where head holds an empty
// list under key.
func WriteSplicedJSON(w io.Writer, head any, key string, items iter.Seq[any]) error {
	bw := bufioWriter(w)
	if err := writeSpliced(bw, head, splice{key: key, each: items}); err != nil {
		return err
	}
	if err := bw.WriteByte('\n'); err != nil {
		return err
	}
	return bw.Flush()
}

// splice is a top-level list member of a document and the elements to write
// where its empty list stands.
type splice struct {
	key  string
	each iter.Seq[any]
	// write, when set, writes the elements in place of each, every one as
	// appendListItem does, and returns how many it wrote
	write func(*bufio.Writer) (int, error)
	// line writes each element compact on a line of its own, not indented
	line bool
}

// rangesWrite is the write of a splice whose elements l builds, or nil without l;
// line is the splice's.
func rangesWrite[T any](l *Ranges[T], line bool) func(*bufio.Writer) (int, error) {
	if l == nil {
		return nil
	}
	return func(w *bufio.Writer) (int, error) {
		return l.N, writeRanges(w, l, func(dst []byte, i int, v *T) ([]byte, error) {
			return appendListItem(dst, i, v, line)
		})
	}
}

// appendListItem appends element i of a spliced list: its separator, its line
// and its JSON, indented one level deeper than the list or, with line, compact.
func appendListItem(dst []byte, i int, v any, line bool) ([]byte, error) {
	if i == 0 {
		dst = append(dst, '[')
	} else {
		dst = append(dst, ',')
	}
	dst = append(dst, "\n    "...)
	if line {
		return contract.AppendJSON(dst, v, contract.Compact, 0)
	}
	return contract.AppendJSON(dst, v, contract.PythonIndent, 2)
}

// writeSpliced writes head (whose spliced members are empty lists) with each
// splice's elements written one at a time into its list. Only a top-level member
// sits one indent deep after a newline, and strings hold no raw newline, so each
// hole is found exactly.
func writeSpliced(w *bufio.Writer, head any, lists ...splice) error {
	data, err := contract.Marshal(head, contract.PythonIndent)
	if err != nil {
		return err
	}
	var buf []byte
	for _, l := range lists {
		hole := []byte("\n  \"" + l.key + "\": []")
		i := bytes.Index(data, hole)
		if i < 0 {
			return fmt.Errorf("report: no %s list to write", l.key)
		}
		w.Write(data[:i+len(hole)-2])
		n := 0
		if l.write != nil {
			if n, err = l.write(w); err != nil {
				return err
			}
		} else {
			for v := range l.each {
				if buf, err = appendListItem(buf[:0], n, v, l.line); err != nil {
					return err
				}
				n++
				w.Write(buf)
			}
		}
		if n == 0 {
			w.WriteString("[]")
		} else {
			w.WriteString("\n  ]")
		}
		data = data[i+len(hole):]
	}
	_, err = w.Write(data)
	return err
}

// anySeq turns a sequence of one element type into a sequence of any.
func anySeq[T any](seq iter.Seq[T]) iter.Seq[any] {
	return func(yield func(any) bool) {
		for v := range seq {
			if !yield(v) {
				return
			}
		}
	}
}

// sliceSeq yields a pointer to each element of list.
func sliceSeq[T any](list []T) iter.Seq[*T] {
	return func(yield func(*T) bool) {
		for i := range list {
			if !yield(&list[i]) {
				return
			}
		}
	}
}

// EachRow yields the report's rows, from RowSource when it is set.
func (r *ToolcallReport) EachRow() iter.Seq[any] {
	if r.RowSource != nil {
		return anySeq(r.RowSource)
	}
	return anySeq(sliceSeq(r.Rows))
}

// EachBriefRow yields the report's rows for a reader that needs no attempt
// results: from BriefRowSource, without them, when it is set beside RowSource
// and no Rows are held, else as EachRow yields them (AttemptResults may be set
// or not).
func (r *ToolcallReport) EachBriefRow() iter.Seq[*Row] {
	if r.BriefRowSource != nil && r.RowSource != nil && r.Rows == nil {
		return r.BriefRowSource
	}
	return r.rows()
}

// EachCase yields the result's cases, from CaseSource when it is set.
func (c *CogLangResult) EachCase() iter.Seq[any] {
	if c.CaseSource != nil {
		return anySeq(c.CaseSource)
	}
	return anySeq(sliceSeq(c.Cases))
}

// EachFailure yields the result's failure cases, from FailureSource when it is set.
func (c *CogLangResult) EachFailure() iter.Seq[any] {
	if c.FailureSource != nil {
		return anySeq(c.FailureSource)
	}
	return anySeq(sliceSeq(c.FailureCases))
}

// held returns doc with every list a source yields collected, for the renderers
// that read them more than once. A source may reuse the element it yields, so
// each is copied.
func (d Doc) held() Doc {
	switch {
	case d.Toolcall != nil && d.Toolcall.RowSource != nil:
		r := *d.Toolcall
		r.Rows = collect(r.RowSource)
		r.RowSource, r.BriefRowSource = nil, nil
		d.Toolcall = &r
	case d.CogLang != nil && (d.CogLang.CaseSource != nil || d.CogLang.FailureSource != nil):
		c := *d.CogLang
		if c.CaseSource != nil {
			c.Cases = collect(c.CaseSource)
		}
		if c.FailureSource != nil {
			c.FailureCases = collect(c.FailureSource)
		}
		c.CaseSource, c.FailureSource, c.BriefCaseSource, c.casesOf = nil, nil, nil, nil
		d.CogLang = &c
	}
	return d
}

func collect[T any](seq iter.Seq[*T]) []T {
	out := []T{}
	for v := range seq {
		out = append(out, *v)
	}
	return out
}

// WriteCaseResultRanges writes case results as JSON lines
// (fbeval-case-result/v1), built a range at a time on several goroutines at once
// and written in order.
func WriteCaseResultRanges(w io.Writer, results *Ranges[CaseResult]) error {
	bw := bufioWriter(w)
	err := writeRanges(bw, results, func(dst []byte, _ int, r *CaseResult) ([]byte, error) {
		dst, err := contract.AppendJSON(dst, r, contract.Compact, 0)
		return append(dst, '\n'), err
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

func bufioWriter(w io.Writer) *bufio.Writer { return bufio.NewWriterSize(w, 64<<10) }

// Comparison is an fbeval-compare/v1 document: two toolcall reports of one study
// compared arm by arm (fbeval compare --format json).
type Comparison struct {
	SchemaVersion string                 `json:"schema_version"`
	A             ComparisonSide         `json:"a"`
	B             ComparisonSide         `json:"b"`
	Study         contract.Study         `json:"study"` // written in its published order (contract.Study.Object)
	GapDefinition string                 `json:"gap_definition"`
	Arms          Ordered[ComparisonArm] `json:"arms"`
	CustomFitness ComparisonFitness      `json:"custom_fitness_percent"`
	Flips         []Flip                 `json:"flips"`
}

// ComparisonSide names one of the compared reports.
type ComparisonSide struct {
	Label           string   `json:"label"`
	Path            string   `json:"path"`
	StudyName       string   `json:"study_name"`
	ResponsesSHA256 []string `json:"responses_sha256"`
	Warnings        []string `json:"warnings"` // the report's own
}

// ComparisonArm is one arm's cross-model figures.
type ComparisonArm struct {
	FirstPassSuccessA *float64 `json:"a_first_pass_success_percent"`
	FirstPassSuccessB *float64 `json:"b_first_pass_success_percent"`
	Gap               *float64 `json:"gap_points"`
	ModelSensitivity  *float64 `json:"model_sensitivity"`
	ModelSensitive    bool     `json:"model_sensitive"`
	Stability         *float64 `json:"stability_percent"`
	StableRows        int      `json:"stable_rows"`
	Rows              int      `json:"rows"`
	RightOnlyInA      int      `json:"right_only_in_a"`
	RightOnlyInB      int      `json:"right_only_in_b"`
	PairedBvsA        Effect   `json:"paired_b_vs_a"`
	Winner            *string  `json:"winner"` // the label of the side the paired interval favours; nil when it holds zero
	// WinnerSide is that side, "a" or "b" (labels are the user's, and may
	// be alike); nil with Winner
	WinnerSide *string `json:"winner_side"`
}

// ComparisonFitness is the custom fitness of each side and what it means.
type ComparisonFitness struct {
	A          *float64 `json:"a"`
	B          *float64 `json:"b"`
	Definition string   `json:"definition"`
}

// Flip is a (case, repeat) of one arm whose first-pass outcome differs between
// the compared reports.
type Flip struct {
	Arm               string   `json:"arm"`
	CaseID            string   `json:"case_id"`
	Repeat            int      `json:"repeat"`
	Domain            string   `json:"domain"`
	Category          string   `json:"category"`
	FirstPassSuccessA bool     `json:"a_first_pass_success"`
	FirstPassSuccessB bool     `json:"b_first_pass_success"`
	CodesA            []string `json:"a_codes"`
	CodesB            []string `json:"b_codes"`
}
