package strictjson_test

import (
	"fmt"

	"github.com/fbeval/fbeval/contract/strictjson"
)

func ExampleParse() {
	v, err := strictjson.Parse(`{"city": "Goa", "guests": 2, "note": "\ud800"}`)
	if err != nil {
		fmt.Println(err)
		return
	}
	g, _ := v.Get("guests")
	fmt.Println(g.Int(), strictjson.Canonical(v))
	// Output: 2 {"city":"Goa","guests":2,"note":"\ud800"}
}

func ExampleReadString() {
	text := `{"output": "say \"hi\"", "id": "plain"}`
	end, buf, escaped, err := strictjson.ReadString(text, 11, nil, strictjson.RejectSurrogates)
	fmt.Println(end, string(buf), escaped, err)
	end, _, escaped, err = strictjson.ReadString(text, 31, nil, strictjson.RejectSurrogates)
	fmt.Println(end, text[32:end-1], escaped, err)
	// Output:
	// 23 say "hi" true ok
	// 38 plain false ok
}

func ExampleSkipValue() {
	text := `[1, {"a": [true, null]}, "x"] rest`
	end, err := strictjson.SkipValue(text, 0, 3, strictjson.RejectSurrogates)
	fmt.Println(end, err)
	end, err = strictjson.SkipValue(text, 0, 2, strictjson.RejectSurrogates)
	fmt.Println(end, err)
	// Output:
	// 29 ok
	// 10 nesting too deep
}
