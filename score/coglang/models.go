package coglang

import (
	"fmt"
	"slices"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/score"
	"github.com/go-json-experiment/json/jsontext"
)

// modelTally keeps, per case, the model whose record scored it (by the record's
// "model"; 2 bytes a case, made when a record first names one), to say when a
// record replaces another model's answer (two models' files given as one
// score's) and when the cases scored mix models.
type modelTally struct {
	ids    map[string]uint16 // by the model member as written
	names  []string          // by id; names[0] is "": none named
	of     []uint16          // by case
	last   []byte            // the member last looked up (a file names one model), and its id
	lastID uint16
	// other counts the records that replaced another model's answer; note
	// says which was the first.
	other int
	note  string
}

// maxModels bounds the model names told apart; records naming any further one
// count as naming none.
const maxModels = 1<<16 - 1

// id returns the number of the model a record's "model" member names (0 for
// none, or one that is not a string).
func (m *modelTally) id(raw jsontext.Value) uint16 {
	if len(raw) == 0 || raw[0] != '"' {
		return 0
	}
	if string(raw) == string(m.last) {
		return m.lastID
	}
	id, ok := m.ids[string(raw)]
	if !ok {
		id = m.add(raw)
	}
	m.last, m.lastID = append(m.last[:0], raw...), id
	return id
}

// add gives the model a record's "model" member names its number.
func (m *modelTally) add(raw jsontext.Value) uint16 {
	if m.names == nil {
		m.names, m.ids = []string{""}, map[string]uint16{}
	}
	if len(m.names) >= maxModels {
		return 0
	}
	// a lone surrogate escape kept, as case ids and outputs keep one (it
	// is written back as its escape): the name was dropped
	name := unquoteJSON(raw)
	id := uint16(len(m.names))
	m.names = append(m.names, name)
	m.ids[string(raw)] = id
	return id
}

// set notes that the record for case i of cases names model id; replaced
// reports whether an earlier record scored the case, whose id it names.
func (m *modelTally) set(i, cases int, id uint16, replaced bool, caseID string) {
	if m.of == nil {
		if id == 0 {
			return
		}
		m.of = make([]uint16, cases)
	}
	if prev := m.of[i]; replaced && prev != 0 && id != 0 && prev != id {
		if m.other == 0 {
			m.note = fmt.Sprintf("case %s: %s's, after %s's", caseID, m.names[id], m.names[prev])
		}
		m.other++
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
	var out []string
	for id, k := range m.scored() {
		if id != 0 && k > 0 {
			out = append(out, m.names[id])
		}
	}
	slices.Sort(out)
	return out
}

// counts returns the cases each model scored, when they are more than one
// model's.
func (m *modelTally) counts() map[string]int {
	n := m.scored()
	out := map[string]int{}
	for id, k := range n {
		if id != 0 && k > 0 {
			out[m.names[id]] = k
		}
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// warnings says how many records replaced another model's answer, and how
// many cases each model scored when they are more than one model's.
func (m *modelTally) warnings() []string {
	var ws []string
	if n := m.other; n > 0 {
		ws = append(ws, fmt.Sprintf("%d of the records that repeat a case id %s %s", n, contract.Pick(n, "is", "are"), score.OtherModels(m.note)))
	}
	if models := m.counts(); models != nil {
		ws = append(ws, score.MixedModels(models))
	}
	return ws
}
