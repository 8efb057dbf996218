package toolcall

import (
	"io"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// BenchmarkJSONTextTokens is the measure the hand-written scanner was chosen by:
// jsontext only tokenizes here, yet costs more time and allocations than Parse, which
// builds the value.
func BenchmarkJSONTextTokens(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchOutput)))
	for b.Loop() {
		d := jsontext.NewDecoder(strings.NewReader(benchOutput))
		for {
			_, err := d.ReadToken()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}
