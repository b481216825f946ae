package pool

import (
	"context"
	"math"
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
	// DefaultQueuePerWorker × Workers is the default bound on tasks
	// waiting for a worker.
	DefaultQueuePerWorker = 16
	// DefaultRetryAfter is the default hint carried by *OverloadedError.
	DefaultRetryAfter = 50 * time.Millisecond
	// DefaultIdleTimeout is the default Options.IdleTimeout.
	DefaultIdleTimeout = 10 * time.Second
	// Unbounded, as Options.Workers, bounds neither the workers nor the
	// queue: a worker is started whenever tasks wait and none is on its
	// way to them, so a task never waits for another to finish. What
	// bounds the work then is the callers' admission (a connection's
	// MaxInFlight and Admission).
	Unbounded = -1
)

// Options configure a Pool. A nil *Options gives the defaults; New copies
// the value. A zero or negative field takes its default, except Workers.
type Options struct {
	// Workers bounds the goroutines running tasks at once (default
	// DefaultWorkersPerCPU × GOMAXPROCS when New is called; Unbounded, or
	// any negative value: no bound).
	Workers int
	// Queue bounds the tasks waiting for a worker (default
	// DefaultQueuePerWorker × Workers; no bound when Workers is Unbounded).
	Queue int
	// Overload is what Submit does when the queue is full: wait for room
	// (Block, the default) or fail at once with an *OverloadedError
	// (Reject).
	Overload Overload
	// RetryAfter is the hint every refusal carries (default
	// DefaultRetryAfter): the pool's *OverloadedError, and a connection's
	// -32000 answers when this pool is its executor.
	RetryAfter time.Duration
	// IdleTimeout is how long an idle worker waits for a task before it
	// exits (default DefaultIdleTimeout): ants' reaper, which looks every
	// IdleTimeout, ends a worker idle for about one to two of them.
	IdleTimeout time.Duration
	// PanicHandler, if not nil, receives the value of a panicking Task, on
	// the worker goroutine inside the deferred recovery (so
	// runtime/debug.Stack shows where the panic happened). It must not
	// panic. Nil discards the value.
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

// Pool is an executor on ants/v2 with a queue in front of its workers,
// both bounded unless Options.Workers is Unbounded (see the package
// documentation for the guarantees and design). Safe for concurrent use.
type Pool struct {
	// A drain loop that finds the queue empty returns its worker to ants
	// at once: spinning there for more work made a pooled round trip about
	// twice as slow on a 2-CPU machine (the CPU it burns is the one the
	// peer and the reader need).
	//
	// Invariants, under mu: 0 <= drainers <= workers; q.len() <= queueCap.

	ap         *ants.PoolWithFuncGeneric[*Pool] // runs the drain loops
	overloaded *OverloadedError                 // shared, read-only: no allocation per refusal
	workers    int                              // math.MaxInt when unbounded
	unbounded  bool
	queueCap   int
	reject     bool
	retryAfter time.Duration
	panics     func(any)

	mu       sync.Mutex
	q        ring        // tasks waiting for a worker
	drainers int         // drain loops started and not returned
	full     atomic.Bool // drainers == workers, for Saturated
	starting bool        // a drain loop was started and has not yet run
	notFull  sync.Cond   // Submits waiting for room in the queue (Block)
	closed   bool        // set once, by the first Close

	closeOnce sync.Once
	released  bool          // under mu: closed, no drain loop left, q empty
	done      chan struct{} // under mu, made by the first Close to wait; closed by release
}

// New starts a pool. It starts no goroutine before the first Submit other
// than ants' clock and idle-worker reaper. Its error is ants' refusal of
// its options, which New normalises first: it returns none today.
func New(opts *Options) (*Pool, error) { return newPool(opts, nil) }

// newPool is New whose refusals are overloaded (nil: one made for it; it
// must carry the normalised RetryAfter).
func newPool(opts *Options, overloaded *OverloadedError) (*Pool, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	unbounded := o.Workers < 0
	size := o.Workers // ants' capacity: -1 is its unbounded pool
	switch {
	case unbounded:
		o.Workers, o.Queue, size = math.MaxInt, math.MaxInt, -1
	case o.Workers == 0:
		o.Workers = DefaultWorkersPerCPU * runtime.GOMAXPROCS(0)
		size = o.Workers
	}
	if o.Queue <= 0 {
		o.Queue = DefaultQueuePerWorker * o.Workers
	}
	if o.RetryAfter <= 0 {
		o.RetryAfter = DefaultRetryAfter
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if overloaded == nil {
		overloaded = &OverloadedError{RetryAfter: o.RetryAfter}
	}
	p := &Pool{
		overloaded: overloaded,
		workers:    o.Workers,
		unbounded:  unbounded,
		queueCap:   o.Queue,
		reject:     o.Overload == Reject,
		retryAfter: o.RetryAfter,
		panics:     o.PanicHandler,
	}
	p.notFull.L = &p.mu
	// ants blocks, never refuses: the pool starts at most Workers drain
	// loops, so an Invoke waits at most for a worker that is returning.
	ap, err := ants.NewPoolWithFuncGeneric(size, (*Pool).drain,
		ants.WithExpiryDuration(o.IdleTimeout),
		ants.WithLogger(quiet{}),
	)
	if err != nil {
		return nil, err
	}
	p.ap = ap
	return p, nil
}

// Submit queues t to run on a worker. When the queue is full it waits for
// room, or with Overload set to Reject returns an *OverloadedError at once
// (shared: do not modify it). After Close it returns ErrClosed.
func (p *Pool) Submit(t Task) error {
	p.mu.Lock()
	for !p.closed && p.q.len() >= p.queueCap {
		if p.reject {
			p.mu.Unlock()
			return p.overloaded
		}
		p.notFull.Wait()
	}
	return p.pushLocked(t)
}

// SubmitContext is Submit whose wait for room in a full queue ends with
// ctx: it then returns ctx.Err(), and t is not queued. Room is looked for
// before ctx is, so with a ctx already done it queues t when it can do so
// without waiting, and never waits. Under Reject it is Submit. A
// connection's reader submits this way, so that it can stop waiting when
// it must go on reading (see conn.Options.Overload).
func (p *Pool) SubmitContext(ctx context.Context, t Task) error {
	p.mu.Lock()
	if !p.closed && p.q.len() >= p.queueCap && !p.reject {
		if err := ctx.Err(); err != nil {
			p.mu.Unlock()
			return err
		}
		stop := context.AfterFunc(ctx, func() {
			p.mu.Lock()
			p.notFull.Broadcast()
			p.mu.Unlock()
		})
		defer stop() // after the unlock below: stop does not wait for the func
		for !p.closed && p.q.len() >= p.queueCap {
			// Woken with room, it takes it whatever ctx says: a
			// Signal is never lost to a waiter that gives up.
			if err := ctx.Err(); err != nil {
				p.mu.Unlock()
				return err
			}
			p.notFull.Wait()
		}
	}
	if p.reject && !p.closed && p.q.len() >= p.queueCap {
		p.mu.Unlock()
		return p.overloaded
	}
	return p.pushLocked(t)
}

// pushLocked queues t, starting a drain loop if need be, and unlocks mu;
// after Close it returns ErrClosed instead.
func (p *Pool) pushLocked(t Task) error {
	if p.closed {
		p.mu.Unlock()
		return ErrClosed
	}
	p.q.push(t)
	start := p.startLocked()
	p.mu.Unlock()
	if start {
		p.start()
	}
	return nil
}

// startLocked reports whether a drain loop must be started for the tasks
// queued, and counts it: none is starting (it will take the queue's head),
// and fewer than Workers run.
func (p *Pool) startLocked() bool {
	if p.starting || p.drainers >= p.workers {
		return false
	}
	p.drainers++
	p.full.Store(p.drainers >= p.workers)
	p.starting = true
	return true
}

// start hands a drain loop to an ants worker.
func (p *Pool) start() {
	if err := p.ap.Invoke(p); err != nil {
		go p.drain() // not expected (ants is released only after the last loop); never strand the queue
	}
}

// drain is the loop every worker runs: take tasks until the queue is
// empty, then return the worker to ants.
func (p *Pool) drain() {
	p.mu.Lock()
	p.starting = false
	for {
		t, ok := p.q.pop()
		if !ok {
			break
		}
		p.notFull.Signal()
		more := p.q.len() > 0 && p.startLocked()
		p.mu.Unlock()
		if more {
			p.start()
		}
		p.run(t)
		p.mu.Lock()
	}
	p.drainers--
	p.full.Store(false)
	last := p.closed && p.drainers == 0 && p.q.len() == 0
	p.mu.Unlock()
	if last {
		p.release()
	}
}

// run runs one task; a panic is reported to the PanicHandler and the
// drain loop goes on.
func (p *Pool) run(t Task) {
	defer func() {
		if r := recover(); r != nil && p.panics != nil {
			p.panics(r)
		}
	}()
	t.Run()
}

// QueueLen returns the number of tasks waiting for a worker: a snapshot,
// for metrics.
func (p *Pool) QueueLen() int { return p.locked(p.q.len) }

// locked returns f() read under mu.
func (p *Pool) locked(f func() int) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return f()
}

// QueueCap returns the bound on tasks waiting for a worker (Unbounded for
// none).
func (p *Pool) QueueCap() int {
	if p.unbounded {
		return Unbounded
	}
	return p.queueCap
}

// Busy returns the number of workers running tasks (draining the queue):
// a snapshot, for metrics.
func (p *Pool) Busy() int { return p.locked(func() int { return p.drainers }) }

// Running returns the number of workers alive (busy or idle): a
// snapshot, for metrics.
func (p *Pool) Running() int { return p.ap.Running() }

// RetryAfter returns the retry hint of the pool's refusals.
func (p *Pool) RetryAfter() time.Duration { return p.retryAfter }

// Saturated reports whether every worker is running tasks, so that a task
// queued now waits for one of them to finish: a snapshot, read without a
// lock. An unbounded pool is never saturated.
func (p *Pool) Saturated() bool { return p.full.Load() }

// Cap returns the bound on workers (Unbounded for none).
func (p *Pool) Cap() int {
	if p.unbounded {
		return Unbounded
	}
	return p.workers
}

// Close stops accepting tasks (Submit returns ErrClosed, a Submit waiting
// for room is woken with it) and waits until ctx is done for the tasks
// already accepted — running or queued — to return. It returns nil once
// they have, every worker has been told to exit and ants' own goroutines
// (its clock and reaper) to stop — they do so at once, waiting on nothing
// — or ctx's error if ctx is done first; the tasks go on, and their
// workers exit when they are done. Close may be called again (to wait
// longer) and from several goroutines.
func (p *Pool) Close(ctx context.Context) error {
	p.stop()
	p.mu.Lock()
	if p.released {
		p.mu.Unlock()
		return nil
	}
	if p.done == nil {
		p.done = make(chan struct{})
	}
	done := p.done
	p.mu.Unlock()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// stop makes the pool accept no more tasks, once; the pool is released
// when no task is left (release), by stop itself or by the last drain
// loop.
func (p *Pool) stop() {
	p.closeOnce.Do(func() {
		p.mu.Lock()
		p.closed = true
		p.notFull.Broadcast()
		last := p.drainers == 0 && p.q.len() == 0
		p.mu.Unlock()
		if last {
			p.release()
		}
	})
}

// release stops ants' pool — its idle workers, clock and reaper exit, and
// a busy worker exits once its drain loop returns — and closes done. It
// runs once: the pool is closed and no task is left. ants' ReleaseContext
// would also wait for those goroutines to be gone, but it polls (in a busy
// loop), which made closing many pools at once, one per short session,
// take milliseconds each: nothing here waits for them.
func (p *Pool) release() {
	p.ap.Release()
	p.mu.Lock()
	p.released = true
	if p.done != nil {
		close(p.done)
	}
	p.mu.Unlock()
}

// quiet is an ants.Logger that says nothing: every panic goes to the
// PanicHandler, and ants logs nothing else.
type quiet struct{}

func (quiet) Printf(string, ...any) {}
