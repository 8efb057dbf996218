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
// Beside the parser sits the lexer every fast scanner calls instead of writing the
// grammar again: ScanNumber (where a number ends, integer or not), ReadString and
// ScanString (a string unescaped into the caller's buffer, or only checked, with
// the lone-surrogate policy a parameter: RejectSurrogates as jsontext reads JSON,
// KeepSurrogates as Python does) and SkipValue (one value, with a depth limit, no
// recursion). They read a string or a byte slice, never allocate and return the
// offset after the token, or the offset of the fault with a LexError:
//
//	end, isInt, err := strictjson.ScanNumber(`-12.5e3,`, 0) // 7, false, LexOK
//
// Elements reads the elements of a JSON array from a stream with SkipValue, one
// raw value at a time, holding one element at a time: a saved report's rows are
// found again this way each time a writer walks them.
//
// The parser is built on them, so a fast path that accepts a token accepts what
// Parse accepts; FuzzLexer holds the lexer to jsontext on valid input and to Parse
// on everything.
//
// The suites, the schema compiler, gates and input accounting all read JSON values
// through this package; it imports nothing of fbeval but contract, which therefore
// cannot import it (contract's document scanner only finds where a value ends in a
// stream and leaves the checking to jsontext).
package strictjson
