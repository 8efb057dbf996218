package score

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/fbeval/fbeval/contract"
)

// ProviderCodes counts provider error records by their code: the first
// MaxProviderCodes codes, the rest as "other". Both suites say with it what
// the provider errors their rows are left with were (the records a later
// answer replaced are not counted: their errors were asked again).
type ProviderCodes map[string]int

// ProviderCodeIDs numbers provider error codes, so that a slot keeps the code
// of the record it holds in one byte: the first MaxProviderCodes codes apart,
// the rest as "other". ID 0 is no code kept.
type ProviderCodeIDs struct {
	names []string // by id - 1
	ids   map[string]uint8
}

// ID returns code's id, numbering it if it is new.
func (t *ProviderCodeIDs) ID(code string) uint8 {
	if code == "" {
		code = "no code"
	}
	if id, ok := t.ids[code]; ok {
		return id
	}
	if len(t.names) >= MaxProviderCodes {
		code = "other"
		if id, ok := t.ids[code]; ok {
			return id
		}
	}
	if t.ids == nil {
		t.ids = map[string]uint8{}
	}
	t.names = append(t.names, strings.Clone(code)) // a key outlives the batch it was read in
	t.ids[t.names[len(t.names)-1]] = uint8(len(t.names))
	return uint8(len(t.names))
}

// Count counts one record by the code of id (one of ID's; 0 counts nothing).
func (t *ProviderCodeIDs) Count(p *ProviderCodes, id uint8) {
	if id != 0 {
		p.Add(t.names[id-1])
	}
}

// MaxProviderCodes bounds the codes ProviderCodes keeps apart.
const MaxProviderCodes = 100

// Add counts one record with code ("no code" when it has none).
func (p *ProviderCodes) Add(code string) {
	if code == "" {
		code = "no code"
	}
	if *p == nil {
		*p = ProviderCodes{}
	}
	if _, ok := (*p)[code]; !ok {
		if len(*p) >= MaxProviderCodes {
			code = "other"
		} else {
			code = strings.Clone(code) // a key outlives the batch it was read in
		}
	}
	(*p)[code]++
}

// String says which codes were counted, most first: "http_401 in 252
// records, http_500 in 1"; five at most, then how many more.
func (p ProviderCodes) String() string {
	codes := slices.Collect(maps.Keys(p))
	slices.SortFunc(codes, func(a, b string) int {
		return cmp.Or(cmp.Compare(p[b], p[a]), cmp.Compare(a, b))
	})
	var parts []string
	for i, code := range codes {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("%d more codes", len(codes)-5))
			break
		}
		part := fmt.Sprintf("%s in %d", contract.PrintableLine(cutBytes(code, 40)), p[code])
		switch {
		case i == 0 && p[code] == 1:
			part += " record"
		case i == 0:
			part += " records"
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, ", ")
}

// FilterNote is what to add to the line that names the codes when one of
// them is a provider's safety filter that blocked the prompt (an Azure OpenAI
// deployment's content filter: code content_filter), which asking again does
// not change; "" otherwise.
func (p ProviderCodes) FilterNote() string {
	if p[contract.ContentFilterCode] == 0 {
		return ""
	}
	return "; content_filter is the provider's safety filter blocking the prompt, which asking again does not change: check its settings (Azure OpenAI: the deployment's content filter)"
}

// cutBytes cuts s to at most max bytes of valid UTF-8, marking a cut with "...".
func cutBytes(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return strings.ToValidUTF8(s[:max], "") + "..."
}
