package relations

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Registry is a folder of contracts, one definition per id and version.
type Registry struct {
	contracts map[string]*Contract // by id@version
}

// LoadRegistry parses every *.json file in dir (not sub-folders). Two files that
// define the same id and version differently are an error; identical copies are
// allowed.
func LoadRegistry(dir string) (*Registry, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read contract registry: %v", err)
	}
	r := &Registry{contracts: map[string]*Contract{}}
	for _, e := range entries { // ReadDir sorts by name, so errors are stable
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		c, err := LoadContract(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		key := c.ID + "@" + c.Version
		if prev, ok := r.contracts[key]; ok {
			if prev.Hash != c.Hash {
				return nil, fmt.Errorf("%s: contract %s version %s is already defined differently in %s", c.Name, c.ID, c.Version, prev.Name)
			}
			continue
		}
		r.contracts[key] = c
	}
	return r, nil
}

// Get returns the contract with this id and version, or nil.
func (r *Registry) Get(id, version string) *Contract {
	return r.contracts[id+"@"+version]
}

// Contracts returns every contract, sorted by id then version.
func (r *Registry) Contracts() []*Contract {
	out := make([]*Contract, 0, len(r.contracts))
	for _, c := range r.contracts {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].ID != out[j].ID {
			return out[i].ID < out[j].ID
		}
		return out[i].Version < out[j].Version
	})
	return out
}
