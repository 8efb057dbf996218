package contract

import "strings"

// Study is an fbeval-study/v1 file: which suite, dataset, arms and schemas, how many
// repeats and repairs, the seed, prices and gates. Export and score read the same
// study, so a study file and a response file reproduce a report byte for byte.
type Study struct {
	Comment        any               `json:"$comment,omitempty"` // ignored: notes for people
	SchemaVersion  string            `json:"schema_version"`
	Name           string            `json:"name,omitempty"`
	Description    string            `json:"description,omitempty"`
	Suite          string            `json:"suite"`
	Dataset        string            `json:"dataset,omitempty"`
	Arms           []string          `json:"arms,omitempty"`
	Schemas        map[string]string `json:"schemas,omitempty"`
	Filter         Filter            `json:"filter,omitzero"`
	Repeats        int               `json:"repeats,omitempty"`
	Seed           int64             `json:"seed"`
	Repairs        int               `json:"repairs"`
	Decoding       string            `json:"decoding,omitempty"`
	Prices         *Prices           `json:"prices,omitempty"`
	Gates          []string          `json:"gates,omitempty"`
	PromptTemplate string            `json:"prompt_template,omitempty"`
	MaxTokens      *int              `json:"max_tokens,omitempty"`
	Temperature    *float64          `json:"temperature,omitempty"`
	Strict         bool              `json:"strict,omitempty"` // coglang: the strict scoring profile

	// Source is the study file as read, so that a value found wrong once the
	// dataset is read (a filter's domain the dataset does not have) is named
	// at its line and column; nil for a built-in study, and once a flag
	// replaces the filter's domains.
	Source *Record `json:"-"`
}

// Filter selects cases of a dataset.
type Filter struct {
	Domains    []string `json:"domains,omitempty"`
	Categories []string `json:"categories,omitempty"`
	Limit      int      `json:"limit,omitempty"` // cases per (domain, category); 0: all
}

// Prices are USD per million tokens.
type Prices struct {
	InputPerMillionUSD  float64 `json:"input_per_million_usd"`
	OutputPerMillionUSD float64 `json:"output_per_million_usd"`
}

// Decoding modes.
const (
	DecodingPromptOnly   = "prompt_only"
	DecodingNativeSchema = "native_schema"
	DecodingNativeTools  = "native_tools"
)

// Object returns the study in its published key order, for reports.
func (s *Study) Object() Object {
	o := Object{{"schema_version", s.SchemaVersion}}
	if s.Name != "" {
		o = append(o, Member{"name", s.Name})
	}
	if s.Description != "" {
		o = append(o, Member{"description", s.Description})
	}
	o = append(o, Member{"suite", s.Suite}, Member{"dataset", s.Dataset})
	if s.Suite == SuiteCogLang {
		return append(o, Member{"strict", s.Strict})
	}
	schemas := Object{}
	for _, arm := range s.Arms {
		if v, ok := s.Schemas[arm]; ok {
			schemas = append(schemas, Member{arm, v})
		}
	}
	filter := Object{
		{"domains", nonNil(s.Filter.Domains)},
		{"categories", nonNil(s.Filter.Categories)},
		{"limit", s.Filter.Limit},
	}
	var prices any
	if s.Prices != nil {
		prices = Object{{"input_per_million_usd", s.Prices.InputPerMillionUSD}, {"output_per_million_usd", s.Prices.OutputPerMillionUSD}}
	}
	var maxTokens, temperature any
	if s.MaxTokens != nil {
		maxTokens = *s.MaxTokens
	}
	if s.Temperature != nil {
		temperature = *s.Temperature
	}
	return append(o,
		Member{"arms", nonNil(s.Arms)},
		Member{"schemas", schemas},
		Member{"filter", filter},
		Member{"repeats", s.Repeats},
		Member{"seed", s.Seed},
		Member{"repairs", s.Repairs},
		Member{"decoding", s.Decoding},
		Member{"prices", prices},
		Member{"gates", nonNil(s.Gates)},
		Member{"prompt_template", s.PromptTemplate},
		Member{"max_tokens", maxTokens},
		Member{"temperature", temperature},
	)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// AppendJSON writes the study in its published order, as Object gives it, wherever
// a typed report holds it (JSONAppender).
func (s Study) AppendJSON(dst []byte, st Style, depth int) ([]byte, error) {
	return AppendJSON(dst, s.Object(), st, depth)
}

// IsSchemaFile tells a study's schema that is a file (a path, or a name
// ending .json) from a variant name (minimal, weak).
func IsSchemaFile(name string) bool {
	return strings.ContainsAny(name, "/\\") || strings.HasSuffix(name, ".json")
}
