package openai

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/fbeval/fbeval/contract"
)

// TestBodiesAgainstOpenAPI: the bodies fbeval-openai and fbeval-batch to-openai
// send validate against OpenAI's own description of the two APIs
// (openai/openai-openapi, openapi.json at f85dbe223d40: the schemas
// CreateChatCompletionRequest and CreateResponse take, descriptions left out,
// in testdata/openapi_request_schemas.json): every decoding, a repair round,
// a study's sampling settings and the flags that stand in for them.
func TestBodiesAgainstOpenAPI(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "openapi_request_schemas.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	const base = "https://github.com/openai/openai-openapi/openapi.json"
	c := jsonschema.NewCompiler()
	if err := c.AddResource(base, doc); err != nil {
		t.Fatal(err)
	}
	api := map[string]*jsonschema.Schema{}
	for name, def := range map[string]string{"chat": "CreateChatCompletionRequest", "responses": "CreateResponse"} {
		if api[name], err = c.Compile(base + "#/components/schemas/" + def); err != nil {
			t.Fatal(err)
		}
	}
	envelope := []byte(`{"type":"object","additionalProperties":false,"required":["action","tool","arguments","missingFields","reason"],"properties":{"action":{"enum":["call_tool","ask_clarification","refuse"]},"tool":{"type":["string","null"]},"arguments":{"type":"object"},"missingFields":{"type":"array","items":{"type":"string"}},"reason":{"type":"string"}}}`)
	first := []contract.Message{{Role: "system", Content: "You prepare tool calls."}, {Role: "user", Content: "Find flights from Osaka."}}
	repair := append(first[:2:2], contract.Message{Role: "assistant", Content: `{"action":"call_tool"`}, contract.Message{Role: "user", Content: "JSON_INVALID at /: fix it."})
	requests := map[string]contract.Request{
		"prompt_only": {Seed: 980606115, Messages: first},
		"repair":      {Seed: 980606115, Messages: repair},
		"native_schema": {Seed: 1, Messages: first,
			ResponseFormat: &contract.ResponseFormat{Type: "json_schema", JSONSchema: contract.JSONSchema{Name: "tool_call_envelope", Schema: envelope}}},
		"native_tools": {Seed: 1, Messages: first,
			Tools: []contract.ToolDefinition{{Name: "search_flights", Description: "Prepares a flight search.", Parameters: []byte(`{"type":"object","properties":{"origin":{"type":"string"}},"required":["origin"]}`)}}},
		"study settings": {Seed: 1, Messages: repair, MaxTokens: new(512), Temperature: new(0.2)},
	}
	temp := 0.0
	for _, opts := range []Options{
		{Model: "gpt-4.1-mini"},
		{Model: "gpt-4.1-mini", MaxTokens: 256, Temperature: &temp},
		{Model: "o4-mini", MaxCompletionTokens: 2048, NoSeed: true},
		{Model: "gpt-4.1-mini", API: "responses"},
		{Model: "o4-mini", API: "responses", MaxCompletionTokens: 2048},
	} {
		name := opts.API
		if name == "" {
			name = "chat"
		}
		for what, req := range requests {
			body, err := Body(&req, opts)
			if err != nil {
				t.Fatalf("%s %s: %v", name, what, err)
			}
			v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			if err := api[name].Validate(v); err != nil {
				t.Errorf("%s %s (%+v): the body is not one OpenAI describes: %v\n%s", name, what, opts, err, body)
			}
		}
	}
	// and it can tell: a role the API does not have is refused
	bad := contract.Request{Messages: []contract.Message{{Role: "robot", Content: "x"}}}
	body, _ := Body(&bad, Options{Model: "m"})
	v, _ := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if api["chat"].Validate(v) == nil {
		t.Error("a message of role robot passes OpenAI's description")
	}
}
