package pool

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Structure: one mutex guards the slot count, the FIFO of waiters and the
// control law. Fast path (a slot is free): lock, count, unlock; nothing is
// allocated. Slow path: Acquire queues a waiter (recycled through the
// limiter's own sync.Pool) and sleeps on its channel; Release hands freed
// slots straight to the queue head, so a waiter never races a newcomer.
// Invariants under mu: a waiter is queued only while inUse >= limit (every
// change of either re-runs grantLocked), and inUse counts the slots handed
// to waiters. inUse and limit are atomics only so that InUse and Limit read
// them without the mutex; they are written under it.

// AdaptiveOptions configures an AdaptiveLimiter. A zero field takes its
// default; a negative one, or a combination out of range, makes
// NewAdaptiveLimiter panic.
type AdaptiveOptions struct {
	// InitialLimit is the limit to start with: default 20, or the nearer of
	// MinLimit and MaxLimit if 20 lies outside them. Given explicitly, it
	// must lie within them.
	InitialLimit int
	// MinLimit and MaxLimit bound the limit: default 1 and 1024.
	MinLimit, MaxLimit int
	// Window is how many utilised samples make one update of the limit:
	// default 16. A larger window averages out noisy latencies but adapts
	// more slowly.
	Window int
	// Tolerance is how much slower than the baseline a window may be before
	// the limit shrinks: default 1.5 (50% slower). It must be at least 1.
	Tolerance float64
	// Smoothing is the fraction of the way to its target the limit moves
	// at each update, in (0, 1]: default 0.2.
	Smoothing float64
	// QueueSize is the queueing allowed for: it is added to the target at
	// each update, so it is also the most the limit grows by per window
	// (times Smoothing): default 4.
	QueueSize int
	// ProbeInterval is how many utilised samples pass between two probes
	// of the baseline latency: default 2048. The first probe follows the
	// first window. Each probe costs one window at a reduced limit.
	ProbeInterval int
}

// Defaults of AdaptiveOptions.
const (
	DefaultInitialLimit  = 20
	DefaultMinLimit      = 1
	DefaultMaxLimit      = 1024
	DefaultWindow        = 16
	DefaultTolerance     = 1.5
	DefaultSmoothing     = 0.2
	DefaultQueueSize     = 4
	DefaultProbeInterval = 2048
)

// AdaptiveLimiter is an Admission whose limit follows measured latency: a
// gradient controller in the spirit of Netflix's concurrency-limits
// (Gradient2), with a probed baseline. Safe for concurrent use; it starts
// no goroutine, and it adapts only on the samples Release is given, so it
// behaves the same under any clock.
//
// The rule. A sample is the latency passed to Release. A sample counts
// only if, when its work finished, at least half the limit was in use
// (counting that work): far below its limit the limiter learns nothing
// about the limit, so such samples are ignored, and so is a latency <= 0
// (work that never ran). Every Window counted samples make one update:
//
//	short    = mean latency of the window
//	gradient = clamp(Tolerance × baseline / short, 0.5, 1)
//	target   = limit × gradient + QueueSize
//	limit    = clamp(limit + Smoothing × (target − limit), MinLimit, MaxLimit)
//
// While latency stays within Tolerance of the baseline the gradient is 1
// and the limit grows by Smoothing × QueueSize per window; when latency
// rises beyond it the limit shrinks, by at most Smoothing / 2 of itself
// per window (the target is never below half the limit, so one slow
// window is no collapse). Under a steady overload it settles where the
// queueing delay balances QueueSize: about Tolerance × capacity +
// QueueSize, for a server that runs capacity calls at once and queues the
// rest.
//
// The baseline is the latency of a lightly loaded server, and it is
// measured, not inferred: the first window sets it, and then every
// ProbeInterval counted samples a probe cuts the limit to a quarter of
// the smaller of the limit and the slots in use (at least MinLimit), lets
// the work admitted before the cut finish (those samples are ignored),
// takes the mean latency of the next Window samples as the baseline, and
// restores the limit. Unlike a long-term average of all samples (as in
// Gradient2), a probed baseline does not drift up under a sustained
// overload, which would let the limit creep up with it; and unlike a
// running minimum it is not biased low by noise, and it follows a service
// that became slower for good.
//
// Acquire waits in FIFO order when the limit is reached; Release, or a
// raised limit, wakes the waiters in order. A lowered limit revokes no
// slot: InUse may exceed Limit until enough work is released, and new
// work waits until InUse is below Limit.
type AdaptiveLimiter struct {
	mu      sync.Mutex
	inUse   atomic.Int64 // written under mu
	limit   atomic.Int64 // written under mu
	waiters waitQueue    // guarded by mu
	control control
}

// NewAdaptiveLimiter returns an adaptive limiter; opts may be nil (every
// default) and is copied. It panics if an option is out of range.
func NewAdaptiveLimiter(opts *AdaptiveOptions) *AdaptiveLimiter {
	var o AdaptiveOptions
	if opts != nil {
		o = *opts
	}
	o.setDefaults()
	l := &AdaptiveLimiter{control: newControl(&o)}
	l.limit.Store(int64(l.control.limit()))
	return l
}

// setDefaults fills zero fields and panics on values out of range.
func (o *AdaptiveOptions) setDefaults() {
	if o.MinLimit < 0 || o.MaxLimit < 0 || o.InitialLimit < 0 || o.Window < 0 ||
		o.Tolerance < 0 || o.Smoothing < 0 || o.QueueSize < 0 || o.ProbeInterval < 0 {
		panic("pool: AdaptiveOptions has a negative field")
	}
	orDefault(&o.MinLimit, DefaultMinLimit)
	orDefault(&o.MaxLimit, max(DefaultMaxLimit, o.MinLimit))
	if o.MaxLimit < o.MinLimit {
		panic("pool: AdaptiveOptions.MaxLimit is below MinLimit")
	}
	orDefault(&o.InitialLimit, min(max(DefaultInitialLimit, o.MinLimit), o.MaxLimit))
	if o.InitialLimit < o.MinLimit || o.InitialLimit > o.MaxLimit {
		panic("pool: AdaptiveOptions.InitialLimit is outside [MinLimit, MaxLimit]")
	}
	orDefault(&o.Window, DefaultWindow)
	orDefault(&o.Tolerance, DefaultTolerance)
	if o.Tolerance < 1 {
		panic("pool: AdaptiveOptions.Tolerance is below 1")
	}
	orDefault(&o.Smoothing, DefaultSmoothing)
	if o.Smoothing > 1 {
		panic("pool: AdaptiveOptions.Smoothing is above 1")
	}
	orDefault(&o.QueueSize, DefaultQueueSize)
	orDefault(&o.ProbeInterval, DefaultProbeInterval)
}

func orDefault[T int | float64](v *T, def T) {
	if *v == 0 {
		*v = def
	}
}

// Limit returns the current limit. It is a snapshot, for metrics; during
// a probe of the baseline it is the reduced limit.
func (l *AdaptiveLimiter) Limit() int { return int(l.limit.Load()) }

// InUse returns the number of slots held. It is a snapshot, for metrics.
func (l *AdaptiveLimiter) InUse() int { return int(l.inUse.Load()) }

// TryAcquire takes a slot if one is free and nobody is waiting.
func (l *AdaptiveLimiter) TryAcquire() bool {
	l.mu.Lock()
	ok := l.waiters.empty() && l.inUse.Load() < l.limit.Load()
	if ok {
		l.inUse.Add(1)
	}
	l.mu.Unlock()
	return ok
}

// Acquire takes a slot, waiting behind earlier Acquires until one is free
// or ctx is done. A free slot is taken even if ctx is already done, and a
// slot handed over just as ctx ends is kept; otherwise Acquire returns
// ctx.Err() with no slot held and no place in the queue.
func (l *AdaptiveLimiter) Acquire(ctx context.Context) error {
	l.mu.Lock()
	if l.waiters.empty() && l.inUse.Load() < l.limit.Load() {
		l.inUse.Add(1)
		l.mu.Unlock()
		return nil
	}
	w := l.waiters.pushLocked()
	l.mu.Unlock()
	return l.waiters.wait(ctx, &l.mu, w)
}

// Release frees a slot taken by Acquire or TryAcquire and feeds latency,
// how long the work ran, to the control law (<= 0: not measured). It
// panics if no slot is held: that is a bug in the caller, which would
// otherwise let more work in than the limit allows.
func (l *AdaptiveLimiter) Release(latency time.Duration) {
	l.mu.Lock()
	held := int(l.inUse.Load())
	if held == 0 {
		l.mu.Unlock()
		panic("pool: AdaptiveLimiter.Release called more times than Acquire/TryAcquire succeeded")
	}
	l.inUse.Add(-1)
	l.limit.Store(int64(l.control.observe(latency, held)))
	l.grantLocked()
	l.mu.Unlock()
}

// grantLocked hands free slots to the waiters, oldest first.
func (l *AdaptiveLimiter) grantLocked() {
	for !l.waiters.empty() && l.inUse.Load() < l.limit.Load() {
		l.inUse.Add(1)
		l.waiters.grantLocked()
	}
}

var _ Admission = (*AdaptiveLimiter)(nil)
