package main

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fbeval/fbeval/contract"
)

// rightChance is the probability that garble answers right at an attempt: repair
// rounds (attempt > 1) recover more often, as models given feedback do.
func rightChance(attempt int) float64 {
	switch {
	case attempt <= 1:
		return 0.55
	case attempt == 2:
		return 0.80
	}
	return 0.95
}

// draw is the stable hash of (seed, request id, attempt) that decides one answer:
// SHA-256 over the seed (8 bytes, big-endian), the id's length and bytes, and the
// attempt. It never depends on the order of requests.
type draw [4]uint64

func newDraw(seed int64, id string, attempt int) draw {
	h := sha256.New()
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(seed))
	h.Write(b[:])
	binary.BigEndian.PutUint64(b[:], uint64(len(id)))
	h.Write(b[:])
	h.Write([]byte(id))
	binary.BigEndian.PutUint64(b[:], uint64(int64(attempt)))
	h.Write(b[:])
	sum := h.Sum(nil)
	var d draw
	for i := range d {
		d[i] = binary.BigEndian.Uint64(sum[8*i:])
	}
	return d
}

// unit maps d[0] to [0, 1).
func (d draw) unit() float64 { return float64(d[0]>>11) / (1 << 53) }

// pick returns an index below n from word i (1..3) of the draw.
func (d draw) pick(i, n int) int { return int(d[i] % uint64(n)) }

// garble returns the garble answer to req and the kind of answer ("right" or the
// kind of mistake).
func garble(seed int64, req *contract.Request) (string, string) {
	ref := *req.ReferenceOutput
	d := newDraw(seed, req.RequestID, req.Attempt)
	if d.unit() < rightChance(req.Attempt) {
		return ref, "right"
	}
	if req.Suite == contract.SuiteCogLang {
		return garbleCogLang(d, ref)
	}
	return garbleToolcall(d, ref)
}

// Toolcall mistakes. The first group needs the reference to be a JSON object; the
// argument group needs a call_tool reference with arguments; the number group needs
// an integer argument.
var (
	textMistakes     = []string{"markdown_fence", "prose_prefix", "truncated_json"}
	envelopeMistakes = []string{"wrong_action", "extra_argument", "duplicate_key"}
	argumentMistakes = []string{"missing_argument", "wrong_value"}
	numberMistakes   = []string{"out_of_range", "number_as_string"}
)

func garbleToolcall(d draw, ref string) (string, string) {
	kinds := append([]string(nil), textMistakes...)
	env, ok := parseObject(ref)
	var args map[string]any
	var argKeys, intKeys []string
	if ok {
		kinds = append(kinds, envelopeMistakes...)
		args, _ = env["arguments"].(map[string]any)
		if env["action"] == contract.ActionCallTool && len(args) > 0 {
			kinds = append(kinds, argumentMistakes...)
			for k, v := range args {
				argKeys = append(argKeys, k)
				if n, isNum := v.(json.Number); isNum && !strings.ContainsAny(string(n), ".eE") {
					intKeys = append(intKeys, k)
				}
			}
			sort.Strings(argKeys)
			sort.Strings(intKeys)
			if len(intKeys) > 0 {
				kinds = append(kinds, numberMistakes...)
			}
		}
	}
	kind := kinds[d.pick(1, len(kinds))]
	switch kind {
	case "markdown_fence":
		return "```json\n" + ref + "\n```", kind
	case "prose_prefix":
		return "Here is the tool call you asked for:\n" + ref, kind
	case "truncated_json":
		return cut(ref, len(ref)*2/3), kind
	case "duplicate_key":
		// A second "action" member ahead of the real one: a strict parser rejects it,
		// a lenient one keeps the last value and sees the right answer.
		trimmed := strings.TrimLeft(ref, " \t\r\n")
		return `{"action":"refuse",` + strings.TrimPrefix(trimmed, "{"), kind
	case "wrong_action":
		switch env["action"] {
		case contract.ActionCallTool:
			missing := []any{"details"}
			if len(args) > 0 {
				keys := sortedKeys(args)
				missing = []any{keys[d.pick(2, len(keys))]}
			}
			env["action"], env["tool"], env["arguments"], env["missingFields"] = contract.ActionAsk, nil, map[string]any{}, missing
			env["reason"] = "I need one more detail before preparing this."
		case contract.ActionAsk:
			env["action"], env["missingFields"] = contract.ActionRefuse, []any{}
			env["reason"] = "I cannot help with this request."
		default:
			env["action"], env["missingFields"] = contract.ActionAsk, []any{"confirmation"}
			env["reason"] = "Please confirm the request."
		}
	case "extra_argument":
		if args == nil {
			args = map[string]any{}
			env["arguments"] = args
		}
		args["notes"] = "prepared by the assistant"
	case "missing_argument":
		delete(args, argKeys[d.pick(2, len(argKeys))])
	case "wrong_value":
		k := argKeys[d.pick(2, len(argKeys))]
		args[k] = wrongValue(args[k])
	case "out_of_range":
		// Above every ceiling of the built-in tools.
		args[intKeys[d.pick(2, len(intKeys))]] = json.Number("1000000")
	case "number_as_string":
		k := intKeys[d.pick(2, len(intKeys))]
		args[k] = string(args[k].(json.Number))
	}
	b, err := contract.Marshal(env, contract.Compact)
	if err != nil {
		return cut(ref, len(ref)/2), "truncated_json"
	}
	return string(b), kind
}

// wrongValue returns a plausible but different value for an argument.
func wrongValue(v any) any {
	switch x := v.(type) {
	case string:
		return x + " (approx.)"
	case json.Number:
		if n, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return json.Number(strconv.FormatInt(n+1, 10))
		}
		return json.Number("0")
	case bool:
		return !x
	}
	return "unknown"
}

// parseObject reads a JSON object with exact numbers; ok is false for anything else,
// including trailing data.
func parseObject(s string) (map[string]any, bool) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, false
	}
	var rest json.RawMessage
	if dec.Decode(&rest) == nil {
		return nil, false
	}
	return m, true
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

var (
	coglangMistakes = []string{"unclosed_bracket", "hallucinated_head", "wrong_top_head", "prose"}
	// Heads of the CogLang vocabulary a confused model swaps in.
	swapHeads = []string{"Equal", "Compare", "Get", "Query", "Traverse", "Create", "Update", "Inspect"}
	// Heads that sound right but are not in the vocabulary.
	fakeHeads = []string{"Fetch", "FindNodes", "Lookup", "Search", "Select"}
)

func garbleCogLang(d draw, ref string) (string, string) {
	kind := coglangMistakes[d.pick(1, len(coglangMistakes))]
	expr := strings.TrimSpace(ref)
	head, rest := splitHead(expr)
	switch kind {
	case "unclosed_bracket":
		if strings.HasSuffix(expr, "]") {
			return expr[:len(expr)-1], kind
		}
		return expr + "[", kind
	case "hallucinated_head":
		fake := fakeHeads[d.pick(2, len(fakeHeads))]
		if head == "" {
			return fake + "[" + expr + "]", kind
		}
		return fake + rest, kind
	case "wrong_top_head":
		other := swapHeads[d.pick(2, len(swapHeads))]
		if other == head {
			other = swapHeads[(d.pick(2, len(swapHeads))+1)%len(swapHeads)]
		}
		if head == "" {
			return other + "[" + expr + "]", kind
		}
		return other + rest, kind
	}
	return "Sure! The expression you need is:\n" + expr, kind
}

// splitHead splits "Head[args]" into "Head" and "[args]"; head is empty when expr
// does not start with an identifier and a bracket.
func splitHead(expr string) (head, rest string) {
	i := strings.IndexByte(expr, '[')
	if i <= 0 {
		return "", expr
	}
	for j, c := range []byte(expr[:i]) {
		letter := c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
		if !letter && (j == 0 || c < '0' || c > '9') {
			return "", expr
		}
	}
	return expr[:i], expr[i:]
}

// cut returns s cut to at most n bytes, on a character boundary.
func cut(s string, n int) string {
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
