package report

import (
	"os"
	"reflect"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// listValues returns the elements of the list key of the saved reports in
// testdata named, each as the JSON value it is in the file.
func listValues(t testing.TB, key string, names ...string) [][]byte {
	t.Helper()
	var out [][]byte
	for _, name := range names {
		data, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]jsontext.Value
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		var list []jsontext.Value
		if err := json.Unmarshal(doc[key], &list); err != nil {
			t.Fatal(err)
		}
		for _, v := range list {
			out = append(out, []byte(v))
		}
	}
	return out
}

func rowValues(t testing.TB) [][]byte {
	return listValues(t, "rows", "toolcall_small.json", "toolcall_large.json", "live_toolcall.json")
}

// sameAsUnmarshal checks fastDecode against json.Unmarshal on one valid value:
// when it decodes the value, Unmarshal must agree, to the last field.
func sameAsUnmarshal[T any](t *testing.T, val []byte) (fast bool) {
	t.Helper()
	var got T
	if !fastDecode(val, &got, nil, false) {
		return false
	}
	var want T
	if err := json.Unmarshal(val, &want); err != nil {
		t.Fatalf("the fast decoder took %s, which json.Unmarshal refuses: %v", val, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("fastDecode(%s):\n%#v\njson.Unmarshal:\n%#v", val, got, want)
	}
	// a brief CogLang case is the case with its id, level and failure
	// categories alone
	if c, ok := any(&want).(*CogLangCase); ok {
		var brief CogLangCase
		if !fastDecode(val, &brief, nil, true) {
			t.Fatalf("a brief case left the fast path the whole case takes: %s", val)
		}
		if !reflect.DeepEqual(brief, c.brief()) {
			t.Fatalf("brief fastDecode(%s):\n%#v\nwant:\n%#v", val, brief, c.brief())
		}
	}
	// a brief row is the same row without its attempt results
	if r, ok := any(&want).(*Row); ok {
		var brief Row
		if !fastDecode(val, &brief, nil, true) {
			t.Fatalf("a brief row left the fast path the whole row takes: %s", val)
		}
		r.AttemptResults = nil
		if !reflect.DeepEqual(brief, *r) {
			t.Fatalf("brief fastDecode(%s):\n%#v\nwant:\n%#v", val, brief, *r)
		}
	}
	return true
}

// Every row fbeval writes is decoded on the fast path, as json.Unmarshal
// decodes it; what the fast path leaves (escaped names, nulls fbeval does not
// write, numbers that are not plain integers, unknown or differently cased
// members) goes to json.Unmarshal.
func TestDecodeRow(t *testing.T) {
	rows := rowValues(t)
	if len(rows) < 40 {
		t.Fatalf("%d rows in testdata", len(rows))
	}
	for _, val := range rows {
		if !sameAsUnmarshal[Row](t, val) {
			t.Fatalf("a row fbeval wrote left the fast path: %s", val)
		}
	}
	for _, tc := range []struct {
		val  string
		fast bool
	}{
		{`{}`, true},
		{` { "case_id" : "a\"b\\c\/\n\u00e9\ud83d\ude00" , "repeat" : -0 } `, true},
		{`{"output":null,"attempt_results":[{"attempt":2,"output":null,"errors":[]}]}`, true},
		{`{"codes":["A","B"],"final_codes":[]}`, true},
		{`{"attempt_results":[]}`, true},
		{`{"attempt_results":[{"errors":[]},{"attempt":1,"errors":[{"code":"X"}]}]}`, true},
		{`{"repeat":1.0}`, false},
		{`{"repeat":1e0}`, false},
		{`{"repeat":99999999999999999999}`, false},
		{`{"case_id":null}`, false},
		{`{"codes":null}`, false},
		{`{"Case_ID":"x"}`, false},
		{`{"c\u0061se_id":"x"}`, false},
		{`{"extra":1}`, false},
		{`{"repeat":"1"}`, false},
		{`[]`, false},
	} {
		if !jsontext.Value(tc.val).IsValid() {
			t.Fatalf("not valid JSON: %s", tc.val)
		}
		if got := sameAsUnmarshal[Row](t, []byte(tc.val)); got != tc.fast {
			t.Errorf("decodeRow(%s) took it: %v, want %v", tc.val, got, tc.fast)
		}
	}
}

func FuzzFastDecode(f *testing.F) {
	for _, val := range rowValues(f) {
		f.Add(val)
	}
	for _, val := range listValues(f, "cases", "live_coglang.json") {
		f.Add(val)
	}
	f.Add([]byte(`{"case_id":"\u00e9\ud83d\ude00","output":null,"attempt_results":[{"errors":[{"code":"X","path":"/a","message":"m"}]}]}`))
	f.Fuzz(func(t *testing.T, val []byte) {
		if !jsontext.Value(val).IsValid() {
			return // the fast path only ever sees values jsontext read
		}
		sameAsUnmarshal[Row](t, val)
		sameAsUnmarshal[CogLangCase](t, val)
		sameAsUnmarshal[FailureCase](t, val)
		sameIDAsUnmarshal(t, val)
	})
}

// sameIDAsUnmarshal checks that caseIDOf, where it answers, gives the case_id
// json.Unmarshal reads (as the report readers read it).
func sameIDAsUnmarshal(t *testing.T, val []byte) {
	t.Helper()
	id, _, ok := caseIDOf(val, nil)
	if !ok {
		return
	}
	var members map[string]jsontext.Value
	if err := json.Unmarshal(val, &members, readOptions); err != nil {
		t.Fatalf("caseIDOf took %s, which json.Unmarshal refuses: %v", val, err)
	}
	var want string
	if err := json.Unmarshal(members["case_id"], &want, readOptions); err != nil || string(id) != want {
		t.Fatalf("caseIDOf(%s) = %q; json.Unmarshal: %q, %v", val, id, want, err)
	}
}

func TestCaseIDOf(t *testing.T) {
	for _, tc := range []struct {
		val, id string
		ok      bool
	}{
		{`{"case_id":"FB-L1-001","level":"L1","prompt":"p"}`, "FB-L1-001", true},
		{` { "level" : "L1" , "extra": {"a": [1, "}", {"case_id": "no"}]}, "case_id" : "B" } `, "B", true},
		{`{"case_id":"a\"b\u00e9"}`, "a\"bé", true},
		{`{"case_id":"\ud800x"}`, "\xed\xa0\x80x", true}, // a lone surrogate kept, as the readers keep it
		{`{"lev\u0065l":"L1","case_id":"A"}`, "", false}, // an escaped name: decoded whole instead
		{`{"level":"L1"}`, "", false},
		{`{"case_id":null}`, "", false},
		{`{"case_id":7}`, "", false},
		{`[]`, "", false},
		{`{}`, "", false},
	} {
		id, _, ok := caseIDOf([]byte(tc.val), nil)
		if ok != tc.ok || string(id) != tc.id {
			t.Errorf("caseIDOf(%s) = %q, %v; want %q, %v", tc.val, id, ok, tc.id, tc.ok)
		}
		if jsontext.Value(tc.val).IsValid() {
			sameIDAsUnmarshal(t, []byte(tc.val))
		}
	}
}

// Every CogLang case and failure case fbeval writes is decoded on the fast
// path, as json.Unmarshal decodes it.
func TestDecodeCogLangLists(t *testing.T) {
	files := []string{"live_coglang.json", "coglang_failures.json"}
	cases, fails := listValues(t, "cases", files...), listValues(t, "failure_cases", files...)
	if len(cases) < 10 || len(fails) < 3 {
		t.Fatalf("%d cases, %d failure cases in testdata", len(cases), len(fails))
	}
	for _, val := range cases {
		if !sameAsUnmarshal[CogLangCase](t, val) {
			t.Fatalf("a case fbeval wrote left the fast path: %s", val)
		}
	}
	for _, val := range fails {
		if !sameAsUnmarshal[FailureCase](t, val) {
			t.Fatalf("a failure case fbeval wrote left the fast path: %s", val)
		}
	}
	for val, fast := range map[string]bool{
		`{"output":null,"canonical":"Equal[1, 2]","parse_ok":true}`: true,
		`{"hallucinated_heads":[],"failure_categories":["a"]}`:      true,
		`{"hallucinated_heads":null}`:                               false,
		`{"level":1}`:                                               false,
	} {
		if got := sameAsUnmarshal[CogLangCase](t, []byte(val)); got != fast {
			t.Errorf("decodeCogLangCase(%s) took it: %v, want %v", val, got, fast)
		}
	}
}

// BenchmarkDecodeRow: the rows of the testdata reports, on the fast path and
// through json.Unmarshal.
func BenchmarkDecodeRow(b *testing.B) {
	rows := rowValues(b)
	n := 0
	for _, r := range rows {
		n += len(r)
	}
	b.Run("fast", func(b *testing.B) {
		b.SetBytes(int64(n))
		for b.Loop() {
			var names strCache
			for _, val := range rows {
				var r Row
				decodeRow(val, &r, &names)
			}
		}
	})
	b.Run("unmarshal", func(b *testing.B) {
		b.SetBytes(int64(n))
		for b.Loop() {
			for _, val := range rows {
				var r Row
				json.Unmarshal(val, &r)
			}
		}
	})
}
