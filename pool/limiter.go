package pool

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// Admission decides whether a request may start. A connection takes a slot
// before a handler starts and releases it when the handler returns, with
// the time it ran, so that an admission can adapt its limit to measured
// latency. One Admission may be shared by every session of a server.
// Implementations must be safe for concurrent use.
type Admission interface {
	// TryAcquire takes a slot if one is free.
	TryAcquire() bool
	// Acquire waits for a slot until ctx is done, then returns ctx.Err().
	Acquire(ctx context.Context) error
	// Release frees a slot; latency is how long the work that held it ran.
	Release(latency time.Duration)
}

// Limiter bounds work in flight (one per connection, or one shared): the
// plain Admission, with a fixed limit. Waiters are served first come,
// first served. Safe for concurrent use.
type Limiter struct {
	// Fast path: TryAcquire and Release are one atomic operation each on
	// the count of slots in use (no lock, no channel). Slow path: an
	// Acquire that finds no free slot queues under mu, and a Release that
	// sees waiters hands its slot to the oldest one.
	//
	// Invariant: 0 <= used <= n. A waiter counted in waiting has either
	// taken a slot itself (its retry under mu succeeded) or is in the
	// queue, where a releaser finds it: the releaser's decrement and the
	// waiter's count are both atomic, so one of them sees the other.
	n       int32
	used    atomic.Int32
	waiting atomic.Int32 // Acquires queued or about to queue

	mu      sync.Mutex
	waiters waitQueue // guarded by mu
}

// NewLimiter returns a limiter admitting n at once. It panics if n < 1.
func NewLimiter(n int) *Limiter {
	if n < 1 {
		panic("pool: NewLimiter needs n >= 1")
	}
	return &Limiter{n: int32(min(n, math.MaxInt32))}
}

// TryAcquire takes a slot if one is free.
func (l *Limiter) TryAcquire() bool {
	for {
		u := l.used.Load()
		if u >= l.n {
			return false
		}
		if l.used.CompareAndSwap(u, u+1) {
			return true
		}
	}
}

// Acquire waits for a slot until ctx is done. A free slot is taken even if
// ctx is already done; otherwise Acquire returns ctx.Err() with no slot held.
func (l *Limiter) Acquire(ctx context.Context) error {
	if l.TryAcquire() {
		return nil
	}
	return l.acquireSlow(ctx)
}

func (l *Limiter) acquireSlow(ctx context.Context) error {
	l.mu.Lock()
	l.waiting.Add(1)
	if l.TryAcquire() { // a Release between the fast path and here
		l.waiting.Add(-1)
		l.mu.Unlock()
		return nil
	}
	w := l.waiters.pushLocked()
	l.mu.Unlock()
	err := l.waiters.wait(ctx, &l.mu, w)
	if err != nil {
		l.waiting.Add(-1) // left the queue ungranted
	}
	return err
}

// Release frees a slot taken by Acquire or TryAcquire; a Limiter ignores
// the latency. It panics if no slot is held: that is a bug in the caller,
// which would otherwise let more work in than the limit allows.
func (l *Limiter) Release(time.Duration) {
	if l.waiting.Load() > 0 {
		l.mu.Lock()
		if !l.waiters.empty() {
			l.grant() // the slot changes hands: used does not move
			l.mu.Unlock()
			return
		}
		l.mu.Unlock()
	}
	if l.used.Add(-1) < 0 {
		panic("pool: Limiter.Release called more times than Acquire/TryAcquire succeeded")
	}
	if l.waiting.Load() == 0 {
		return
	}
	// A waiter queued meanwhile: it may have missed the freed slot.
	l.mu.Lock()
	if !l.waiters.empty() && l.TryAcquire() {
		l.grant()
	}
	l.mu.Unlock()
}

// grant gives a slot already counted in used to the oldest waiter; mu is
// held.
func (l *Limiter) grant() {
	l.waiting.Add(-1)
	l.waiters.grantLocked()
}

// InUse returns the number of slots held. It is a snapshot, for metrics.
func (l *Limiter) InUse() int { return int(l.used.Load()) }

// Cap returns the number of slots.
func (l *Limiter) Cap() int { return int(l.n) }

var _ Admission = (*Limiter)(nil)
