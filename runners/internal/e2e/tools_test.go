package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// toolsStudy is a native_tools study: one case per domain and category, every
// request carrying the domain's tool.
const toolsStudy = `{
  "schema_version": "fbeval-study/v1",
  "suite": "toolcall",
  "dataset": "builtin:toolcall",
  "filter": {"limit": 1},
  "decoding": "native_tools"
}
`

// TestNativeToolsPipeline: a native_tools study answered through each API's own tool
// calling. The fake server answers every expected call as a tool call (Chat
// Completions with "content": "" beside tool_calls, a Responses function_call, an
// Anthropic text block then tool_use) and everything else as text; the runners turn
// the calls back into envelopes, and the gold answers score 100% in every arm.
func TestNativeToolsPipeline(t *testing.T) {
	needBinaries(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "study.json"), []byte(toolsStudy), 0o644); err != nil {
		t.Fatal(err)
	}
	runTo(t, dir, "requests.jsonl", "fbeval", "export", "study.json")
	runTo(t, dir, "answers.jsonl", "fbeval", "export", "study.json", "--include-reference")
	requests := bytes.Count(mustRead(t, dir, "requests.jsonl"), []byte("\n"))
	if n := bytes.Count(mustRead(t, dir, "requests.jsonl"), []byte(`,"tools":[{"name":"`)); n != requests || n == 0 {
		t.Fatalf("%d of %d requests carry tools", n, requests)
	}
	url := startFakeServer(t, dir, "--answers", "answers.jsonl")

	for _, tt := range []struct {
		name   string
		live   []string // runner and its own flags
		to     []string // fbeval-batch subcommand and flags
		from   string
		serve  string // fake server flag answering the batch file
		suffix string
	}{
		{"chat", []string{"fbeval-openai", "--api", "chat"}, []string{"to-openai"}, "from-openai", "--openai-batch", ".jsonl"},
		{"responses", []string{"fbeval-openai", "--api", "responses"}, []string{"to-openai", "--api", "responses"}, "from-openai", "--openai-batch", ".jsonl"},
		{"messages", []string{"fbeval-anthropic"}, []string{"to-anthropic"}, "from-anthropic", "--anthropic-batch", ".json"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := func(s string) string { return tt.name + "-" + s }
			live := append(append(tt.live, "requests.jsonl", "--base-url", url, "--model", "m", "-o", p("live.jsonl")), fast...)
			run(t, dir, 0, live...)
			calls, viaTools := 0, 0
			sc := bufio.NewScanner(bytes.NewReader(mustRead(t, dir, p("live.jsonl"))))
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				var rec struct {
					Output   string `json:"output"`
					Metadata struct {
						ProviderOutput json.RawMessage `json:"provider_output"`
					} `json:"metadata"`
				}
				if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
					t.Fatal(err)
				}
				if strings.HasPrefix(rec.Output, `{"action":"call_tool","tool":"`) {
					calls++
					if len(rec.Metadata.ProviderOutput) > 0 {
						viaTools++
					}
				}
			}
			if calls == 0 || viaTools != calls {
				t.Errorf("%d call envelopes, %d of them from a tool call", calls, viaTools)
			}
			gates := []string{"--gate=no_schema.final_success_percent>=100", "--gate=minimal_schema.final_success_percent>=100",
				"--gate=input_schema.final_success_percent>=100"}
			r := run(t, dir, 0, append([]string{"fbeval", "score", "study.json", "--responses", p("live.jsonl"), "--format", "json"}, gates...)...)
			var rep struct {
				Complete bool `json:"complete"`
				Arms     map[string]struct {
					Decoding       string  `json:"decoding"`
					Runs           int     `json:"runs"`
					ProviderErrors int     `json:"provider_errors"`
					FirstPass      float64 `json:"first_pass_success_percent"`
				} `json:"arms"`
			}
			if err := json.Unmarshal(r.out, &rep); err != nil {
				t.Fatal(err)
			}
			if !rep.Complete || len(rep.Arms) != len(arms) {
				t.Fatalf("complete %v, %d arms", rep.Complete, len(rep.Arms))
			}
			for _, arm := range arms {
				a := rep.Arms[arm]
				if a.Decoding != "native_tools" || a.Runs*len(arms) != requests || a.ProviderErrors != 0 || a.FirstPass != 100 {
					t.Errorf("arm %s: %+v", arm, a)
				}
			}

			// The batch converters translate both ways alike: the same records as the
			// live run's, but for its latency.
			runTo(t, dir, p("batch")+tt.suffix, append(append([]string{"fbeval-batch"}, tt.to...), "--model", "m", "requests.jsonl")...)
			if n := bytes.Count(mustRead(t, dir, p("batch")+tt.suffix), []byte(`"tool_choice":`)); n != requests {
				t.Errorf("%d of %d batch requests offer tools", n, requests)
			}
			runTo(t, dir, p("output.jsonl"), "fbeval-fakeserver", "--answers", "answers.jsonl", tt.serve, p("batch")+tt.suffix)
			runTo(t, dir, p("joined.jsonl"), "fbeval-batch", tt.from, "--requests", "requests.jsonl", p("output.jsonl"))
			// The runner named in "run" differs; the study is checked in TestBatchEqualsLive.
			stripped := runField.ReplaceAll(latencyField.ReplaceAll(mustRead(t, dir, p("live.jsonl")), nil), nil)
			if joined := runField.ReplaceAll(mustRead(t, dir, p("joined.jsonl")), nil); !bytes.Equal(stripped, joined) {
				a, b := bytes.Split(stripped, []byte("\n")), bytes.Split(joined, []byte("\n"))
				for i := range min(len(a), len(b)) {
					if !bytes.Equal(a[i], b[i]) {
						t.Fatalf("record %d differs:\nlive:  %s\nbatch: %s", i+1, a[i], b[i])
					}
				}
				t.Fatalf("%d live records, %d batch records", len(a), len(b))
			}
			run(t, dir, 0, append([]string{"fbeval", "score", "study.json", "--responses", p("joined.jsonl")}, gates...)...)
		})
	}
}

func mustRead(t *testing.T, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
