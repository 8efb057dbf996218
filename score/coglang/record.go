package coglang

import (
	"github.com/go-json-experiment/json/jsontext"

	"github.com/fbeval/fbeval/contract"
	"github.com/fbeval/fbeval/contract/strictjson"
)

// recordFields are the raw JSON values of the members a response record is read
// for (empty when absent). With duplicate names the last value is kept.
type recordFields struct {
	caseID, version, err jsontext.Value
	outputs              [len(outputFields)]jsontext.Value
	run                  jsontext.Value // what fbeval's runners write of their run (see recipe)
	model                jsontext.Value // the model that answered, when the record names it
	finish               jsontext.Value // why the answer ended, as the provider said (finish_reason)
	// borrow: the case id and output strings without escapes share the
	// record's bytes instead of being copied (RecordScorer.Read)
	borrow bool
}

// recordMaxDepth bounds the nesting scanRecord follows, as jsontext's limit
// bounds the full decoder's.
const recordMaxDepth = 10000

// scanRecord reads a response record's members in one pass without allocating:
// strict JSON as Python's json reads it (duplicate names allowed, lone surrogate
// escapes kept), the values returned as slices of raw. It reports false when the
// record is not valid: the caller then runs the full decoder for the wording of
// the error. For any record the full decoder reads, scanRecord reads the same
// members (FuzzScanRecord checks this); it reads more only where the full decoder
// refuses what Python reads (lone surrogates).
func scanRecord(raw []byte, f *recordFields) bool {
	*f = recordFields{}
	i := strictjson.SkipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return false
	}
	i = strictjson.SkipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return strictjson.SkipSpace(raw, i+1) == len(raw)
	}
	var nameBuf [32]byte
	for {
		if i >= len(raw) || raw[i] != '"' {
			return false
		}
		ks := i
		ke, name, escaped, err := strictjson.ReadString(raw, i, nameBuf[:0], strictjson.KeepSurrogates)
		if err != strictjson.LexOK {
			return false
		}
		if !escaped {
			name = raw[ks+1 : ke-1]
		}
		i = strictjson.SkipSpace(raw, ke)
		if i >= len(raw) || raw[i] != ':' {
			return false
		}
		vs := strictjson.SkipSpace(raw, i+1)
		ve, err := strictjson.SkipValue(raw, vs, recordMaxDepth, strictjson.KeepSurrogates)
		if err != strictjson.LexOK {
			return false
		}
		switch string(name) {
		case "case_id":
			f.caseID = raw[vs:ve]
		case "schema_version":
			f.version = raw[vs:ve]
		case "error":
			f.err = raw[vs:ve]
		case "output":
			f.outputs[0] = raw[vs:ve]
		case "text":
			f.outputs[1] = raw[vs:ve]
		case "completion":
			f.outputs[2] = raw[vs:ve]
		case "run":
			f.run = raw[vs:ve]
		case "model":
			f.model = raw[vs:ve]
		case "finish_reason":
			f.finish = raw[vs:ve]
		}
		i = strictjson.SkipSpace(raw, ve)
		if i >= len(raw) {
			return false
		}
		switch raw[i] {
		case ',':
			i = strictjson.SkipSpace(raw, i+1)
			continue
		case '}':
			return strictjson.SkipSpace(raw, i+1) == len(raw)
		}
		return false
	}
}

// runMembers returns the raw values of the record's run member's recipe,
// runner and settings (the last where one is named twice; empty where the run
// names none, or is no object).
func (f *recordFields) runMembers() (recipe, runner, settings jsontext.Value) {
	if len(f.run) == 0 || f.run[0] != '{' {
		return nil, nil, nil
	}
	end := strictjson.Members(f.run, 0, func(name []byte, i int) (int, bool) {
		j, err := strictjson.SkipValue(f.run, i, recordMaxDepth, strictjson.KeepSurrogates)
		if err != strictjson.LexOK {
			return j, false
		}
		switch string(name) {
		case "recipe":
			recipe = f.run[i:j]
		case "runner":
			runner = f.run[i:j]
		case "settings":
			settings = f.run[i:j]
		}
		return j, true
	})
	if end < 0 {
		return nil, nil, nil
	}
	return recipe, runner, settings
}

// recipeSum returns the sum of the CogLang recipe a run's recipe member val
// names (run.recipe, as fbeval's runners write it: contract.CogLangRecipe);
// false when it names none, or not as a runner writes one: such a record is
// not checked.
func recipeSum(val jsontext.Value) (uint32, bool) {
	if len(val) < 2 || val[0] != '"' {
		return 0, false
	}
	return contract.ParseCogLangRecipe(val[1 : len(val)-1])
}
