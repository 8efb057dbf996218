package schemas

import (
	"slices"
	"testing"

	"github.com/fbeval/fbeval/contract/strictjson"
)

func TestFieldsAt(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		at        string
		fields    []string // Properties of the document
	}{
		{"the document", `{"type":"object","properties":{"a":{},"b":{}}}`, "", []string{"a", "b"}},
		{"zod-to-json-schema, named", `{"$ref":"#/definitions/book_room","definitions":{"book_room":{"type":"object","properties":{"room":{},"guests":{}}}},"$schema":"http://json-schema.org/draft-07/schema#"}`,
			"/definitions/book_room", []string{"room", "guests"}},
		{"$defs", `{"$ref":"#/$defs/Args","$defs":{"Args":{"properties":{"x":{}}}}}`, "/$defs/Args", []string{"x"}},
		{"two hops", `{"$ref":"#/$defs/A","$defs":{"A":{"$ref":"#/$defs/B"},"B":{"properties":{"y":{}}}}}`, "/$defs/B", []string{"y"}},
		{"escaped and percent-encoded", `{"$ref":"#/$defs/a~1b%20c","$defs":{"a/b c":{"properties":{"z":{}}}}}`, "/$defs/a~1b c", []string{"z"}},
		{"a ring ends", `{"$ref":"#/$defs/A","$defs":{"A":{"$ref":"#/$defs/B"},"B":{"$ref":"#/$defs/A"}}}`, "", nil},
		{"properties of its own win", `{"$ref":"#/$defs/A","properties":{"own":{}},"$defs":{"A":{"properties":{"x":{}}}}}`, "", nil},
		{"beside allOf: composition", `{"$ref":"#/$defs/A","allOf":[{}],"$defs":{"A":{"properties":{"x":{}}}}}`, "", nil},
		{"another document", `{"$ref":"other.json#/$defs/A"}`, "", nil},
		{"an anchor", `{"$ref":"#args","$defs":{"A":{"$anchor":"args","properties":{"x":{}}}}}`, "", nil},
		{"the document itself", `{"$ref":"#"}`, "", nil},
		{"nowhere", `{"$ref":"#/$defs/None","$defs":{}}`, "", nil},
		{"not an object", `{"$ref":"#/$defs/A","$defs":{"A":true}}`, "", nil},
		{"an array item", `{"$ref":"#/allOfs/1","allOfs":[{},{"properties":{"q":{}}}]}`, "/allOfs/1", []string{"q"}},
		{"a definition with an $id stops the next hop", `{"$ref":"#/$defs/A","$defs":{"A":{"$id":"https://example.com/a","$ref":"#/$defs/B"},"B":{"properties":{"x":{}}}}}`, "/$defs/A", nil},
		{"the definition composes", `{"$ref":"#/$defs/A","$defs":{"A":{"allOf":[{"properties":{"x":{}}}]}}}`, "/$defs/A", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := strictjson.Parse(tc.doc)
			if err != nil {
				t.Fatal(err)
			}
			at, _ := FieldsAt(doc)
			if string(at) != tc.at {
				t.Errorf("FieldsAt = %q, want %q", at, tc.at)
			}
			if got := Properties([]byte(tc.doc)); !slices.Equal(got, tc.fields) {
				t.Errorf("Properties = %q, want %q", got, tc.fields)
			}
		})
	}
}

// FuzzFieldsAt: any document gives a place that is in it and an object schema
// there, or the document itself.
func FuzzFieldsAt(f *testing.F) {
	f.Add(`{"$ref":"#/definitions/a","definitions":{"a":{"properties":{"x":{}}}}}`)
	f.Add(`{"$ref":"#/$defs/A","$defs":{"A":{"$ref":"#/$defs/B"},"B":{"$ref":"#/$defs/A"}}}`)
	f.Add(`{"$ref":"#/x/0/%7e1","x":[{"~1":{}}]}`)
	f.Fuzz(func(t *testing.T, text string) {
		doc, err := strictjson.Parse(text)
		if err != nil {
			return
		}
		at, fields := FieldsAt(doc)
		if at == "" {
			if !strictjson.Equal(fields, doc) {
				t.Fatalf("no place, but not the document: %s", strictjson.Canonical(fields))
			}
			return
		}
		got, ok := resolve(doc, at)
		if !ok || got.Kind() != strictjson.Object || !strictjson.Equal(got, fields) {
			t.Fatalf("%q is not where the schema is", at)
		}
		Properties([]byte(text))
	})
}

func TestArgumentNames(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		want      []string
	}{
		{"properties", `{"properties":{"b":{},"a":{}}}`, []string{"b", "a"}},
		{"named", `{"$ref":"#/definitions/t","definitions":{"t":{"properties":{"x":{}}}}}`, []string{"x"}},
		{"discriminated union (Pydantic)", `{"oneOf":[{"$ref":"#/$defs/Email"},{"$ref":"#/$defs/Sms"}],"discriminator":{"propertyName":"kind"},"$defs":{"Email":{"properties":{"kind":{},"address":{},"subject":{}}},"Sms":{"properties":{"kind":{},"phone":{}}}}}`,
			[]string{"kind", "address", "subject", "phone"}},
		{"anyOf (Zod 4)", `{"anyOf":[{"type":"object","properties":{"status":{},"at":{}}},{"type":"object","properties":{"status":{}}}]}`, []string{"status", "at"}},
		{"no arguments", `{"type":"object","properties":{},"additionalProperties":false}`, nil},
		{"a union beside properties: the properties", `{"properties":{"a":{}},"oneOf":[{"properties":{"b":{}}}]}`, []string{"a"}},
	} {
		doc, err := strictjson.Parse(tc.doc)
		if err != nil {
			t.Fatal(err)
		}
		if got := ArgumentNames(doc); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
