package runner

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/fbeval/fbeval/contract"
)

// progress counts finished requests and prints a one-line report every interval on
// a stream that is not a terminal (a log, a CI job), where no bar is drawn:
//
//	fbeval-openai: 120/252 done (47%), 3 errors, 4.1 requests/s, ETA 32s
type progress struct {
	mu       sync.Mutex
	name     string
	total    int
	skipped  int // answered before this run
	finished int // in this run
	errors   int
	start    time.Time
}

// add counts one finished request.
func (p *progress) add(answered bool) {
	p.mu.Lock()
	p.finished++
	if !answered {
		p.errors++
	}
	p.mu.Unlock()
}

// line is the report at now.
func (p *progress) line(now time.Time) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	done := p.skipped + p.finished
	pct := 100
	if p.total > 0 {
		pct = done * 100 / p.total
	}
	elapsed := now.Sub(p.start).Seconds()
	rate := 0.0
	if elapsed > 0 {
		rate = float64(p.finished) / elapsed
	}
	eta := "unknown"
	if left := p.total - done; left == 0 {
		eta = "0s"
	} else if rate > 0 {
		d := time.Duration(float64(left) / rate * float64(time.Second)).Round(time.Second)
		eta = d.String()
		if d < time.Second {
			eta = "<1s"
		}
	}
	return fmt.Sprintf("%s: %d/%d done (%d%%), %s, %.1f requests/s, ETA %s", p.name, done, p.total, pct, contract.Plural(p.errors, "error", "errors"), rate, eta)
}

// report prints a line to w every interval until stop is called.
func (p *progress) report(w io.Writer, every time.Duration) (stop func()) {
	t := time.NewTicker(every)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			case now := <-t.C:
				fmt.Fprintln(w, p.line(now))
			}
		}
	}()
	return func() {
		t.Stop()
		close(done)
		wg.Wait()
	}
}
