package coglang

// Operators are the 30 operator heads of the CogLang vocabulary, sorted.
var Operators = []string{
	"Abstract", "AllNodes", "Assert", "Compare", "Compose", "Create", "Decompose",
	"Defer", "Delete", "Do", "Equal", "Estimate", "Explain", "Explore", "ForEach",
	"Get", "If", "IfFound", "Inspect", "Instantiate", "Match", "Merge", "Probe",
	"Query", "Resume", "Send", "Trace", "Traverse", "Unify", "Update",
}

// DataHeads are the 19 data and value heads of the CogLang vocabulary.
var DataHeads = []string{
	"List",
	"Entity", "Relation", "Attribute", "Operation", "Rule", "LogicRule", "SelfRef",
	"True", "False",
	"NotFound", "Deferred", "Draft", "Published",
	"TypeError", "ParseError", "PermissionError", "StubError", "RecursionError",
}

// effect bits of a head, for the preflight decision.
const (
	effRead uint16 = 1 << iota
	effTraverse
	effWrite
	effDelete
	effUnify
	effTrace
	effSubmit
	effExternal
	effQueryLike // AllNodes or Query: result cardinality depends on the graph
)

// headInfo is what the checks need to know about one vocabulary head.
type headInfo struct {
	known   bool
	opaque  bool // arguments are data terms (Unify, Match)
	effects uint16
	// reference arity: min, max (-1 = unbounded); minArity 0 and maxArity -1 when
	// not enforced
	refMin, refMax int8
	// spec arity for the strict profile
	strictMin, strictMax int8
}

func any_() (int8, int8) { return 0, -1 }

// lookupHead returns the vocabulary facts of head. A switch keeps the lookup free
// of hashing on the hot path.
func lookupHead(head string) headInfo {
	lo, hi := any_()
	h := headInfo{known: true, refMin: lo, refMax: hi, strictMin: lo, strictMax: hi}
	switch head {
	case "Abstract":
		h.strictMin, h.strictMax = 1, 1
	case "AllNodes":
		h.effects = effRead | effQueryLike
		h.strictMin, h.strictMax = 0, 0
	case "Assert":
		h.effects = effTrace
		h.refMin, h.refMax = 1, 2
	case "Compare":
		h.effects = effTrace
		h.strictMin, h.strictMax = 2, 2
	case "Compose":
		h.refMin, h.refMax = 3, 3
	case "Create":
		h.effects = effWrite
		h.strictMin, h.strictMax = 2, 2
	case "Decompose", "Defer", "Estimate", "Explore", "Instantiate", "Merge", "Probe", "Resume":
		h.effects = effExternal
	case "Inspect":
		h.effects = effExternal
		h.strictMin, h.strictMax = 1, 1
	case "Delete":
		h.effects = effWrite | effDelete
		h.strictMin, h.strictMax = 1, 2
	case "Do":
		h.refMin, h.refMax = 1, -1
	case "Equal":
		h.strictMin, h.strictMax = 2, 2
	case "Explain":
		h.effects = effTrace
		h.strictMin, h.strictMax = 1, 1
	case "ForEach":
		h.refMin, h.refMax = 3, 3
	case "Get":
		h.effects = effRead
		h.strictMin, h.strictMax = 2, 2
	case "If":
		h.refMin, h.refMax = 3, 3
	case "IfFound":
		h.refMin, h.refMax = 4, 4
	case "Match", "Unify":
		h.effects = effUnify
		h.opaque = true
		h.strictMin, h.strictMax = 2, 2
	case "Query":
		h.effects = effRead | effQueryLike
		h.refMin, h.refMax = 2, 3
	case "Send":
		h.effects = effSubmit
	case "Trace":
		h.effects = effTrace
		h.strictMin, h.strictMax = 1, 1
	case "Traverse":
		h.effects = effRead | effTraverse
		h.strictMin, h.strictMax = 2, 2
	case "Update":
		h.effects = effWrite
		h.strictMin, h.strictMax = 2, 2
	case "True", "False", "NotFound", "Deferred", "Draft", "Published":
		h.strictMin, h.strictMax = 0, 0
	case "List", "Entity", "Relation", "Attribute", "Operation", "Rule", "LogicRule",
		"SelfRef", "TypeError", "ParseError", "PermissionError", "StubError", "RecursionError":
	default:
		return headInfo{}
	}
	// The strict profile keeps the reference arities and adds the spec signatures.
	if h.refMin != 0 || h.refMax != -1 {
		h.strictMin, h.strictMax = h.refMin, h.refMax
	}
	return h
}

// InVocabulary reports whether head is one of the 49 vocabulary heads.
func InVocabulary(head string) bool { return lookupHead(head).known }

func arityOK(n int32, lo, hi int8) bool {
	return n >= int32(lo) && (hi < 0 || n <= int32(hi))
}
