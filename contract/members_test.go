package contract

import (
	"bytes"
	"sync"
	"testing"
)

// A member set appends exactly what AppendMember appends, in every style, at
// every depth, first or later, for names that need escaping too; sets are kept
// for as many styles and depths as there are room for, and built again past
// that, from any number of goroutines at once.
func TestMembersAsAppendMember(t *testing.T) {
	names := []string{"case_id", "", "quote\"d", "line\nbreak", "é"}
	m := NewMembers(names...)
	styles := []Style{Compact, PythonLine, PythonIndent, {Indent: "\t", Sep: " ,", Colon: " : "}}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for _, s := range styles {
				for depth := range 12 {
					set := m.At(s, depth)
					for k, name := range names {
						for _, i := range []int{0, 1, 7} {
							got := set.Member([]byte("x"), i, k)
							want := AppendMember([]byte("x"), s, depth, i, name)
							if !bytes.Equal(got, want) {
								t.Errorf("goroutine %d, style %+v, depth %d, member %d %q: %q, want %q", g, s, depth, i, name, got, want)
								return
							}
						}
					}
				}
			}
		})
	}
	wg.Wait()
	if n := len(*m.sets.Load()); n != maxMemberSets {
		t.Errorf("%d sets kept, want %d", n, maxMemberSets)
	}
}

func BenchmarkMember(b *testing.B) {
	m := NewMembers("case_id", "first_pass_success")
	var dst []byte
	b.Run("AppendMember", func(b *testing.B) {
		for b.Loop() {
			dst = AppendMember(dst[:0], PythonIndent, 2, 1, "first_pass_success")
		}
	})
	b.Run("MemberSet", func(b *testing.B) {
		for b.Loop() {
			dst = m.At(PythonIndent, 2).Member(dst[:0], 1, 1)
		}
	})
}

// BenchmarkFirstRecordChecks: what a scorer asks of every response file's
// first record (TopLevel for what the file is, RunStudy for the study it was
// written for), once per shard: ten thousand shards ask it ten thousand times.
func BenchmarkFirstRecordChecks(b *testing.B) {
	raw := []byte(`{"schema_version":"fbeval-response/v1","request_id":"flights-000.no_schema.r1.a1","case_id":"flights-000","output":"{\"action\":\"call_tool\",\"arguments\":{\"departureDate\":\"2027-07-14\",\"destination\":\"Auckland\",\"origin\":\"Osaka\",\"travellers\":4},\"missingFields\":[],\"reason\":\"\",\"tool\":\"search_flights\"}","provider":"fbeval-mock","model":"mock-garble","run":{"runner":"fbeval-mock","provider":"fbeval-mock","model":"mock-garble","study":"sha256:4323b237660750d5","recipe":"sha256:682c51ad0f28a999"}}`)
	b.ReportAllocs()
	for b.Loop() {
		if keys, _ := TopLevel(raw); !keys["output"] || RunStudy(raw) != "sha256:4323b237660750d5" {
			b.Fatal("misread")
		}
	}
}
