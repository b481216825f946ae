package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// runner is one run: the connections' shared settings and state.
type runner struct {
	conns   int
	depth   int
	rate    *rate // nil: closed loop
	calls   *callSet
	timeout time.Duration // how long the end waits for answers in flight

	start  time.Time // set as the load begins (the connections are open)
	stats  *stats
	seq    atomic.Uint64 // calls made, for {{seq}}
	budget atomic.Int64  // calls left to make (-n)

	errMu   sync.Mutex
	errSeen map[string]int // transport errors by text, for the report's warnings

	// interrupted is closed by the user's first Ctrl-C, abort by the
	// second (nil: never). quit, closed once by stopWaiting, ends the
	// workers' wait for answers in flight at once.
	interrupted, abort <-chan struct{}
	quit               chan struct{}
	quitOnce           sync.Once
}

// newRunner prepares a run of at most n calls (0: no bound) on conns
// connections to targets targets.
func newRunner(conns, targets, depth int, rt *rate, calls *callSet, timeout time.Duration, n int64) *runner {
	r := &runner{conns: conns, depth: depth, rate: rt, calls: calls, timeout: timeout, stats: newStats(targets), errSeen: map[string]int{}, quit: make(chan struct{})}
	if n <= 0 {
		n = math.MaxInt64
	}
	r.budget.Store(n)
	return r
}

// reserve takes up to k calls from the budget and returns how many it got.
func (r *runner) reserve(k int) int {
	for {
		left := r.budget.Load()
		if left <= 0 {
			return 0
		}
		got := min(int64(k), left)
		if r.budget.CompareAndSwap(left, left-got) {
			return int(got)
		}
	}
}

// transportError notes why a connection failed.
func (r *runner) transportError(err error) {
	r.errMu.Lock()
	r.errSeen[err.Error()]++
	r.errMu.Unlock()
}

// stopWaiting ends the workers' wait for the answers in flight: what has
// not come is lost.
func (r *runner) stopWaiting() { r.quitOnce.Do(func() { close(r.quit) }) }

// drive runs the workers until ctx is done or the budget is spent,
// showing each second's interval on prog, and returns the time measured:
// from the start to the last answer (or the end of the wait for it).
//
// When sending is over with answers still in flight, whether by the
// user's Ctrl-C (r.interrupted) or, seen at a tick, by -d or -n, the
// progress line goes and a line on say tells what the run waits for and
// how to stop waiting: the next Ctrl-C, or r.abort, ends the wait.
func (r *runner) drive(ctx context.Context, ws []*worker, prog *progress, say io.Writer) time.Duration {
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Go(func() { w.run(ctx) })
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	var ended time.Time // when sending was seen to be over
	waiting := false    // the wait was announced
	announce := func(again string) {
		waiting = true
		prog.done()
		n := 0
		for _, w := range ws {
			n += w.inFlight()
		}
		if n > 0 {
			left := max(0, r.timeout-time.Since(ended))
			if left >= time.Second {
				left = left.Round(time.Second)
			} else {
				left = left.Round(time.Millisecond)
			}
			fmt.Fprintf(say, "loadgen: waiting up to %s for %s answer%s in flight (Ctrl-C%s to stop now)\n", left, thousands(int64(n)), plural(n), again)
		}
	}
	sending, interrupted, abort := ctx.Done(), r.interrupted, r.abort
	for {
		select {
		case now := <-t.C:
			iv := r.stats.tick(now)
			if waiting {
				continue
			}
			prog.update(iv)
			if ended.IsZero() && r.budget.Load() <= 0 {
				ended = now // -n is spent: the wait began before this tick
			}
			if !ended.IsZero() && now.Sub(ended) >= time.Second/2 {
				announce("") // the answers are slow to come
			}
		case <-sending:
			sending = nil
			ended = time.Now()
		case <-interrupted:
			interrupted = nil
			if waiting { // sending was over already: this Ctrl-C ends the wait
				r.stopWaiting()
				continue
			}
			if ended.IsZero() {
				ended = time.Now()
			}
			announce(" again")
		case <-abort:
			abort = nil
			r.stopWaiting()
		case <-done:
			r.stats.close(time.Now(), true)
			var end time.Duration
			for _, w := range ws {
				end = max(end, w.stopped, w.last)
			}
			return end
		}
	}
}
