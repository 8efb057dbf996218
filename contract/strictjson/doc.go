// Package strictjson is fbeval's one reading of JSON text: a strict parser into an
// exact value type, and the canonical text of a value.
//
// A Value holds numbers as Python's json module reads them (an integer literal is an
// exact integer of any size, any other number a float64), object members in input
// order, and strings as Go strings; a lone UTF-16 surrogate escape is kept as its
// three WTF-8 bytes, as Python keeps it in a str, and written back as the same escape.
// Parse refuses everything Python's json refuses and more (duplicate keys, NaN,
// Infinity, a byte order mark, invalid UTF-8), each failure a *SyntaxError with its
// line and column.
//
//	v, err := strictjson.Parse(`{"city": "Goa", "guests": 2}`)
//	if err != nil { ... }
//	g, _ := v.Get("guests")
//	fmt.Println(g.Int(), strictjson.Canonical(v)) // 2 {"city":"Goa","guests":2}
//
// The suites, the schema compiler, gates and input accounting all read JSON values
// through this package; it imports nothing of fbeval but contract.
package strictjson
