package main

import (
	stdjson "encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/runners/internal/runner"
)

// fromHESchema converts HESchema's run log to response records.
type fromHESchema struct {
	Runs     []string `arg:"" help:"HESchema's run logs (runs.jsonl in the folder heschema benchmark --out names); - reads stdin. A later line of a case, repeat and arm replaces an earlier one, as HESchema reads its log."`
	Output   string   `short:"o" default:"-" placeholder:"FILE" help:"Write responses to FILE, resuming it as the live runners do: requests it answers are skipped, the rest appended. - writes stdout."`
	Fresh    bool     `help:"Start the -o file over instead of resuming it."`
	Provider string   `help:"Provider name written to each record (the run log does not hold it; HESchema's config.json does)."`
}

// hesRow is a line of HESchema's run log, as its benchmark writes it (one row
// per case, repeat and arm; repeat counts from 0): the members a response
// record is made from.
type hesRow struct {
	CaseID        *string      `json:"caseId"`
	Arm           *string      `json:"arm"`
	Repeat        *int         `json:"repeat"`
	Status        string       `json:"status"`
	ProviderError *string      `json:"providerError"`
	Attempts      []hesAttempt `json:"attempts"`
}

// hesAttempt is one attempt of a row: the model's generation (the first, then
// each repair) and HESchema's evaluation of it, which is not read.
type hesAttempt struct {
	Generation *struct {
		Text         *string        `json:"text"`
		InputTokens  jsontext.Value `json:"input_tokens"`
		OutputTokens jsontext.Value `json:"output_tokens"`
		Model        *string        `json:"model"`
		LatencyMS    *float64       `json:"latency_ms"`
	} `json:"generation"`
}

// hesArms are the arms of HESchema's benchmark, fbeval's arms by the same names.
var hesArms = []string{contract.ArmNoSchema, contract.ArmMinimalSchema, contract.ArmInputSchema}

// readHESchemaRow reads one line of a run log; a line that is not a row is an
// error at its FILE:LINE:COL.
func readHESchemaRow(rec *contract.Record) (hesRow, error) {
	var row hesRow
	if err := json.Unmarshal(rec.Raw, &row); err != nil {
		return row, contract.DecodeError(rec, err)
	}
	switch {
	case row.CaseID == nil || *row.CaseID == "" || row.Arm == nil || row.Repeat == nil:
		keys, strs := contract.TopLevel(rec.Raw)
		if keys["request_id"] || keys["case_id"] {
			return row, rec.Errorf(0, "this is a record of fbeval's, not a HESchema run log line: fbeval score reads it as it is")
		}
		if what := contract.ProviderRecordOf(keys, strs); what != "" {
			// HESchema's report or config, a provider's file
			return row, rec.Errorf(0, "this is %s", what)
		}
		return row, rec.Errorf(0, "not a HESchema run log line (caseId, arm, repeat, status, attempts): from-heschema reads runs.jsonl of heschema benchmark --out DIR")
	case !slices.Contains(hesArms, *row.Arm):
		return row, rec.Errorf(0, "arm %q is none of HESchema's (no_schema, minimal_schema, input_schema)", *row.Arm)
	case *row.Repeat < 0:
		return row, rec.Errorf(0, "repeat %d: HESchema counts repeats from 0", *row.Repeat)
	case row.Status != "ok" && row.Status != "provider_error":
		return row, rec.Errorf(0, "status %q is neither of HESchema's (ok, provider_error)", row.Status)
	}
	for i, a := range row.Attempts {
		if a.Generation == nil || a.Generation.Text == nil {
			return row, rec.Errorf(0, "attempt %d has no generation text", i+1)
		}
	}
	return row, nil
}

// requestID is the id of fbeval's request that attempt (from 1) of the row
// answers: HESchema and fbeval name cases and arms alike, and fbeval counts
// repeats from 1.
func (r *hesRow) requestID(attempt int) string {
	return *r.CaseID + "." + *r.Arm + ".r" + strconv.Itoa(*r.Repeat+1) + ".a" + strconv.Itoa(attempt)
}

// run converts the run logs: every attempt of the last row of each case,
// repeat and arm, in the order the rows first appear, and a provider error
// after the attempts of a row that ended in one. The rows are held until
// every line is read (HESchema holds its whole log likewise).
func (c *fromHESchema) run(stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	if c.Fresh && c.Output == "-" {
		return 0, usagef("--fresh starts an -o file over; give -o FILE")
	}
	// a folder is HESchema's --out folder: its runs.jsonl, and its
	// config.json says what the run was
	var cfg *hesConfig
	for i, path := range c.Runs {
		if st, err := os.Stat(path); err == nil && st.IsDir() {
			c.Runs[i] = filepath.Join(path, "runs.jsonl")
		}
		if cfg == nil && path != "-" {
			var err error
			if cfg, err = readHESchemaConfig(filepath.Join(filepath.Dir(c.Runs[i]), "config.json")); err != nil {
				return 0, err
			}
		}
	}
	if c.Output == "-" {
		if err := runner.StdoutNotAnInput(stdout, c.Runs, "the responses"); err != nil {
			return 0, usagef("%v", err)
		}
	}
	if cfg != nil && c.Provider == "" {
		c.Provider = cfg.Provider
	}
	var rows []hesRow
	at := map[string]int{} // case, repeat and arm: the row's place in rows
	lines, replaced := 0, 0
	for _, path := range c.Runs {
		in, name, done, err := contract.OpenInput(path, "the run log", stdin)
		if err != nil {
			return 0, usagef("%v", err)
		}
		defer done()
		rd := contract.NewReader(name, in, contract.ReadOptions{SingleRecord: func([]string) bool { return true },
			CutHint: "HESchema stopped while writing it, and cannot read its log back so either: remove the cut line and convert again"})
		for rd.Scan() {
			rec := rd.Record()
			if rec.Err != nil {
				return 0, rec.Err
			}
			row, err := readHESchemaRow(rec)
			if err != nil {
				return 0, err
			}
			lines++
			key := row.requestID(0)
			if i, ok := at[key]; ok {
				rows[i] = row
				replaced++
				continue
			}
			at[key] = len(rows)
			rows = append(rows, row)
		}
		if err := rd.Err(); err != nil {
			return 0, err
		}
	}
	if lines == 0 {
		return 0, usagef("%s: no run log line: from-heschema reads runs.jsonl of heschema benchmark --out DIR", c.Runs[0])
	}
	run := runner.RunInfo{Runner: name, Provider: c.Provider}
	if cfg != nil {
		run.Model = cfg.RequestedModel
	}
	w := runner.NewOutput(stdout)
	if c.Output != "-" {
		var err error
		if w, err = runner.OpenOutput(c.Output, runner.Resume{Fresh: c.Fresh, Run: run, Inputs: c.Runs}); err != nil {
			return 0, usagef("%v", err)
		}
		defer w.Close()
	}
	var out []byte
	answers, errs, skipped, again, repeats, attempts := 0, 0, 0, 0, 0, 0
	write := func(req *contract.Request, res *runner.Result) error {
		if w.Answered(req.RequestID) {
			skipped++
			return nil
		}
		if res.Error != nil && w.Errored(req.RequestID) {
			again++ // the run log is the same however often it is converted
			return nil
		}
		ri := run
		res.Run, res.Provider = &ri, c.Provider
		var err error
		if out, err = runner.AppendRecord(out, req, res); err != nil || len(out) < 64<<10 {
			return err
		}
		err = w.Write(out)
		out = out[:0]
		return err
	}
	for i := range rows {
		r := &rows[i]
		repeats = max(repeats, *r.Repeat+1)
		attempts = max(attempts, len(r.Attempts))
		for k, a := range r.Attempts {
			g := a.Generation
			res := runner.Result{Output: g.Text, LatencyMS: g.LatencyMS}
			var counts runner.Counts // by the rule a live runner reads a provider's
			res.InputTokens, res.OutputTokens = counts.Of("input_tokens", g.InputTokens), counts.Of("output_tokens", g.OutputTokens)
			counts.Keep(&res)
			if g.Model != nil {
				res.Model = *g.Model
			}
			answers++
			if err := write(&contract.Request{SchemaVersion: contract.RequestV1, RequestID: r.requestID(k + 1), CaseID: *r.CaseID}, &res); err != nil {
				return 0, err
			}
		}
		if r.Status == "provider_error" {
			msg := "HESchema's provider failed"
			if r.ProviderError != nil && *r.ProviderError != "" {
				msg = *r.ProviderError
			}
			errs++
			attempts = max(attempts, len(r.Attempts)+1)
			res := runner.Result{Error: &contract.ProviderError{Code: "provider_error", Message: msg}}
			if err := write(&contract.Request{SchemaVersion: contract.RequestV1, RequestID: r.requestID(len(r.Attempts) + 1), CaseID: *r.CaseID}, &res); err != nil {
				return 0, err
			}
		}
	}
	if err := w.Write(out); err != nil {
		return 0, err
	}
	if err := w.Close(); err != nil {
		return 0, err
	}
	if skipped > 0 {
		fmt.Fprintf(stderr, "%s: %s: %s already answered, skipped\n", name, c.Output, contract.Plural(skipped, "request", "requests"))
	}
	if again > 0 {
		fmt.Fprintf(stderr, "%s: %s: %s already recorded as errors, not written again\n", name, c.Output, contract.Plural(again, "provider error", "provider errors"))
	}
	fmt.Fprintf(stderr, "%s: %s of %s (%d replaced by a later line): %s, %s\n",
		name, contract.Plural(len(rows), "row", "rows"), contract.Plural(lines, "line", "lines"), replaced,
		contract.Plural(answers, "answer", "answers"), contract.Plural(errs, "provider error", "provider errors"))
	// the study that scores them: HESchema's dataset, repeats and repairs
	hint := "score them with fbeval score toolcall --dataset HESCHEMA/benchmarks/cases.jsonl (or the --dataset the run read)"
	if cfg != nil {
		hint += fmt.Sprintf(" --repeats %d --repairs %d", cfg.Repeats, cfg.Repairs)
		if cfg.InputPrice != nil && cfg.OutputPrice != nil {
			hint += fmt.Sprintf(" --input-price %s --output-price %s", cfg.InputPrice, cfg.OutputPrice)
		}
		hint += " (from config.json)"
	} else {
		hint += fmt.Sprintf(" --repeats R --repairs N (HESchema's config.json has them; these rows reach repeat %d and attempt %d)", repeats, attempts)
	}
	fmt.Fprintf(stderr, "%s: %s\n", name, hint)
	if errs > 0 {
		return 1, nil
	}
	return 0, nil
}

// hesConfig is what HESchema's config.json (beside runs.jsonl) says of the
// run that the response records and the scoring need.
type hesConfig struct {
	Provider       string          `json:"provider"`
	RequestedModel string          `json:"requestedModel"`
	Repeats        int             `json:"repeats"`
	Repairs        int             `json:"repairs"`
	InputPrice     *stdjson.Number `json:"inputPricePerMillion"`
	OutputPrice    *stdjson.Number `json:"outputPricePerMillion"`
}

// readHESchemaConfig reads the config.json at path; nil when there is none,
// or when it is no HESchema run's (a project's own config.json beside a log
// copied into it).
func readHESchemaConfig(path string) (*hesConfig, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil // a run log copied alone: the flags are the user's
	}
	if keys, _ := contract.TopLevel(data); !keys["datasetHash"] || !keys["schemaHashes"] {
		return nil, nil
	}
	var cfg hesConfig
	if err := runner.JSON.Unmarshal(data, &cfg); err != nil || cfg.Repeats < 1 || cfg.Repairs < 0 {
		return nil, usagef("%s: not the config.json HESchema's benchmark writes (repeats, repairs, provider): move it away from the run log, or fix it", path)
	}
	return &cfg, nil
}
