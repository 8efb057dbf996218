package report

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// A result whose strings hold lone surrogate escapes, as fbeval writes them for
// an output or a case id that had one, reads back into the same strings (kept as
// WTF-8), whole or streamed, and writes the same bytes again; raw bytes that are
// not UTF-8 are refused, at their place.
func TestLoneSurrogatesReadBack(t *testing.T) {
	data, err := os.ReadFile("testdata/live_coglang.json")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(data), `"output": "Get[2, 2]",`, `"output": "Get[2, \"\ud800\"] \udfff",`, 1)
	if text == string(data) {
		t.Fatal("no output to change in testdata/live_coglang.json")
	}
	whole, err := Load("lone.json", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteJSON(&b, whole); err != nil {
		t.Fatal(err)
	}
	if b.String() != text {
		t.Fatal("the result loaded whole writes other bytes")
	}
	streamed, err := Open("lone.json", strings.NewReader(text), OpenOptions{MaxHeadBytes: int64(len(text)), MaxRowBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	sameAsHeld(t, streamed, text)
	found := false
	for c := range streamed.CogLang.EachCase() {
		if o := c.(*CogLangCase).Output; o != nil && *o == "Get[2, \"\xed\xa0\x80\"] \xed\xbf\xbf" {
			found = true
		}
	}
	if !found {
		t.Fatal("the output was not read back as WTF-8")
	}

	bad := strings.Replace(text, `\ud800`, "\xff", 1)
	for name, load := range map[string]func() error{
		"whole": func() error { _, err := Load("bad.json", []byte(bad)); return err },
		"streamed": func() error {
			_, err := Open("bad.json", strings.NewReader(bad), OpenOptions{MaxHeadBytes: 1 << 20, MaxRowBytes: 1 << 20})
			return err
		},
	} {
		if err := load(); err == nil || !strings.Contains(err.Error(), "invalid UTF-8") || !strings.HasPrefix(err.Error(), "bad.json:") {
			t.Errorf("%s: raw invalid UTF-8: error %v", name, err)
		}
	}
}
