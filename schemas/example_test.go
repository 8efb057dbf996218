package schemas_test

import (
	"fmt"

	"github.com/fbeval/fbeval/schemas"
)

func ExampleValidateFile() {
	data := []byte(`{"schema_version": "fbeval-response/v1", "request_id": "r1", "output": "{}"}
{"schema_version": "fbeval-response/v1", "request_id": "r2", "output": "{}", "latency_ms": "fast"}
`)
	for _, p := range schemas.ValidateFile("responses.jsonl", data, schemas.Options{}) {
		fmt.Println(p)
	}
	name, _ := schemas.ForVersion("fbeval-response-batch/v1")
	fmt.Println(name)
	// Output:
	// responses.jsonl:2:92: /latency_ms: got string, want null or number
	// fbeval-response-batch
}
