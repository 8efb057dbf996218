package contract

import (
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

type inner struct {
	X int `json:"x"`
}

type upper string

// AppendJSON writes the string in upper case, to show a pointer-receiver appender
// is used for a field held by value.
func (u *upper) AppendJSON(dst []byte, _ Style, _ int) ([]byte, error) {
	return AppendString(dst, strings.ToUpper(string(*u))), nil
}

type sample struct {
	Name      string         `json:"name"`
	Skip      string         `json:"-"`
	Maybe     *int           `json:"maybe"`
	Gone      *int           `json:"gone,omitzero"`
	NoName    string         `json:"no_name,omitempty"`
	List      []string       `json:"list"`
	Kept      []string       `json:"kept,omitzero"`
	Dropped   []string       `json:"dropped,omitzero"`
	Pair      *[2]float64    `json:"pair"`
	Raw       jsontext.Value `json:"raw"`
	NoRaw     jsontext.Value `json:"no_raw,omitzero"`
	Map       map[string]int `json:"map"`
	Any       any            `json:"any"`
	Obj       Object         `json:"obj,omitzero"`
	Up        upper          `json:"up"`
	Seed      uint64         `json:"seed"`
	Rate      float64        `json:"rate"`
	unwritten int
}

type embeds struct {
	inner
	Y int `json:"y"`
}

func TestMarshalStruct(t *testing.T) {
	one := 1
	v := sample{Name: "n", Maybe: &one, Kept: []string{}, Pair: &[2]float64{0.5, 1},
		Raw: jsontext.Value(`{"b": "\u00e9",  "a":1E2}`), Map: map[string]int{"z": 1, "a": 2},
		Any: Object{{Key: "k", Value: []any{1}}}, Obj: Object{{Key: "z", Value: Raw("[ 1]")}}, Up: "u", Seed: 1 << 63, Rate: 100, Skip: "x", unwritten: 3}
	got, err := Marshal(v, Compact)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"n","maybe":1,"list":[],"kept":[],"pair":[0.5,1.0],"raw":{"b": "\u00e9",  "a":1E2},"map":{"a":2,"z":1},"any":{"k":[1]},"obj":{"z":[ 1]},"up":"U","seed":9223372036854775808,"rate":100.0}`
	if string(got) != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	got, _ = Marshal(&embeds{inner{1}, 2}, Compact)
	if string(got) != `{"x":1,"y":2}` {
		t.Errorf("embedded: got %s", got)
	}
	got, _ = Marshal(struct {
		A []int `json:"a"`
		B struct {
			C *int `json:"c"`
		} `json:"b"`
	}{A: []int{1, 2}}, PythonIndent)
	if want := "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": {\n    \"c\": null\n  }\n}"; string(got) != want {
		t.Errorf("indent:\n%s\nwant\n%s", got, want)
	}
}

// A struct written by Marshal reads back with go-json-experiment/json into the
// same value: the two agree on names, omission and order.
func TestMarshalStructRoundTrip(t *testing.T) {
	one := 1
	v := sample{Name: "n", Maybe: &one, Kept: []string{}, List: []string{"a"}, Pair: &[2]float64{0.25, 1},
		Raw: jsontext.Value(`{"a":1}`), Map: map[string]int{"z": 1, "a": 2}, Seed: 7, Rate: 1e-7}
	data, err := Marshal(v, PythonIndent)
	if err != nil {
		t.Fatal(err)
	}
	var back sample
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	again, err := Marshal(back, PythonIndent)
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != string(data) {
		t.Errorf("round trip:\n%s\nthen\n%s", data, again)
	}
}

type inlined struct {
	A      int `json:"a"`
	*Extra `json:",inline"`
	Z      int `json:"z"`
}

type Extra struct {
	B int `json:"b"`
}

func TestMarshalInline(t *testing.T) {
	for _, tt := range []struct {
		v    inlined
		want string
	}{
		{inlined{A: 1, Z: 2}, `{"a":1,"z":2}`},
		{inlined{A: 1, Extra: &Extra{B: 0}, Z: 2}, `{"a":1,"b":0,"z":2}`},
	} {
		got, err := Marshal(tt.v, Compact)
		if err != nil || string(got) != tt.want {
			t.Errorf("got %s (%v), want %s", got, err, tt.want)
		}
		var back inlined
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatal(err)
		}
		if again, _ := Marshal(back, Compact); string(again) != tt.want {
			t.Errorf("read back as %s, want %s", again, tt.want)
		}
	}
}
