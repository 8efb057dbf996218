package export

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/template"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/contract/strictjson"
	"github.com/fbeval/fbeval/contract/usage"
	"github.com/fbeval/fbeval/fixtures"
	"github.com/fbeval/fbeval/schemas"
	"github.com/go-json-experiment/json/jsontext"
)

// ToolcallPlan is a resolved toolcall study: the selected cases, each domain's tool
// contract, the schema each arm shows per domain, the candidate schema under test,
// and the prompt template. It rebuilds the same requests every time.
type ToolcallPlan struct {
	Study contract.Study
	Cases []contract.Case
	Tools map[string]contract.Tool // by domain
	// ArmSchemas[arm][domain] is the schema the arm shows (none for no_schema).
	ArmSchemas map[string]map[string][]byte
	// Candidate[domain] is the schema under test: the input_schema arm's schema.
	Candidate map[string][]byte
	Inputs    []Input

	// DatasetDomains and DatasetCategories are those of every case of the
	// dataset, in dataset order: the ones the filter leaves out too.
	DatasetDomains, DatasetCategories []string

	tmpl      *template.Template
	userAt    [2]int              // the line and column of the template's user block
	arguments map[string][]string // by domain: the names of the tool's fields, in schema order
	studyID   string
	recipe    string
}

// PlanToolcall loads what a resolved toolcall study names. A schema file the study
// names is compiled as the scorer will compile it, so that no request file carries
// a schema that can never be scored: with the one configuration of package schemas
// and the vocabularies of exts (the command passes relations.Vocabulary, the
// relation keywords score/relations implements).
func PlanToolcall(s contract.Study, exts ...schemas.Extension) (*ToolcallPlan, error) {
	p := &ToolcallPlan{Study: s, Tools: map[string]contract.Tool{}, ArmSchemas: map[string]map[string][]byte{}, Candidate: map[string][]byte{}}
	cases, input, err := loadDataset(s.Dataset, exts...)
	if err != nil {
		return nil, err
	}
	p.Inputs = append(p.Inputs, input)
	p.Cases = filterCases(cases, s.Filter)
	for i := range cases {
		if !slices.Contains(p.DatasetDomains, cases[i].Domain) {
			p.DatasetDomains = append(p.DatasetDomains, cases[i].Domain)
		}
		if !slices.Contains(p.DatasetCategories, cases[i].Category) {
			p.DatasetCategories = append(p.DatasetCategories, cases[i].Category)
		}
	}
	if len(s.Filter.Domains) > 0 {
		for i, d := range s.Filter.Domains {
			if msg := unknownDomain(d, s.Dataset, p.DatasetDomains); msg != "" {
				return nil, studyErrAt(s, fmt.Sprintf("/filter/domains/%d", i), "%s", msg)
			}
		}
	}
	if len(p.Cases) == 0 {
		return nil, studyErr("the filter selects no case of %s", s.Dataset)
	}
	if n := len(p.Cases) * len(s.Arms) * s.Repeats; n > MaxRequests {
		return nil, studyErr("%d cases × %d arms × %d repeats make %d requests, more than the %d a study may have: lower --repeats, or select fewer cases (--domain, --category, --limit)",
			len(p.Cases), len(s.Arms), s.Repeats, n, MaxRequests)
	}
	var domains []string
	for i := range p.Cases {
		c := &p.Cases[i]
		if _, ok := p.Tools[c.Domain]; ok {
			continue
		}
		tool, err := fixtures.ToolForCase(c)
		if err != nil {
			return nil, &contract.InputError{File: s.Dataset, Msg: err.Error()}
		}
		p.Tools[c.Domain] = tool
		domains = append(domains, c.Domain)
	}
	p.arguments = make(map[string][]string, len(p.Tools))
	for d, tool := range p.Tools {
		p.arguments[d] = argumentNames(tool.ReferenceSchema)
	}
	for _, arm := range []string{contract.ArmMinimalSchema, contract.ArmInputSchema} {
		name := s.Schemas[arm]
		perDomain := map[string][]byte{}
		var file []byte
		flag := "--schema"
		if arm == contract.ArmMinimalSchema {
			flag = "--minimal-schema"
		}
		if contract.IsSchemaFile(name) {
			data, err := contract.ReadFile(name)
			if err != nil {
				return nil, &contract.InputError{Kind: contract.ErrRead, File: name, Msg: "cannot read schema: " + pathErr(err)}
			}
			if kind, v := contract.KindOf(data); kind != "" {
				return nil, &contract.InputError{Kind: contract.ErrWrongFile, File: name, Line: 1, Col: 1, Msg: fmt.Sprintf("this is %s (%s), not a JSON Schema: give %s a schema file, or a variant (%s)", kind, v, flag, strings.Join(fixtures.ToolcallVariantNames(), ", "))}
			}
			if inner := schemaOfToolDefinition(data); inner != "" {
				// a schema by its keywords (description), checking nothing
				return nil, &contract.InputError{Kind: contract.ErrWrongFile, File: name, Line: 1, Col: 1, Msg: fmt.Sprintf("this is a tool definition, not a JSON Schema: give %s its %s alone", flag, inner)}
			}
			if keys := notSchemaKeys(data); keys != "" {
				// any object compiles, its keys unknown keywords: a model's
				// output so given would pass every check
				return nil, &contract.InputError{Kind: contract.ErrWrongFile, File: name, Line: 1, Col: 1, Msg: fmt.Sprintf("holds no JSON Schema keyword at its top level (%s), so it would pass anything: give %s a schema file, or a variant (%s)", keys, flag, strings.Join(fixtures.ToolcallVariantNames(), ", "))}
			}
			if _, _, err := schemas.Compile(data, exts...); err != nil {
				var ie *contract.InputError
				if errors.As(err, &ie) {
					ie.File = name // a mistake the metaschema found, at its line and column
					return nil, ie
				}
				return nil, &contract.InputError{File: name, Msg: err.Error()}
			}
			if len(domains) > 1 {
				return nil, studyErr("the %s schema file %s applies to one domain, but the study selects %d (%s): add --domain", arm, name, len(domains), strings.Join(domains, ", "))
			}
			if len(domains) == 1 {
				// another tool's schema: every answer of this tool fails
				// it, and the prompts show it for this tool
				tool := p.Tools[domains[0]]
				own, theirs := schemas.Properties(tool.ReferenceSchema), schemas.Properties(data)
				if len(own) > 0 && len(theirs) > 0 && !slices.ContainsFunc(theirs, func(f string) bool { return slices.Contains(own, f) }) {
					return nil, &contract.InputError{Kind: contract.ErrWrongFile, File: name, Line: 1, Col: 1, Msg: fmt.Sprintf("names none of the fields of %s (%s), only %s: it is another tool's schema; give %s the schema of %s", tool.Name, strings.Join(own, ", "), strings.Join(theirs, ", "), flag, tool.Name)}
				}
			}
			file = data
			p.Inputs = append(p.Inputs, Input{Role: "schema", Path: name, SHA256: sha(data)})
		}
		for _, d := range domains {
			switch {
			case file != nil:
				perDomain[d] = file
			default:
				b, err := variantFor(p.Tools[d], name)
				if err != nil {
					return nil, err
				}
				perDomain[d] = b
			}
		}
		p.ArmSchemas[arm] = perDomain
	}
	p.Candidate = p.ArmSchemas[contract.ArmInputSchema]
	tmplText := defaultPromptTemplate
	if s.PromptTemplate != "" {
		data, err := contract.ReadFile(s.PromptTemplate)
		if err != nil {
			return nil, &contract.InputError{Kind: contract.ErrRead, File: s.PromptTemplate, Msg: "cannot read prompt template: " + pathErr(err)}
		}
		if kind, v := contract.KindOf(data); kind != "" {
			return nil, &contract.InputError{Kind: contract.ErrWrongFile, File: s.PromptTemplate, Line: 1, Col: 1, Msg: fmt.Sprintf("this is %s (%s), not a prompt template: give --prompt-template a Go text/template file with {{define \"system\"}} and {{define \"user\"}} blocks", kind, v)}
		}
		// a UTF-8 byte order mark (Notepad's, unix2dos -m's) is no text of
		// the prompts
		tmplText = strings.TrimPrefix(string(data), "\ufeff")
		p.Inputs = append(p.Inputs, Input{Role: "template", Path: s.PromptTemplate, SHA256: sha(data)})
	}
	name := s.PromptTemplate
	if name == "" {
		name = "builtin"
	}
	t, err := template.New(name).Option("missingkey=error").Parse(tmplText)
	if err != nil {
		return nil, templateErr(name, err)
	}
	if err := checkTemplate(t); err != nil {
		var te *templateError
		if errors.As(err, &te) {
			return nil, &contract.InputError{File: name, Line: te.line, Col: te.col, Msg: "prompt template: " + te.msg}
		}
		return nil, &contract.InputError{File: name, Msg: "prompt template: " + err.Error()}
	}
	for _, part := range []string{"system", "user"} {
		if t.Lookup(part) == nil {
			// the blocks it has, and the one meant for it where one is near
			names := blockNames(t, name)
			found := "it defines none"
			if len(names) > 0 {
				quoted := make([]string, len(names))
				for i, n := range names {
					quoted[i] = strconv.Quote(n)
				}
				found = "it defines " + contract.JoinWords(quoted)
			}
			if near := usage.Nearest(part, names); near != "" {
				found += fmt.Sprintf("; is %q meant to be %q?", near, part)
			}
			return nil, &contract.InputError{File: name, Msg: fmt.Sprintf(`prompt template: no {{define %q}} block (%s): a template defines "system" and "user"`, part, found)}
		}
	}
	if err := checkPlacement(t, tmplText); err != nil {
		te := err.(*templateError)
		return nil, &contract.InputError{File: name, Line: te.line, Col: te.col, Msg: "prompt template: " + te.msg}
	}
	p.tmpl = t
	p.userAt = blockAt(tmplText, t.Lookup("user"))
	p.studyID = StudyID(&s, p.Inputs)
	p.recipe = Recipe(&s, p.Inputs)
	return p, nil
}

// StudyID is the compact identity every fbeval-request/v1 record of a study carries
// in "study": "sha256:" and the first 16 hex digits of the SHA-256 of the study's
// members that shape its requests (its name, description, prices and gates left
// out) and of the files it reads. Runners copy it into their records, so a response
// file knows which study it answers, and a resumed run into a file of another
// study is refused.
func StudyID(s *contract.Study, inputs []Input) string {
	var o contract.Object
	for _, m := range s.Object() {
		switch m.Key {
		case "name", "description", "prices", "gates":
			continue
		}
		o = append(o, m)
	}
	// The files by content, not by path: the same study run from elsewhere is the same.
	files := make([]any, len(inputs))
	for i, in := range inputs {
		files[i] = []any{in.Role, in.SHA256}
	}
	o = append(o, contract.Member{Key: "inputs", Value: files})
	b, _ := contract.Marshal(o, contract.Compact)
	h := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(h[:8])
}

// Recipe is the identity every fbeval-request/v1 record of a toolcall study
// carries in "recipe": "sha256:" and the first 16 hex digits of the SHA-256 of
// what it is made from: the contents of the dataset, each schema arm's
// variant or schema file, the prompt template, the decoding and seed, and the
// max_tokens and temperature each request carries, when the study sets them.
// What only selects requests (arms, filter, repeats, repair rounds) and what
// does not reach them (name, description, prices, gates) is left out, so a
// study that scores a subset of an export's requests has its recipe.
// Runners copy it into their records (run.recipe), and scoring refuses records
// made from another recipe: responses to a weak schema's prompts are not a
// reference-schema run.
func Recipe(s *contract.Study, inputs []Input) string {
	content := func(role, path string) any {
		for _, in := range inputs {
			if in.Role == role && in.Path == path {
				return in.SHA256
			}
		}
		return path // a built-in: its name is its content
	}
	var schemaOf contract.Object
	for _, arm := range []string{contract.ArmMinimalSchema, contract.ArmInputSchema} {
		v := s.Schemas[arm]
		if contract.IsSchemaFile(v) {
			schemaOf = append(schemaOf, contract.Member{Key: arm, Value: []any{"file", content("schema", v)}})
		} else {
			schemaOf = append(schemaOf, contract.Member{Key: arm, Value: v})
		}
	}
	o := contract.Object{
		{Key: "recipe", Value: "fbeval-recipe/v1"},
		{Key: "suite", Value: s.Suite},
		{Key: "dataset", Value: content("dataset", s.Dataset)},
		{Key: "schemas", Value: schemaOf},
		{Key: "prompt_template", Value: content("template", s.PromptTemplate)},
		{Key: "decoding", Value: s.Decoding},
		{Key: "seed", Value: s.Seed},
	}
	// every request carries these, and a report gives them as the run's: set,
	// they are the recipe's (a study that sets neither has the recipe it had
	// before they were)
	if s.MaxTokens != nil {
		o = append(o, contract.Member{Key: "max_tokens", Value: *s.MaxTokens})
	}
	if s.Temperature != nil {
		o = append(o, contract.Member{Key: "temperature", Value: *s.Temperature})
	}
	b, _ := contract.Marshal(o, contract.Compact)
	h := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(h[:8])
}

// unknownDomain says that a filter's domain d is none of the domains of the
// dataset (have), or returns "" when it is one.
func unknownDomain(d, dataset string, have []string) string {
	if slices.Contains(have, d) {
		return ""
	}
	return fmt.Sprintf("unknown domain %q; domains of %s: %s%s", d, dataset, strings.Join(have, ", "), usage.Suggest(d, have))
}

func variantFor(tool contract.Tool, variant string) ([]byte, error) {
	b, err := fixtures.ToolcallVariantOf(tool, variant)
	if err != nil {
		return nil, studyErr("%v", err)
	}
	return b, nil
}

// schemaOfToolDefinition names the member of a tool definition that holds its
// schema (Anthropic's input_schema, MCP's inputSchema, a function's
// parameters; OpenAI's tools entry holds its function), when data is one, or
// "": given as a schema, its description alone is a keyword, and it checks
// nothing.
func schemaOfToolDefinition(data []byte) string {
	keys, _ := contract.TopLevel(data)
	switch {
	case keys["properties"]:
		return ""
	case keys["type"] && keys["function"]:
		return "function.parameters"
	case !keys["name"]:
		return ""
	}
	for _, k := range []string{"input_schema", "inputSchema", "parameters"} {
		if keys[k] {
			return k
		}
	}
	return ""
}

// notSchemaKeys lists (the first few of) the top-level keys of a schema file
// that is an object none of whose keys is a JSON Schema keyword or an
// extension's (x-...): a model's output or a dataset case given as the
// schema, which would compile and pass anything. "" for any other document
// ({} included, the schema that passes all, written so on purpose).
func notSchemaKeys(data []byte) string {
	keys, _ := contract.TopLevel(data)
	if len(keys) == 0 {
		return ""
	}
	var names []string
	for k := range keys {
		if slices.Contains(schemas.Keywords, k) || strings.HasPrefix(k, "x-") {
			return ""
		}
		names = append(names, k)
	}
	slices.Sort(names)
	if len(names) > 3 {
		names = append(names[:3], "...")
	}
	return strings.Join(names, ", ")
}

// LoadDataset reads a toolcall dataset as a study's is read: a file, - for
// standard input, or the built-in one by its path; the reference schemas of
// its own domains compiled with the vocabularies of exts.
func LoadDataset(path string, exts ...schemas.Extension) ([]contract.Case, error) {
	cases, _, err := loadDataset(path, exts...)
	return cases, err
}

func loadDataset(path string, exts ...schemas.Extension) ([]contract.Case, Input, error) {
	if path == fixtures.ToolcallDatasetPath {
		data, _ := fixtures.ToolcallFixtureFile("cases.jsonl")
		return fixtures.ToolcallDataset(), Input{Role: "dataset", Path: path, SHA256: sha(data)}, nil
	}
	if msg := fixtures.UnknownBuiltin(path); msg != "" {
		return nil, Input{}, &contract.InputError{Kind: contract.ErrUsage, Msg: msg}
	}
	data, err := contract.ReadFile(path)
	if err != nil {
		return nil, Input{}, readError(path, "dataset", err)
	}
	cases, err := fixtures.LoadToolcallCases(path, bytes.NewReader(data), exts...)
	if err != nil {
		return nil, Input{}, err
	}
	return cases, Input{Role: "dataset", Path: path, SHA256: sha(data)}, nil
}

// filterCases keeps the cases of the selected domains and categories, and at most
// Limit cases per (domain, category), in dataset order.
func filterCases(cases []contract.Case, f contract.Filter) []contract.Case {
	var out []contract.Case
	seen := map[[2]string]int{}
	for _, c := range cases {
		if len(f.Domains) > 0 && !slices.Contains(f.Domains, c.Domain) {
			continue
		}
		if len(f.Categories) > 0 && !slices.Contains(f.Categories, c.Category) {
			continue
		}
		k := [2]string{c.Domain, c.Category}
		if f.Limit > 0 && seen[k] >= f.Limit {
			continue
		}
		seen[k]++
		out = append(out, c)
	}
	return out
}

// StudyID is the identity the plan's requests carry in "study" (see StudyID).
func (p *ToolcallPlan) StudyID() string { return p.studyID }

// Recipe is the identity the plan's requests carry in "recipe" (see Recipe).
func (p *ToolcallPlan) Recipe() string { return p.recipe }

// RecipeFlag names the flag that, given to this plan's study, makes its
// requests from recipe: another decoding, or another built-in schema variant
// of the input_schema or minimal_schema arm (the flags most often left out
// when records are scored); "" when none does. A dataset, a template or a
// seed of another's cannot be guessed at.
func (p *ToolcallPlan) RecipeFlag(recipe string) string {
	makes := func(change func(s *contract.Study)) bool {
		s := p.Study
		s.Schemas = maps.Clone(p.Study.Schemas)
		change(&s)
		return Recipe(&s, p.Inputs) == recipe
	}
	for _, d := range []string{contract.DecodingPromptOnly, contract.DecodingNativeSchema, contract.DecodingNativeTools} {
		if d != p.Study.Decoding && makes(func(s *contract.Study) { s.Decoding = d }) {
			return "--decoding " + d
		}
	}
	for _, v := range fixtures.ToolcallVariantNames() {
		if makes(func(s *contract.Study) { s.Schemas[contract.ArmInputSchema] = v }) {
			return "--schema " + v
		}
		if makes(func(s *contract.Study) { s.Schemas[contract.ArmMinimalSchema] = v }) {
			return "--minimal-schema " + v
		}
	}
	return ""
}

// RecipeLineEnds says which of the study's files (dataset, schema files,
// prompt template) made recipe with other line ends or another byte order mark
// than it has here, and what to do: a checkout with core.autocrlf, or an editor
// on another system, changes a file's bytes and so the recipe, though the
// cases read the same. "" when no such change of one file makes recipe (or a
// file cannot be read again: standard input).
func (p *ToolcallPlan) RecipeLineEnds(recipe string) string {
	for i, in := range p.Inputs {
		if in.Path == "-" || in.Path == fixtures.ToolcallDatasetPath {
			continue
		}
		data, err := contract.ReadFile(in.Path)
		if err != nil || sha(data) != in.SHA256 {
			continue
		}
		for _, other := range otherLineEnds(data, in.Path) {
			inputs := slices.Clone(p.Inputs)
			inputs[i].SHA256 = sha(other.data)
			if Recipe(&p.Study, inputs) == recipe {
				return fmt.Sprintf("the requests were made from the %s %s %s: %s", in.Role, in.Path, other.was, other.fix)
			}
		}
	}
	return ""
}

// lineEnds is a file's bytes as another system keeps them: was says how they
// differ from the file's here (as the requests were made from them), fix how
// to make the file so again.
type lineEnds struct {
	data     []byte
	was, fix string
}

// otherLineEnds are data with its line ends changed (LF for CRLF, or CRLF for
// LF), its byte order mark taken off or added, and both where both go one
// way (to Unix's form, or to Windows's).
func otherLineEnds(data []byte, path string) []lineEnds {
	bom := []byte("\xef\xbb\xbf")
	marked := bytes.HasPrefix(data, bom)
	crlf := bytes.Contains(data, []byte("\r\n"))
	unix := func(b []byte) []byte { return bytes.ReplaceAll(bytes.TrimPrefix(b, bom), []byte("\r\n"), []byte("\n")) }
	toUnix := "dos2unix " + path + " makes it so again"
	toDOS := "unix2dos " + path + " makes it so again"
	var out []lineEnds
	if crlf {
		out = append(out, lineEnds{bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")), "with LF line ends (it has CRLF here)", toUnix})
	} else if bytes.Contains(data, []byte("\n")) {
		out = append(out, lineEnds{bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n")), "with CRLF line ends (it has LF here)", toDOS})
	}
	if marked {
		out = append(out, lineEnds{data[len(bom):], "without a byte order mark (it has one here)", toUnix})
	} else {
		out = append(out, lineEnds{append(slices.Clip(bom), data...), "with a byte order mark (it has none here)", "unix2dos -m " + path + " adds one (and CRLF line ends)"})
	}
	if crlf && marked {
		out = append(out, lineEnds{unix(data), "with LF line ends and no byte order mark (it has CRLF and the mark here)", toUnix})
	} else if !crlf && !marked && bytes.Contains(data, []byte("\n")) {
		out = append(out, lineEnds{append(slices.Clip(bom), bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n"))...), "with CRLF line ends and a byte order mark (it has LF and no mark here)", "unix2dos -m " + path + " makes it so again"})
	}
	return out
}

// Requests returns the first-attempt requests of the study: for every case, every
// repeat, every arm, in that order. Each builds them one at a time instead.
func (p *ToolcallPlan) Requests(includeRef bool) ([]contract.Request, error) {
	out := make([]contract.Request, 0, p.RequestCount())
	err := p.Each(includeRef, func(req *contract.Request) error {
		out = append(out, *req)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// RequestCount is the number of first-attempt requests of the study.
func (p *ToolcallPlan) RequestCount() int {
	return len(p.Cases) * p.Study.Repeats * len(p.Study.Arms)
}

// Each builds the first-attempt requests of the study in the order of Requests and
// hands them to yield one at a time, so a study of any size is written in constant
// memory. The request is reused: yield must not keep it. An error from yield stops
// the walk and is returned.
func (p *ToolcallPlan) Each(includeRef bool, yield func(*contract.Request) error) error {
	// A case's prompts are the same in every repeat: each arm's request is built
	// once per case, and later repeats change only its id, repeat and seed.
	arms := make([]contract.Request, len(p.Study.Arms))
	for i := range p.Cases {
		c := &p.Cases[i]
		for r := 1; r <= p.Study.Repeats; r++ {
			seed := Seed(p.Study.Seed, c.ID, r)
			for a, arm := range p.Study.Arms {
				req := &arms[a]
				if r == 1 {
					var err error
					if *req, err = p.Request(c, arm, r, includeRef); err != nil {
						return err
					}
				} else {
					req.RequestID, req.Repeat, req.Seed = RequestID(c.ID, arm, r, 1), r, seed
				}
				if err := yield(req); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// CheckPrompts makes every case's prompts once, each arm's, and returns the
// first error a prompt template gives (a field it names that a case's data
// lacks, a block that writes nothing for one case): an export to a pipe then
// stops before its first request, where it stopped at the case, the requests
// before it written and a runner already asking them. The built-in template
// gives none, and is not run.
func (p *ToolcallPlan) CheckPrompts() error {
	if p.Study.PromptTemplate == "" {
		return nil
	}
	for i := range p.Cases {
		for _, arm := range p.Study.Arms {
			if _, err := p.Request(&p.Cases[i], arm, 1, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// PromptData is what a prompt template sees.
type PromptData struct {
	Tool        string
	Description string
	Arguments   []string // argument names in schema order
	Policies    []string // one sentence each
	Arm         string
	Schema      string // the arm's schema as compact canonical JSON; empty for no_schema
	Prompt      string // the case prompt
	Context     string // the application context as compact canonical JSON; empty when {}
}

// Request builds the first-attempt request of one case, arm and repeat.
func (p *ToolcallPlan) Request(c *contract.Case, arm string, repeat int, includeRef bool) (contract.Request, error) {
	tool := p.Tools[c.Domain]
	data := PromptData{
		Tool:        tool.Name,
		Description: tool.Description,
		Arguments:   p.arguments[c.Domain],
		Policies:    policySentences(tool.Policy),
		Arm:         arm,
		Prompt:      c.Prompt,
	}
	var armSchema []byte
	if arm != contract.ArmNoSchema {
		armSchema = p.ArmSchemas[arm][c.Domain]
		data.Schema = canonical(armSchema)
	}
	if ctx := canonical(c.Context); ctx != "" && ctx != "{}" {
		data.Context = ctx
	}
	system, err := p.execute("system", data)
	if err != nil {
		return contract.Request{}, err
	}
	user, err := p.execute("user", data)
	if err != nil {
		return contract.Request{}, err
	}
	if user == "" {
		// a request that asks the model nothing (a block whose text an
		// {{if}} left out): scored, it measures nothing
		return contract.Request{}, &contract.InputError{File: p.tmpl.Name(), Line: p.userAt[0], Col: p.userAt[1], Msg: fmt.Sprintf(`prompt template: the {{define "user"}} block writes nothing for case %s (arm %s): the request would ask the model nothing; make the block write the user's request ({{.Prompt}})`, c.ID, arm)}
	}
	req := contract.Request{
		SchemaVersion: contract.RequestV1,
		RequestID:     RequestID(c.ID, arm, repeat, 1),
		CaseID:        c.ID,
		Suite:         contract.SuiteToolcall,
		Study:         p.studyID,
		Recipe:        p.recipe,
		Arm:           arm,
		Repeat:        repeat,
		Attempt:       1,
		Seed:          Seed(p.Study.Seed, c.ID, repeat),
		MaxTokens:     p.Study.MaxTokens,
		Temperature:   p.Study.Temperature,
		Instructions:  system,
		Prompt:        user,
		Messages:      []contract.Message{{Role: "system", Content: system}, {Role: "user", Content: user}},
	}
	switch p.Study.Decoding {
	case contract.DecodingNativeSchema:
		req.ResponseFormat = envelopeFormat(tool.Name, armSchema)
	case contract.DecodingNativeTools:
		req.Tools = []contract.ToolDefinition{toolDefinition(tool.Name, tool.Description, armSchema)}
	}
	if includeRef {
		v := jsontext.Value(slices.Clone([]byte(c.Expected)))
		if err := v.Compact(); err != nil {
			return contract.Request{}, err
		}
		s := string(v)
		req.ReferenceOutput = &s
	}
	return req, nil
}

func (p *ToolcallPlan) execute(name string, data PromptData) (string, error) {
	out, err := executeBounded(p.tmpl, name, data)
	if err != nil {
		return "", templateErr(p.tmpl.Name(), err)
	}
	return strings.TrimSpace(out), nil
}

// blockNames are the names of the blocks template t (named name) defines, sorted.
func blockNames(t *template.Template, name string) []string {
	var out []string
	for _, b := range t.Templates() {
		if b.Name() != name && b.Tree != nil {
			out = append(out, b.Name())
		}
	}
	slices.Sort(out)
	return out
}

// blockAt is the line and column in text where the block t defines begins
// (its first node); 0, 0 when it has none.
func blockAt(text string, t *template.Template) [2]int {
	if t == nil || t.Tree == nil || t.Tree.Root == nil {
		return [2]int{}
	}
	line, col := strictjson.LineCol(text, int(t.Tree.Root.Position()))
	return [2]int{line, col}
}

// templateErr is a prompt template's parse or execution error at its line and
// column in the file, where text/template writes them inside its message
// ("template: t.tmpl:1:34: executing ..."); a field the data lacks is told the
// fields there are.
func templateErr(file string, err error) *contract.InputError {
	ie := &contract.InputError{File: file, Msg: "prompt template: " + err.Error()}
	if m := templateAt.FindStringSubmatch(err.Error()); m != nil && m[1] == file {
		ie.Line, _ = strconv.Atoi(m[2])
		ie.Col, _ = strconv.Atoi(m[3])
		ie.Msg = "prompt template: " + m[4]
	}
	if strings.Contains(ie.Msg, "can't evaluate field") {
		var fields []string
		for f := range reflect.TypeFor[PromptData]().Fields() {
			fields = append(fields, "."+f.Name)
		}
		ie.Msg += "; a template is given " + contract.JoinWords(fields) + " (docs/studies.md)"
	}
	return ie
}

// templateAt takes text/template's place of an error apart: the template's
// name, its line, its column when given, and the rest.
var templateAt = regexp.MustCompile(`^template: (.+?):([0-9]+):(?:([0-9]+):)? (.*)$`)

// canonical returns JSON text in RFC 8785 canonical form (sorted keys, no spaces).
func canonical(raw []byte) string {
	if len(raw) == 0 {
		return ""
	}
	v := jsontext.Value(slices.Clone(raw))
	if err := v.Canonicalize(); err != nil {
		return strings.TrimSpace(string(raw))
	}
	return string(v)
}

// argumentNames lists the arguments of a tool's schema in the order written
// (schemas.ArgumentNames).
func argumentNames(schema []byte) []string {
	doc, err := strictjson.Parse(string(schema))
	if err != nil {
		return nil
	}
	return schemas.ArgumentNames(doc)
}

func policySentences(p contract.Policy) []string {
	var out []string
	fields := make([]string, 0, len(p.Max))
	for f := range p.Max {
		fields = append(fields, f)
	}
	slices.Sort(fields)
	for _, f := range fields {
		out = append(out, fmt.Sprintf("%s must be a number no greater than %s.", f, p.Max[f]))
	}
	for _, pair := range p.Ordered {
		out = append(out, fmt.Sprintf("%s must come before %s.", pair[0], pair[1]))
	}
	return out
}

// envelopeFormat is the response_format for native_schema decoding: the whole
// envelope, its arguments either the arm's schema or empty (a clarification or a
// refusal carries {}).
func envelopeFormat(tool string, argSchema []byte) *contract.ResponseFormat {
	args := `{"type":"object"}`
	if len(argSchema) > 0 {
		args = `{"anyOf":[` + canonical(argSchema) + `,{"type":"object","maxProperties":0}]}`
	}
	schema := `{"type":"object","additionalProperties":false,"required":["action","tool","arguments","missingFields","reason"],"properties":{` +
		`"action":{"enum":["call_tool","ask_clarification","refuse"]},` +
		`"tool":{"type":["string","null"]},` +
		`"arguments":` + args + `,` +
		`"missingFields":{"type":"array","items":{"type":"string"},"uniqueItems":true},` +
		`"reason":{"type":"string"}}}`
	return &contract.ResponseFormat{Type: "json_schema", JSONSchema: contract.JSONSchema{Name: "tool_call_envelope", Schema: jsontext.Value(schema), Strict: false}}
}

// toolDefinition is the tool of native_tools decoding: its arguments' schema is the
// arm's schema as written (compact, its property order kept), or {} in the arm that
// shows none. Strict is off: the arm schemas are the object of study and need not fit
// a provider's strict subset.
func toolDefinition(name, description string, argSchema []byte) contract.ToolDefinition {
	params := jsontext.Value("{}")
	if len(argSchema) > 0 {
		params = jsontext.Value(slices.Clone(argSchema))
		if params.Compact() != nil {
			params = jsontext.Value(canonical(argSchema))
		}
	}
	return contract.ToolDefinition{Name: name, Description: description, Parameters: params}
}

// WriteRequests writes toolcall requests as JSONL (one compact record per line) or as
// one fbeval-request-batch/v1 object.
func WriteRequests(w io.Writer, s *contract.Study, reqs []contract.Request, format string) error {
	return StreamRequests(w, s, len(reqs), format, func(yield func(*contract.Request) error) error {
		for i := range reqs {
			if err := yield(&reqs[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// StreamRequests writes the count requests each hands it, one at a time, as
// WriteRequests writes them: only one record is held at once, so the size of the
// study does not matter. A batch object says request_count before its requests, so
// each must hand exactly count requests.
func StreamRequests(w io.Writer, s *contract.Study, count int, format string, each func(yield func(*contract.Request) error) error) error {
	var buf []byte
	if format != "json" {
		var memo contract.StringMemo
		return each(func(req *contract.Request) error {
			buf = append(req.AppendCompact(buf[:0], &memo), '\n')
			_, err := w.Write(buf)
			return err
		})
	}
	n := 0
	err := writeBatch(w, contract.Object{
		{Key: "schema_version", Value: contract.RequestBatchV1},
		{Key: "suite", Value: s.Suite},
		{Key: "study", Value: s.Object()},
		{Key: "request_count", Value: count},
		{Key: "requests", Value: contract.Raw(batchMark)},
	}, func(yield func(contract.Object) error) error {
		return each(func(req *contract.Request) error {
			n++
			return yield(req.Object())
		})
	})
	if err == nil && n != count {
		return fmt.Errorf("export: %d requests written, %d announced", n, count)
	}
	return err
}

// writeBatch writes a batch object in PythonIndent style, as contract.Marshal
// writes it whole, but with the list its last member holds (written as
// Raw(batchMark)) streamed: the members before it, then each element at the list's
// depth as each hands it over, then the close and a newline.
func writeBatch(w io.Writer, batch contract.Object, each func(yield func(contract.Object) error) error) error {
	head, err := contract.Marshal(batch, contract.PythonIndent)
	if err != nil {
		return err
	}
	cut := bytes.LastIndex(head, []byte(batchMark))
	if _, err := w.Write(head[:cut]); err != nil {
		return err
	}
	st := contract.PythonIndent
	var buf []byte
	n := 0
	err = each(func(o contract.Object) error {
		buf = buf[:0]
		if n == 0 {
			buf = append(buf, '[')
		} else {
			buf = append(buf, st.Sep...)
		}
		buf = append(buf, "\n"+st.Indent+st.Indent...)
		var err error
		if buf, err = contract.AppendJSON(buf, o, st, 2); err != nil {
			return err
		}
		n++
		_, err = w.Write(buf)
		return err
	})
	if err != nil {
		return err
	}
	tail := "[]"
	if n > 0 {
		tail = "\n" + st.Indent + "]"
	}
	_, err = io.WriteString(w, tail+string(head[cut+len(batchMark):])+"\n")
	return err
}

// batchMark stands for the requests list in a batch object's head; it cannot occur
// in JSON text written before it (it is not valid JSON).
const batchMark = "\x00requests\x00"

// WriteRequestSummary writes what export's --format text says of a toolcall
// request file of count requests: the batch object's head and the study's
// settings, one "key: value" line each, as the CogLang reference tool prints its
// request batch (WriteCogLangSummary). A setting left to the default says so.
func WriteRequestSummary(w io.Writer, s *contract.Study, count int, includeRef bool) error {
	var b strings.Builder
	line := func(key, value string) {
		// one line each, whatever a name or path holds
		b.WriteString(key + ": " + strings.Join(strings.Fields(value), " ") + "\n")
	}
	or := func(v, unset string) string {
		if v == "" {
			return unset
		}
		return v
	}
	line("schema_version", contract.RequestBatchV1)
	line("suite", s.Suite)
	line("study", or(s.Name, "unnamed"))
	line("dataset", s.Dataset)
	line("request_count", strconv.Itoa(count))
	line("include_reference", strconv.FormatBool(includeRef))
	line("arms", strings.Join(s.Arms, ", "))
	var schemas []string
	for _, arm := range s.Arms {
		if v, ok := s.Schemas[arm]; ok {
			schemas = append(schemas, arm+"="+v)
		}
	}
	line("schemas", or(strings.Join(schemas, ", "), "none"))
	line("domains", or(strings.Join(s.Filter.Domains, ", "), "all"))
	line("categories", or(strings.Join(s.Filter.Categories, ", "), "all"))
	limit := "none"
	if s.Filter.Limit > 0 {
		limit = strconv.Itoa(s.Filter.Limit) + " cases per domain and category"
	}
	line("limit", limit)
	line("repeats", strconv.Itoa(s.Repeats))
	line("seed", strconv.FormatInt(s.Seed, 10))
	line("repairs", strconv.Itoa(s.Repairs))
	line("decoding", s.Decoding)
	line("prompt_template", or(s.PromptTemplate, "built-in"))
	maxTokens, temperature := "provider default", "provider default"
	if s.MaxTokens != nil {
		maxTokens = strconv.Itoa(*s.MaxTokens)
	}
	if s.Temperature != nil {
		temperature = strconv.FormatFloat(*s.Temperature, 'g', -1, 64)
	}
	line("max_tokens", maxTokens)
	line("temperature", temperature)
	prices := "none"
	if p := s.Prices; p != nil {
		prices = "input " + strconv.FormatFloat(p.InputPerMillionUSD, 'g', -1, 64) +
			", output " + strconv.FormatFloat(p.OutputPerMillionUSD, 'g', -1, 64) + " USD per million tokens"
	}
	line("prices", prices)
	line("gates", or(strings.Join(s.Gates, ", "), "none"))
	line("request_record_schema_version", contract.RequestV1)
	line("response_record_schema_version", contract.ResponseV1)
	_, err := io.WriteString(w, b.String())
	return err
}
