package pool

import (
	"context"
	"errors"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/panjf2000/ants/v2"
)

// Task is a unit of work run by the pool.
type Task interface{ Run() }

// Defaults for Options.
const (
	// DefaultWorkersPerCPU × GOMAXPROCS is the default bound on workers:
	// handlers mostly wait (on I/O, on other services), so the bound is well
	// above the CPU count, yet low enough that a flood of requests meets
	// backpressure instead of a million goroutines.
	DefaultWorkersPerCPU = 64
	// DefaultRetryAfter is the default hint carried by *OverloadedError.
	DefaultRetryAfter = 50 * time.Millisecond
	// DefaultIdleTimeout is how long an idle worker waits for a task before
	// it exits.
	DefaultIdleTimeout = 10 * time.Second
)

// Options configure a Pool. A nil *Options gives the defaults. Options are
// copied by New.
type Options struct {
	// Workers bounds the goroutines running tasks (default 64 × GOMAXPROCS
	// at the time New is called).
	Workers int
	// Overload says what Submit does when every worker is busy: wait for
	// one (Block, the default) or fail at once with an *OverloadedError
	// (Reject).
	Overload Overload
	// RetryAfter is the hint every refusal carries (default 50ms): the
	// pool's own *OverloadedError, and a connection's -32000 answers when
	// this pool is its executor.
	RetryAfter time.Duration
	// IdleTimeout is how long an idle worker lingers before it exits
	// (default 10s).
	IdleTimeout time.Duration
	// PanicHandler, if not nil, receives the value of a panicking Task. It
	// runs on the worker goroutine, inside the deferred recovery, so
	// runtime/debug.Stack shows where the panic happened. It must not panic.
	// Nil discards the value.
	PanicHandler func(v any)
}

// Overload is the one policy for a full limit, the pool's or a Limiter's:
// wait for room, or refuse at once with a retry hint.
type Overload uint8

const (
	// Block waits for room: a connection's reader then stops reading and
	// the peer feels TCP or pipe backpressure.
	Block Overload = iota
	// Reject refuses at once with an *OverloadedError carrying a retry hint;
	// a connection answers -32000 with data.retryAfterMs.
	Reject
)

// OverloadedError refuses work because a limit is full. It is the one
// overload signal of the project: a connection answers it with -32000 and
// data.retryAfterMs set from RetryAfter. The request never started, so a
// retry is safe.
type OverloadedError struct{ RetryAfter time.Duration }

func (e *OverloadedError) Error() string {
	return "pool: overloaded, retry after " + strconv.FormatInt(e.RetryAfter.Milliseconds(), 10) + "ms"
}

// ErrClosed is returned by Submit after Close.
var ErrClosed = errorString("pool: closed")

type errorString string

func (e errorString) Error() string { return string(e) }

// Pool is a bounded executor on ants/v2. Safe for concurrent use.
//
// Besides ants' own state, the pool counts active work: Submits under way
// plus tasks accepted and not yet returned. Close waits for that count to
// reach zero, so that a Submit racing Close either fails with ErrClosed or
// has its task finished before Close returns (ants alone would let such a
// task start on a fresh worker after Close returned).
type Pool struct {
	ap         *ants.PoolWithFuncGeneric[Task]
	overloaded *OverloadedError // shared, read-only: no allocation per refusal
	workers    int
	retryAfter time.Duration

	active    atomic.Int64  // Submits under way + tasks accepted and not returned
	closed    atomic.Bool   // set once, by the first Close
	idle      chan struct{} // cap 1: nudged when active drops to 0 after close
	closeOnce sync.Once
	done      chan struct{} // closed when all work is done and every worker gone
	closeErr  error         // set before done is closed
}

// New starts a pool. It starts no goroutine before the first Submit other
// than ants' clock and idle-worker reaper.
func New(opts *Options) (*Pool, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Workers <= 0 {
		o.Workers = DefaultWorkersPerCPU * runtime.GOMAXPROCS(0)
	}
	if o.RetryAfter <= 0 {
		o.RetryAfter = DefaultRetryAfter
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	ph := o.PanicHandler
	if ph == nil {
		ph = func(any) {}
	}
	p := &Pool{
		overloaded: &OverloadedError{RetryAfter: o.RetryAfter},
		workers:    o.Workers,
		retryAfter: o.RetryAfter,
		idle:       make(chan struct{}, 1),
		done:       make(chan struct{}),
	}
	ap, err := ants.NewPoolWithFuncGeneric(o.Workers, p.run,
		ants.WithNonblocking(o.Overload == Reject),
		ants.WithExpiryDuration(o.IdleTimeout),
		ants.WithPanicHandler(ph),
		ants.WithLogger(quiet{}),
	)
	if err != nil {
		return nil, err
	}
	p.ap = ap
	return p, nil
}

// run is the function every worker calls, once per task.
func (p *Pool) run(t Task) {
	defer p.finish() // also when t panics; ants recovers after this
	t.Run()
}

// finish ends one unit of active work.
func (p *Pool) finish() {
	if p.active.Add(-1) == 0 && p.closed.Load() {
		select {
		case p.idle <- struct{}{}:
		default: // a nudge is already pending
		}
	}
}

// Submit runs t on a worker. It blocks while the pool is full unless its
// Overload is Reject, in which case it returns an *OverloadedError. After Close
// it returns ErrClosed. The *OverloadedError is shared: do not modify it.
func (p *Pool) Submit(t Task) error {
	// Count first, then check: Close sets closed first, then reads the
	// count, so one of the two sees the other.
	p.active.Add(1)
	if p.closed.Load() {
		p.finish()
		return ErrClosed
	}
	err := p.ap.Invoke(t)
	if err == nil {
		return nil // the task owns the count now; run releases it
	}
	p.finish()
	switch err {
	case ants.ErrPoolOverload:
		return p.overloaded
	case ants.ErrPoolClosed:
		return ErrClosed
	default:
		return err
	}
}

// Running returns the number of workers alive (busy or idle).
func (p *Pool) Running() int { return p.ap.Running() }

// RetryAfter returns the retry hint of the pool's refusals.
func (p *Pool) RetryAfter() time.Duration { return p.retryAfter }

// Cap returns the bound on workers.
func (p *Pool) Cap() int { return p.workers }

// Close stops accepting tasks and waits for running ones until ctx is done.
// It returns nil once every task has returned and every goroutine the pool
// started has exited, or ctx's error if ctx is done first; the tasks still
// running then go on, and their workers exit when they return. Close may be
// called again (to wait longer) and from several goroutines.
func (p *Pool) Close(ctx context.Context) error {
	p.closeOnce.Do(func() {
		p.closed.Store(true)
		// ants waits for its goroutines only inside ReleaseContext; run it on
		// a goroutine of ours so that every Close, whatever its ctx, can wait
		// on done. That goroutine ends when the last task returns.
		go p.shutdown()
	})
	select {
	case <-p.done:
		if p.closeErr != nil && !errors.Is(p.closeErr, ants.ErrPoolClosed) {
			return p.closeErr
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// shutdown releases ants' pool and waits for all work to end.
func (p *Pool) shutdown() {
	// Release wakes blocked Submits (they fail with ErrClosed), stops idle
	// workers, ants' clock and reaper, and waits for them and for running
	// tasks. In one rare interleaving (a Submit inside ants at the moment
	// of release, onto a pool with no worker left) ants polls without
	// sleeping until that late task returns; it does not affect correctness.
	err := p.ap.ReleaseContext(context.Background())
	// Submits that raced the release, and their tasks.
	for p.active.Load() != 0 {
		<-p.idle
	}
	// A worker started by such a Submit exits right after its task.
	for p.ap.Running() != 0 {
		time.Sleep(time.Millisecond)
	}
	p.closeErr = err
	close(p.done)
}

// quiet is an ants.Logger that says nothing: every panic goes to the
// PanicHandler, and ants logs nothing else.
type quiet struct{}

func (quiet) Printf(string, ...any) {}
