package export

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/contract/usage"
	"github.com/fbeval/fbeval/fixtures"
	"github.com/go-json-experiment/json"
)

// Overrides are command-line flags that take precedence over study fields. Nil or
// empty fields leave the study as it is.
type Overrides struct {
	Dataset        string
	Domains        []string
	Categories     []string
	Limit          *int
	Arms           []string
	Repeats        *int
	Seed           *int64
	Repairs        *int
	Schema         string // the input_schema arm: a variant name or a file
	MinimalSchema  string // the minimal_schema arm: a variant name or a file
	Decoding       string
	InputPrice     *float64
	OutputPrice    *float64
	Gates          []string
	PromptTemplate string
	Strict         bool
}

// LoadStudy returns a built-in study by name, or reads a study file.
func LoadStudy(arg string) (contract.Study, error) {
	if s, ok := fixtures.BuiltinStudy(arg); ok {
		return s, nil
	}
	data, err := contract.ReadFile(arg)
	if err != nil {
		if os.IsNotExist(err) && !strings.ContainsAny(arg, "/.\\") {
			return contract.Study{}, &contract.InputError{Kind: contract.ErrUsage, Msg: fmt.Sprintf("unknown study %q: use %s, or a study file", arg, strings.Join(fixtures.StudyNames(), ", ")) + usage.Suggest(arg, fixtures.StudyNames())}
		}
		return contract.Study{}, readError(arg, "study", err)
	}
	return ParseStudy(arg, data)
}

// readError is the error of a file path, holding what, that could not be
// read: at 1:1 where its first bytes are why (UTF-16 text, compressed data).
func readError(path, what string, err error) *contract.InputError {
	out := &contract.InputError{Kind: contract.ErrRead, File: path, Msg: "cannot read " + what + ": " + pathErr(err)}
	if ie, ok := err.(*contract.InputError); ok && ie.Kind == contract.ErrSyntax {
		// what its first bytes are (UTF-16 text, compressed data, a NUL)
		out.Line, out.Col = max(ie.Line, 1), max(ie.Col, 1)
	}
	return out
}

func pathErr(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	if ie, ok := err.(*contract.InputError); ok {
		return ie.Msg
	}
	return err.Error()
}

// ParseStudy parses an fbeval-study/v1 file strictly: unknown fields, duplicate
// keys and wrong types are errors at their line and column.
func ParseStudy(name string, data []byte) (contract.Study, error) {
	var s contract.Study
	// a UTF-8 byte order mark, which Notepad and Windows PowerShell's UTF8
	// encoding write: the study is what follows it (its identity is the
	// parsed study's, not the file's bytes)
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	rec := &contract.Record{File: name, Line: 1, Col: 1, Raw: data}
	if len(bytes.TrimSpace(data)) == 0 {
		return s, rec.Errorf(0, "the study file is empty: a study file is one JSON object (fbeval study init prints one to edit)").Of(contract.ErrWrongFile)
	}
	if v := contract.VersionOf(data); v == contract.CogLangFixture {
		return s, rec.Errorf(0, "this is a CogLang fixture (%s), not a study: give it to the coglang study as --fixture %s", v, name).Of(contract.ErrWrongFile)
	} else if v != contract.StudyV1 && contract.FileKind(v) != "" {
		// another file fbeval reads or writes, given where the study goes
		return s, rec.Errorf(0, "this is %s (%s), not a study: name a built-in study (fbeval fixtures list) or a study file (%s; fbeval study init prints one)", contract.FileKind(v), v, contract.StudyV1).Of(contract.ErrWrongFile)
	}
	if v := contract.VersionOf(data); v == "" {
		if what, way := contract.Foreign(data); what != "" {
			// a schema, HESchema's report or config, a provider's reply
			return s, rec.Errorf(0, "this is %s, not a study: %s", what, way).Of(contract.ErrWrongFile)
		}
	}
	if err := json.Unmarshal(data, &s, json.RejectUnknownMembers(true)); err != nil {
		return s, contract.DecodeError(rec, err)
	}
	if s.SchemaVersion != contract.StudyV1 {
		// at the member, where the file has one (the study's first line
		// is its brace)
		return s, rec.Errorf(max(contract.PointerOffset(data, "/schema_version"), 0), "schema_version must be %q, got %q%s", contract.StudyV1, s.SchemaVersion, contract.OtherVersion(s.SchemaVersion, contract.StudyV1)).Of(contract.ErrVersion)
	}
	given, _ := contract.TopLevel(data)
	if ptr, msg := checkStudyFile(&s, given); msg != "" {
		return s, rec.Errorf(contract.PointerOffset(data, ptr), "study: %s", msg)
	}
	if s.Prices != nil {
		// one price of the two, or none of a toolcall study's: taken as 0,
		// every cost figure too low ({} says nothing in a CogLang study,
		// which has no prices, as a tool writing every field writes it)
		in, out := contract.PointerOffset(data, "/prices/input_per_million_usd"), contract.PointerOffset(data, "/prices/output_per_million_usd")
		if (in == 0) != (out == 0) || in == 0 && s.Suite != contract.SuiteCogLang {
			missing := "output_per_million_usd"
			switch {
			case in == 0 && out == 0:
				missing = "input_per_million_usd and output_per_million_usd are"
			case in == 0:
				missing = "input_per_million_usd is"
			default:
				missing += " is"
			}
			return s, rec.Errorf(contract.PointerOffset(data, "/prices"), "study: prices: %s missing: give both prices, USD per million tokens (0 where those tokens cost nothing), or prices null for no cost figures", missing)
		}
	}
	s.Source = rec
	return s, nil
}

// otherSuiteField names a field a study file sets that its suite has no use
// for, and its JSON Pointer (a value that says nothing, 0, [] or a CogLang
// study's one repeat, is let be): a CogLang study is its fixture's cases, each
// asked once, so its arms, schemas, filter, repeats, seed, repairs, decoding,
// prices and prompt template would be left unused (as the same flags are
// refused); a toolcall study has no strict profile.
func otherSuiteField(s *contract.Study) (ptr, field string) {
	if s.Suite == contract.SuiteToolcall {
		if s.Strict {
			return "/strict", "strict"
		}
		return "", ""
	}
	for _, f := range []struct {
		set  bool
		name string
	}{
		{len(s.Arms) > 0, "arms"}, {len(s.Schemas) > 0, "schemas"},
		{len(s.Filter.Domains)+len(s.Filter.Categories) > 0 || s.Filter.Limit != 0, "filter"},
		{s.Repeats > 1, "repeats"}, {s.Seed != 0, "seed"}, {s.Repairs != 0, "repairs"},
		{s.Decoding != "", "decoding"}, {s.Prices != nil && *s.Prices != (contract.Prices{}), "prices"}, {s.PromptTemplate != "", "prompt_template"},
	} {
		if f.set {
			return "/" + f.name, f.name
		}
	}
	return "", ""
}

// checkStudyFile checks the ranges of the values a study file gives, so that an
// error names the value's line and column; Resolve checks them again once flags
// have overridden them. It returns the JSON Pointer of the first bad value and
// what is wrong with it.
func checkStudyFile(s *contract.Study, given map[string]bool) (ptr, msg string) {
	switch s.Suite {
	case contract.SuiteCogLang, contract.SuiteToolcall:
	default:
		return "/suite", fmt.Sprintf("suite must be %q or %q, got %q%s", contract.SuiteCogLang, contract.SuiteToolcall, s.Suite, usage.Suggest(s.Suite, []string{contract.SuiteCogLang, contract.SuiteToolcall}))
	}
	if s.Suite == contract.SuiteCogLang && len(s.Gates) > 0 {
		return "/gates", "gates are for toolcall studies; a CogLang result's ok decides the exit code: remove \"gates\" from the study"
	}
	if ptr, field := otherSuiteField(s); field != "" {
		if s.Suite == contract.SuiteToolcall {
			return ptr, "strict is for coglang studies (the strict CogLang profile), and toolcall scoring is strict already: remove it"
		}
		return ptr, field + " is for toolcall studies: a CogLang study is its fixture's cases, each asked once (its fields: dataset, strict, max_tokens, temperature): remove it"
	}
	if msg := fixtures.UnknownBuiltin(s.Dataset); msg != "" {
		return "/dataset", msg
	}
	switch {
	case s.Suite == contract.SuiteCogLang && s.Dataset == fixtures.ToolcallDatasetPath:
		return "/dataset", fmt.Sprintf("%s is the toolcall dataset: a CogLang study's dataset is %s or a CogLang fixture file", s.Dataset, fixtures.CogLangDefaultPath)
	case s.Suite == contract.SuiteToolcall && s.Dataset == fixtures.CogLangDefaultPath:
		return "/dataset", fmt.Sprintf("%s is the CogLang fixture: a toolcall study's dataset is %s or a dataset file in HESchema's case format", s.Dataset, fixtures.ToolcallDatasetPath)
	}
	if given["repeats"] && s.Repeats == 0 {
		// absent is 1; 0 given is a study of no request, as --repeats 0 is refused
		return "/repeats", fmt.Sprintf("repeats must be from 1 to %d, got 0", MaxRequests)
	}
	if s.Suite == contract.SuiteToolcall && given["arms"] && len(s.Arms) == 0 {
		// not all three, as leaving it out means
		return "/arms", fmt.Sprintf("arms lists no arm: list one or more of %s, or leave it out for all three", strings.Join(contract.Arms, ", "))
	}
	seen := map[string]bool{}
	for i, a := range s.Arms {
		if !slices.Contains(contract.Arms, a) {
			return fmt.Sprintf("/arms/%d", i), fmt.Sprintf("unknown arm %q: arms are %s", a, strings.Join(contract.Arms, ", ")) + usage.Suggest(a, contract.Arms)
		}
		if seen[a] {
			return fmt.Sprintf("/arms/%d", i), fmt.Sprintf("arm %q is listed twice", a)
		}
		seen[a] = true
	}
	for arm := range s.Schemas {
		if arm != contract.ArmMinimalSchema && arm != contract.ArmInputSchema {
			return "/schemas/" + arm, fmt.Sprintf("schemas: %q takes no schema (only %s and %s do)", arm, contract.ArmMinimalSchema, contract.ArmInputSchema)
		}
	}
	switch {
	case s.Repeats < 0 || s.Repeats > MaxRequests:
		return "/repeats", fmt.Sprintf("repeats must be from 1 to %d, got %d", MaxRequests, s.Repeats)
	case s.Repairs < 0 || s.Repairs > 5:
		return "/repairs", fmt.Sprintf("repairs must be from 0 to 5, got %d", s.Repairs)
	case s.Filter.Limit < 0:
		return "/filter/limit", fmt.Sprintf("filter limit must not be negative, got %d", s.Filter.Limit)
	case s.Seed < 0:
		return "/seed", fmt.Sprintf("seed must not be negative, got %d", s.Seed)
	case s.MaxTokens != nil && *s.MaxTokens < 1:
		// every request would carry it, and every provider refuse it
		return "/max_tokens", fmt.Sprintf("max_tokens must be at least 1, got %d (null or left out: the runner's default)", *s.MaxTokens)
	case s.Temperature != nil && (*s.Temperature < 0 || math.IsNaN(*s.Temperature)):
		return "/temperature", fmt.Sprintf("temperature must not be negative, got %v (null or left out: the runner's default)", *s.Temperature)
	}
	switch s.Decoding {
	case "", contract.DecodingPromptOnly, contract.DecodingNativeSchema, contract.DecodingNativeTools:
	default:
		return "/decoding", fmt.Sprintf("decoding must be %s, %s or %s, got %q", contract.DecodingPromptOnly, contract.DecodingNativeSchema, contract.DecodingNativeTools, s.Decoding)
	}
	if s.Suite == contract.SuiteToolcall {
		// the built-in dataset's domains are known before it is read; a file's
		// are checked once it is
		if s.Dataset == "" || s.Dataset == fixtures.ToolcallDatasetPath {
			for i, d := range s.Filter.Domains {
				if msg := unknownDomain(d, fixtures.ToolcallDatasetPath, fixtures.ToolcallDomains()); msg != "" {
					return fmt.Sprintf("/filter/domains/%d", i), msg
				}
			}
		}
		for _, arm := range []string{contract.ArmMinimalSchema, contract.ArmInputSchema} {
			if v, ok := s.Schemas[arm]; ok && !contract.IsSchemaFile(v) {
				if err := fixtures.CheckVariant(v); err != nil {
					return "/schemas/" + arm, err.Error()
				}
			}
		}
		for i, c := range s.Filter.Categories {
			if !slices.Contains(fixtures.ToolcallCategories(), c) {
				return fmt.Sprintf("/filter/categories/%d", i), fmt.Sprintf("unknown category %q: categories are %s", c, strings.Join(fixtures.ToolcallCategories(), ", ")) + usage.Suggest(c, fixtures.ToolcallCategories())
			}
		}
	}
	if p := s.Prices; p != nil {
		if why := priceProblem(p.InputPerMillionUSD); why != "" {
			return "/prices/input_per_million_usd", "price " + why
		}
		if why := priceProblem(p.OutputPerMillionUSD); why != "" {
			return "/prices/output_per_million_usd", "price " + why
		}
	}
	return "", ""
}

// Resolve applies the overrides and the defaults to a study and checks it.
func Resolve(s contract.Study, o Overrides) (contract.Study, error) {
	s.Arms = slices.Clone(s.Arms)
	if t := s.Temperature; t != nil && *t == 0 && math.Signbit(*t) {
		// -0.0 is 0: one request text, one recipe
		zero := 0.0
		s.Temperature = &zero
	}
	if o.Dataset != "" {
		s.Dataset = o.Dataset
	}
	if len(o.Domains) > 0 {
		s.Filter.Domains = o.Domains
		s.Source = nil // the domains are the flags', not the file's
	}
	if len(o.Categories) > 0 {
		s.Filter.Categories = o.Categories
	}
	if o.Limit != nil {
		s.Filter.Limit = *o.Limit
	}
	if len(o.Arms) > 0 {
		s.Arms = o.Arms
	}
	if o.Repeats != nil {
		s.Repeats = *o.Repeats
	}
	if o.Seed != nil {
		s.Seed = *o.Seed
	}
	if o.Repairs != nil {
		s.Repairs = *o.Repairs
	}
	if o.Decoding != "" {
		s.Decoding = o.Decoding
	}
	s, err := ApplyPrices(s, o.InputPrice, o.OutputPrice)
	if err != nil {
		return s, err
	}
	s.Gates = append(slices.Clone(s.Gates), o.Gates...)
	if o.PromptTemplate != "" {
		s.PromptTemplate = o.PromptTemplate
	}
	if o.Strict {
		s.Strict = true
	}
	schemas := map[string]string{}
	for k, v := range s.Schemas {
		schemas[k] = v
	}
	if o.Schema != "" {
		schemas[contract.ArmInputSchema] = o.Schema
	}
	if o.MinimalSchema != "" {
		schemas[contract.ArmMinimalSchema] = o.MinimalSchema
	}
	s.Schemas = schemas
	if s.SchemaVersion == "" {
		s.SchemaVersion = contract.StudyV1
	}
	switch s.Suite {
	case contract.SuiteCogLang:
		if s.Dataset == "" {
			s.Dataset = fixtures.CogLangDefaultPath
		}
		return s, nil
	case contract.SuiteToolcall:
	default:
		return s, &contract.InputError{Msg: fmt.Sprintf("study suite must be %q or %q, got %q", contract.SuiteCogLang, contract.SuiteToolcall, s.Suite)}
	}
	for _, f := range []struct{ flag, v string }{{"--schema", o.Schema}, {"--minimal-schema", o.MinimalSchema}} {
		// named by its flag, not as the study's: check and fixtures
		// probes have no study to speak of
		if f.v != "" && !contract.IsSchemaFile(f.v) {
			if err := fixtures.CheckVariant(f.v); err != nil {
				return s, &contract.InputError{Kind: contract.ErrUsage, Msg: f.flag + ": " + err.Error()}
			}
		}
	}
	if s.Dataset == "" {
		s.Dataset = fixtures.ToolcallDatasetPath
	}
	if len(s.Arms) == 0 {
		s.Arms = slices.Clone(contract.Arms)
	}
	seen := map[string]bool{}
	for _, a := range s.Arms {
		if !slices.Contains(contract.Arms, a) {
			return s, studyErr("unknown arm %q: arms are %s%s", a, strings.Join(contract.Arms, ", "), usage.Suggest(a, contract.Arms))
		}
		if seen[a] {
			return s, studyErr("arm %q is listed twice", a)
		}
		seen[a] = true
	}
	// report order is the canonical arm order, whatever order the file lists
	slices.SortFunc(s.Arms, func(a, b string) int { return slices.Index(contract.Arms, a) - slices.Index(contract.Arms, b) })
	if _, ok := s.Schemas[contract.ArmMinimalSchema]; !ok {
		s.Schemas[contract.ArmMinimalSchema] = "minimal"
	}
	if _, ok := s.Schemas[contract.ArmInputSchema]; !ok {
		s.Schemas[contract.ArmInputSchema] = "reference"
	}
	for arm := range s.Schemas {
		if arm != contract.ArmMinimalSchema && arm != contract.ArmInputSchema {
			return s, studyErr("schemas: %q takes no schema (only %s and %s do)", arm, contract.ArmMinimalSchema, contract.ArmInputSchema)
		}
	}
	if s.Repeats == 0 {
		s.Repeats = 1
	}
	if s.Repeats < 1 || s.Repeats > MaxRequests {
		return s, studyErr("repeats must be from 1 to %d, got %d", MaxRequests, s.Repeats)
	}
	if s.Repairs < 0 || s.Repairs > 5 {
		return s, studyErr("repairs must be from 0 to 5, got %d", s.Repairs)
	}
	if s.Filter.Limit < 0 {
		return s, studyErr("filter limit must not be negative, got %d", s.Filter.Limit)
	}
	if s.Seed < 0 {
		return s, studyErr("seed must not be negative, got %d", s.Seed)
	}
	switch s.Decoding {
	case "":
		s.Decoding = contract.DecodingPromptOnly
	case contract.DecodingPromptOnly, contract.DecodingNativeSchema, contract.DecodingNativeTools:
	default:
		return s, studyErr("decoding must be %s, %s or %s, got %q", contract.DecodingPromptOnly, contract.DecodingNativeSchema, contract.DecodingNativeTools, s.Decoding)
	}
	for _, c := range s.Filter.Categories {
		if !slices.Contains(fixtures.ToolcallCategories(), c) {
			return s, studyErr("unknown category %q: categories are %s%s", c, strings.Join(fixtures.ToolcallCategories(), ", "), usage.Suggest(c, fixtures.ToolcallCategories()))
		}
	}
	if p := s.Prices; p != nil {
		for _, v := range []float64{p.InputPerMillionUSD, p.OutputPerMillionUSD} {
			if why := priceProblem(v); why != "" {
				return s, studyErr("price %s", why)
			}
		}
	}
	return s, nil
}

// ApplyPrices sets the prices the flags give (--input-price, --output-price;
// nil: the study's) over the study's, and refuses one that is negative or no
// finite number, naming its flag.
func ApplyPrices(s contract.Study, input, output *float64) (contract.Study, error) {
	for _, f := range []struct {
		flag  string
		price *float64
	}{{"--input-price", input}, {"--output-price", output}} {
		if f.price != nil {
			if why := priceProblem(*f.price); why != "" {
				return s, &contract.InputError{Msg: f.flag + " " + why}
			}
		}
	}
	if input == nil && output == nil {
		return s, nil
	}
	if s.Prices == nil && (input == nil || output == nil) {
		// the other would be 0, and every cost figure too low, said nowhere
		given, other := "--input-price", "--output-price"
		if input == nil {
			given, other = other, given
		}
		return s, &contract.InputError{Kind: contract.ErrUsage, Msg: fmt.Sprintf("%s without %s, and the study has no prices: give both (%s 0 where those tokens cost nothing)", given, other, other)}
	}
	p := contract.Prices{}
	if s.Prices != nil {
		p = *s.Prices
	}
	if input != nil {
		p.InputPerMillionUSD = *input
	}
	if output != nil {
		p.OutputPerMillionUSD = *output
	}
	s.Prices = &p
	return s, nil
}

// priceProblem says what is wrong with a price in USD per million tokens, or
// "": a negative one, and one that is no finite number (--input-price inf or
// nan, which the flag's number reading takes).
func priceProblem(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return fmt.Sprintf("%v is no price: give USD per million tokens as a finite number (3 for $3 per million)", v)
	case v < 0:
		return fmt.Sprintf("must not be negative, got %v", v)
	}
	return ""
}

// MaxRequests bounds the first-attempt requests of a toolcall study (cases × arms ×
// repeats). Export and the runners hold one request at a time and score a small
// slot per request, so the bound guards no memory: it stops a mistyped --repeats
// (70000 for 70) from starting an export of hundreds of gigabytes, and sits far
// above the sweeps studies run (10^5 to 10^6 requests).
const MaxRequests = 100_000_000

// studyErrAt is studyErr at the value ptr names in the study file, where the
// study is a file's.
func studyErrAt(s contract.Study, ptr string, format string, args ...any) error {
	if s.Source == nil {
		return studyErr(format, args...)
	}
	return s.Source.Errorf(contract.PointerOffset(s.Source.Raw, ptr), "study: "+format, args...)
}

func studyErr(format string, args ...any) error {
	return &contract.InputError{Msg: "study: " + fmt.Sprintf(format, args...)}
}

// Input is one file a study reads, with its sha256, for reports.
type Input struct {
	Role   string // dataset, schema, template, fixture, responses
	Path   string
	SHA256 string
}

func sha(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// RequestID is the id of the request for one case, arm, repeat and attempt, like
// "hotels-004.input_schema.r1.a2". It is stable across runs and opaque to runners.
func RequestID(caseID, arm string, repeat, attempt int) string {
	if arm == "" {
		return caseID
	}
	return caseID + "." + arm + ".r" + strconv.Itoa(repeat) + ".a" + strconv.Itoa(attempt)
}

// AppendRequestID appends RequestID(caseID, arm, repeat, attempt) to dst.
func AppendRequestID(dst []byte, caseID, arm string, repeat, attempt int) []byte {
	dst = append(dst, caseID...)
	if arm == "" {
		return dst
	}
	dst = append(dst, '.')
	dst = append(dst, arm...)
	dst = append(dst, ".r"...)
	dst = strconv.AppendInt(dst, int64(repeat), 10)
	dst = append(dst, ".a"...)
	return strconv.AppendInt(dst, int64(attempt), 10)
}

// Seed derives the seed of one (case, repeat) from the study seed; every arm of a
// case and repeat gets the same seed. It is the first four bytes of
// sha256("fbeval-seed/v1" NUL study seed NUL case id NUL repeat), read
// big-endian, with the top bit cleared.
func Seed(studySeed int64, caseID string, repeat int) int64 {
	h := sha256.Sum256([]byte("fbeval-seed/v1\x00" + strconv.FormatInt(studySeed, 10) + "\x00" + caseID + "\x00" + strconv.Itoa(repeat)))
	return int64(uint32(h[0])<<24|uint32(h[1])<<16|uint32(h[2])<<8|uint32(h[3])) & 0x7fffffff
}

// CogLangInput names and hashes a CogLang fixture for reports.
func CogLangInput(dataset string) (Input, error) {
	if dataset == "" || dataset == fixtures.CogLangDefaultPath {
		return Input{Role: "fixture", Path: fixtures.CogLangDefaultPath, SHA256: sha(fixtures.CogLangDefaultJSON())}, nil
	}
	if msg := fixtures.UnknownBuiltin(dataset); msg != "" {
		return Input{}, &contract.InputError{Kind: contract.ErrUsage, Msg: msg}
	}
	data, err := contract.ReadFile(dataset)
	if err != nil {
		return Input{}, readError(dataset, "fixture", err)
	}
	return Input{Role: "fixture", Path: dataset, SHA256: sha(data)}, nil
}

// StudyTemplate writes a study as a file to edit, with a "$comment" member that
// explains every field (study files accept and ignore "$comment").
func StudyTemplate(s contract.Study) []byte {
	comment := []string{"An fbeval-study/v1 file. Export and score read the same study; flags override fields."}
	if s.Suite == contract.SuiteCogLang {
		// a CogLang study is its fixture's cases, each asked once: the
		// toolcall fields are refused in it
		comment = append(comment,
			"suite: coglang (fbeval study init toolcall writes a toolcall study).",
			"dataset: builtin:coglang or a CogLang fixture file (coglang-generation-eval-fixture/v0.1). strict: the strict scoring profile (commas required, the spec's arities); false scores as the reference scorer does.",
			"max_tokens, temperature (may be added): the sampling settings the study is run with; CogLang requests are the reference scorer's and do not carry them, so export names the runner flags that send them.",
			"A CogLang study has no arms, schemas, filter, repeats, seed, repairs, decoding, prices, gates or prompt template (fbeval study init toolcall shows those).")
	} else {
		comment = append(comment,
			"suite: toolcall or coglang. dataset: builtin:toolcall, builtin:coglang, or a file path.",
			"arms: no_schema, minimal_schema, input_schema. schemas: per arm, a variant name (reference, minimal, rich, weak, contradictory, complex-equivalent) or a schema file.",
			"filter: domains, categories, limit (cases per domain and category; 0 keeps all).",
			"repeats: runs per case and arm. seed: derives every request seed and the bootstrap stream. repairs: 0-5 repair rounds.",
			"decoding: prompt_only, native_schema (requests carry response_format) or native_tools (requests carry the tool definition in tools).",
			"prices: null (no cost figures) or {\"input_per_million_usd\": N, \"output_per_million_usd\": N}, USD per million tokens, for cost figures. gates: thresholds on report fields that decide the exit code, e.g. input_schema.first_pass_success_percent>=90.",
			"prompt_template: a text/template file with {{define \"system\"}} and {{define \"user\"}} blocks.",
			"max_tokens, temperature: the sampling settings the study is run with; every request carries them and the runners send them (null: the runner's or the provider's defaults).",
		)
	}
	// prices stay the study's (null: no cost figures): zeros to edit made
	// every cost 0 and passed every cost gate where they were left
	o := contract.Object{{Key: "$comment", Value: comment}}
	o = append(o, s.Object()...)
	out, _ := contract.Marshal(o, contract.PythonIndent)
	return append(out, '\n')
}
