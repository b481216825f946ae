package pool

import (
	"context"
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
// plain Admission, with a fixed limit. Safe for concurrent use.
//
// It is a buffered channel of n slots: Acquire sends, Release receives, so
// waiting Acquires are served in the order the runtime wakes channel senders
// (first come, first served in practice).
type Limiter struct {
	slots chan struct{}
}

// NewLimiter returns a limiter admitting n at once. It panics if n < 1.
func NewLimiter(n int) *Limiter {
	if n < 1 {
		panic("pool: NewLimiter needs n >= 1")
	}
	return &Limiter{slots: make(chan struct{}, n)}
}

// Acquire waits for a slot until ctx is done. A free slot is taken even if
// ctx is already done; otherwise Acquire returns ctx.Err() with no slot held.
func (l *Limiter) Acquire(ctx context.Context) error {
	select {
	case l.slots <- struct{}{}:
		return nil
	default:
	}
	select {
	case l.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// TryAcquire takes a slot if one is free.
func (l *Limiter) TryAcquire() bool {
	select {
	case l.slots <- struct{}{}:
		return true
	default:
		return false
	}
}

// Release frees a slot taken by Acquire or TryAcquire; a Limiter ignores
// the latency. It panics if no slot is held: that is a bug in the caller,
// which would otherwise let more work in than the limit allows.
func (l *Limiter) Release(time.Duration) {
	select {
	case <-l.slots:
	default:
		panic("pool: Limiter.Release called more times than Acquire/TryAcquire succeeded")
	}
}

// InUse returns the number of slots held. It is a snapshot, for metrics.
func (l *Limiter) InUse() int { return len(l.slots) }

// Cap returns the number of slots.
func (l *Limiter) Cap() int { return cap(l.slots) }

var _ Admission = (*Limiter)(nil)
