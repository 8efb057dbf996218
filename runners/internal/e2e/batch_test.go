package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// keys returns the member names of a JSON object in their order.
func keys(t *testing.T, raw []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not a JSON object: %.200s", raw)
	}
	var names []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return names
}

func lines(t *testing.T, path string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
}

func requestIDs(t *testing.T, path string) []string {
	t.Helper()
	var ids []string
	for _, l := range lines(t, path) {
		var r struct {
			RequestID string `json:"request_id"`
		}
		if err := json.Unmarshal(l, &r); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.RequestID)
	}
	return ids
}

// checkOpenAIBatch holds the to-openai file to the Batch API's documented input line:
// {"custom_id", "method", "url", "body"}, one per request, custom_id the request id
// and its recipe's tag.
func checkOpenAIBatch(t *testing.T, path, url string, ids []string, recipe string) {
	t.Helper()
	ls := lines(t, path)
	if len(ls) != len(ids) {
		t.Fatalf("%d batch lines for %d requests", len(ls), len(ids))
	}
	for i, l := range ls {
		if got := keys(t, l); !reflect.DeepEqual(got, []string{"custom_id", "method", "url", "body"}) {
			t.Fatalf("line %d has members %v", i+1, got)
		}
		var w struct {
			CustomID string `json:"custom_id"`
			Method   string
			URL      string
			Body     struct{ Model string }
		}
		json.Unmarshal(l, &w)
		// the request id and its recipe's tag (fbeval-batch's ids.go)
		if w.CustomID != ids[i]+"#r"+strings.TrimPrefix(recipe, "sha256:")[:8] || w.Method != "POST" || w.URL != url || w.Body.Model != "m" {
			t.Fatalf("line %d: %+v", i+1, w)
		}
	}
}

// checkOpenAIOutput holds the batch service's output to the documented output line:
// {"id", "custom_id", "response": {"status_code", "request_id", "body"}, "error"}.
func checkOpenAIOutput(t *testing.T, path string, n int) {
	t.Helper()
	ls := lines(t, path)
	if len(ls) != n {
		t.Fatalf("%d output lines for %d requests", len(ls), n)
	}
	for i, l := range ls {
		var w struct {
			Response json.RawMessage
		}
		json.Unmarshal(l, &w)
		if got := keys(t, l); !reflect.DeepEqual(got, []string{"id", "custom_id", "response", "error"}) {
			t.Fatalf("output line %d has members %v", i+1, got)
		}
		if got := keys(t, w.Response); !reflect.DeepEqual(got, []string{"status_code", "request_id", "body"}) {
			t.Fatalf("output line %d: response has members %v", i+1, got)
		}
	}
}

var anthropicCustomID = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// checkAnthropicBatch holds the to-anthropic file to the Message Batches create body:
// {"requests": [{"custom_id", "params"}]}, params a Messages request.
func checkAnthropicBatch(t *testing.T, path string, n int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := keys(t, data); !reflect.DeepEqual(got, []string{"requests"}) {
		t.Fatalf("the create body has members %v", got)
	}
	var body struct{ Requests []json.RawMessage }
	json.Unmarshal(data, &body)
	if len(body.Requests) != n {
		t.Fatalf("%d batch requests for %d requests", len(body.Requests), n)
	}
	seen := map[string]bool{}
	for i, r := range body.Requests {
		if got := keys(t, r); !reflect.DeepEqual(got, []string{"custom_id", "params"}) {
			t.Fatalf("request %d has members %v", i+1, got)
		}
		var w struct {
			CustomID string `json:"custom_id"`
			Params   json.RawMessage
		}
		json.Unmarshal(r, &w)
		if !anthropicCustomID.MatchString(w.CustomID) || seen[w.CustomID] {
			t.Fatalf("request %d: custom_id %q breaks the pattern or repeats", i+1, w.CustomID)
		}
		seen[w.CustomID] = true
		if got := keys(t, w.Params); !reflect.DeepEqual(got, []string{"model", "max_tokens", "system", "messages"}) {
			t.Fatalf("request %d: params has members %v", i+1, got)
		}
	}
}

// checkAnthropicResults holds the results file to the documented line:
// {"custom_id", "result": {"type": "succeeded", "message"}}.
func checkAnthropicResults(t *testing.T, path string, n int) {
	t.Helper()
	ls := lines(t, path)
	if len(ls) != n {
		t.Fatalf("%d result lines for %d requests", len(ls), n)
	}
	for i, l := range ls {
		if got := keys(t, l); !reflect.DeepEqual(got, []string{"custom_id", "result"}) {
			t.Fatalf("result line %d has members %v", i+1, got)
		}
		var w struct {
			Result struct {
				Type    string
				Message struct{ Type string }
			}
		}
		json.Unmarshal(l, &w)
		if w.Result.Type != "succeeded" || w.Result.Message.Type != "message" {
			t.Fatalf("result line %d: %s", i+1, l)
		}
	}
}

var latencyField = regexp.MustCompile(`,"latency_ms":[0-9.e+-]+`)

// runField is the "run" member: which runner wrote a record differs, the study
// and recipe not.
var runField = regexp.MustCompile(`,"run":\{"runner":"[^"]*"(,"provider":"[^"]*")?(,"model":"[^"]*")?,"study":"(sha256:[0-9a-f]{16})"(,"recipe":"sha256:[0-9a-f]{16}")?(,"settings":"[^"]*")?\}`)

// normalize decodes a report and nulls what differs between two runs of the same
// answers: latency-derived fields, and the responses file's path and hash (its
// bytes hold the latencies).
func normalize(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		if depth > 64 { // reports are shallow; the limit only bounds the walk
			t.Fatal("the report nests too deep")
		}
		switch v := v.(type) {
		case map[string]any:
			if v["role"] == "responses" {
				v["path"], v["sha256"] = nil, nil
			}
			for k, x := range v {
				if strings.HasPrefix(k, "latency_") {
					v[k] = nil
				} else {
					walk(x, depth+1)
				}
			}
		case []any:
			for _, x := range v {
				walk(x, depth+1)
			}
		}
	}
	walk(v, 0)
	return v
}

// firstDiff names the first path where a and b differ, for a readable failure.
func firstDiff(a, b any, path string) string {
	switch a := a.(type) {
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok {
			return path
		}
		for k := range a {
			if d := firstDiff(a[k], bm[k], path+"."+k); d != "" {
				return d
			}
		}
		if len(a) != len(bm) {
			return path + " (members)"
		}
		return ""
	case []any:
		bl, ok := b.([]any)
		if !ok || len(a) != len(bl) {
			return path
		}
		for i := range a {
			if d := firstDiff(a[i], bl[i], fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(a, b) {
		return fmt.Sprintf("%s: %v != %v", path, a, b)
	}
	return ""
}

// TestBatchEqualsLive answers the same requests twice with the same answers: live,
// through a runner and the fake server, and as a batch, through fbeval-batch, the
// fake batch service and back. The response records are the same bytes but for
// latency_ms, and the reports are the same but for latency.
func TestBatchEqualsLive(t *testing.T) {
	needBinaries(t)
	dir := t.TempDir()
	exportAnswers(t, dir)
	url := startFakeServer(t, dir, "--answers", "answers.jsonl")
	ids := requestIDs(t, filepath.Join(dir, "requests.jsonl"))
	var exported struct {
		Study  string `json:"study"`
		Recipe string `json:"recipe"`
	}
	if err := json.Unmarshal(lines(t, filepath.Join(dir, "requests.jsonl"))[0], &exported); err != nil || !strings.HasPrefix(exported.Study, "sha256:") || !strings.HasPrefix(exported.Recipe, "sha256:") {
		t.Fatalf("the export carries no study identity or recipe: %v %+v", err, exported)
	}
	study, recipe := exported.Study, exported.Recipe

	for _, tt := range []struct {
		name   string
		live   []string // runner and its own flags
		to     []string // fbeval-batch subcommand and flags
		from   string
		serve  string // fake server flag answering the batch file
		check  func(t *testing.T, batch, output string)
		suffix string
	}{
		{
			name: "openai-chat", live: []string{"fbeval-openai"},
			to: []string{"to-openai"}, from: "from-openai", serve: "--openai-batch", suffix: ".jsonl",
			check: func(t *testing.T, batch, output string) {
				checkOpenAIBatch(t, batch, "/v1/chat/completions", ids, recipe)
				checkOpenAIOutput(t, output, len(ids))
			},
		},
		{
			name: "openai-responses", live: []string{"fbeval-openai", "--api", "responses"},
			to: []string{"to-openai", "--api", "responses"}, from: "from-openai", serve: "--openai-batch", suffix: ".jsonl",
			check: func(t *testing.T, batch, output string) {
				checkOpenAIBatch(t, batch, "/v1/responses", ids, recipe)
				checkOpenAIOutput(t, output, len(ids))
			},
		},
		{
			name: "anthropic", live: []string{"fbeval-anthropic"},
			to: []string{"to-anthropic"}, from: "from-anthropic", serve: "--anthropic-batch", suffix: ".json",
			check: func(t *testing.T, batch, output string) {
				checkAnthropicBatch(t, batch, len(ids))
				checkAnthropicResults(t, output, len(ids))
			},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := func(s string) string { return tt.name + "-" + s }
			live := append(append(tt.live, "--base-url", url, "--model", "m", "-o", p("live.jsonl"), "requests.jsonl"), fast...)
			run(t, dir, 0, live...)
			runTo(t, dir, p("batch")+tt.suffix, append(append([]string{"fbeval-batch"}, tt.to...), "--model", "m", "requests.jsonl")...)
			runTo(t, dir, p("output.jsonl"), "fbeval-fakeserver", "--answers", "answers.jsonl", tt.serve, p("batch")+tt.suffix)
			tt.check(t, filepath.Join(dir, p("batch")+tt.suffix), filepath.Join(dir, p("output.jsonl")))
			runTo(t, dir, p("joined.jsonl"), "fbeval-batch", tt.from, "--requests", "requests.jsonl", p("output.jsonl"))

			liveData, _ := os.ReadFile(filepath.Join(dir, p("live.jsonl")))
			joined, _ := os.ReadFile(filepath.Join(dir, p("joined.jsonl")))
			stripped := latencyField.ReplaceAll(liveData, nil)
			if bytes.Equal(stripped, liveData) {
				t.Fatal("the live records carry no latency_ms")
			}
			// Both say they answer the exported study and recipe; the runner names differ.
			for name, data := range map[string][]byte{"live": stripped, "batch": joined} {
				n := bytes.Count(data, []byte("\n"))
				if m := len(runField.FindAll(data, -1)); n != m || !bytes.Contains(data, []byte(`"study":"`+study+`"`)) {
					t.Fatalf("%s: %d of %d records say their run and study %s", name, m, n, study)
				}
				if m := bytes.Count(data, []byte(`"study":"`+study+`","recipe":"`+recipe+`"`)); m != n {
					t.Fatalf("%s: %d of %d records say their recipe %s", name, m, n, recipe)
				}
			}
			stripped, joined = runField.ReplaceAll(stripped, nil), runField.ReplaceAll(joined, nil)
			if !bytes.Equal(stripped, joined) {
				a, b := bytes.Split(stripped, []byte("\n")), bytes.Split(joined, []byte("\n"))
				for i := range min(len(a), len(b)) {
					if !bytes.Equal(a[i], b[i]) {
						t.Fatalf("record %d differs:\nlive:  %s\nbatch: %s", i+1, a[i], b[i])
					}
				}
				t.Fatalf("%d live records, %d batch records", len(a), len(b))
			}

			liveRep := run(t, dir, 0, "fbeval", "score", "toolcall-quick", "--responses", p("live.jsonl"), "--format", "json").out
			batchRep := run(t, dir, 0, "fbeval", "score", "toolcall-quick", "--responses", p("joined.jsonl"), "--format", "json").out
			lr, br := decodeReport(t, liveRep), decodeReport(t, batchRep)
			checkPerfect(t, br)
			if lr.Arms["no_schema"].LatencyP50 == nil || br.Arms["no_schema"].LatencyP50 != nil {
				t.Errorf("latency: live %v, batch %v; want a live latency and none for the batch", lr.Arms["no_schema"].LatencyP50, br.Arms["no_schema"].LatencyP50)
			}
			if d := firstDiff(normalize(t, liveRep), normalize(t, batchRep), "report"); d != "" {
				t.Errorf("the reports differ beyond latency at %s", d)
			}
		})
	}
}
