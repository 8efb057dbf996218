package report

import (
	"errors"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/fbeval/fbeval/contract/strictjson"
)

// fbeval's readers keep a lone UTF-16 surrogate escape (an output or a case id
// holding "\ud800") as its three WTF-8 bytes, as Python keeps it in a str, and
// its writers write it back as the same escape. A saved report is read the same
// way, so it reads back into the strings it was written from, and writes again
// to the same bytes: jsontext alone refuses such an escape. Raw bytes that are
// not UTF-8 are refused still.

// readJSON is the jsontext option of every decoder of a saved report: the lone
// surrogate escapes get through, to be unquoted by unquoteString.
var readJSON = jsontext.AllowInvalidUTF8(true)

// readOptions are the options every report value is unmarshalled with.
var readOptions = json.JoinOptions(readJSON, json.WithUnmarshalers(json.UnmarshalFromFunc(unquoteString)))

// unquoteString unquotes a JSON string into s as fbeval's readers do.
func unquoteString(dec *jsontext.Decoder, s *string) error {
	if dec.PeekKind() != '"' {
		return errors.ErrUnsupported // null and the wrong kinds: as json does
	}
	val, err := dec.ReadValue()
	if err != nil {
		return err
	}
	end, out, escaped, lexErr := strictjson.ReadString([]byte(val), 0, nil, strictjson.KeepSurrogates)
	if lexErr != strictjson.LexOK {
		return lexErr
	}
	if end != len(val) {
		return errors.New("unexpected bytes after a string")
	}
	if escaped {
		*s = string(out)
	} else {
		*s = string(val[1 : end-1])
	}
	return nil
}
