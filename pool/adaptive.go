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
	// the limit shrinks: default 1 (any slower). It must be at least 1.
	// Under a steady overload the limit settles about Tolerance times the
	// capacity, so raise it only for noisy latencies or bursty arrivals:
	// with 1.5, Poisson arrivals at 90% of the capacity of 8 workers were
	// refused 1.7% (10.7% with the default), and twice the capacity held
	// the limit at 1.7 × 8 (1.15 × 8 with the default).
	Tolerance float64
	// Smoothing is the fraction of the way to its target the limit moves
	// at each update, in (0, 1]: default 0.2.
	Smoothing float64
	// QueueSize and Headroom are the queueing allowed for: the larger of
	// QueueSize slots and Headroom times the limit is added to the target
	// at each update, so it is also what the limit grows by per window
	// (times Smoothing) while latency stays at the baseline. Defaults: 1
	// slot and 0.1 (10%). Headroom must be below 0.5, the deepest cut of
	// one update, or the limit could never fall.
	QueueSize int
	Headroom  float64
	// ProbeInterval is how many utilised samples pass between two probes
	// of the baseline latency: by default DefaultProbeInterval or 32 times
	// the limit, whichever is more, so that probes cost a server the same
	// share of its throughput whatever its size. The first probe follows
	// the first window. Each probe costs one window at a reduced limit.
	ProbeInterval int
}

// Defaults of AdaptiveOptions.
const (
	DefaultInitialLimit  = 20
	DefaultMinLimit      = 1
	DefaultMaxLimit      = 1024
	DefaultWindow        = 16
	DefaultTolerance     = 1
	DefaultSmoothing     = 0.2
	DefaultQueueSize     = 1
	DefaultHeadroom      = 0.1
	DefaultProbeInterval = 2048
)

// AdaptiveLimiter is an Admission whose limit follows measured latency: a
// gradient controller in the spirit of Netflix's concurrency-limits
// (Gradient2), with a probed baseline and a slow start. Safe for
// concurrent use; it starts no goroutine, and it adapts only on the
// samples Release is given, so it behaves the same under any clock.
//
// The rule. A sample is the latency passed to Release. A sample counts
// only if, when its work finished, at least half the limit was in use
// (counting that work): far below its limit the limiter learns nothing
// about the limit, so such samples are ignored, and so is a latency <= 0
// (work that never ran). Every Window counted samples make one update:
//
//	short     = mean latency of the window
//	gradient  = clamp(Tolerance × baseline / short, 0.5, 1)
//	allowance = max(QueueSize, Headroom × limit)
//	target    = limit × gradient + allowance
//	limit     = clamp(limit + s × (target − limit), MinLimit, MaxLimit)
//
// where s is Smoothing when the target is above the limit and 1 when it
// is below: the limit grows by Smoothing × allowance per window while
// latency stays at the baseline, and a cut is made in full, at most by
// half, once: the samples of the work in flight when it is made (admitted
// under the old limit) are then ignored. For a server that runs capacity calls
// at once and queues the rest, latency is the baseline up to capacity in
// flight and grows in proportion beyond it, so under a steady overload
// the limit settles where limit × baseline / latency = capacity, at
// Tolerance × capacity / (1 − Headroom), or capacity + QueueSize if that
// is more: with the defaults, 11% above the capacity and at least one
// call queued, so that no worker idles while the limit refuses.
//
// Slow start. Until the first window slower than the baseline, a window
// at the baseline whose work found every slot in use multiplies the limit
// by 1.5, once a round trip (the samples of the work admitted under the
// old limit are ignored), instead of adding the allowance: a limit far
// below the load reaches it in a few round trips. The first window slower
// than the baseline ends slow start with a cut to its target and a probe.
// A probe that finds the baseline 25% higher than before starts it again.
//
// The baseline is the latency of a lightly loaded server, and it is
// measured, not inferred: the first window sets it, and then a probe
// (when slow start ends, and every ProbeInterval counted samples) cuts
// the limit to a quarter of the smaller of the limit and the slots in use
// (at least MinLimit), lets the work admitted before the cut finish
// (those samples are ignored), takes the mean latency of the next Window
// samples as the baseline, and restores the limit.
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
		o.Tolerance < 0 || o.Smoothing < 0 || o.QueueSize < 0 || o.Headroom < 0 || o.ProbeInterval < 0 {
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
	orDefault(&o.Headroom, DefaultHeadroom)
	if o.Headroom >= 0.5 {
		panic("pool: AdaptiveOptions.Headroom is not below 0.5")
	}
	// ProbeInterval stays 0 for its default, which follows the limit.
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
