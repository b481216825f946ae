package pool

import (
	"context"
	"time"
)

// CONTRACT STUB — to be replaced by the real pool (helper: router+pool).

// Task is a unit of work run by the pool.
type Task interface{ Run() }

// Options configure a Pool. A nil *Options gives the defaults.
type Options struct {
	// Workers bounds the goroutines running tasks (default 64 × GOMAXPROCS).
	Workers int
	// NonBlocking makes Submit fail at once with an *OverloadedError when
	// every worker is busy, instead of blocking until one is free.
	NonBlocking bool
	// RetryAfter is the hint an *OverloadedError carries (default 50ms).
	RetryAfter time.Duration
}

// OverloadedError is returned by a non-blocking Submit on a full pool.
type OverloadedError struct{ RetryAfter time.Duration }

func (e *OverloadedError) Error() string { return "pool: overloaded" }

// Pool is a bounded executor on ants/v2. Safe for concurrent use.
type Pool struct{}

// New starts a pool.
func New(opts *Options) (*Pool, error) { panic("not implemented") }

// Submit runs t on a worker. It blocks while the pool is full unless the pool
// is non-blocking, in which case it returns an *OverloadedError. After Close
// it returns ErrClosed.
func (p *Pool) Submit(t Task) error { panic("not implemented") }

// Close stops accepting tasks and waits for running ones until ctx is done.
func (p *Pool) Close(ctx context.Context) error { panic("not implemented") }

// Limiter bounds work in flight (one per connection, or one shared). Safe for
// concurrent use.
type Limiter struct{}

// NewLimiter returns a limiter admitting n at once.
func NewLimiter(n int) *Limiter { panic("not implemented") }

// Acquire waits for a slot until ctx is done.
func (l *Limiter) Acquire(ctx context.Context) error { panic("not implemented") }

// TryAcquire takes a slot if one is free.
func (l *Limiter) TryAcquire() bool { panic("not implemented") }

// Release frees a slot taken by Acquire or TryAcquire.
func (l *Limiter) Release() { panic("not implemented") }

// ErrClosed is returned by Submit after Close.
var ErrClosed = errorString("pool: closed")

type errorString string

func (e errorString) Error() string { return string(e) }
