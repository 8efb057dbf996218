package runner

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"slices"

	"github.com/fbeval/fbeval/contract"
)

// Item is one request read from a request file, with where it came from.
type Item struct {
	Req  contract.Request
	File string
	Line int
	// Study is the request's study identity: its "study" member, or for records
	// that have none (CogLang requests, whose contract has no room for it), one
	// derived from every such record of the file (see ReadRequests).
	Study string
}

// Studies returns the set of study identities of items.
func Studies(items []Item) map[string]bool {
	s := make(map[string]bool)
	for i := range items {
		s[items[i].Study] = true
	}
	return s
}

// Where is the request's position for messages: FILE:LINE.
func (it *Item) Where() string { return fmt.Sprintf("%s:%d", it.File, it.Line) }

// IsCogLang reports whether the request is a CogLang generation-eval record, whose
// answer is a CogLang response record.
func IsCogLang(req *contract.Request) bool { return req.SchemaVersion == contract.CogLangRequest }

// ReadRequests reads every request of a request file fbeval writes (JSONL, a JSON
// list, or a batch object holding "requests"), of either family. The first bad record
// or a repeated request id is returned as an error located at FILE:LINE:COL.
func ReadRequests(name string, r io.Reader) ([]Item, error) {
	rd := contract.NewReader(name, r, contract.ReadOptions{ListKeys: []string{"requests"}, SingleRecord: isRequestRecord,
		LimitHint: "no request fbeval exports is this long: is this the request file?"})
	var items []Item
	seen := make(map[string]int)
	for rd.Scan() {
		rec := rd.Record()
		if rec.Err != nil {
			return nil, rec.Err
		}
		req, err := contract.DecodeRequest(rec)
		if err != nil {
			return nil, err
		}
		if first, dup := seen[req.RequestID]; dup {
			return nil, rec.Errorf(0, "request id %q repeats the request at line %d; request ids must be unique", req.RequestID, first)
		}
		seen[req.RequestID] = rec.Line
		items = append(items, Item{Req: req, File: name, Line: rec.Line})
	}
	if err := rd.Err(); err != nil {
		return nil, err
	}
	// Records without a study identity get one from their content: "sha256:" and 16
	// hex digits of the SHA-256 of the sorted hashes of their ids, instructions and
	// prompts, so that the order of the records does not matter.
	var sums [][sha256.Size]byte
	var without []int
	for i := range items {
		if r := &items[i].Req; r.Study == "" {
			without = append(without, i)
			sums = append(sums, sha256.Sum256([]byte(r.RequestID+"\x00"+r.Instructions+"\x00"+r.Prompt)))
		} else {
			items[i].Study = r.Study
		}
	}
	if len(without) > 0 {
		slices.SortFunc(sums, func(a, b [sha256.Size]byte) int { return bytes.Compare(a[:], b[:]) })
		h := sha256.New()
		for _, s := range sums {
			h.Write(s[:])
		}
		id := "sha256:" + hex.EncodeToString(h.Sum(nil)[:8])
		for _, i := range without {
			items[i].Study = id
		}
	}
	return items, nil
}

// isRequestRecord tells a one-record file from a batch object: a record names its
// request or case, a batch holds "requests".
func isRequestRecord(names []string) bool {
	return !slices.Contains(names, "requests") && (slices.Contains(names, "request_id") || slices.Contains(names, "case_id"))
}
