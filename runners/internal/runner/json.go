package runner

import "github.com/bytedance/sonic"

// JSON decodes provider bodies and batch result files. It is sonic, fast on the
// large batch output files fbeval-batch reads, configured to behave like
// encoding/json (numbers kept as json.Number, strings copied and checked as UTF-8).
// Where sonic does not support the Go version it falls back to encoding/json, so
// callers treat its errors as plain errors.
var JSON = sonic.Config{UseNumber: true, CopyString: true, ValidateString: true}.Froze()
