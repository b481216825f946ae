package pool_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpwire/mcpwire/pool"
)

// noProbe is a ProbeInterval long enough that no probe but the first (at
// the end of slow start) happens in a test.
const noProbe = 1 << 30

// endSlowStart takes a new limiter out of slow start with its baseline at
// base: rounds at base until the first window sets the baseline (and, in
// slow start, doubles the limit), rounds at twice base until a window
// ends slow start and starts the first probe (the limit falls), and
// rounds at base until the probe ends (the limit is restored).
func endSlowStart(t *testing.T, l *pool.AdaptiveLimiter, base time.Duration) {
	t.Helper()
	until := func(lat time.Duration, done func(int) bool) {
		t.Helper()
		for range 100 {
			before := l.Limit()
			if drive(l, 1, lat, nil); done(before) {
				return
			}
		}
		t.Fatalf("slow start did not end: limit %d", l.Limit())
	}
	until(base, func(before int) bool { return l.Limit() > before })
	until(2*base, func(before int) bool { return l.Limit() < before })
	until(base, func(before int) bool { return l.Limit() > before })
}

// drive runs rounds of a saturating load: each round takes every free slot,
// then releases them all with latency lat. check, if not nil, runs after
// every release.
func drive(l *pool.AdaptiveLimiter, rounds int, lat time.Duration, check func()) {
	for range rounds {
		n := 0
		for l.TryAcquire() {
			n++
		}
		for range n {
			l.Release(lat)
			if check != nil {
				check()
			}
		}
	}
}

func TestAdaptiveLimiter_defaults(t *testing.T) {
	l := pool.NewAdaptiveLimiter(nil)
	if l.Limit() != pool.DefaultInitialLimit || l.InUse() != 0 {
		t.Fatalf("Limit %d InUse %d", l.Limit(), l.InUse())
	}
	// The default initial limit is clamped into [MinLimit, MaxLimit].
	if l := pool.NewAdaptiveLimiter(&pool.AdaptiveOptions{MinLimit: 50}); l.Limit() != 50 {
		t.Fatalf("MinLimit 50: Limit %d", l.Limit())
	}
	if l := pool.NewAdaptiveLimiter(&pool.AdaptiveOptions{MaxLimit: 5}); l.Limit() != 5 {
		t.Fatalf("MaxLimit 5: Limit %d", l.Limit())
	}
	if l := pool.NewAdaptiveLimiter(&pool.AdaptiveOptions{MinLimit: 2000}); l.Limit() != 2000 {
		t.Fatalf("MinLimit above the default MaxLimit: Limit %d", l.Limit())
	}
}

func TestAdaptiveLimiter_badOptionsPanic(t *testing.T) {
	for name, o := range map[string]pool.AdaptiveOptions{
		"negative MinLimit":        {MinLimit: -1},
		"negative Window":          {Window: -1},
		"negative ProbeInterval":   {ProbeInterval: -1},
		"negative Smoothing":       {Smoothing: -0.1},
		"MaxLimit below MinLimit":  {MinLimit: 10, MaxLimit: 5},
		"InitialLimit below Min":   {MinLimit: 10, InitialLimit: 5},
		"InitialLimit above Max":   {MaxLimit: 10, InitialLimit: 11},
		"Tolerance below 1":        {Tolerance: 0.9},
		"Smoothing above 1":        {Smoothing: 1.5},
		"negative QueueSize":       {QueueSize: -4},
		"negative Headroom":        {Headroom: -0.1},
		"Headroom of a half":       {Headroom: 0.5},
		"negative InitialLimit":    {InitialLimit: -1},
		"negative MaxLimit":        {MaxLimit: -1},
		"negative Tolerance":       {Tolerance: -1},
		"MaxLimit below defaulted": {MinLimit: 30, MaxLimit: 25},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			pool.NewAdaptiveLimiter(&o)
		})
	}
}

func TestAdaptiveLimiter_optionsAreCopied(t *testing.T) {
	o := &pool.AdaptiveOptions{InitialLimit: 3, MaxLimit: 3}
	l := pool.NewAdaptiveLimiter(o)
	o.MaxLimit, o.InitialLimit = 100, 100
	drive(l, 100, time.Millisecond, nil)
	if l.Limit() != 3 {
		t.Fatalf("Limit %d after the options changed, want 3", l.Limit())
	}
	if *o != (pool.AdaptiveOptions{InitialLimit: 100, MaxLimit: 100}) {
		t.Fatalf("options were modified: %+v", *o)
	}
}

// TestAdaptiveLimiter_followsLatency: under load, the limit grows while
// latency stays at the baseline, falls when latency rises well above it,
// and climbs back when latency returns to it.
func TestAdaptiveLimiter_followsLatency(t *testing.T) {
	const base = 10 * time.Millisecond
	l := pool.NewAdaptiveLimiter(&pool.AdaptiveOptions{ProbeInterval: noProbe})
	endSlowStart(t, l, base)
	start := l.Limit()

	drive(l, 100, base, nil)
	grown := l.Limit()
	if grown < start+10 {
		t.Fatalf("at the baseline latency the limit went from %d to %d, want growth", start, grown)
	}

	drive(l, 100, 4*base, nil)
	fallen := l.Limit()
	if fallen > grown/2 {
		t.Fatalf("at 4x the baseline latency the limit went from %d to %d, want at least halved", grown, fallen)
	}
	// It settles where the gradient's cut balances the queue allowance
	// (0.5 x limit + QueueSize = limit), not at the minimum.
	if fallen < 2*pool.DefaultQueueSize {
		t.Fatalf("limit fell to %d, below the balance of the queue allowance", fallen)
	}

	drive(l, 100, base, nil)
	if back := l.Limit(); back < 2*fallen {
		t.Fatalf("back at the baseline latency the limit went from %d to %d, want it at least doubled", fallen, back)
	}
	if l.InUse() != 0 {
		t.Fatalf("InUse %d after the rounds", l.InUse())
	}
}

// TestAdaptiveLimiter_toleratesModestSlowdown: latency within Tolerance of
// the baseline does not shrink the limit.
func TestAdaptiveLimiter_toleratesModestSlowdown(t *testing.T) {
	const base = 10 * time.Millisecond
	l := pool.NewAdaptiveLimiter(&pool.AdaptiveOptions{ProbeInterval: noProbe, Tolerance: 1.5})
	drive(l, 20, base, nil)
	before := l.Limit()
	drive(l, 50, base*14/10, func() {
		if l.Limit() < before {
			t.Fatalf("limit fell from %d to %d at 1.4x the baseline (tolerance 1.5)", before, l.Limit())
		}
	})
}

func TestAdaptiveLimiter_staysWithinBounds(t *testing.T) {
	const lo, hi = 5, 12
	l := pool.NewAdaptiveLimiter(&pool.AdaptiveOptions{MinLimit: lo, MaxLimit: hi, InitialLimit: 8, ProbeInterval: 64})
	var seenLo, seenHi bool
	check := func() {
		n := l.Limit()
		if n < lo || n > hi {
			t.Fatalf("Limit %d outside [%d, %d]", n, lo, hi)
		}
		seenLo = seenLo || n == lo
		seenHi = seenHi || n == hi
	}
	drive(l, 200, time.Millisecond, check)
	drive(l, 200, 100*time.Millisecond, check)
	drive(l, 200, time.Millisecond, check) // a probe relearns a baseline of 100ms here
	if !seenLo || !seenHi {
		t.Fatalf("the limit reached MinLimit: %v, MaxLimit: %v; want both", seenLo, seenHi)
	}
}

// TestAdaptiveLimiter_ignoresLowUtilisation: work that ran with fewer than
// half the slots in use says nothing about the limit, whatever its latency.
func TestAdaptiveLimiter_ignoresLowUtilisation(t *testing.T) {
	l := pool.NewAdaptiveLimiter(&pool.AdaptiveOptions{InitialLimit: 20, Window: 4, ProbeInterval: 16})
	for i := range 5000 {
		for range 9 { // 9 of 20 in use: below half
			if !l.TryAcquire() {
				t.Fatal("TryAcquire failed below the limit")
			}
		}
		lat := time.Millisecond
		if i%2 == 1 {
			lat = time.Second
		}
		for range 9 {
			l.Release(lat)
		}
		if l.Limit() != 20 {
			t.Fatalf("round %d: limit %d at low utilisation, want 20 unchanged", i, l.Limit())
		}
	}
	// The same load at half the limit does count.
	for range 500 {
		n := 0
		for range 10 {
			if l.TryAcquire() {
				n++
			}
		}
		for range n {
			l.Release(time.Millisecond)
		}
	}
	if l.Limit() == 20 {
		t.Fatal("the limit did not move at half utilisation")
	}
}

// TestAdaptiveLimiter_zeroLatencyIsNoSample: Release(0) (work that never
// ran) frees the slot and teaches nothing.
func TestAdaptiveLimiter_zeroLatencyIsNoSample(t *testing.T) {
	l := pool.NewAdaptiveLimiter(&pool.AdaptiveOptions{InitialLimit: 4, Window: 1})
	drive(l, 1000, 0, nil)
	if l.Limit() != 4 {
		t.Fatalf("Limit %d after zero latencies, want 4", l.Limit())
	}
}

// TestAdaptiveLimiter_probeRelearnsBaseline: a service that became slower
// for good first makes the limit fall, then a probe measures the new
// baseline and the limit recovers although latency stays high.
func TestAdaptiveLimiter_probeRelearnsBaseline(t *testing.T) {
	const base = 10 * time.Millisecond
	l := pool.NewAdaptiveLimiter(&pool.AdaptiveOptions{ProbeInterval: 256})
	endSlowStart(t, l, base)
	drive(l, 100, base, nil)
	grown := l.Limit()
	low := grown
	drive(l, 40, 3*base, func() { low = min(low, l.Limit()) })
	if low > grown/2 {
		t.Fatalf("at 3x the latency the limit went from %d to no lower than %d", grown, low)
	}
	high := 0 // the limit may end cut by a probe: look at the highest
	drive(l, 300, 3*base, func() { high = max(high, l.Limit()) })
	if high < grown {
		t.Fatalf("after probes at the new latency the limit rose to %d only, want back to %d or more", high, grown)
	}
}

// TestAdaptiveLimiter_probeCutsAndRestores: a probe lowers the limit for a
// window, then restores it.
func TestAdaptiveLimiter_probeCutsAndRestores(t *testing.T) {
	l := pool.NewAdaptiveLimiter(&pool.AdaptiveOptions{InitialLimit: 20, MaxLimit: 40, Window: 8, ProbeInterval: 64})
	endSlowStart(t, l, time.Millisecond)
	for i := 0; l.Limit() < 40; i++ { // back at the top, where only probes move it
		if i == 1000 {
			t.Fatalf("limit %d after slow start, not back at 40", l.Limit())
		}
		drive(l, 1, time.Millisecond, nil)
	}
	var cuts, restores int
	prev := l.Limit()
	drive(l, 200, time.Millisecond, func() {
		n := l.Limit()
		switch {
		case n < prev:
			cuts++
			if n > prev/4 { // a quarter: probeDivisor
				t.Fatalf("probe cut the limit from %d to %d only", prev, n)
			}
		case n > prev:
			restores++
		}
		prev = n
	})
	if cuts < 10 || cuts != restores && cuts != restores+1 {
		t.Fatalf("%d cuts, %d restores over 200 rounds", cuts, restores)
	}
}

func TestAdaptiveLimiter_releaseWithoutAcquirePanics(t *testing.T) {
	l := pool.NewAdaptiveLimiter(nil)
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	l.Release(time.Millisecond)
}

// fixed returns a limiter whose limit is n and stays n.
func fixed(n int) *pool.AdaptiveLimiter {
	return pool.NewAdaptiveLimiter(&pool.AdaptiveOptions{InitialLimit: n, MinLimit: n, MaxLimit: n})
}

func TestAdaptiveLimiter_basics(t *testing.T) {
	l := fixed(2)
	if !l.TryAcquire() || l.Acquire(context.Background()) != nil {
		t.Fatal("could not take two slots")
	}
	if l.TryAcquire() || l.InUse() != 2 {
		t.Fatalf("took a third slot, or InUse %d", l.InUse())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := l.Acquire(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Acquire on a full limiter with a done ctx = %v", err)
	}
	l.Release(0)
	// A free slot is taken even with a done ctx.
	if err := l.Acquire(ctx); err != nil {
		t.Fatalf("Acquire with a free slot and a done ctx = %v", err)
	}
	l.Release(0)
	l.Release(0)
	if l.InUse() != 0 {
		t.Fatalf("InUse %d", l.InUse())
	}
}

// wakeLog records, in order, which of a series of waiting Acquires got a
// slot. Use it inside a synctest bubble.
type wakeLog struct {
	mu   sync.Mutex
	woke []int
}

// wait starts n goroutines that Acquire from l one after another, each
// queued before the next starts, and log their index when they get a slot.
func (w *wakeLog) wait(l *pool.AdaptiveLimiter, n int) {
	for i := range n {
		go func() {
			if err := l.Acquire(context.Background()); err != nil {
				panic(err)
			}
			w.mu.Lock()
			w.woke = append(w.woke, i)
			w.mu.Unlock()
		}()
		synctest.Wait()
	}
}

// queueBehindFull takes every free slot of l, then queues n waiting
// Acquires behind them.
func queueBehindFull(l *pool.AdaptiveLimiter, n int) *wakeLog {
	for l.TryAcquire() {
	}
	w := new(wakeLog)
	w.wait(l, n)
	return w
}

// got returns the indexes logged once every goroutine has settled.
func (w *wakeLog) got() []int {
	synctest.Wait()
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.woke)
}

func TestAdaptiveLimiter_releaseWakesWaitersInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := fixed(2)
		w := queueBehindFull(l, 4)
		if got := w.got(); len(got) != 0 || l.TryAcquire() {
			t.Fatalf("a waiter or TryAcquire got in at the limit: %v", got)
		}
		for i := range 4 {
			l.Release(0)
			if got, want := w.got(), []int{0, 1, 2, 3}[:i+1]; !slices.Equal(got, want) {
				t.Fatalf("after %d releases woke %v, want %v", i+1, got, want)
			}
			if l.InUse() != 2 {
				t.Fatalf("InUse %d", l.InUse())
			}
		}
		l.Release(0)
		l.Release(0)
	})
}

// stepLimiter returns a limiter that updates on every sample and moves all
// the way to its target (Window 1, Smoothing 1, an allowance of queue
// slots whatever the limit), past its slow start and first probe, so that
// its baseline is base and its limit is initial/2 + queue (initial even).
func stepLimiter(t *testing.T, initial, maxLimit, queue int, base time.Duration) *pool.AdaptiveLimiter {
	t.Helper()
	l := pool.NewAdaptiveLimiter(&pool.AdaptiveOptions{
		InitialLimit: initial, MaxLimit: maxLimit, Window: 1, Smoothing: 1, QueueSize: queue, Headroom: 1e-9, ProbeInterval: noProbe,
	})
	// The first window sets the baseline and, in slow start, finds the
	// limit full: that arms slow start (the other releases of the round
	// are ignored as work admitted before); a window at twice the baseline
	// ends slow start, halves the limit and adds queue, then starts the
	// first probe, which cuts the limit; the probe's window, at the
	// baseline, restores it.
	drive(l, 1, base, nil)
	drive(l, 1, 2*base, nil)
	drive(l, 1, base, nil)
	if want := initial/2 + queue; l.Limit() != want {
		t.Fatalf("Limit %d after slow start and the first probe, want %d", l.Limit(), want)
	}
	return l
}

// TestAdaptiveLimiter_raisedLimitWakesWaiters: one release that raises the
// limit by two wakes three waiters, the oldest ones.
func TestAdaptiveLimiter_raisedLimitWakesWaiters(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const base = 10 * time.Millisecond
		l := stepLimiter(t, 2, 10, 2, base)
		w := queueBehindFull(l, 4) // 3 slots held
		// Gradient 1: the limit goes from 3 to 5, one slot freed, two added.
		l.Release(base)
		got := w.got()
		if l.Limit() != 5 {
			t.Fatalf("Limit %d, want 5", l.Limit())
		}
		slices.Sort(got) // woken together, they log in any order
		if !slices.Equal(got, []int{0, 1, 2}) {
			t.Fatalf("woke %v, want the three oldest", got)
		}
		for range 5 {
			l.Release(0)
		}
		if got := w.got(); l.InUse() != 1 || len(got) != 4 {
			t.Fatalf("InUse %d, woke %v", l.InUse(), got)
		}
		l.Release(0)
	})
}

// TestAdaptiveLimiter_loweredLimitRevokesNothing: the slots held when the
// limit falls stay held; new work waits until InUse is below the limit.
func TestAdaptiveLimiter_loweredLimitRevokesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const base = 10 * time.Millisecond
		l := stepLimiter(t, 18, 18, 1, base)
		w := queueBehindFull(l, 1) // 10 slots held
		l.Release(10 * base)       // gradient 0.5: target 10 x 0.5 + 1 = 6
		if l.Limit() != 6 || l.InUse() != 9 {
			t.Fatalf("Limit %d InUse %d, want 6 and 9", l.Limit(), l.InUse())
		}
		released := 0
		for len(w.got()) == 0 {
			if l.TryAcquire() {
				t.Fatalf("TryAcquire admitted at InUse %d, Limit %d", l.InUse(), l.Limit())
			}
			l.Release(0)
			released++
		}
		// The waiter got a slot only when InUse fell from 9 to 5.
		if released != 4 || l.InUse() != 6 {
			t.Fatalf("waiter admitted after %d releases, InUse %d; want 4 and 6", released, l.InUse())
		}
		for range 6 {
			l.Release(0)
		}
	})
}

func TestAdaptiveLimiter_cancelLeavesNothingHeld(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := fixed(1)
		l.TryAcquire()
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		done := make(chan error)
		go func() { done <- l.Acquire(ctx) }()
		synctest.Wait()
		ctx2, cancel2 := context.WithCancel(context.Background())
		go func() { done <- l.Acquire(ctx2) }()
		synctest.Wait()
		cancel2()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled Acquire = %v", err)
		}
		time.Sleep(time.Second)
		if err := <-done; !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Acquire past its deadline = %v", err)
		}
		if l.InUse() != 1 {
			t.Fatalf("InUse %d, want 1", l.InUse())
		}
		l.Release(0)
		// Nobody is left queued: the slot is free for anyone.
		if !l.TryAcquire() {
			t.Fatal("the slot is not free after the waiters gave up")
		}
		l.Release(0)
	})
}

// TestAdaptiveLimiter_cancelRacesGrant: whatever wins between a release
// and a cancellation, the slot is either returned to the caller (nil) or
// not held at all.
func TestAdaptiveLimiter_cancelRacesGrant(t *testing.T) {
	l := fixed(1)
	for range 2000 {
		l.TryAcquire()
		ctx, cancel := context.WithCancel(context.Background())
		got := make(chan error)
		go func() { got <- l.Acquire(ctx) }()
		go cancel()
		l.Release(0)
		if err := <-got; err == nil {
			l.Release(0)
		} else if !errors.Is(err, context.Canceled) {
			t.Fatal(err)
		}
		if l.InUse() != 0 || !l.TryAcquire() {
			t.Fatalf("InUse %d: a slot leaked", l.InUse())
		}
		l.Release(0)
	}
}

// TestAdaptiveLimiter_concurrentBound checks the bound under contention
// (run with -race): a fixed limit is never exceeded, and a moving one never
// exceeds its maximum.
func TestAdaptiveLimiter_concurrentBound(t *testing.T) {
	t.Run("fixed", func(t *testing.T) {
		l := fixed(3)
		hammer(t, l, 3, nil)
		if l.InUse() != 0 {
			t.Fatalf("InUse %d after all released", l.InUse())
		}
	})
	t.Run("moving", func(t *testing.T) {
		l := pool.NewAdaptiveLimiter(&pool.AdaptiveOptions{InitialLimit: 2, MaxLimit: 6, Window: 2, ProbeInterval: 32})
		var mu sync.Mutex
		limits := map[int]bool{}
		hammer(t, l, 6, func() {
			mu.Lock()
			limits[l.Limit()] = true
			mu.Unlock()
		})
		if l.InUse() != 0 {
			t.Fatalf("InUse %d after all released", l.InUse())
		}
		if len(limits) < 2 {
			t.Fatalf("the limit never moved: %v", limits)
		}
	})
}

func BenchmarkAdaptiveLimiter(b *testing.B) {
	b.Run("uncontended", func(b *testing.B) {
		l := pool.NewAdaptiveLimiter(&pool.AdaptiveOptions{InitialLimit: 1, MaxLimit: 1})
		b.ReportAllocs()
		for b.Loop() {
			if !l.TryAcquire() {
				b.Fatal("TryAcquire failed")
			}
			l.Release(time.Millisecond) // every sample counts: limit 1, one in use
		}
		if l.InUse() != 0 {
			b.Fatalf("InUse %d", l.InUse())
		}
	})
	b.Run("parallel", func(b *testing.B) { benchParallel(b, fixed(4)) })
	b.Run("waiting", func(b *testing.B) { benchParallel(b, fixed(1)) }) // Acquires queue
}
