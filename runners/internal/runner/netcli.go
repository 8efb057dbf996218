package runner

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/alecthomas/kong"
	"github.com/fbeval/fbeval/contract"
	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// NetFlags are the flags every networked runner shares. Defaults that differ per
// runner come from kong variables (Setup.Vars): ${base_url}, ${base_url_env}
// and ${api_key_env}.
type NetFlags struct {
	Input                     string        `arg:"" optional:"" default:"-" help:"Request file (JSONL, JSON list or batch object); - reads stdin."`
	Output                    string        `short:"o" default:"-" placeholder:"FILE" help:"Write responses to FILE, resuming it: requests it answers are skipped, the rest appended; a file of another study, provider, model or settings (temperature, token limit, API), or one another run is writing, is refused. - writes stdout."`
	Fresh                     bool          `help:"Start the -o file over instead of resuming it."`
	ProgressEvery             time.Duration `default:"10s" placeholder:"DURATION" help:"When stderr is not a terminal, print a progress line this often (0: never)."`
	Model                     string        `required:"" help:"Model name sent to the provider."`
	BaseURL                   *string       `placeholder:"URL" help:"API base URL (not given: ${base_url_env} when it is set, else ${base_url})."`
	Header                    []string      `sep:"none" help:"Extra HTTP header K:V (repeatable)."`
	APIKeyEnv                 string        `default:"${api_key_env}" help:"Name of the environment variable holding the API key, not the key (the variable unset: no key is sent)."`
	Provider                  string        `help:"Provider name written to each record."`
	MaxTokens                 int           `help:"Longest answer in tokens (0: the request's max_tokens, which its study sets, else ${max_tokens_default})."`
	Temperature               *float64      `help:"Sampling temperature (unset: the request's temperature, which its study sets, else the provider's default)."`
	Concurrency               int           `default:"4" help:"Requests in flight at once."`
	RPS                       float64       `default:"0" help:"Calls per second, retries included (0: no limit)."`
	Retries                   int           `default:"4" help:"Further calls per request after a network error, a timeout, an answer that cannot be read or that the server ended, 408, 409, 429 or 5xx."`
	Backoff                   time.Duration `default:"1s" help:"First retry wait; doubles each retry, with jitter."`
	MaxBackoff                time.Duration `default:"2m" help:"Longest wait between calls, Retry-After included."`
	Timeout                   time.Duration `default:"120s" help:"Per-call timeout (0: none)."`
	MaxRequests               int           `help:"Stop after this many calls, retries included (0: no limit)."`
	MaxConsecutiveErrors      int           `default:"10" help:"Stop after this many provider errors in a row (0: never)."`
	AllowCrossOriginRedirects bool          `help:"Follow a redirect to another scheme, host or port (sent without the key and --header values; refused by default)."`
}

// Setup is what a networked runner adds to the shared flags: its name, and how the
// key is sent.
type Setup struct {
	Name string
	// Provider is the provider name records carry when --provider is not given.
	Provider string
	// Settings, when set, gives the runner's own flags that change its
	// answers, as RunInfo.Settings words (fbeval-openai: "api=chat"); it is
	// called once the flags are parsed.
	Settings func() string
	// MaxTemperature is the highest --temperature the API takes (OpenAI's
	// documents 0 to 2, Anthropic's 0 to 1).
	MaxTemperature float64
	// MaxTokensDefault says what answers are limited to when neither
	// --max-tokens nor the request gives a limit ("" : the provider's
	// default, where it has one).
	MaxTokensDefault string
	// BaseURL is the API's base URL when --base-url is not given and the
	// variable BaseURLEnv is not set or empty (as the provider's SDK reads it);
	// APIKeyEnv the --api-key-env default.
	BaseURL, BaseURLEnv, APIKeyEnv string
	// Auth returns the headers that carry key.
	Auth func(key string) http.Header
	// New returns the provider that asks through h.
	New func(h *HTTP) Provider
}

// Vars are the kong variables of the runner's flag defaults, for ParseArgs.
func (s Setup) Vars() kong.Vars {
	tokens := s.MaxTokensDefault
	if tokens == "" {
		tokens = "the provider's default, where it has one"
	}
	return kong.Vars{"base_url": s.BaseURL, "base_url_env": s.BaseURLEnv, "api_key_env": s.APIKeyEnv, "max_tokens_default": tokens}
}

// Execute runs a networked runner with parsed flags: reads the requests, opens (and
// repairs) the output, asks the provider for every request not yet answered, prints
// a progress bar when stderr is a terminal and a summary line at the end. It returns
// the exit code: 0 all answered, 1 provider errors or stopped early, 2 bad usage or
// input.
func Execute(ctx context.Context, f *NetFlags, s Setup, stdin io.Reader, stdout, stderr io.Writer) int {
	fail := func(code int, format string, args ...any) int {
		fmt.Fprintf(stderr, "%s: %s\n", s.Name, contract.PrintableLine(fmt.Sprintf(format, args...)))
		return code
	}
	// not given (nil), and only then: an empty --base-url "$UNSET" is refused
	base, from := s.BaseURL, "--base-url"
	if f.BaseURL != nil {
		base = *f.BaseURL
	} else if v := os.Getenv(s.BaseURLEnv); v != "" {
		// as the SDKs read it; said, as the calls and the key go there
		base, from = v, s.BaseURLEnv
	}
	if err := checkBaseURL(from, base); err != nil {
		return fail(ExitUsage, "%v", err)
	}
	// notes on where the calls go, said once the requests and the output
	// are open: before, an error that stops the run is its one line
	var notes []string
	if from != "--base-url" {
		notes = append(notes, fmt.Sprintf("the base URL is %s's, %s (--base-url overrides it)", from, redactedURL(base)))
	}
	if n := proxyNote(base); n != "" {
		notes = append(notes, n)
	}
	if msg := f.check(); msg != "" {
		return fail(ExitUsage, "%s", msg)
	}
	if msg := CheckTemperature(f.Temperature, s.MaxTemperature); msg != "" {
		return fail(ExitUsage, "%s", msg)
	}
	header := http.Header{}
	var secrets, keys, own []string
	for _, h := range f.Header {
		k, v, ok := strings.Cut(h, ":")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if ok && k == "" {
			return fail(ExitUsage, "--header wants NAME: VALUE, a name before the colon (a --header had none; its text is not shown here, in case it is a credential)")
		}
		if !ok {
			// "Authorization Bearer sk-...": the rest may be the credential
			name, _, spaced := strings.Cut(strings.TrimSpace(h), " ")
			name, _, eq := strings.Cut(name, "=")
			if (!spaced && !eq) || len(name) > 40 || strings.ContainsAny(name, "0123456789") {
				// no name before the value, or one that may be a key
				// itself (a key pasted alone): nothing of it shown
				return fail(ExitUsage, "--header wants NAME: VALUE, a colon after the name (a --header had none; its text is not shown here, in case it is a credential)")
			}
			return fail(ExitUsage, "--header wants NAME: VALUE, a colon after the name (--header %q had none; its value is not shown here, in case it is a credential)", name+" ...")
		}
		header.Add(k, v)
		own = append(own, k)
		secrets = append(secrets, v)
		if credentialHeader(k) {
			keys = append(keys, v)
		}
	}
	if key := os.Getenv(f.APIKeyEnv); key != "" {
		for k, vs := range s.Auth(key) {
			header[http.CanonicalHeaderKey(k)] = vs
			own = append(own, k)
		}
		secrets = append(secrets, key)
		keys = append(keys, key)
	} else if keyed(base) && len(keys) == 0 {
		// every call would be a 401: say it now, not after ten of them
		return fail(ExitUsage, "%s is not set, and %s answers no call without a key: export it (or name the variable that holds the key with --api-key-env)", f.APIKeyEnv, redactedURL(base))
	} else if len(keys) == 0 {
		notes = append(notes, fmt.Sprintf("%s is not set; sending no API key", f.APIKeyEnv))
	}
	// The longest secrets first, so a key inside a header value is fully replaced.
	sortByLenDesc(secrets)

	in, inName, done, err := contract.OpenInput(f.Input, "requests", stdin)
	if err != nil {
		return fail(ExitUsage, "%v", err)
	}
	defer done()
	if f.Output == "-" {
		// before the requests are read: after `> req.jsonl` they are gone
		if err := StdoutNotAnInput(stdout, []string{f.Input}, "the responses"); err != nil {
			return fail(ExitUsage, "%v", err)
		}
	}
	reqs, err := OpenRequests(inName, in, nil)
	if err != nil {
		return fail(ExitUsage, "%v", err)
	}
	defer reqs.Close()
	run := RunInfo{Runner: s.Name, Provider: f.Provider, Model: f.Model, Settings: f.settings(s)}
	if run.Provider == "" {
		run.Provider = s.Provider
	}
	out := NewOutput(stdout)
	if f.Output != "-" {
		if out, err = OpenOutput(f.Output, Resume{Fresh: f.Fresh, Run: run, Studies: reqs.Studies(), Recipes: reqs.Recipes(), Inputs: []string{f.Input}}); err != nil {
			return fail(ExitUsage, "%v", err)
		}
		defer out.Close()
		if out.Repaired > 0 {
			fmt.Fprintf(stderr, "%s: %s: cut off a torn last line (%d bytes) left by an interrupted run\n", s.Name, f.Output, out.Repaired)
		}
	}
	for _, n := range notes {
		fmt.Fprintf(stderr, "%s: %s\n", s.Name, contract.PrintableLine(n))
	}
	opts := Options{
		Concurrency: f.Concurrency, RPS: f.RPS, Retries: f.Retries, Timeout: f.Timeout,
		MaxRequests: f.MaxRequests, MaxConsecutiveErrors: f.MaxConsecutiveErrors,
		BackoffBase: f.Backoff, BackoffMax: f.MaxBackoff, Seed: 1, Secrets: secrets, Keys: keys, Run: run,
	}
	stopProgress := func() {}
	// a provider's text (an error's message, a model's name) is on these
	// lines: its control and bidi characters escaped, as fbeval's are
	opts.Warn = func(msg string) { fmt.Fprintf(stderr, "%s: %s\n", s.Name, contract.PrintableLine(msg)) }
	if file, ok := stderr.(*os.File); ok && term.IsTerminal(int(file.Fd())) {
		bar := progressbar.NewOptions(reqs.Len(),
			progressbar.OptionSetWriter(stderr),
			progressbar.OptionSetDescription(s.Name),
			progressbar.OptionShowCount(),
			progressbar.OptionClearOnFinish(),
		)
		_ = bar.Add(reqs.CountAnswered(out))
		opts.Progress = func(bool) { _ = bar.Add(1) }
		warn := opts.Warn
		opts.Warn = func(msg string) { _ = bar.Clear(); warn(msg) } // the bar is drawn again at the next request
		defer bar.Finish()
	} else if f.ProgressEvery > 0 {
		p := &progress{name: s.Name, total: reqs.Len(), skipped: reqs.CountAnswered(out), start: time.Now()}
		opts.Progress = p.add
		stopProgress = p.report(stderr, f.ProgressEvery)
	}
	h := &HTTP{Client: &http.Client{}, BaseURL: base, Header: header, Secrets: secrets, CrossOrigin: f.AllowCrossOriginRedirects, Own: own}
	sum, err := Run(ctx, reqs, s.New(h), out, opts)
	if err == nil {
		err = out.Close()
	}
	// The reporter writes to stderr too: stop it before the summary line.
	stopProgress()
	fmt.Fprintf(stderr, "%s: %s\n", s.Name, contract.PrintableLine(Redact(sum.String(), secrets)))
	if err != nil {
		return fail(1, "%s", Redact(err.Error(), secrets))
	}
	return sum.ExitCode()
}

// proxyNote says that the calls to base go through a proxy the environment
// names (HTTPS_PROXY, HTTP_PROXY, as Go's HTTP client and the SDKs read
// them), and that it sees the key where base is http://; "" when none does.
func proxyNote(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return ""
	}
	p, err := http.ProxyFromEnvironment(&http.Request{URL: u})
	if err != nil || p == nil {
		return ""
	}
	note := "the calls go through the proxy " + p.Redacted() + " (from the environment's HTTPS_PROXY or HTTP_PROXY; NO_PROXY leaves a host out)"
	if u.Scheme == "http" {
		note += ": the base URL is http://, so the proxy reads every call, the key included"
	}
	return note
}

// checkBaseURL refuses a base URL no call could reach, before anything is read or
// written: it must be http or https with a host, and carry no query or fragment
// (paths are appended to it).
func checkBaseURL(from, base string) error {
	u, err := url.Parse(base)
	bad := func(why string) error {
		return fmt.Errorf("%s %q %s; give the whole URL, e.g. http://127.0.0.1:8080/v1", from, base, why)
	}
	switch {
	case strings.TrimSpace(base) == "":
		return bad("is empty (a shell variable that is not set?)")
	case strings.TrimSpace(base) != base:
		// a space in the quotes: every call would go to /v1/%20/chat/completions
		return fmt.Errorf("%s %q has white space at an end: give it without: %s", from, base, strings.TrimSpace(base))
	case err != nil:
		return bad("is not a URL")
	case u.Scheme != "http" && u.Scheme != "https":
		return bad("has no http:// or https:// scheme")
	case u.Host == "" || u.Hostname() == "":
		return bad("has no host")
	case azureDated(u):
		// as the Azure portal and older clients give it
		v1 := url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/openai/v1"}
		gateway := ""
		if !azureHost(u) {
			gateway = " (or the route your gateway gives it)"
		}
		return fmt.Errorf("%s %q is Azure OpenAI's dated API (an api-version, a deployment in the path), which the runner does not call; Azure's v1 API takes the runner's calls: --base-url %s%s, the deployment's name as --model", from, base, v1.String(), gateway)
	case u.RawQuery != "" || u.Fragment != "" || u.ForceQuery:
		root := *u
		root.RawQuery, root.Fragment, root.RawFragment, root.ForceQuery = "", "", "", false
		return fmt.Errorf("%s %q has a query or fragment, and the runner adds its endpoints' paths to the API's root, which takes none: --base-url %s", from, base, root.Redacted())
	}
	// The whole URL of an endpoint, as a curl example or a server's log shows
	// it: every call would go to …/chat/completions/chat/completions.
	path := strings.TrimRight(u.Path, "/")
	for _, ep := range endpoints {
		if strings.HasSuffix(path, ep) {
			root := *u
			root.Path, root.RawPath = strings.TrimSuffix(path, ep), ""
			return fmt.Errorf("%s %q names an endpoint (%s), and the runner adds the endpoint itself; give the API's root: --base-url %s", from, base, ep, root.Redacted())
		}
	}
	return nil
}

// azureDated reports whether u is an Azure OpenAI URL of the API versioned by
// date: ?api-version=... on an Azure host, or /openai/deployments/NAME in its
// path on any (a gateway's, API Management's, in front of Azure).
func azureDated(u *url.URL) bool {
	if strings.Contains(u.Path+"/", "/openai/deployments/") {
		return true
	}
	return azureHost(u) && u.Query().Has("api-version")
}

// azureHost reports whether u's host is an Azure OpenAI resource's or an
// Azure AI Foundry one's.
func azureHost(u *url.URL) bool {
	return azureOpenAIHost(u) || strings.HasSuffix(strings.ToLower(u.Hostname()), ".services.ai.azure.com")
}

// azureOpenAIHost reports whether u's host is an Azure OpenAI resource's.
func azureOpenAIHost(u *url.URL) bool {
	host := strings.ToLower(u.Hostname())
	return strings.HasSuffix(host, ".openai.azure.com") || strings.HasSuffix(host, ".cognitiveservices.azure.com")
}

// keyed reports whether base is one of the providers' own APIs, which answer
// no call without a key (a key in a --header counts).
func keyed(base string) bool {
	u, err := url.Parse(base)
	if err != nil {
		return false
	}
	switch strings.ToLower(u.Hostname()) {
	case "api.openai.com", "api.anthropic.com":
		return true
	}
	return false
}

// redactedURL is base with any password in it replaced (url.URL.Redacted).
func redactedURL(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return base
	}
	return u.Redacted()
}

// endpoints are the API paths a base URL is not to end in: those the runners
// call, and the older completions one (a longer path first).
var endpoints = []string{"/chat/completions", "/completions", "/responses", "/messages"}

func sortByLenDesc(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && len(s[j]) > len(s[j-1]); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// MinRPS is the slowest rate --rps takes: one call a day. A smaller positive rate
// would make the wait between calls overflow, which would turn the limit off.
const MinRPS = 1.0 / 86400

// check returns what is wrong with the numeric flags, or "".
func (f *NetFlags) check() string {
	switch {
	case math.IsNaN(f.RPS) || math.IsInf(f.RPS, 0) || f.RPS < 0 || (f.RPS > 0 && f.RPS < MinRPS):
		return fmt.Sprintf("--rps wants 0 (no limit) or calls per second from %.6g (one a day) up, got %v", MinRPS, f.RPS)
	case f.Concurrency < 1:
		return fmt.Sprintf("--concurrency wants 1 or more, got %d", f.Concurrency)
	case f.Retries < 0:
		return fmt.Sprintf("--retries wants 0 (no retry) or more, got %d", f.Retries)
	case f.MaxRequests < 0:
		return fmt.Sprintf("--max-requests wants 0 (no limit) or more, got %d", f.MaxRequests)
	case f.MaxConsecutiveErrors < 0:
		return fmt.Sprintf("--max-consecutive-errors wants 0 (never stop) or more, got %d", f.MaxConsecutiveErrors)
	case f.MaxTokens < 0:
		return fmt.Sprintf("--max-tokens wants 0 (the request's) or more, got %d", f.MaxTokens)
	case f.Timeout < 0 || f.Backoff < 0 || f.MaxBackoff < 0:
		return "--timeout, --backoff and --max-backoff want a duration of 0 or more"
	case f.ProgressEvery < 0 || (f.ProgressEvery > 0 && f.ProgressEvery < 100*time.Millisecond):
		return "--progress-every wants 0 (never) or at least 100ms"
	case f.Fresh && f.Output == "-":
		return "--fresh starts an -o file over; give -o FILE"
	}
	if msg := CheckModel(f.Model); msg != "" {
		return msg
	}
	return CheckKeyEnv(f.APIKeyEnv)
}

// settings are the run's flags that change its answers (RunInfo.Settings):
// the runner's own (s.Settings), then the token limit and the temperature,
// "request" where the request's own is sent.
func (f *NetFlags) settings(s Setup) string {
	tokens, temperature := "request", "request"
	if f.MaxTokens > 0 {
		tokens = strconv.Itoa(f.MaxTokens)
	}
	if f.Temperature != nil {
		temperature = strconv.FormatFloat(*f.Temperature, 'g', -1, 64)
	}
	out := "max_tokens=" + tokens + " temperature=" + temperature
	if s.Settings != nil {
		if own := s.Settings(); own != "" {
			out = own + " " + out
		}
	}
	return out
}

// CheckModel refuses a --model that names none: the provider refuses every
// call (or, for a batch, every line, hours later), and records without a
// model cannot be told from another model's.
func CheckModel(model string) string {
	if strings.TrimSpace(model) != "" {
		return ""
	}
	return fmt.Sprintf("--model %q names no model (a shell variable that is not set?): give the model's name as the provider knows it", model)
}

// CheckKeyEnv refuses an --api-key-env that is no environment variable's
// name: the key itself, pasted or expanded by the shell from "$NAME", would be
// looked up as a name, found unset, and printed in the note that says so. The
// value is not repeated unless it is a name with a $ before it.
func CheckKeyEnv(name string) string {
	if envName(name) {
		return ""
	}
	if rest, ok := strings.CutPrefix(name, "$"); ok && envName(rest) {
		return fmt.Sprintf("--api-key-env %s: give the variable's name without the $: --api-key-env %s", name, rest)
	}
	return "--api-key-env takes the name of the environment variable that holds the key (letters, digits and _, e.g. OPENAI_API_KEY), not the key: the value given is no such name (not shown here, in case it is the key)"
}

// envName reports whether s is a portable environment variable name.
func envName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// CheckTemperature refuses a --temperature the API does not take (max: the
// highest it documents): a server that takes any (vLLM takes every value from
// 0) would sample noise from a 7 meant as 0.7, scored as the model's answers.
func CheckTemperature(t *float64, max float64) string {
	if t == nil || max == 0 || *t >= 0 && *t <= max {
		return ""
	}
	msg := fmt.Sprintf("--temperature %v: the API takes 0 to %v", *t, max)
	switch {
	case *t > max && *t <= 2:
		// a study written for OpenAI's range, sent to Anthropic's
		msg += " (OpenAI's API takes 0 to 2)"
	case *t > max && *t == math.Trunc(*t) && *t/10 <= max:
		// a whole number past the range: a decimal point left out (7 for 0.7)
		msg += fmt.Sprintf("; did you mean %v", *t/10)
	}
	return msg
}

// credentialHeader reports whether a --header carries a credential by its name
// (api-key, Authorization, X-Auth-Token, ...): its value is scrubbed from answers too.
func credentialHeader(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"auth", "key", "token", "secret", "cookie", "signature", "password"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}
