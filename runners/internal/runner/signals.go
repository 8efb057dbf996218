package runner

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

type abortKey struct{}

// WithAbort returns ctx carrying abort: when abort is done, calls in flight are
// canceled and their requests left for a later run. ctx itself ending stops the run
// gently: no new call starts, calls in flight finish and are written.
func WithAbort(ctx, abort context.Context) context.Context {
	return context.WithValue(ctx, abortKey{}, abort)
}

// abortOf returns the abort context ctx carries, or one that never ends.
func abortOf(ctx context.Context) context.Context {
	if a, ok := ctx.Value(abortKey{}).(context.Context); ok {
		return a
	}
	return context.Background()
}

// NotifySignals returns the context a runner's main passes to its run: the first
// SIGINT stops the run gently (calls in flight finish); a second SIGINT, or a
// SIGTERM, aborts it at once, canceling calls in flight. stop releases the signals.
// A signal the process was started ignoring (SIGINT in a shell's background job,
// nohup's SIGHUP, which is never caught) is left ignored.
func NotifySignals() (ctx context.Context, stop func()) {
	gentle, stopGentle := context.WithCancel(context.Background())
	abort, stopAbort := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 2)
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		if !signal.Ignored(sig) {
			signal.Notify(ch, sig)
		}
	}
	done := make(chan struct{})
	go func() {
		interrupts := 0
		for {
			select {
			case <-done:
				return
			case s := <-ch:
				if s == os.Interrupt {
					interrupts++
				}
				stopGentle()
				if s != os.Interrupt || interrupts > 1 {
					stopAbort()
				}
			}
		}
	}()
	return WithAbort(gentle, abort), func() {
		signal.Stop(ch)
		close(done)
		stopGentle()
		stopAbort()
	}
}
