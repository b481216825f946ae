package main

import (
	"context"
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
}

// newRunner prepares a run of at most n calls (0: no bound).
func newRunner(conns, depth int, rt *rate, calls *callSet, timeout time.Duration, n int64) *runner {
	r := &runner{conns: conns, depth: depth, rate: rt, calls: calls, timeout: timeout, stats: newStats(), errSeen: map[string]int{}}
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

// drive runs the workers until ctx is done or the budget is spent, calling
// tick every second with the interval that ended, and returns the time
// measured: from the start to the last answer (or the end of the wait for
// it).
func (r *runner) drive(ctx context.Context, ws []*worker, tick func(Interval)) time.Duration {
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Go(func() { w.run(ctx) })
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case now := <-t.C:
			iv := r.stats.tick(now)
			if tick != nil {
				tick(iv)
			}
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
