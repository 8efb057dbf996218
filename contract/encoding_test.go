package contract

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompressed: each format's magic number is known, and nothing JSON text
// can start with is taken for one.
func TestCompressed(t *testing.T) {
	cases := []struct {
		head   string
		format string
	}{
		{"\x1f\x8b\x08\x00", "gzip"},
		{"\x28\xb5\x2f\xfd\x04", "zstd"},
		{"BZh91AY&SY\x00", "bzip2"},
		{"\xfd7zXZ\x00\x00", "xz"},
		{"PK\x03\x04\x14\x00", "zip"},
		{"BZh9 is text", ""},
		{"BZh", ""},
		{"\x1f", ""},
		{`{"case_id": "c1"}`, ""},
		{"[]", ""},
		{"", ""},
		{"\xef\xbb\xbf{}", ""},
		{"\xff\xfe{\x00", "UTF-16"},
		{"\xfe\xff\x00{", "UTF-16"},
		{"{\x00\"\x00", "UTF-16LE"},
		{"\x00[\x00]", "UTF-16BE"},
		{"\xff\xfe\x00\x00{\x00\x00\x00", "UTF-32"},
		{"\x00\x00\xfe\xff", "UTF-32"},
		{"{\x00\x00\x00\"\x00\x00\x00", "UTF-32LE"},
		{"\x00\x00\x00[\x00\x00\x00]", "UTF-32BE"},
		{"{\x00\x00\x00\x00\x00\x00\x00", ""}, // "{" and NUL bytes: not text
		{"{\x00\x00\x00", ""},
		{"{\x00", ""},
		{"\x00\x00", ""}, // /dev/zero: a NUL byte, not text
		{"{}", ""},
		{" {", ""},
	}
	for _, tc := range cases {
		format, cmd := compressed([]byte(tc.head))
		if format == "" {
			format = wide([]byte(tc.head))
		} else if cmd == "" {
			t.Errorf("%q: %s without a command", tc.head, format)
		}
		if format != tc.format {
			t.Errorf("%q: %q; want %q", tc.head, format, tc.format)
		}
	}
}

// TestCompressedMsg: the message names the command and the file to write.
func TestCompressedMsg(t *testing.T) {
	cases := []struct{ name, format, cmd, want string }{
		{"r.jsonl", "UTF-16", "", "UTF-16 text, not UTF-8: convert it first (iconv -f UTF-16 -t UTF-8 r.jsonl > r.utf8.jsonl) and give that file; if Windows PowerShell's > wrote it, text outside ASCII may be changed already: make the file again with the command's -o FILE instead"},
		{"dir.v2/responses", "UTF-16", "", "UTF-16 text, not UTF-8: convert it first (iconv -f UTF-16 -t UTF-8 dir.v2/responses > dir.v2/responses.utf8) and give that file; if Windows PowerShell's > wrote it, text outside ASCII may be changed already: make the file again with the command's -o FILE instead"},
		{"-", "UTF-16", "", "UTF-16 text, not UTF-8: convert it on the way in (iconv -f UTF-16 -t UTF-8 FILE | ...)"},
		{"r.jsonl.gz", "gzip", "gzip -dc", "gzip-compressed, not JSON text: decompress it first (gzip -dc r.jsonl.gz > r.jsonl) and give that file"},
		{"dir/r.jsonl.zst", "zstd", "zstd -dc", "zstd-compressed, not JSON text: decompress it first (zstd -dc dir/r.jsonl.zst > dir/r.jsonl) and give that file"},
		{"responses", "gzip", "gzip -dc", "gzip-compressed, not JSON text: decompress it first (gzip -dc responses > responses.json) and give that file"},
		{".gz", "gzip", "gzip -dc", "gzip-compressed, not JSON text: decompress it first (gzip -dc .gz > .gz.json) and give that file"},
		{"-", "zip", "unzip -p", "zip-compressed data, not JSON text: decompress it on the way in (unzip -p FILE | ...)"},
		// standard input by its name in messages (a runner's): no command
		// of <stdin> as a file
		{StdinName, "gzip", "gzip -dc", "gzip-compressed data, not JSON text: decompress it on the way in (gzip -dc FILE | ...)"},
	}
	for _, tc := range cases {
		head := map[string]string{"UTF-16": "\xff\xfe{\x00", "gzip": "\x1f\x8b", "zstd": "\x28\xb5\x2f\xfd", "zip": "PK\x03\x04"}[tc.format]
		if got := wrongEncodingMsg(tc.name, []byte(head)); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

// TestReaderCompressed: the record reader refuses compressed data at 1:1 with
// the message, as its first and only error.
func TestReaderCompressed(t *testing.T) {
	rd := NewReader("r.jsonl.gz", strings.NewReader("\x1f\x8b\x08\x00\x00\x00\x00\x00"), ReadOptions{})
	if rd.Scan() {
		t.Fatalf("a record: %q", rd.Record().Raw)
	}
	var ie *InputError
	if err := rd.Err(); !errors.As(err, &ie) || ie.Line != 1 || ie.Col != 1 || ie.Kind != ErrSyntax || !strings.HasPrefix(ie.Msg, "gzip-compressed") {
		t.Fatalf("got %v", err)
	}
}

// TestOpenFileRefusalSticks: a file read whole that is refused at its first
// read stays refused, even through a bufio.Reader, which passes an error on
// once (a parser behind one saw the rest of the file, or its end).
func TestOpenFileRefusalSticks(t *testing.T) {
	dir := t.TempDir()
	for _, data := range []string{"\x00{}", "\x1f\x8b\x08\x00 and more after the first read"} {
		path := filepath.Join(dir, "f.json")
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		f, r, err := OpenFile(path)
		if err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReaderSize(r, 16)
		if _, err := br.Peek(3); err == nil {
			t.Fatalf("%q: peeked", data)
		}
		rest, err := io.ReadAll(br)
		var ie *InputError
		if len(rest) > 0 || !errors.As(err, &ie) || ie.Kind != ErrSyntax {
			t.Errorf("%q: read %q after the refusal, %v", data, rest, err)
		}
		f.Close()
	}
}

// TestOpenJSONText: JSON typed where a file name goes is said to be JSON text,
// cut short and whole in its runes; a missing file is as os.Open says, and a
// file whose name starts with a brace opens.
func TestOpenJSONText(t *testing.T) {
	for _, tt := range []struct{ path, want string }{
		{`{"origin":"Osaka"}`, `open {"origin":"Osaka"}: this is JSON text, not a file name: save it to a file and give its name, or pipe it in and give - in its place`},
		{` [1, 2]`, `open [1, 2]: this is JSON text`},
		{`"Equal[2, 2]"`, `open "Equal[2, 2]": this is JSON text`},
		{`{"action":"call_tool","tool":"search_flights","arguments":{}}`, `open {"action":"call_tool","tool":"search_...: this is JSON text`},
		{`{"city":"` + strings.Repeat("x", 27) + `üüüü"}`, `open {"city":"` + strings.Repeat("x", 27) + `...: `}, // not within the ü
		{"nofile.json", "open nofile.json: no such file or directory"},
	} {
		f, err := Open(tt.path)
		if err == nil {
			f.Close()
			t.Fatalf("%s: opened", tt.path)
		}
		if !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s:\n got %v\nwant %s...", tt.path, err, tt.want)
		}
	}
	t.Chdir(t.TempDir())
	if err := os.WriteFile("{odd}.json", []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open("{odd}.json")
	if err != nil {
		t.Fatalf("a file named with a brace: %v", err)
	}
	f.Close()
}
