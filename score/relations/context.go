package relations

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/contract/usage"
	"github.com/fbeval/fbeval/schemas"
)

// Context is a context file: the facts an output's bound values must equal, their
// version, and whether a person approved them.
type Context struct {
	Version  int
	Approved bool
	Facts    map[string]any // numbers as json.Number
}

// LoadContext reads a context file: {"version": N, "approved": bool, "facts": {...}}.
func LoadContext(path string) (*Context, error) {
	data, err := contract.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read context: %v", err)
	}
	return ParseContext(path, data)
}

// ParseContext parses context file data; name labels errors.
func ParseContext(name string, data []byte) (*Context, error) {
	if err := otherFile(name, data, "an approved context ({version, approved, facts})", ""); err != nil {
		return nil, err
	}
	doc, err := decodeJSON(data)
	if err != nil {
		return nil, fileError(name, data, err)
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: a context must be a JSON object", name)
	}
	fields := []string{"approved", "description", "facts", "version"}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if slices.Contains(fields, k) {
			continue
		}
		rec := contract.Record{File: name, Line: 1, Col: 1, Raw: data}
		if _, ok := obj["facts"]; !ok && usage.Suggest(k, fields) == "" {
			// the facts alone, or an output, given as the context
			return nil, rec.Errorf(contract.PointerOffset(data, string(schemas.Pointer([]string{k}))), "unknown field %q: this is no context, which holds its approved facts in \"facts\" beside its version and approved ({\"version\": 1, \"approved\": true, \"facts\": {...}}, docs/contracts.md)", k)
		}
		return nil, rec.Errorf(contract.PointerOffset(data, string(schemas.Pointer([]string{k}))), "unknown field %q (a context's fields are %s)%s", k, strings.Join(fields, ", "), usage.Suggest(k, fields))
	}
	c := &Context{}
	vs, _ := obj["version"].(interface{ String() string })
	if vs == nil {
		return nil, fmt.Errorf("%s: version must be an integer", name)
	}
	if c.Version, err = strconv.Atoi(vs.String()); err != nil || c.Version < 0 {
		return nil, fmt.Errorf("%s: version must be a non-negative integer", name)
	}
	if c.Approved, ok = obj["approved"].(bool); !ok {
		return nil, fmt.Errorf("%s: approved must be true or false", name)
	}
	if c.Facts, ok = obj["facts"].(map[string]any); !ok {
		return nil, fmt.Errorf("%s: facts must be an object", name)
	}
	return c, nil
}
