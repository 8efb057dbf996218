package main

// Each command's detailed help (kong prints it under the usage line) ends with an
// example to copy.

func (ExportCmd) Help() string {
	return `Example:
  fbeval export toolcall-quick --domain hotels > requests.jsonl`
}

func (ScoreCmd) Help() string {
	return `Responses are read only from --responses (- for standard input); with none,
score refuses rather than guess (coglang: --reference-answers scores the fixture's
own answers, --answers-file an answers file as the reference scorer reads one). Gates are in each field's unit, percents 0-100 (write 0.5% for half
a percent); they are checked against the report's fields before anything is read.
The default format is json, as the CogLang reference scorer's, for CI; report and
compare default to a table, for people; without --format, -o's name decides
(-o report.html, -o junit.xml). Every score ends with a one-line summary
on stderr. Exit 0 ok, 1 a gate failed or rows are missing or left with a provider
error (every record one: with --allow-provider-errors too) or every answer is
empty, encoded twice, in quotes, in a list or an API's message around it, or records answer repair
attempts no earlier attempt called for (coglang: not ok), 2 bad usage or
unreadable input.

Examples:
  fbeval score coglang --responses responses.jsonl --format text
  fbeval score toolcall --repeats 70 --responses 'shards/*.jsonl' -o report.json
  fbeval export toolcall-quick --include-reference | fbeval-mock --mode reference | fbeval score toolcall-quick --responses - --min-success 90`
}

func (ReportCmd) Help() string {
	return `Example:
  fbeval report report.json --format markdown >> "$GITHUB_STEP_SUMMARY"`
}

func (CompareCmd) Help() string {
	return `Example:
  fbeval compare small.json large.json --label-a 8b --label-b 70b`
}

func (ValidateCmd) Help() string {
	return `Example:
  fbeval validate requests.jsonl responses.jsonl report.json`
}

func (SchemaCmd) Help() string {
	return `Example:
  fbeval schema fbeval-response > response.schema.json`
}

func (StudyCmd) Help() string {
	return `Example:
  fbeval study init > my-study.json && fbeval study show my-study.json`
}

func (FixturesCmd) Help() string {
	return `Example:
  fbeval fixtures probes --schema minimal`
}

func (CheckCmd) Help() string {
	return `Its default format is text: one output, read by a person.

Example:
  fbeval check --domain hotels args.json`
}

func (ContractCmd) Help() string {
	return `Example:
  fbeval contract lint my-contract.json`
}

func (VersionCmd) Help() string {
	return `Example:
  fbeval --version`
}
