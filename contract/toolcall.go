package contract

import "encoding/json"

// Case is one toolcall dataset case, in HESchema's case format (which fbeval reads as
// is and writes in the same shape). Context, Expected and ReferenceSchema are kept as
// raw JSON: the scorer parses them with exact numbers.
type Case struct {
	ID            string          `json:"id"`
	Cluster       string          `json:"cluster"`
	Domain        string          `json:"domain"`
	Category      string          `json:"category"`
	Prompt        string          `json:"prompt"`
	Context       json.RawMessage `json:"context"`
	Expected      json.RawMessage `json:"expected"`
	Provenance    string          `json:"provenance"`
	HumanReviewed bool            `json:"humanReviewed"`

	// A case whose domain is not one of the built-in six carries its tool contract.
	ToolName        string          `json:"toolName,omitempty"`
	ToolDescription string          `json:"toolDescription,omitempty"`
	ReferenceSchema json.RawMessage `json:"referenceSchema,omitempty"`
	Policy          *Policy         `json:"policy,omitempty"`
}

// Tool is a domain's tool contract: name, one-line description, the fixed reference
// schema of its arguments (Draft 2020-12) and its policies.
type Tool struct {
	Domain          string          `json:"domain"`
	Name            string          `json:"name"`
	Description     string          `json:"description"`
	ReferenceSchema json.RawMessage `json:"referenceSchema"`
	Policy          Policy          `json:"policy"`
}

// Policy is a tool's business rules beyond its schema. Max maps a field to its
// ceiling (the value must be a number, not a boolean, and at most the ceiling);
// Ordered lists field pairs whose string values must be strictly increasing.
type Policy struct {
	Max     map[string]json.Number `json:"max,omitempty"`
	Ordered [][2]string            `json:"ordered,omitempty"`
}

// Envelope actions.
const (
	ActionCallTool = "call_tool"
	ActionAsk      = "ask_clarification"
	ActionRefuse   = "refuse"
)

// Toolcall arms, in report order.
const (
	ArmNoSchema      = "no_schema"
	ArmMinimalSchema = "minimal_schema"
	ArmInputSchema   = "input_schema"
)

// Arms lists the three toolcall arms in report order.
var Arms = []string{ArmNoSchema, ArmMinimalSchema, ArmInputSchema}
