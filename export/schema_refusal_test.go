package export

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fbeval/fbeval/fixtures"
)

// TestPlanRefusesBadCandidateSchema: a candidate schema that score refuses (a
// reference outside the document, a pattern that is not RE2) should stop export
// too, so that no request file carries a schema that can never be scored.
func TestPlanRefusesBadCandidateSchema(t *testing.T) {
	dir := t.TempDir()
	for name, doc := range map[string]string{
		"remote.json":    `{"type":"object","properties":{"city":{"$ref":"https://example.com/city.json"}}}`,
		"lookahead.json": `{"type":"object","properties":{"city":{"type":"string","pattern":"(?=x)a"}}}`,
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		s, _ := fixtures.BuiltinStudy("toolcall-quick")
		limit := 1
		s, err := Resolve(s, Overrides{Schema: path, Domains: []string{"hotels"}, Limit: &limit})
		if err != nil {
			t.Fatal(err)
		}
		_, err = PlanToolcall(s)
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: err = %v, want an error naming the file", name, err)
		}
	}
}
