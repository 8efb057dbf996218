package coglang

import (
	"errors"
	"fmt"
	"slices"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/fixtures"
	"github.com/fbeval/fbeval/score"
	"github.com/fbeval/fbeval/score/report"
	"github.com/go-json-experiment/json/jsontext"
)

// ResponseFiles holds the responses of one or more CogLang response files:
// for every case id the last record given, plus what was seen on the way.
type ResponseFiles struct {
	Responses []Response // one per case id, in first-seen order
	Files     []score.InputStats
	Read      int
	Accepted  int
	// Thinking counts the records read whose output holds a reasoning model's
	// thinking (score.HoldsThinking); Quoted, those whose output is one JSON
	// string (contract.StringText); Wrapped, those whose output is an API's
	// message around the answer (contract.WrappedAnswer); Listed, those whose
	// output is a JSON list of answers (contract.ListedAnswer).
	Thinking, Quoted, Wrapped, Listed int
	// Cut counts the records read whose answer the model stopped at its token
	// limit; Filtered, those a safety filter stopped or withheld, or the model
	// refused on safety grounds (contract.FinishReason), FirstFiltered the least
	// case id of them (the first of a fixture of sorted ids; in any order of
	// the records, the same).
	Cut, Filtered int
	FirstFiltered string
	// ProviderErrors counts the provider error records read (an error and no
	// output); ErrorCases are the case ids whose last record is one.
	ProviderErrors int
	ErrorCases     []string
	Duplicates     map[string]bool
	Unknown        map[string]bool
	// UnknownNotListed counts records whose unknown case id Unknown leaves out.
	UnknownNotListed int
	// Changed counts the unknown case ids listed that are one of the
	// fixture's but for white space or letter case (a runner or script that
	// changed the ids it was given), FirstChanged the first of them.
	Changed      int
	FirstChanged string
	// Models are the models whose records scored a case, sorted.
	Models       []string
	Warnings     []string
	index        map[string]int
	fileWarnings score.FileWarnings // each file's, until every file is read
}

// filesRead adds the files' warnings to Warnings once every file is read.
func (c *ResponseFiles) filesRead() {
	c.Warnings = append(c.Warnings, c.fileWarnings.Lines("the result's response_file.files")...)
}

// ReadResponses reads CogLang response files as the reference does (JSONL, a JSON list,
// a single record, or a batch object holding "responses" or "answers"); later
// records win. Unlike the reference, every problem is one *contract.InputError
// with file:line:col, the batch-level schema_version is checked under
// opts.StrictBatch, and duplicates and
// unknown case ids are counted. Only the last record per case id is kept, so memory
// stays flat however long the files are.
func ReadResponses(fx *fixtures.CogLangFixture, sources []score.Source, opts score.Options) (*ResponseFiles, error) {
	known := make(map[string]bool, len(fx.Cases))
	for i := range fx.Cases {
		known[fx.Cases[i].CaseID] = true
	}
	out := &ResponseFiles{Duplicates: map[string]bool{}, Unknown: map[string]bool{}, index: map[string]int{}}
	seen := map[string]bool{}
	for _, src := range sources {
		if err := out.read(src, opts, known, seen); err != nil {
			return nil, err
		}
	}
	out.filesRead()
	// the cases' last records, in fixture order, as ScoreFiles counts them
	answered, blank, first := 0, 0, ""
	for i := range fx.Cases {
		k, ok := out.index[fx.Cases[i].CaseID]
		if !ok || out.Responses[k].ProviderError {
			continue
		}
		answered++
		if r := out.Responses[k]; r.Output != nil && contract.BlankText([]byte(*r.Output)) {
			if blank == 0 {
				first = r.CaseID
			}
			blank++
		}
	}
	if blank > 0 {
		out.Warnings = append(out.Warnings, score.BlankWarning(blank, answered, first))
	}
	if out.Responses == nil {
		out.Responses = []Response{}
	}
	models := map[string]bool{}
	for _, r := range out.Responses {
		if r.ProviderError {
			out.ErrorCases = append(out.ErrorCases, r.CaseID)
		}
		if r.Model != "" && !models[r.Model] {
			models[r.Model] = true
			out.Models = append(out.Models, r.Model)
		}
	}
	slices.Sort(out.ErrorCases)
	slices.Sort(out.Models)
	return out, nil
}

// checkBatchVersion checks a batch object's own schema_version: under
// opts.StrictBatch another version is an error; otherwise it is read as the
// reference reads it (ignored), and said in the file's warnings, which it
// returns with the reader's.
func checkBatchVersion(rd *contract.Reader, name string, opts score.Options) ([]string, error) {
	warnings := rd.Warnings()
	v, ok := rd.Header()["schema_version"]
	if !ok || v.Kind() == 'n' {
		return warnings, nil
	}
	if s, isStr := stringOf(v); isStr && s == contract.CogLangResponseBatch {
		return warnings, nil
	}
	line, col := rd.HeaderPosition("schema_version")
	if opts.StrictBatch {
		return nil, &contract.InputError{Kind: contract.ErrVersion, File: name, Line: line, Col: col, Msg: "the batch schema_version must be \"" + contract.CogLangResponseBatch + "\", got " + shortValue(v) + " (--strict; without it the batch is read as the reference reads it, with a warning)"}
	}
	w := fmt.Sprintf("%s:%d:%d: the batch schema_version is %s, not \"%s\": read as the reference reads it, its records as they are (--strict refuses it)", name, line, col, contract.ShortLine(string(v)), contract.CogLangResponseBatch)
	return append(slices.Clip(warnings), w), nil
}

func shortValue(v jsontext.Value) string {
	if len(v) > 40 {
		return string(v[:40]) + "..."
	}
	return string(v)
}

func stringOf(v jsontext.Value) (string, bool) {
	if v.Kind() != '"' {
		return "", false
	}
	s, err := jsontext.AppendUnquote(nil, v)
	if err != nil {
		return "", false
	}
	return string(s), true
}

// isSingleRecord: an object with case_id and an output field is one record,
// as the reference reads it, whatever lists it holds beside (the reference
// asks this first: {"case_id", "output", "responses": [...]} is that one
// record); so is one with case_id and an error (a provider error record,
// which the reference cannot read at all), a request (to be named as one),
// and one with case_id and no answer at all (named as a record without one,
// as on a line of a longer file): any object with case_id and no list of
// records.
func isSingleRecord(names []string) bool {
	if !slices.Contains(names, "case_id") {
		return false
	}
	if slices.ContainsFunc(names, func(n string) bool { return n == "output" || n == "text" || n == "completion" }) {
		return true
	}
	return !slices.Contains(names, "responses") && !slices.Contains(names, "answers")
}

// Block returns the response_file block fbeval adds to a CogLang result.
func (c *ResponseFiles) Block() *report.ResponseFile {
	files := make([]report.ResponseFileInfo, len(c.Files))
	for i, f := range c.Files {
		files[i] = report.ResponseFileInfo{Path: f.Path, SHA256: f.SHA256, Shape: f.Shape, Lines: f.Lines, Records: f.Records}
	}
	return &report.ResponseFile{
		Files:                files,
		Models:               c.Models,
		RecordsRead:          c.Read,
		RecordsAccepted:      c.Accepted,
		ProviderErrorRecords: c.ProviderErrors,
		DuplicateCaseIDs:     sortedSet(c.Duplicates),
		UnknownCaseIDs:       sortedSet(c.Unknown),
		ProviderErrorCaseIDs: strs(c.ErrorCases),
		UnknownNotListed:     c.UnknownNotListed,
		Warnings:             strs(c.Warnings),
	}
}

// read reads one response file into c (ReadResponses), and closes it.
func (c *ResponseFiles) read(src score.Source, opts score.Options, known, seen map[string]bool) error {
	r, closeFile, err := src.Reader()
	if err != nil {
		return err
	}
	defer closeFile()
	hr := score.NewHashingReader(r)
	defer hr.Close()
	rd := contract.NewReader(src.Name, newPyTextFile(src.Name, hr), contract.ReadOptions{
		ListKeys:       []string{"responses", "answers"},
		SingleRecord:   isSingleRecord,
		MaxLineBytes:   opts.MaxLineBytes,
		RecordsChecked: true, // DecodeResponse refuses a record that is no JSON
		// lone surrogate escapes are read, as the reference's Python reads them
		LoneSurrogates: true,
		CutHint:        score.CutHint,
		WrongFileHint:  score.WrongFileHint,
		TextHint:       score.TextHint,
	})
	st := score.InputStats{Path: src.Name}
	for rd.Scan() {
		rec := rd.Record()
		st.Records++
		if rec.Err != nil {
			return rec.Err
		}
		resp, err := DecodeResponse(rec.Raw)
		if err != nil {
			return recordError(rec, err)
		}
		resp.File, resp.Line = src.Name, rec.Line
		st.Accepted++
		if resp.ProviderError {
			c.ProviderErrors++
		}
		if seen[resp.CaseID] {
			c.Duplicates[resp.CaseID] = true
			st.Duplicates++
		}
		seen[resp.CaseID] = true
		if !known[resp.CaseID] {
			c.Unknown[resp.CaseID] = true
			st.Unknown++
			continue
		}
		if i, ok := c.index[resp.CaseID]; ok {
			c.Responses[i] = resp
		} else {
			c.index[resp.CaseID] = len(c.Responses)
			c.Responses = append(c.Responses, resp)
		}
	}
	if err := rd.Err(); err != nil {
		return err
	}
	warnings, err := checkBatchVersion(rd, src.Name, opts)
	if err != nil {
		return err
	}
	st.Shape, st.Lines, st.Warnings = rd.Shape().String(), rd.Lines(), warnings
	st.SHA256 = hr.Finish()
	c.addFile(&st)
	return nil
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// recordError places a record decoding error at its line and column in the file.
func recordError(rec *contract.Record, err error) error {
	var oe *OffsetError
	if errors.As(err, &oe) {
		return rec.Errorf(oe.Offset, "%s", oe.Msg)
	}
	return rec.Errorf(0, "%v", err)
}
