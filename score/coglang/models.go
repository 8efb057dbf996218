package coglang

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/score"
	"github.com/go-json-experiment/json/jsontext"
)

// modelTally keeps, per case, the model whose record scored it (by the record's
// "model", and the runner and settings its run member names; 2 bytes a case,
// made when a record first names one), to say when a record replaces another
// model's answer (two models' files given as one score's) and when the cases
// scored mix models, or runs of one model with other settings.
type modelTally struct {
	ids    map[string]uint16 // by the members as written (source.key)
	names  []source          // by id; names[0] is none named
	of     []uint16          // by case
	last   []byte            // the key last looked up (a file names one model), and its id
	lastID uint16
	// other counts the records that replaced another model's answer; note
	// says which was the first.
	other int
	note  string
}

// source is what answered a case: the model a record names, and the run
// (runner and settings) its run member names, "" where it names no settings.
type source struct{ model, run string }

// maxModels bounds the models and runs told apart; records naming any further
// one count as naming none.
const maxModels = 1<<16 - 1

// id returns the number of what a record's "model" member and its run's
// runner and settings members name (0 for none of them, or none a string).
func (m *modelTally) id(model, runner, settings jsontext.Value) uint16 {
	str := func(v jsontext.Value) jsontext.Value {
		if len(v) == 0 || v[0] != '"' {
			return nil
		}
		return v
	}
	model, runner, settings = str(model), str(runner), str(settings)
	if model == nil && settings == nil {
		return 0
	}
	if len(m.last) == len(model)+len(runner)+len(settings)+2 &&
		string(m.last[:len(model)]) == string(model) && m.last[len(model)] == 0 &&
		string(m.last[len(model)+1:len(model)+1+len(runner)]) == string(runner) &&
		string(m.last[len(model)+2+len(runner):]) == string(settings) {
		return m.lastID
	}
	key := append(append(append(append(append(m.last[:0], model...), 0), runner...), 0), settings...)
	id, ok := m.ids[string(key)]
	if !ok {
		id = m.add(key, model, runner, settings)
	}
	m.last, m.lastID = key, id
	return id
}

// add gives what a record names its number.
func (m *modelTally) add(key []byte, model, runner, settings jsontext.Value) uint16 {
	if m.names == nil {
		m.names, m.ids = []source{{}}, map[string]uint16{}
	}
	if len(m.names) >= maxModels {
		return 0
	}
	// a lone surrogate escape kept, as case ids and outputs keep one (it
	// is written back as its escape): the name was dropped
	var src source
	if model != nil {
		src.model = unquoteJSON(model)
	}
	if settings != nil {
		if src.run = unquoteJSON(settings); src.run != "" && runner != nil {
			src.run = strings.TrimSpace(unquoteJSON(runner) + " " + src.run)
		}
	}
	id := uint16(len(m.names))
	m.names = append(m.names, src)
	m.ids[string(key)] = id
	return id
}

// set notes that the record for case i of cases names id; replaced reports
// whether an earlier record scored the case, whose id it names.
func (m *modelTally) set(i, cases int, id uint16, replaced bool, caseID string) {
	if m.of == nil {
		if id == 0 {
			return
		}
		m.of = make([]uint16, cases)
	}
	if prev := m.of[i]; replaced {
		was, now := m.names[prev].model, m.names[id].model
		if was != "" && now != "" && was != now {
			if m.other == 0 {
				m.note = fmt.Sprintf("case %s: %s's, after %s's", caseID, now, was)
			}
			m.other++
		}
	}
	m.of[i] = id
}

// scored counts the cases each model's record scored, by model id.
func (m *modelTally) scored() []int {
	n := make([]int, len(m.names))
	for _, id := range m.of {
		n[id]++
	}
	return n
}

// list returns the models whose records scored a case, sorted: the same
// whatever order the records came in.
func (m *modelTally) list() []string {
	return slices.Sorted(maps.Keys(m.counts()))
}

// counts returns the cases each model scored.
func (m *modelTally) counts() map[string]int {
	out := map[string]int{}
	for id, k := range m.scored() {
		if model := m.names[id].model; model != "" && k > 0 {
			out[model] += k
		}
	}
	return out
}

// runs returns, per model, the cases each of its runs that names its settings
// scored.
func (m *modelTally) runs() map[string]map[string]int {
	out := map[string]map[string]int{}
	for id, k := range m.scored() {
		if src := m.names[id]; src.model != "" && src.run != "" && k > 0 {
			if out[src.model] == nil {
				out[src.model] = map[string]int{}
			}
			out[src.model][src.run] += k
		}
	}
	return out
}

// warnings says how many records replaced another model's answer, how many
// cases each model scored when they are more than one model's, and each run's
// of a model whose cases mix runs of other settings.
func (m *modelTally) warnings() []string {
	var ws []string
	if n := m.other; n > 0 {
		ws = append(ws, fmt.Sprintf("%d of the records that repeat a case id %s %s", n, contract.Pick(n, "is", "are"), score.OtherModels(m.note)))
	}
	if models := m.counts(); len(models) > 1 {
		ws = append(ws, score.MixedModels(models))
	}
	runs := m.runs()
	for _, model := range slices.Sorted(maps.Keys(runs)) {
		if len(runs[model]) > 1 {
			ws = append(ws, score.MixedRuns(model, runs[model]))
		}
	}
	return ws
}
