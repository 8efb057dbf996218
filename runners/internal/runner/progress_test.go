package runner

import (
	"testing"
	"time"
)

func TestProgressLine(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := &progress{name: "fbeval-openai", total: 252, skipped: 20, start: start}
	if got, want := p.line(start), "fbeval-openai: 20/252 done (7%), 0 errors, 0.0 requests/s, ETA unknown"; got != want {
		t.Errorf("at the start: %q, want %q", got, want)
	}
	for i := range 100 {
		p.add(i%25 != 0)
	}
	if got, want := p.line(start.Add(25*time.Second)), "fbeval-openai: 120/252 done (47%), 4 errors, 4.0 requests/s, ETA 33s"; got != want {
		t.Errorf("after 25s: %q, want %q", got, want)
	}
	for range 132 {
		p.add(true)
	}
	if got, want := p.line(start.Add(time.Minute)), "fbeval-openai: 252/252 done (100%), 4 errors, 3.9 requests/s, ETA 0s"; got != want {
		t.Errorf("at the end: %q, want %q", got, want)
	}
}
